"""Positions for the players' tests: random games stopped at every decision, in every mode."""

from __future__ import annotations

import random
from collections.abc import Iterator

from bot.engine import Game, Mode, Phase, Rules, SeatView, seat_view

RULE_SETS: list[tuple[str, Rules]] = [
    ("cutthroat", Rules()),
    ("cutthroat", Rules(jokers=True)),
    ("cutthroat", Rules(no_exact_total=True, leftover="two_clubs")),
    ("cutthroat", Rules(nil=False, spades_must_break=False)),
    ("cutthroat", Rules(blind_nil_deficit=0, set_penalty="zero")),
    ("solo", Rules(no_exact_total=True)),
    ("partners", Rules(blind_nil_deficit=0, nil_tricks_help_partner=True)),
]


def random_positions(mode: str, rules: Rules, seed: int, hands: int = 2) -> Iterator[tuple[Game, SeatView]]:
    """Every decision point of a few random hands (after a first hand, so scores and bags differ)."""
    rng = random.Random(seed)
    game = Game.new(f"positions-{seed}", Mode.parse(mode), rules.with_options(target=1000), seed)
    while not game.is_over and game.hand_number <= hands:
        if game.phase is Phase.DEALING:
            game.deal()
            continue
        seat = game.turn
        assert seat is not None
        yield game, seat_view(game, seat)
        if game.cards_hidden(seat):
            if rng.random() < 0.5 and game.can_bid(seat, 0, blind=True):
                game.bid(seat, 0, blind=True)
            else:
                game.reveal(seat)
        elif game.phase is Phase.BIDDING:
            game.bid(seat, rng.choice(game.legal_bids(seat)))
        else:
            game.play(seat, rng.choice(game.legal_cards(seat)))
