"""The duo draw for computer players: high spades and aces are kept, low side cards let go."""

from __future__ import annotations

import pytest

from bot.ai import LEVELS, Move, make_player
from bot.ai.drive import computer_players, drive
from bot.engine import Game, Phase, Rules, export_record, parse_card, seat_view
from tests.engine.helpers import new_game
from tests.record_check import check_record


def offered(top: str) -> Game:
    """A duo game whose first drawer (seat 0) is looking at `top`."""
    game = new_game("duo")
    first = parse_card(top)
    game.deal([(), ()], (), [first, *(c for c in game.deck() if c != first)])
    return game


@pytest.mark.parametrize(("card", "keep"), [("AS", True), ("KS", True), ("AH", True), ("2C", False), ("3D", False)])
def test_the_normal_and_hard_players_keep_what_takes_tricks(card: str, keep: bool) -> None:
    view = seat_view(offered(card), 0)
    for level in ("normal", "hard"):
        assert make_player(level, seed=1, budget="2it").choose(view) == Move.draw(keep), level


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_draws_bids_and_plays_a_whole_duo_game(level: str) -> None:
    game = Game.new("duo-ai", "duo", Rules(target=150), seed=4)
    players = [make_player(level, seed=s, budget="2it") for s in range(2)]
    drive(game, computer_players(players), max_hands=30)
    assert game.is_over and game.hand_logs[0].result is not None
    check_record(export_record(game))


def test_computer_players_keep_more_spades_than_chance() -> None:
    """Over a few draws the normal player ends with more spades than the quarter a random hand holds."""
    spades = hands = 0
    for seed in range(6):
        game = Game.new(f"d{seed}", "duo", Rules(), seed=seed)
        players = [make_player("normal", seed=s) for s in range(2)]
        drive(game, computer_players(players), until=lambda g: g.phase is Phase.BIDDING)
        for seat in range(2):
            spades += sum(1 for c in game.hand_of(seat) if c >= parse_card("2S"))
            hands += 1
    assert spades / hands > 13 / 4 + 1
