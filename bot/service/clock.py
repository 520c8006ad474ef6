"""Time for timers, injectable so tests can move it by hand."""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float: ...

    async def sleep_until(self, when: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep_until(self, when: float) -> None:
        delay = when - time.time()
        if delay > 0:
            await asyncio.sleep(delay)


class OffsetClock:
    """The system clock set `offset` seconds ahead: how an end-to-end test lets a season's end pass
    while the bot is down, without waiting for it."""

    def __init__(self, offset: float) -> None:
        self.offset = offset

    def now(self) -> float:
        return time.time() + self.offset

    async def sleep_until(self, when: float) -> None:
        delay = when - self.now()
        if delay > 0:
            await asyncio.sleep(delay)


class ManualClock:
    """A clock that only moves when told to. ``advance`` returns once every timer that is awake
    (its time has come) has finished what it woke up to do, so tests see the consequences at once."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self._now = start
        self._tick = asyncio.Event()
        self._sleeping: dict[asyncio.Task[object], float] = {}
        self._timers: set[asyncio.Task[object]] = set()

    def now(self) -> float:
        return self._now

    async def sleep_until(self, when: float) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._timers.add(task)
        try:
            while self._now < when:
                self._sleeping[task] = when
                await self._tick.wait()
        finally:
            self._sleeping.pop(task, None)

    async def advance(self, seconds: float) -> None:
        self._now += seconds
        for _ in range(1000):
            await asyncio.sleep(0)  # timers created just now start and register first
            self._timers = {t for t in self._timers if not t.done()}
            awake = {t for t in self._timers if self._sleeping.get(t, self._now) <= self._now}
            tick, self._tick = self._tick, asyncio.Event()
            tick.set()
            if not awake:
                return
            await asyncio.wait(awake)
