"""The search simulator against the engine on random deals, so the two can't drift apart."""

from __future__ import annotations

import random

import pytest

from bot.ai.places import in_places
from bot.ai.sim import PlayState
from bot.engine import Mode, Phase, seat_view
from bot.engine.card_order import card_order
from tests.ai.conftest import RULE_SETS, random_positions


@pytest.mark.parametrize(("mode", "rules"), RULE_SETS, ids=[f"{m}-{r.changed()}" for m, r in RULE_SETS])
def test_simulator_plays_like_the_engine(mode, rules):
    rng = random.Random(1)
    hands_checked = 0
    for game, view in random_positions(mode, rules.with_options(fast_finish=False), seed=7, hands=3):
        if view.phase is not Phase.PLAYING or view.trick or view.tricks:
            continue
        # The start of a hand's play: mirror the whole hand in the simulator, card by card; the
        # simulator plays on places (bot/ai/places.py: the cards themselves under standard trumps).
        order = card_order(rules)
        hands = [order.places(game.hand_mask(s)) for s in range(game.seats)]
        state = PlayState.from_view(in_places(view), hands=hands)
        while game.phase is Phase.PLAYING:
            seat = game.turn
            assert seat == state.turn
            assert state.legal(seat) == order.places(game.legal_mask(seat))
            card = rng.choice(game.legal_cards(seat))
            game.play(seat, card)
            state.play(order.place[card])
            assert tuple(state.won) == game.tricks_won or game.phase is not Phase.PLAYING
        result = game.hand_logs[-1].result
        assert result is not None
        assert tuple(state.won) == result.tricks_won
        assert tuple(state.side_points()) == result.hand_points
        hands_checked += 1
        break
    assert hands_checked == 1


def test_state_from_a_view_mid_trick():
    rules = RULE_SETS[1][1]
    for game, view in random_positions("cutthroat", rules, seed=3):
        if view.phase is Phase.PLAYING and view.trick:
            state = PlayState.from_view(view)
            assert state.turn == view.seat
            assert state.legal(view.seat) == game.legal_mask(view.seat)
            assert state.hands[(view.seat + 1) % 3] == 0  # nothing of another seat's cards
            assert seat_view(game, view.seat) == view
            assert view.mode is Mode.CUTTHROAT
