"""The publisher's workers wait for their game's next change in a `desk.Mailbox`: a change is never
lost to a timeout, and a worker stopped while it waits stops (its game was dropped)."""

from __future__ import annotations

import asyncio

import pytest

from bot.discord_ui.table.desk import Mailbox


async def test_a_change_that_comes_while_waiting_is_taken() -> None:
    queue: Mailbox[str] = Mailbox()
    asyncio.get_running_loop().call_later(0.02, queue.put_nowait, "moved")
    assert await queue.next(5.0) == "moved"
    asyncio.get_running_loop().call_later(0.02, queue.put_nowait, "again")
    assert await queue.next(None) == "again"


async def test_a_change_already_waiting_is_taken_even_with_no_time_left() -> None:
    queue: Mailbox[str] = Mailbox()
    queue.put_nowait("waiting")
    assert await queue.next(0.0) == "waiting"


async def test_nothing_in_time_is_a_timeout_and_the_next_change_is_still_there() -> None:
    queue: Mailbox[str] = Mailbox()
    with pytest.raises(TimeoutError):
        await queue.next(0.01)
    queue.put_nowait("later")
    assert await queue.next(1.0) == "later"


async def test_a_change_put_as_the_wait_runs_out_is_not_lost() -> None:
    """The put and the timeout fall in the same turn of the loop, in either order, many times."""
    loop = asyncio.get_running_loop()
    queue: Mailbox[int] = Mailbox()
    taken: list[int] = []
    for n in range(200):
        loop.call_later(0.001, queue.put_nowait, n)
        try:
            taken.append(await queue.next(0.001))
        except TimeoutError:
            taken.append(await queue.next(1.0))
    assert taken == list(range(200))


async def test_a_wait_keeps_its_own_deadline_whatever_timer_the_wait_before_left() -> None:
    """A worker waits move after move for the same deadline (the next panel to put to sleep): the
    timer of the wait before serves the next one, and never ends a wait that has no deadline or a
    later one."""
    loop = asyncio.get_running_loop()
    queue: Mailbox[str] = Mailbox()
    loop.call_later(0.01, queue.put_nowait, "moved")
    assert await queue.next(0.15) == "moved"  # its timer is left for 0.15 s from the start
    loop.call_later(0.3, queue.put_nowait, "no deadline")
    assert await queue.next(None) == "no deadline"  # not cut short at 0.15 s
    started = loop.time()
    with pytest.raises(TimeoutError):
        await queue.next(0.2)
    assert loop.time() - started >= 0.2 - 0.05  # at its own deadline (within a twentieth of a second)
    started = loop.time()
    loop.call_later(0.01, queue.put_nowait, "again")
    assert await queue.next(0.1) == "again"
    with pytest.raises(TimeoutError):  # the same deadline as the wait before: its timer ends this one
        await queue.next(max(0.0, started + 0.1 - loop.time()))
    assert loop.time() - started < 1.0


async def test_a_worker_stopped_while_waiting_stops_and_is_not_a_timeout() -> None:
    queue: Mailbox[str] = Mailbox()
    waiting = asyncio.create_task(queue.next(5.0))
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    queue.put_nowait("for the next worker")
    assert await queue.next(0.0) == "for the next worker"


async def test_changes_come_out_in_the_order_they_went_in() -> None:
    queue: Mailbox[int] = Mailbox()
    loop = asyncio.get_running_loop()
    for n in range(3):
        loop.call_soon(queue.put_nowait, n)
    assert [await queue.next(1.0) for _ in range(3)] == [0, 1, 2]
    assert queue.empty()
