"""Positions for the players' tests: random games stopped at every decision, in every mode."""

from __future__ import annotations

import random
from collections.abc import Iterator

from bot.ai import apply_move
from bot.ai.drive import random_moves, turns
from bot.engine import Game, Mode, Rules, SeatView, seat_view

RULE_SETS: list[tuple[str, Rules]] = [
    ("cutthroat", Rules()),
    ("cutthroat", Rules(jokers=True)),
    ("cutthroat", Rules(no_exact_total=True, leftover="two_clubs")),
    ("cutthroat", Rules(nil=False, spades_must_break=False)),
    ("cutthroat", Rules(blind_nil_deficit=0, set_penalty="zero")),
    ("solo", Rules(no_exact_total=True)),
    ("partners", Rules(blind_nil_deficit=0, nil_tricks_help_partner=True)),
    ("duo", Rules(blind_nil_deficit=0)),
    ("five", Rules(no_exact_total=True, blind_nil_deficit=0)),
    ("partners", Rules(jokers=True, first_lead="two_clubs", first_trick="lowest_club", must_overtrump=True)),
    ("solo", Rules(jokers=True, first_trick="no_spades", must_overtrump=True, spades_must_break=False)),
    ("partners", Rules(nil_pass="one_two", blind_nil_deficit=0)),
    # Six: two decks, identical cards decided either way, and its three ways of seating teams.
    ("six", Rules(teams="solo", blind_nil_deficit=0)),
    ("six", Rules(teams="pairs", identical="last", nil_pass="one_two", must_overtrump=True, blind_nil_deficit=0)),
    ("six", Rules(teams="trios", identical="last", first_lead="two_clubs", first_trick="lowest_club")),
    # trumps: the players see cards as places (bot/ai/places.py)
    ("partners", Rules(trumps="jokers_deuces", bidding="suicide", nil_pass="one_two", blind_nil_deficit=0)),
    ("cutthroat", Rules(trumps="jokers_deuces", leftover="two_clubs")),
    ("solo", Rules(trumps="deuces_high", must_overtrump=True, first_lead="two_clubs", first_trick="lowest_club")),
    ("duo", Rules(trumps="deuces_high", bidding="whiz")),
]


def random_positions(mode: str, rules: Rules, seed: int, hands: int = 2) -> Iterator[tuple[Game, SeatView]]:
    """Every decision point of a few random hands (after a first hand, so scores and bags differ)."""
    rng = random.Random(seed)
    game = Game.new(f"positions-{seed}", Mode.parse(mode), rules.with_options(target=1000), seed)
    choose = random_moves(rng, blind_nil=0.5)
    for seat in turns(game, until=lambda g: g.hand_number > hands):
        yield game, seat_view(game, seat)
        apply_move(game, seat, choose(game, seat))
