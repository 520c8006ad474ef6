"""Turn timers are alarms on the clock: a loop handle until due, a task from then on. One that is
cancelled never acts; one that re-arms its own game while it acts is not cut short by doing so."""

from __future__ import annotations

import asyncio
import weakref

from bot.service import ManualClock
from bot.service.clock import Alarm, SystemClock


async def test_an_alarm_wakes_once_its_time_has_come() -> None:
    clock = SystemClock()
    woke = asyncio.Event()

    async def wake() -> None:
        woke.set()

    alarm = clock.alarm(clock.now() + 0.02, wake)
    assert alarm.task is None  # nothing runs while it waits
    await asyncio.wait_for(woke.wait(), 2.0)
    assert alarm.task is not None  # it woke through a task of its own


async def test_a_cancelled_alarm_never_wakes() -> None:
    clock = SystemClock()
    woke: list[str] = []

    async def wake() -> None:
        woke.append("woke")

    clock.alarm(clock.now() + 0.01, wake).cancel()
    await asyncio.sleep(0.05)
    assert woke == []


async def test_an_alarm_that_replaces_itself_while_it_acts_finishes_its_work() -> None:
    clock = SystemClock()
    done = asyncio.Event()
    alarms: list[Alarm] = []

    async def wake() -> None:
        alarms[0].cancel()  # what `Timers.arm` does when a timer's own work arms the next one
        await asyncio.sleep(0.01)
        done.set()

    alarms.append(clock.alarm(clock.now(), wake))
    await asyncio.wait_for(done.wait(), 2.0)


async def test_alarms_cancelled_by_the_thousand_let_go_of_their_games_and_the_others_still_ring() -> None:
    """What each move does to a game's turn timers: arm, then cancel long before they are due."""
    clock = SystemClock()
    rang = asyncio.Event()

    class Game:
        async def wake(self) -> None:
            raise AssertionError("a cancelled alarm woke")

    async def ring() -> None:
        rang.set()

    games = [Game() for _ in range(3_000)]
    held = [weakref.ref(game) for game in games]
    kept = clock.alarm(clock.now() + 0.05, ring)
    for game in games:
        clock.alarm(clock.now() + 60, game.wake).cancel()
    del games, game
    assert all(game() is None for game in held)  # nothing waits on for a minute holding them
    await asyncio.wait_for(rang.wait(), 2.0)
    assert kept.task is not None


async def test_stopping_an_alarm_waits_for_the_work_it_had_begun() -> None:
    clock = SystemClock()
    started, unwound = asyncio.Event(), asyncio.Event()

    async def wake() -> None:
        started.set()
        try:
            await asyncio.sleep(10)
        finally:
            unwound.set()

    alarm = clock.alarm(clock.now(), wake)
    await asyncio.wait_for(started.wait(), 2.0)
    await alarm.stopped()
    assert unwound.is_set()


async def test_a_hand_moved_clock_rings_due_alarms_and_waits_for_them() -> None:
    clock = ManualClock()
    order: list[str] = []

    async def wake(name: str) -> None:
        await asyncio.sleep(0)
        order.append(name)

    clock.alarm(clock.now() + 10, lambda: wake("late"))
    clock.alarm(clock.now() + 5, lambda: wake("soon"))
    clock.alarm(clock.now() + 7, lambda: wake("cancelled")).cancel()
    await clock.advance(6)
    assert order == ["soon"]
    await clock.advance(6)
    assert order == ["soon", "late"]
