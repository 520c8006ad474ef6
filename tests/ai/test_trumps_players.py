"""The computer players under `trumps` (deuces_high, jokers_deuces): they see cards as places
(bot/ai/places.py), so they must still play legally (test_players.py covers every position) and
sensibly: value the new top spades, trump with them, and beat the random player."""

from __future__ import annotations

import json

import pytest

from bot.ai import make_player
from bot.ai.places import card_of, in_places
from bot.engine import Game, Mode, Rules, export_record, parse_card, seat_view
from bot.selfplay import play_game
from tests.record_check import check_record


@pytest.mark.parametrize("trumps", ["deuces_high", "jokers_deuces"])
def test_normal_partners_beat_random_partners(trumps: str) -> None:
    wins = 0
    for seed in range(6):
        game = Game.new(f"t-{seed}", Mode.PARTNERS, Rules(trumps=trumps, target=200), seed)
        players = [make_player("normal" if s % 2 == 0 else "random", seed=seed * 10 + s) for s in range(4)]
        play_game(game, players, None, 40)
        check_record(json.loads(json.dumps(export_record(game))))
        wins += game.winners == (0, 2)
    assert wins >= 5


def test_the_normal_player_counts_jokers_and_deuces_as_top_spades() -> None:
    rules = Rules(trumps="jokers_deuces")
    strong = "BJ LJ 2S 2D 3H 4H 5H 3C 4C 5C 3D 4D 5D"
    weak = "3S 4S 5S 6S 3H 4H 5H 3C 4C 5C 3D 4D 5D"
    bids = []
    for hand in (strong, weak):
        game = Game("g", Mode.SOLO, rules, seed=1, first_dealer=3, names=["a", "b", "c", "d"])
        rest = [c for c in game.deck() if c not in {parse_card(w) for w in hand.split()}]
        game.deal([[parse_card(w) for w in hand.split()], rest[:13], rest[13:26], rest[26:]])
        bids.append(make_player("normal", seed=1).choose(seat_view(game, 0)).value)
    assert bids[0] >= 4 and bids[0] > bids[1]


def test_a_view_in_places_keeps_every_card_and_gives_them_back() -> None:
    game = Game.new("g", Mode.CUTTHROAT, Rules(trumps="deuces_high"), seed=4)
    game.deal()
    view = seat_view(game, game.turn or 0)
    places = in_places(view)
    assert sorted(card_of(view, p) for p in places.hand) == sorted(view.hand)
    assert len(set(places.hand)) == len(view.hand) and max(places.hand) < 56
    standard = Game.new("s", Mode.SOLO, Rules(), seed=1)
    standard.deal()
    plain = seat_view(standard, 0)
    assert in_places(plain) is plain
