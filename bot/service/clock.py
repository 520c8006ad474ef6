"""Time for timers, injectable so tests can move it by hand."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import math
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

AlarmWork = Callable[[], Coroutine[Any, Any, None]]


class Alarm:
    """A timer that waits in its clock's schedule until it is due, and is a task (running `wake`)
    from then on.

    Why not a task that sleeps: each move re-arms a game's two turn timers, and nearly all of them
    are cancelled by the next move long before they are due. A sleeping task cost a task, a
    coroutine, a future and a timer, a turn of the loop to unwind when cancelled, and a few µs in
    all; it also lived for seconds, so each garbage collection had to walk it."""

    def __init__(self, wake: AlarmWork) -> None:
        self._wake: AlarmWork | None = wake
        self.handle: asyncio.Handle | None = None  # a hand-moved clock's start, soon
        self.task: asyncio.Task[None] | None = None  # once due
        self.cancelled = False
        self.on_cancel: Callable[[], None] | None = None  # its schedule counts what it holds for nothing

    def start(self) -> None:
        if not self.cancelled and self.task is None and self._wake is not None:
            self.handle = None
            self.task = asyncio.get_running_loop().create_task(self._wake())

    def cancel(self) -> None:
        """Stop it, unless it is what runs now (a timer that re-arms its game finishes its work)."""
        if not self.cancelled and self.task is None and self.on_cancel is not None:
            self.on_cancel()
        self.cancelled = True
        if self.task is None:
            self._wake = None  # let go of its game at once: it may wait in the schedule a while
        if self.handle is not None:
            self.handle.cancel()
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()

    async def stopped(self) -> None:
        """Cancel it and wait until its work, if it had begun, has ended."""
        self.cancel()
        if self.task is not None and self.task is not asyncio.current_task():
            await asyncio.wait([self.task])


COMPACT_AFTER = 1_000  # cancelled alarms a schedule may hold before it considers a rebuild


class _Schedule:
    """The alarms of one event loop in a heap, under one loop timer for the earliest.

    Why not a loop timer each: the loop's timers are the costliest handle it makes, and two were
    armed and cancelled on every move. A cancelled alarm stays in the heap until its time comes
    (a flag, not a search); once they are most of it, the heap is rebuilt without them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._heap: list[tuple[float, int, Alarm]] = []
        self._order = itertools.count()  # equal times ring in the order they were set
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf
        self._cancelled = 0

    def add(self, delay: float, wake: AlarmWork) -> Alarm:
        alarm = Alarm(wake)
        alarm.on_cancel = self._one_cancelled
        at = self.loop.time() + max(0.0, delay)
        heapq.heappush(self._heap, (at, next(self._order), alarm))
        if at < self._timer_at:
            self._arm(at)
        return alarm

    def _one_cancelled(self) -> None:
        self._cancelled += 1
        if self._cancelled > COMPACT_AFTER and 2 * self._cancelled > len(self._heap):
            self._heap = [entry for entry in self._heap if not entry[2].cancelled]
            heapq.heapify(self._heap)
            self._cancelled = 0

    def _arm(self, at: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_at = self.loop.call_at(at, self._ring), at

    def _ring(self) -> None:
        self._timer, self._timer_at = None, math.inf
        now = self.loop.time()
        heap = self._heap
        while heap and (heap[0][0] <= now or heap[0][2].cancelled):
            alarm = heapq.heappop(heap)[2]
            if alarm.cancelled:
                self._cancelled -= 1
            else:
                alarm.on_cancel = None
                alarm.start()
        if heap:
            self._arm(heap[0][0])


class _Schedules:
    """A schedule per event loop (tests run one loop after another with the same clock)."""

    def __init__(self) -> None:
        self._schedule: _Schedule | None = None

    def alarm_in(self, delay: float, wake: AlarmWork) -> Alarm:
        loop = asyncio.get_running_loop()
        schedule = self._schedule
        if schedule is None or schedule.loop is not loop:
            schedule = self._schedule = _Schedule(loop)
        return schedule.add(delay, wake)


class Clock(Protocol):
    def now(self) -> float: ...

    async def sleep_until(self, when: float) -> None: ...

    def alarm(self, when: float, wake: AlarmWork) -> Alarm:
        """Run `wake` as a task of its own once `when` has come."""
        ...


class SystemClock:
    def __init__(self) -> None:
        self._schedules = _Schedules()

    def now(self) -> float:
        return time.time()

    async def sleep_until(self, when: float) -> None:
        delay = when - time.time()
        if delay > 0:
            await asyncio.sleep(delay)

    def alarm(self, when: float, wake: AlarmWork) -> Alarm:
        return self._schedules.alarm_in(when - time.time(), wake)


class OffsetClock:
    """The system clock set `offset` seconds ahead: how an end-to-end test lets a season's end pass
    while the bot is down, without waiting for it."""

    def __init__(self, offset: float) -> None:
        self.offset = offset
        self._schedules = _Schedules()

    def now(self) -> float:
        return time.time() + self.offset

    async def sleep_until(self, when: float) -> None:
        delay = when - self.now()
        if delay > 0:
            await asyncio.sleep(delay)

    def alarm(self, when: float, wake: AlarmWork) -> Alarm:
        return self._schedules.alarm_in(when - self.now(), wake)


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
