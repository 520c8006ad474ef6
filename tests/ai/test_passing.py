"""Computer players' nil passes: the nil bidder gives away its most dangerous card, its partner its
least dangerous one."""

from __future__ import annotations

from bot.ai import make_player
from bot.ai.base import Move
from bot.engine import Rules, seat_view
from tests.engine.helpers import cards, deal, new_game


def test_the_nil_bidder_passes_its_top_spade_and_the_partner_its_lowest_card() -> None:
    game = new_game("partners", Rules(nil_pass="one_two"))
    deal(game, {0: "KS 4S AH 2D 9C", 2: "AS KH QD 3H 5C 6C 7C 8C 10C JC QC KC AC"})
    for bid in (0, 4, 4, 4):
        seat = game.turn
        assert seat is not None
        game.bid(seat, bid)
    for level in ("easy", "normal", "hard"):
        assert make_player(level, seed=1).choose(seat_view(game, 0)) == Move.pass_card(cards("KS")[0])
    game.pass_cards(0, cards("KS"))
    for level in ("easy", "normal", "hard"):
        assert make_player(level, seed=1).choose(seat_view(game, 2)) == Move.pass_card(cards("3H")[0])


def test_a_nil_bidder_without_spades_passes_its_highest_card() -> None:
    game = new_game("partners", Rules(nil_pass="one_two"))
    deal(game, {0: "AH KD 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC"})
    for bid in (0, 4, 4, 4):
        seat = game.turn
        assert seat is not None
        game.bid(seat, bid)
    assert make_player("normal").choose(seat_view(game, 0)) == Move.pass_card(cards("AH")[0])
