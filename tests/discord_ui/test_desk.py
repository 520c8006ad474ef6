"""The publisher's workers wait for their game's next change with `desk.next_item`: a change is never
lost to a timeout, and a worker stopped while it waits stops (its game was dropped)."""

from __future__ import annotations

import asyncio

import pytest

from bot.discord_ui.desk import next_item


async def test_a_change_that_comes_while_waiting_is_taken() -> None:
    queue: asyncio.Queue[str] = asyncio.Queue()
    asyncio.get_running_loop().call_later(0.02, queue.put_nowait, "moved")
    assert await next_item(queue, 5.0) == "moved"
    asyncio.get_running_loop().call_later(0.02, queue.put_nowait, "again")
    assert await next_item(queue, None) == "again"


async def test_a_change_already_waiting_is_taken_even_with_no_time_left() -> None:
    queue: asyncio.Queue[str] = asyncio.Queue()
    queue.put_nowait("waiting")
    assert await next_item(queue, 0.0) == "waiting"


async def test_nothing_in_time_is_a_timeout_and_the_next_change_is_still_there() -> None:
    queue: asyncio.Queue[str] = asyncio.Queue()
    with pytest.raises(TimeoutError):
        await next_item(queue, 0.01)
    queue.put_nowait("later")
    assert await next_item(queue, 1.0) == "later"


async def test_a_change_put_as_the_wait_runs_out_is_not_lost() -> None:
    """The put and the timeout fall in the same turn of the loop, in either order, many times."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[int] = asyncio.Queue()
    taken: list[int] = []
    for n in range(200):
        loop.call_later(0.001, queue.put_nowait, n)
        try:
            taken.append(await next_item(queue, 0.001))
        except TimeoutError:
            taken.append(await next_item(queue, 1.0))
    assert taken == list(range(200))


async def test_a_worker_stopped_while_waiting_stops_and_is_not_a_timeout() -> None:
    queue: asyncio.Queue[str] = asyncio.Queue()
    waiting = asyncio.create_task(next_item(queue, 5.0))
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    queue.put_nowait("for the next worker")
    assert await next_item(queue, 0.0) == "for the next worker"
