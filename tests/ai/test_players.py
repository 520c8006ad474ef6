"""Every level answers every position with a legal move, seeing nothing but the seat's view."""

from __future__ import annotations

import time

import pytest

from bot.ai import LEVELS, Move, apply_move, forced_move, make_player
from bot.ai.hard import Budget
from bot.engine import Game, Mode, Rules, SeatView, seat_view
from tests.ai.conftest import RULE_SETS, random_positions
from tests.ai.legality import is_legal


@pytest.mark.parametrize(("mode", "rules"), RULE_SETS, ids=[f"{m}-{r.changed()}" for m, r in RULE_SETS])
def test_every_level_moves_legally(mode, rules):
    players = {level: make_player(level, seed=3, budget="2it") for level in LEVELS}
    positions = 0
    for game, view in random_positions(mode, rules, seed=len(rules.changed())):
        assert isinstance(view, SeatView)
        for level, player in players.items():
            move = player.choose(view)
            assert is_legal(game, view.seat, move), (level, view, move)
        positions += 1
    assert positions > 50


@pytest.mark.parametrize("mode", [m.value for m in Mode])
def test_heuristic_players_are_fast(mode):
    """easy and normal decide in-process, so they must stay far below the 5 ms a decision allowed."""
    for level in ("easy", "normal"):
        player = make_player(level, seed=1)
        times = []
        for _, view in random_positions(mode, RULE_SETS[0][1], seed=5):
            start = time.perf_counter()
            player.choose(view)
            times.append(time.perf_counter() - start)
        times.sort()
        # The 95th percentile, so that a busy machine's scheduling hiccup can't fail the test.
        assert times[int(0.95 * len(times))] < 0.005, (level, times[-5:])


def test_forced_moves():
    game = Game.new("forced", "cutthroat", Rules(fast_finish=False), seed=2)  # the last card by hand
    game.deal()
    view = seat_view(game, game.turn or 0)
    assert forced_move(view) is None  # a bid is a real choice
    while game.phase.value == "bidding":
        seat = game.turn or 0
        apply_move(game, seat, make_player("normal").choose(seat_view(game, seat)))
    for _ in range(game.tricks_per_hand * 3 - 1):
        seat = game.turn or 0
        view = seat_view(game, seat)
        if len(view.legal_cards) == 1:
            assert forced_move(view) == Move.play(view.legal_cards[0])
        apply_move(game, seat, make_player("easy").choose(view))
    view = seat_view(game, game.turn or 0)
    assert forced_move(view) == Move.play(view.legal_cards[0])


def test_unknown_level_and_bad_budget_are_refused():
    with pytest.raises(ValueError, match="use one of"):
        make_player("grandmaster")
    with pytest.raises(ValueError, match="budget"):
        make_player("hard", budget="lots")
    assert Budget.parse("200it").iterations == 200
    assert Budget.parse("0.5s").seconds == 0.5
    assert Budget.parse(0.25).seconds == 0.25


def test_players_are_deterministic_with_a_seed():
    for _, view in random_positions("cutthroat", RULE_SETS[0][1], seed=9, hands=1):
        assert make_player("hard", 4, "3it").choose(view) == make_player("hard", 4, "3it").choose(view)
