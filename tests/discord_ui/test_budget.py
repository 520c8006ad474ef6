"""The REST budget: no one-second window holds more counted calls than the token's limit, owed
posts go before table refreshes and those before clean-ups, and a caller that gives up frees its
place. A fake clock whose sleeps pass at once: the pace is checked, not the machine's speed."""

from __future__ import annotations

import asyncio

import pytest

from bot.discord_ui.transport.budget import Priority, RestBudget


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0)


def budget_at(rate: float) -> tuple[RestBudget, FakeTime]:
    time = FakeTime()
    return RestBudget(rate, clock=time.clock, sleep=time.sleep), time


async def test_no_second_holds_more_calls_than_the_limit() -> None:
    budget, time = budget_at(50)
    stamps: list[float] = []

    async def call(priority: Priority) -> None:
        await budget.take(priority)
        stamps.append(time.now)

    await asyncio.gather(*(call(Priority(n % 4)) for n in range(500)))
    assert len(stamps) == 500
    for start in stamps:
        assert sum(1 for t in stamps if start <= t < start + 1.0) <= 50
    assert stamps[-1] >= (500 - 50) / 50  # it paced itself rather than bursting
    assert budget.spent == {Priority.OWED: 125, Priority.TABLE: 125, Priority.DM: 125, Priority.CLEANUP: 125}


async def test_owed_posts_go_first_then_tables_then_direct_messages_then_clean_ups() -> None:
    budget, _ = budget_at(10)
    order: list[str] = []

    async def call(name: str, priority: Priority) -> None:
        await budget.take(priority)
        order.append(name)

    for n in range(5):  # use up the burst
        await call(f"burst{n}", Priority.TABLE)
    waiting = [asyncio.create_task(call(name, priority)) for name, priority in
               [("delete1", Priority.CLEANUP), ("dm1", Priority.DM), ("table1", Priority.TABLE),
                ("post1", Priority.OWED), ("table2", Priority.TABLE), ("post2", Priority.OWED)]]
    await asyncio.gather(*waiting)
    assert order[5:] == ["post1", "post2", "table1", "table2", "dm1", "delete1"]


async def test_a_caller_that_gives_up_frees_its_place() -> None:
    budget, _ = budget_at(10)
    for _ in range(5):
        await budget.take(Priority.OWED)
    gone = asyncio.create_task(budget.take(Priority.OWED))
    kept = asyncio.create_task(budget.take(Priority.TABLE))
    await asyncio.sleep(0)
    gone.cancel()
    await kept
    assert gone.cancelled() and budget.queued == 0


def test_a_rate_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        RestBudget(0)


async def test_calls_made_without_a_slot_hold_back_the_next_ones() -> None:
    """Logging in makes a few counted calls before the budget is used: they take their share of the
    first second, so the bot's own calls don't tip it over the limit."""
    budget, time = budget_at(10)
    budget.spent_elsewhere(4)
    stamps: list[float] = []
    for _ in range(6):
        await budget.take(Priority.OWED)
        stamps.append(time.now)
    assert sum(1 for t in stamps if t < 1.0) + 4 <= 9  # with the login calls, within 0.9 × 10 in the first second
