"""The one rate-limit state of the bot's token, fed by every answer from Discord, whoever made the
call (the fast path, or discord.py through `transport.discordpy`).

- **Buckets** are learnt from `X-RateLimit-Bucket`, `-Remaining` and `-Reset-After`: a bucket with
  nothing left says how long until its next call may go (`ready_in`), so nothing is hard-coded.
- **A global 429** holds every counted call of the process (those made with the bot's token) for
  its `retry_after`; webhook and interaction calls don't count against the global limit and go on.
- **A Cloudflare ban** (a 429 in HTML, or without Discord's rate-limit headers) holds every call,
  counted or not, for its `Retry-After` (or `BAN_DEFAULT`), logged once: it is never retried per game.
- **Invalid requests**: Discord bans an IP for an hour after 10,000 answers of 401, 403 or 429 in
  10 minutes (a 429 of scope `shared` doesn't count). They are counted over a sliding 10 minutes; past
  `INVALID_LIMIT` the breaker opens: the calls that keep failing so (retries of a forbidden channel)
  are given up rather than retried, and the log says so once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

log = logging.getLogger(__name__)

INVALID_WINDOW = 600.0  # Discord's window for invalid requests
INVALID_LIMIT = 1_000  # a tenth of Discord's 10,000: the breaker opens here
BAN_DEFAULT = 60.0  # seconds to hold every call after a ban page that gives no Retry-After
BUCKETS_KEPT = 10_000


@dataclass
class Bucket:
    remaining: int
    reset_at: float  # monotonic


class RateLimits:
    """Per-token state: buckets, the global pause, a ban, and the invalid-request breaker."""

    def __init__(self, *, invalid_limit: int = INVALID_LIMIT, clock: Callable[[], float] = time.monotonic) -> None:
        self.invalid_limit = invalid_limit
        self._clock = clock
        self._buckets: dict[str, Bucket] = {}  # by the caller's key (a route and its major parameter)
        self.counted_paused_until = 0.0  # a global 429: the token's counted calls wait
        self.all_paused_until = 0.0  # a Cloudflare ban: every call waits
        self._invalid: deque[float] = deque()
        self._refused: dict[str, float] = {}  # route key -> when it last answered 401 or 403
        self._breaker_logged = False
        self.global_429s = self.bans = 0

    # before a call
    def wait_for(self, counted: bool) -> float:
        """Seconds a call must wait before it may go (0: now)."""
        now = self._clock()
        until = max(self.all_paused_until, self.counted_paused_until) if counted else self.all_paused_until
        return max(0.0, until - now)

    async def clear(self, counted: bool) -> None:
        """Wait out a global pause (counted calls) or a ban (every call)."""
        while (wait := self.wait_for(counted)) > 0:
            await asyncio.sleep(wait)

    def ready_in(self, key: str) -> float:
        """Seconds until the bucket of `key` has room for a call (0: it has, or isn't known yet)."""
        bucket = self._buckets.get(key)
        if bucket is None or bucket.remaining > 0:
            return 0.0
        return max(0.0, bucket.reset_at - self._clock())

    def spend(self, key: str) -> None:
        """A call of `key` is on its way: one less until its answer says how many are left."""
        bucket = self._buckets.get(key)
        if bucket is not None:
            if bucket.reset_at <= self._clock():
                del self._buckets[key]
            else:
                bucket.remaining -= 1

    @property
    def breaker_open(self) -> bool:
        self._forget_old(self._clock())
        return len(self._invalid) >= self.invalid_limit

    def held_back(self, key: str | None) -> bool:
        """Whether a call of `key` is not to be made: the breaker is open and this route refused the
        bot lately (calls that would only add to the count)."""
        if key is None or key not in self._refused or not self.breaker_open:
            return False
        return self._clock() - self._refused[key] < INVALID_WINDOW

    # after a call
    def note(self, key: str | None, status: int, headers: Mapping[str, str], body: bytes | str | None) -> None:
        """Learn from an answer: its bucket, and a 429's or an invalid request's consequences."""
        now = self._clock()
        remaining, reset_after = headers.get("x-ratelimit-remaining"), headers.get("x-ratelimit-reset-after")
        if key is not None and remaining is not None and reset_after is not None:
            with contextlib.suppress(ValueError):
                self._buckets[key] = Bucket(int(remaining), now + float(reset_after))
            if len(self._buckets) > BUCKETS_KEPT:
                self._buckets = _newest({k: b for k, b in self._buckets.items() if b.reset_at > now})
        if status == 429:
            self._rate_limited(key, headers, body, now)
        if status in (401, 403) or (status == 429 and headers.get("x-ratelimit-scope") != "shared"):
            self._invalid.append(now)
            if status != 429 and key is not None:
                self._refused[key] = now
                if len(self._refused) > BUCKETS_KEPT:
                    self._refused = _newest({k: t for k, t in self._refused.items() if now - t < INVALID_WINDOW})
            if self.breaker_open and not self._breaker_logged:
                self._breaker_logged = True
                log.error("%d answers of 401, 403 or 429 from Discord in the last 10 minutes: giving up the "
                          "calls that cause them (Discord bans the bot's IP for an hour at 10,000)", len(self._invalid))

    def _rate_limited(self, key: str | None, headers: Mapping[str, str], body: bytes | str | None, now: float) -> None:
        data = rate_limit_answer(headers, body)
        if data is None:
            wait = seconds_in(headers.get("retry-after"), BAN_DEFAULT)
            if now >= self.all_paused_until:  # a new ban, not calls already on their way into this one
                self.bans += 1
                log.error("Discord's edge refused the bot (a 429 that is not Discord's rate-limit answer, most "
                          "likely a Cloudflare ban): every call waits %.0f s", wait)
            self.all_paused_until = max(self.all_paused_until, now + wait)
            return
        wait = seconds_in(str(data.get("retry_after", headers.get("retry-after", 1.0))), 1.0)
        if data.get("global") is True or headers.get("x-ratelimit-global", "").lower() == "true":
            self.global_429s += 1
            if now >= self.counted_paused_until:
                log.warning("global rate limit: the token's calls wait %.2f s", wait)
            self.counted_paused_until = max(self.counted_paused_until, now + wait)
        elif key is not None:
            self._buckets[key] = Bucket(0, now + wait)

    def _forget_old(self, now: float) -> None:
        while self._invalid and now - self._invalid[0] > INVALID_WINDOW:
            self._invalid.popleft()
        if not self._invalid:
            self._breaker_logged = False
            self._refused.clear()


def _newest(kept: dict[str, Any]) -> dict[str, Any]:
    """`kept` down to the newest half of `BUCKETS_KEPT` if it is still full: pruning is then a pass
    every few thousand calls, not one a call (a webhook's bucket is per interaction, so thousands
    of them can be current at once)."""
    if len(kept) <= BUCKETS_KEPT // 2:
        return kept
    keys = list(kept)[-(BUCKETS_KEPT // 2):]  # in the order they were learnt
    return {key: kept[key] for key in keys}


def rate_limit_answer(headers: Mapping[str, str], body: bytes | str | None) -> dict[str, Any] | None:
    """A 429's JSON as Discord writes it (`retry_after`, `global`), or None for any other 429: an
    HTML page or a bare answer is Cloudflare's, for an IP that made too many invalid requests."""
    if "html" in headers.get("content-type", "").lower() or not body:
        return None
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    return data if isinstance(data, dict) and "retry_after" in data else None


def seconds_in(value: str | None, default: float) -> float:
    try:
        return max(0.0, float(value)) if value is not None else default
    except ValueError:
        return default
