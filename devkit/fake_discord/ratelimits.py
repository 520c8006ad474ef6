"""Discord's REST rate limits as the fake enforces them: the global limit, per-route buckets, 429s.

Discord documents the global limit (50 requests a second per bot token; interaction endpoints are
exempt: the callback and every /webhooks/{application_id}/{interaction_token} route) and the
headers, but not the per-route figures, which clients learn from the `X-RateLimit-*` headers of
each answer. `ROUTE_LIMITS` uses the figures bots commonly observe; most of them were published in
the rate-limit table of Discord's early API docs (removed in 2017, still quoted by library guides
and seen in the headers since): channel messages 5 per 5 s per channel, deletes 5 per 1 s per
channel, reactions 1 per 0.25 s per channel; webhooks answer with 5 per 2 s per webhook.

A bucket's window opens at its first request and lasts `period`; `limit` requests are served in it
and the next ones answered 429 until it ends (discord.py models exactly that from the headers: it
sleeps `X-RateLimit-Reset-After` once `X-RateLimit-Remaining` reaches 0). Every request the bot
makes counts, whatever the answer, except those refused by a forced 429 or by the global limit and
those answered with a server error (5xx: see `RateLimiter.refund`).
Forced 429s (`Storm`, `rate_limit_next`) carry no bucket headers: discord.py would take a made-up
bucket hash for the route's own and pace the route by the wrong bucket.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

GLOBAL_RATE = 50  # requests per second per bot token (documented by Discord)
DEFAULT_ROUTE_RATE = 50  # per second per route, for those not in ROUTE_LIMITS: as wide as the global limit
# FakeDiscord(**DISCORD_LIMITS): Discord's limits on (the pytest fixture's default);
# NO_LIMITS (FakeDiscord's default): a fake that never says no.
DISCORD_LIMITS: Mapping[str, Any] = {"global_rate": GLOBAL_RATE, "route_limits": True}
NO_LIMITS: Mapping[str, Any] = {"global_rate": None, "route_limits": False}
SCOPES = ("global", "user", "shared")  # X-RateLimit-Scope: the bot's own bucket is "user"

# Kinds of REST call, for counting what the bot asks of Discord.
CALLBACK = "callback"  # POST /interactions/{id}/{token}/callback (exempt)
WEBHOOK_FOLLOWUP = "webhook_followup"  # POST /webhooks/{application_id}/{token} (exempt)
WEBHOOK_EDIT = "webhook_edit"  # PATCH .../messages/{message_id or @original} (exempt)
WEBHOOK_OTHER = "webhook_other"  # GET / DELETE of an interaction's message (exempt)
CHANNEL_POST = "channel_post"
CHANNEL_EDIT = "channel_edit"
DM_OPEN = "dm_open"  # POST /users/@me/channels
DM_POST = "dm_post"
DM_EDIT = "dm_edit"
OTHER = "other"  # deletes, reactions, gets, commands, gateway...
EXEMPT_KINDS = (CALLBACK, WEBHOOK_FOLLOWUP, WEBHOOK_EDIT, WEBHOOK_OTHER)

_MESSAGES = "/channels/{channel_id}/messages"
_MESSAGE = "/channels/{channel_id}/messages/{message_id}"
_REACTION = "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me"
_WEBHOOK = "/webhooks/{application_id}/{token}"
_WEBHOOK_MESSAGE = "/webhooks/{application_id}/{token}/messages/{message_id}"


@dataclass(frozen=True)
class RouteLimit:
    """`limit` requests per `period` seconds in each bucket: one per value of the route's `major`
    parameter (a channel, an interaction token); routes naming the same `bucket` share it."""

    bucket: str
    limit: int
    period: float
    major: str | None

    @property
    def hash(self) -> str:
        """The X-RateLimit-Bucket value (Discord sends an opaque hash per bucket)."""
        return hashlib.md5(self.bucket.encode()).hexdigest()


# (method, route template) -> its bucket. Routes left out get DEFAULT_ROUTE_RATE per route and
# channel/guild; the interaction callback has no bucket (it can only be used once anyway).
ROUTE_LIMITS: Mapping[tuple[str, str], RouteLimit] = {
    ("POST", _MESSAGES): RouteLimit("message-create", 5, 5.0, "channel_id"),
    ("PATCH", _MESSAGE): RouteLimit("message-edit", 5, 5.0, "channel_id"),
    ("DELETE", _MESSAGE): RouteLimit("message-delete", 5, 1.0, "channel_id"),
    ("PUT", _REACTION): RouteLimit("reaction", 1, 0.25, "channel_id"),
    ("DELETE", _REACTION): RouteLimit("reaction", 1, 0.25, "channel_id"),
    ("POST", _WEBHOOK): RouteLimit("webhook-execute", 5, 2.0, "token"),
    ("GET", _WEBHOOK_MESSAGE): RouteLimit("webhook-get", 5, 2.0, "token"),
    ("PATCH", _WEBHOOK_MESSAGE): RouteLimit("webhook-edit", 5, 2.0, "token"),
    ("DELETE", _WEBHOOK_MESSAGE): RouteLimit("webhook-delete", 5, 2.0, "token"),
}
_NO_BUCKET = {("POST", "/interactions/{interaction_id}/{token}/callback")}


def is_exempt(template: str) -> bool:
    """Interaction endpoints do not count against the global limit."""
    return template.startswith(("/interactions/", "/webhooks/"))


def kind_of(method: str, template: str | None, in_dm: bool) -> str:
    """What sort of call this is, for the counters (`in_dm`: its channel is a DM channel)."""
    if template is None:
        return OTHER
    if template.startswith("/interactions/"):
        return CALLBACK
    if template == _WEBHOOK:
        return WEBHOOK_FOLLOWUP
    if template == _WEBHOOK_MESSAGE:
        return WEBHOOK_EDIT if method == "PATCH" else WEBHOOK_OTHER
    if (method, template) == ("POST", "/users/@me/channels"):
        return DM_OPEN
    if (method, template) == ("POST", _MESSAGES):
        return DM_POST if in_dm else CHANNEL_POST
    if (method, template) == ("PATCH", _MESSAGE):
        return DM_EDIT if in_dm else CHANNEL_EDIT
    return OTHER


@dataclass
class _Window:
    opened: float
    used: int = 0


@dataclass
class Call:
    """One REST request as the limiter sees it."""

    method: str
    path: str
    template: str
    params: Mapping[str, str]
    kind: str
    message_id: int | None = None  # the message it reads or changes (@original resolved)
    token: str | None = None  # the interaction token of a webhook route
    windows: list[_Window] = field(default_factory=list)  # the windows it took a place in

    @property
    def exempt(self) -> bool:
        return is_exempt(self.template)


@dataclass(eq=False)
class Storm:
    """Forced 429s for `FakeDiscord.force_429*`: every matching call until `until` (limiter clock).

    `retry_after` None tells the client to wait until the storm ends (discord.py then retries once
    and succeeds); a shorter one makes it retry until it gives up (5 tries) with HTTPException 429.
    """

    scope: str
    until: float
    retry_after: float | None = None
    message_id: int | None = None
    token: str | None = None
    hits: int = 0
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True

    def matches(self, call: Call) -> bool:
        if self.message_id is not None:
            return call.message_id == self.message_id
        if self.token is not None:
            return call.token == self.token
        return not call.exempt


@dataclass
class _NextRule:
    """`FakeDiscord.rate_limit_next`: the next `remaining` matching requests get a 429."""

    method: str
    regex: re.Pattern[str]
    retry_after: float
    is_global: bool
    scope: str
    remaining: int


def _ceil_ms(seconds: float) -> float:
    """Rounded up to the millisecond, as Discord sends them: waiting that long is always enough."""
    return max(0.001, math.ceil(round(seconds * 1000, 6)) / 1000)  # round: 1.9999999 is 2, not 2.001


def bucket_headers(limit: int, remaining: int, reset_after: float, bucket: str) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
        "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        "X-RateLimit-Bucket": bucket,
    }


def too_many_requests(retry_after: float, scope: str, headers: Mapping[str, str] | None = None) -> web.Response:
    """Discord's 429: JSON body with `retry_after` in seconds; headers `Retry-After` (whole seconds),
    `X-RateLimit-Scope`, `X-RateLimit-Global` when global, plus `headers` (a route's bucket).
    `Via` is there because discord.py takes a 429 without it for a Cloudflare ban and gives up."""
    is_global = scope == "global"
    all_headers = {
        "Content-Type": "application/json",
        "Via": "1.1 google",
        "Retry-After": str(max(1, math.ceil(retry_after))),
        "X-RateLimit-Scope": scope,
        **(headers or {}),
    }
    if is_global:
        all_headers["X-RateLimit-Global"] = "true"
    body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": is_global, "code": 0}
    return web.Response(body=orjson.dumps(body), status=429, headers=all_headers)


@dataclass
class RateLimiter:
    """The limits of one fake Discord, and what it counted.

    `global_rate` None: no global limit; `routes` None: no per-route buckets (nor their headers).
    `clock` is `time.monotonic` unless a test freezes it to count calls "in one second".
    """

    global_rate: int | None = None
    routes: Mapping[tuple[str, str], RouteLimit] | None = None
    clock: Callable[[], float] = time.monotonic
    calls: Counter[str] = field(default_factory=Counter)  # every request received, by kind
    global_calls: int = 0  # requests that counted against the global limit (429s included)
    limited: Counter[str] = field(default_factory=Counter)  # 429s answered, by scope
    forced: int = 0  # of those, the ones a test forced (storms, rate_limit_next): not the bot's doing
    storms: list[Storm] = field(default_factory=list)
    _next: list[_NextRule] = field(default_factory=list)
    _global: _Window | None = None
    _buckets: dict[tuple[str, str], _Window] = field(default_factory=dict)

    def admit(self, call: Call, authorized: bool = True) -> tuple[web.Response | None, dict[str, str]]:
        """Count `call`; a 429 to answer it with, or None and the headers for its answer."""
        self.calls[call.kind] += 1
        if not authorized:
            return None, {}
        if not call.exempt:
            self.global_calls += 1
        now = self.clock()
        refused = self._forced(call, now) or self._global_limit(call, now)
        if refused is not None:
            return refused, {}
        return self._route_limit(call, now)

    def _refuse(self, retry_after: float, scope: str, headers: Mapping[str, str] | None = None) -> web.Response:
        self.limited[scope] += 1
        return too_many_requests(retry_after, scope, headers)

    def _forced(self, call: Call, now: float) -> web.Response | None:
        for rule in self._next:
            if rule.method in ("*", call.method) and rule.regex.match(call.path):
                rule.remaining -= 1
                if rule.remaining <= 0:
                    self._next.remove(rule)
                self.forced += 1
                return self._refuse(rule.retry_after, "global" if rule.is_global else rule.scope)
        self.storms = [s for s in self.storms if not s.cancelled and now < s.until]
        for storm in self.storms:
            if storm.matches(call):
                storm.hits += 1
                self.forced += 1
                wait = storm.retry_after if storm.retry_after is not None else _ceil_ms(storm.until - now)
                return self._refuse(wait, storm.scope)
        return None

    def _global_limit(self, call: Call, now: float) -> web.Response | None:
        if self.global_rate is None or call.exempt:
            return None
        window = self._global
        if window is None or now >= window.opened + 1.0:
            window = self._global = _Window(now)
        if window.used >= self.global_rate:
            return self._refuse(_ceil_ms(window.opened + 1.0 - now), "global")
        window.used += 1
        call.windows.append(window)
        return None

    def _route_limit(self, call: Call, now: float) -> tuple[web.Response | None, dict[str, str]]:
        limit = self.route_limit(call.method, call.template)
        if limit is None:
            return None, {}
        key = (limit.bucket, call.params.get(limit.major, "") if limit.major else "")
        window = self._buckets.get(key)
        if window is None or now >= window.opened + limit.period:
            window = self._buckets[key] = _Window(now)
        reset_after = _ceil_ms(window.opened + limit.period - now)
        if window.used >= limit.limit:
            return self._refuse(reset_after, "user", bucket_headers(limit.limit, 0, reset_after, limit.hash)), {}
        window.used += 1
        call.windows.append(window)
        return None, bucket_headers(limit.limit, limit.limit - window.used, reset_after, limit.hash)

    @staticmethod
    def refund(call: Call) -> None:
        """Give back the places `call` took: it was answered with a server error (5xx), so Discord's
        API never counted it (discord.py retries some at once, within one bucket acquisition)."""
        for window in call.windows:
            window.used -= 1
        call.windows.clear()

    def route_limit(self, method: str, template: str) -> RouteLimit | None:
        """The bucket of a route (None: no per-route limit)."""
        if self.routes is None or (method, template) in _NO_BUCKET:
            return None
        found = self.routes.get((method, template))
        if found is not None:
            return found
        major = next((p for p in ("channel_id", "guild_id") if "{" + p + "}" in template), None)
        return RouteLimit(f"{method} {template}", DEFAULT_ROUTE_RATE, 1.0, major)

    def limit_next(self, method: str, regex: re.Pattern[str], retry_after: float, is_global: bool, scope: str,
                   times: int) -> None:
        self._next.append(_NextRule(method, regex, retry_after, is_global, scope, times))

    def storm(self, seconds: float, scope: str, retry_after: float | None = None, *,
              message_id: int | None = None, token: str | None = None) -> Storm:
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {SCOPES}, not {scope!r}")
        if seconds <= 0 or (retry_after is not None and retry_after <= 0):
            raise ValueError("seconds and retry_after must be positive")
        storm = Storm(scope, self.clock() + seconds, retry_after, message_id, token)
        self.storms.append(storm)
        return storm

    def summary(self, interactions: int) -> dict[str, Any]:
        """The counters as one JSON-able dict, for benchmarks."""
        return {
            "calls_by_kind": dict(sorted(self.calls.items())),
            "global_counted_calls": self.global_calls,
            "exempt_calls": sum(self.calls[kind] for kind in EXEMPT_KINDS),
            "answered_429": dict(sorted(self.limited.items())),
            "forced_429": self.forced,
            "interactions": interactions,
            "counted_calls_per_interaction": round(self.global_calls / interactions, 3) if interactions else None,
        }
