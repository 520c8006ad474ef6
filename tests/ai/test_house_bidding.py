"""The computer players under the house rules of bidding: every move legal, whole games finish,
and the normal player's choices among the legal bids are sensible (RULES.md "House rules")."""

from __future__ import annotations

import pytest

from bot.ai import BLIND_NIL, LEVELS, REVEAL, Move, make_player
from bot.ai.bidding import bid_for_hand, blind_move
from bot.ai.drive import computer_players, drive
from bot.ai.house_bidding import predicted_legal, sensible_bids
from bot.ai.review import decisions, review_game, review_text
from bot.ai.sim import PlayState
from bot.engine import Game, Mode, Rules, export_record, mask_of, parse_card, seat_view
from tests.ai.cli import ask
from tests.ai.conftest import random_positions
from tests.ai.legality import is_legal
from tests.engine.helpers import deal, new_game

HOUSE_SETS: list[tuple[str, Rules]] = [
    ("solo", Rules(bidding="whiz", blind_nil_deficit=0)),
    ("cutthroat", Rules(bidding="mirrors", moon=True, last_trick=True)),
    ("partners", Rules(bidding="suicide", double_nil="double", blind_nil_deficit=0)),
    ("partners", Rules(bidding="fredieu", ten_for_200=True, moon=True, overtricks="quicksand")),
    ("partners", Rules(min_bid=4, blind_bids=True, blind_nil=False, blind_nil_deficit=0, seven_bonus=True)),
    ("cutthroat", Rules(min_bid=3, blind_bids=True, blind_nil_deficit=0, double_back=True)),
]


@pytest.mark.parametrize(("mode", "rules"), HOUSE_SETS, ids=[f"{m}-{r.changed()}" for m, r in HOUSE_SETS])
def test_every_level_moves_legally_under_house_rules(mode, rules):
    players = {level: make_player(level, seed=3, budget="2it") for level in LEVELS}
    positions = 0
    for game, view in random_positions(mode, rules, seed=11):
        for level, player in players.items():
            move = player.choose(view)
            assert is_legal(game, view.seat, move), (level, view, move)
        positions += 1
    assert positions > 20


@pytest.mark.parametrize(("mode", "rules"), HOUSE_SETS, ids=[f"{m}-{r.changed()}" for m, r in HOUSE_SETS])
def test_normal_players_finish_games_under_house_rules(mode, rules):
    game = Game.new("house", mode, rules.with_options(target=200), seed=5)
    players = [make_player("normal", seed=s) for s in range(game.seats)]
    drive(game, computer_players(players), max_hands=40)
    assert game.is_over


def test_long_shots_only_with_a_real_chance():
    legal = tuple(range(14))
    wheels = Rules(ten_for_200=True)
    assert 5 not in sensible_bids(legal, wheels, 13, mate=5, expected=5.2), "5 + 5 would be a 10-for-200"
    assert 5 in sensible_bids(legal, wheels, 13, mate=5, expected=6.6)
    assert 13 not in sensible_bids(legal, Rules(moon=True), 13, mate=None, expected=13.0)
    assert 10 in sensible_bids(legal, Rules(), 13, mate=None, expected=8.0), "a plain 10 is no long shot"


def test_a_weak_hand_bids_nil_rather_than_fredieus_four():
    hand = mask_of(parse_card(c) for c in "2C 3C 4C 5C 2D 3D 4D 5D 2H 3H 4H 2S 3S".split())
    fredieu = Rules(bidding="fredieu")
    legal = (0, *range(4, 14))
    assert bid_for_hand(hand, Mode.SOLO, fredieu, legal) == 0


def test_predicted_bids_follow_whiz_and_mirrors():
    hand = mask_of(parse_card(c) for c in "AS KS 2S 2C 3C 4C 5C 2D 3D 4D 5D 2H 3H".split())
    assert predicted_legal(Rules(bidding="mirrors"), hand, 13) == (3,)
    assert predicted_legal(Rules(bidding="whiz"), hand, 13) == (0, 3)
    assert predicted_legal(Rules(bidding="fredieu", nil=False), hand, 13) == tuple(range(4, 14))


def test_trailing_blind_bid_only_when_far_behind():
    rules = Rules(blind_bids=True, blind_nil=False, blind_nil_deficit=100, target=500)
    game = Game.new("blind", "solo", rules, seed=1)
    first = (game.dealer + 1) % 4
    game._side_scores[:] = [0 if s == first else 300 for s in range(4)]  # a position, not a move
    game.deal()
    view = seat_view(game, first)
    assert view.blind_bids == tuple(range(1, 8)) and not view.can_blind_nil
    assert blind_move(view) == Move.blind(2)
    near = view._replace(scores=tuple(250 if s == first else 300 for s in range(4)))
    assert blind_move(near) == REVEAL
    assert blind_move(near) != BLIND_NIL


def test_the_terminal_game_offers_trailing_blind_bids():
    game = new_game("solo", Rules(blind_bids=True, blind_nil=False, blind_nil_deficit=0))
    deal(game, {})
    move, text = ask(game, ["blind nil", "blind 3"])
    assert move == Move.blind(3)
    assert text == "Answer a blind bid (1, 2, 3, 4, 5, 6, 7), or n to look at your cards first.\n"


def test_the_hard_players_simulation_scores_the_last_trick():
    game = new_game("partners", Rules(last_trick=True))
    deal(game, {0: "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"})
    for seat in range(4):
        game.bid(seat, 3)
    hands = [game.hand_mask(s) for s in range(4)]
    state = PlayState.from_view(seat_view(game, 0), hands)
    while state.tricks_left:
        legal = state.legal(state.turn)
        state.play((legal & -legal).bit_length() - 1)  # the lowest legal card
    # alice's spades take all 13: her team bid 6, so 60 + 7 bags + 10 for the last trick; the others are set
    assert state.side_points() == [77, -60, 77, -60]


def test_a_game_with_forced_bids_is_reviewed_without_counting_them_as_decisions():
    game = Game.new("review-suicide", Mode.PARTNERS, Rules(target=100, bidding="suicide", blind_nil_deficit=0), seed=4)
    drive(game, computer_players([make_player("normal", seed=s) for s in range(4)]), max_hands=4)
    record = export_record(game)
    forced = sum(1 for hand in record["hands"] for b in hand["bids"] if b.get("forced"))
    assert forced
    seen = [d for d in decisions(record) if d.kind == "bid"]
    chosen = sum(1 for hand in record["hands"] if "result" in hand for b in hand["bids"]
                 if not b.get("forced") and not b["blind"])
    assert len(seen) == chosen
    for seat in range(4):  # and each seat's review reads (a forced bid is not one of its bids)
        assert "Review of game" in review_text(review_game(record, seat, seed=1, iterations=2))
