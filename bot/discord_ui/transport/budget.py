"""One budget for the REST calls that count against the bot token's global rate limit.

Discord lets a token make about 50 requests a second across all its processes; interaction
callbacks and calls through an interaction's webhook don't count, everything else does (channel
posts and edits, deletes, every direct-message call). discord.py waits out a 429 only after
receiving it, and a global 429 stalls every table at once, so the bot paces itself below the limit
instead: every counted call first takes a slot here. Slots go by priority (what is owed before a
table refresh, a table refresh before a clean-up), and in order within one priority.

The pace is a token bucket whose depth plus one second of refill stays a tenth under the limit:
a call reaches Discord a little after its slot is given (the event loop is busy, the network
varies), and a window that Discord opens at a late call's arrival would otherwise catch one more
call at its end than the limit allows.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable
from enum import IntEnum

HEADROOM = 0.9  # of the rate, per second: room for jitter, and for calls the budget doesn't see (start-up)
BURST = 0.05  # of the rate: calls allowed at once, within the headroom
_WHOLE = 1 - 1e-9  # a slot's worth of refill, allowing for float rounding


class Priority(IntEnum):
    """Lower goes first."""

    OWED = 0  # what a saved action owes the channel: summaries, deals, the game-over post, notices
    TABLE = 1  # a table (or lobby) brought up to date; the latest state is rendered once allowed
    DM = 2  # a hand by direct message (the panel shows the same cards at once)
    CLEANUP = 3  # deleting a turn mention or a replaced table


class RestBudget:
    """Paces counted REST calls at `rate` per second; `await take(priority)` before each call."""

    def __init__(self, rate: float, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        if rate <= 0:
            raise ValueError("the rate must be positive")
        self.depth = max(1.0, rate * BURST)
        self.rate = max(rate * HEADROOM - self.depth, rate / 2)  # a burst and a second of refill: 0.9 × rate
        self._clock, self._sleep = clock, sleep
        self._tokens = self.depth
        self._stamp = clock()
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._pump: asyncio.Task[None] | None = None
        self.spent: dict[Priority, int] = dict.fromkeys(Priority, 0)
        self.waited = 0.0  # seconds spent waiting, summed over calls: how hard the budget pinches

    @property
    def queued(self) -> int:
        return sum(1 for *_, future in self._waiting if not future.done())

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.depth, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def spent_elsewhere(self, calls: int) -> None:
        """Calls made without a slot (logging in: who the bot is, its application, the command sync)
        still count in Discord's second: the slots after them wait their share."""
        self._refill()
        self._tokens -= calls

    async def take(self, priority: Priority) -> None:
        """Wait for a slot; callers of a higher priority that wait too are served first."""
        self.spent[priority] += 1
        self._refill()
        if not self._waiting and self._tokens >= _WHOLE:
            self._tokens -= 1
            return
        started = self._clock()
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), future))
        if self._pump is None or self._pump.done():
            self._pump = asyncio.create_task(self._release())
        try:
            await future
        finally:
            self.waited += self._clock() - started

    async def _release(self) -> None:
        """Hand out slots as the bucket refills, best priority first; skips callers that gave up."""
        while self._waiting:
            self._refill()
            if self._tokens < _WHOLE:
                await self._sleep((1 - self._tokens) / self.rate)
                continue
            _, _, future = heapq.heappop(self._waiting)
            if not future.done():
                self._tokens -= 1
                future.set_result(None)
