"""The async entry point: instant forced moves, in-process heuristics, search off the event loop."""

from __future__ import annotations

import asyncio
import pickle
import time

import pytest

from bot.ai import LEVELS
from bot.ai.runner import DecisionRunner
from bot.engine import Game, Phase, Rules, SeatView
from tests.ai.conftest import random_positions


def a_position(forced: bool) -> tuple[Game, SeatView]:
    for game, view in random_positions("cutthroat", Rules(), seed=21):
        if view.phase is Phase.PLAYING and (len(view.legal_cards) == 1) == forced:
            return game, view
    raise AssertionError("no such position")


@pytest.fixture
async def runner():
    runner = DecisionRunner(workers=1)
    yield runner
    runner.close()


async def test_forced_moves_are_instant_and_skip_the_pool(runner):
    _, view = a_position(forced=True)
    start = time.perf_counter()
    move = await runner.decide("hard", view, seed=1)
    assert time.perf_counter() - start < 0.01
    assert move.value == view.legal_cards[0]
    assert runner._pool is None


async def test_heuristic_levels_answer_in_process(runner):
    game, view = a_position(forced=False)
    for level in LEVELS:
        if level != "hard":
            move = await runner.decide(level, view, seed=1)
            assert game.can_play(view.seat, move.value)
    assert runner._pool is None


async def test_hard_decides_in_the_pool_within_budget_without_blocking_the_loop(runner):
    game, view = a_position(forced=False)
    pickle.loads(pickle.dumps(view))
    await runner.decide("hard", view, seed=1, budget_s=0.05)  # start the worker
    gaps: list[float] = []

    async def ticker() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    start = time.perf_counter()
    move = await runner.decide("hard", view, seed=2, budget_s=0.3)
    elapsed = time.perf_counter() - start
    task.cancel()
    assert game.can_play(view.seat, move.value)
    assert runner._pool is not None
    assert 0.25 < elapsed < 1.0
    assert max(gaps) < 0.1  # the loop kept running while the search did


async def test_unknown_level_is_refused(runner):
    _, view = a_position(forced=False)
    with pytest.raises(ValueError):
        await runner.decide("grandmaster", view, seed=1)
