"""Time for timers, injectable so tests can move it by hand."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

AlarmWork = Callable[[], Coroutine[Any, Any, None]]


class Alarm:
    """A timer that is a loop handle until it is due, and a task (running `wake`) from then on.

    Why not a task that sleeps: each move re-arms a game's two turn timers, and nearly all of them
    are cancelled by the next move long before they are due. A sleeping task cost a task, a
    coroutine, a future and a timer, a turn of the loop to unwind when cancelled, and a few µs in
    all; it also lived for seconds, so each garbage collection had to walk it. A handle costs a
    fraction of that."""

    def __init__(self, wake: AlarmWork) -> None:
        self._wake = wake
        self.handle: asyncio.Handle | None = None
        self.task: asyncio.Task[None] | None = None  # once due
        self.cancelled = False

    def start(self) -> None:
        if not self.cancelled and self.task is None:
            self.handle = None
            self.task = asyncio.get_running_loop().create_task(self._wake())

    def cancel(self) -> None:
        """Stop it, unless it is what runs now (a timer that re-arms its game finishes its work)."""
        self.cancelled = True
        if self.handle is not None:
            self.handle.cancel()
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()

    async def stopped(self) -> None:
        """Cancel it and wait until its work, if it had begun, has ended."""
        self.cancel()
        if self.task is not None and self.task is not asyncio.current_task():
            await asyncio.wait([self.task])


def _alarm_in(delay: float, wake: AlarmWork) -> Alarm:
    alarm = Alarm(wake)
    alarm.handle = asyncio.get_running_loop().call_later(max(0.0, delay), alarm.start)
    return alarm


class Clock(Protocol):
    def now(self) -> float: ...

    async def sleep_until(self, when: float) -> None: ...

    def alarm(self, when: float, wake: AlarmWork) -> Alarm:
        """Run `wake` as a task of its own once `when` has come."""
        ...


class SystemClock:
    def now(self) -> float:
        return time.time()

    async def sleep_until(self, when: float) -> None:
        delay = when - time.time()
        if delay > 0:
            await asyncio.sleep(delay)

    def alarm(self, when: float, wake: AlarmWork) -> Alarm:
        return _alarm_in(when - time.time(), wake)


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

    def alarm(self, when: float, wake: AlarmWork) -> Alarm:
        return _alarm_in(when - self.now(), wake)


class ManualClock:
    """A clock that only moves when told to. ``advance`` returns once every timer that is awake
    (its time has come) has finished what it woke up to do, so tests see the consequences at once."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self._now = start
        self._tick = asyncio.Event()
        self._sleeping: dict[asyncio.Task[object], float] = {}
        self._timers: set[asyncio.Task[object]] = set()
        self._alarms: list[tuple[float, Alarm]] = []

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

    def alarm(self, when: float, wake: AlarmWork) -> Alarm:
        alarm = Alarm(wake)
        if when <= self._now:
            alarm.handle = asyncio.get_running_loop().call_soon(self._start, alarm)
        else:
            self._alarms.append((when, alarm))
        return alarm

    def _start(self, alarm: Alarm) -> None:
        """Its task is a timer `advance` waits for."""
        alarm.start()
        if alarm.task is not None:
            self._timers.add(alarm.task)

    def _ring(self) -> None:
        """Start the alarms whose time has come."""
        due = [alarm for when, alarm in self._alarms if when <= self._now]
        self._alarms = [(when, alarm) for when, alarm in self._alarms if when > self._now and not alarm.cancelled]
        for alarm in due:
            self._start(alarm)

    async def advance(self, seconds: float) -> None:
        self._now += seconds
        for _ in range(1000):
            self._ring()
            await asyncio.sleep(0)  # timers created just now start and register first
            self._timers = {t for t in self._timers if not t.done()}
            awake = {t for t in self._timers if self._sleeping.get(t, self._now) <= self._now}
            tick, self._tick = self._tick, asyncio.Event()
            tick.set()
            if not awake:
                return
            await asyncio.wait(awake)
