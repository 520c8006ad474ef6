"""A player that picks uniformly among legal moves: the floor every level must beat."""

from __future__ import annotations

import random

from bot.ai.base import BLIND_NIL, REVEAL, Move
from bot.engine import SeatView


class RandomPlayer:
    level = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: SeatView) -> Move:
        if view.to_pass:
            return Move.pass_card(self._rng.choice(view.hand))
        if view.legal_cards:
            return Move.play(self._rng.choice(view.legal_cards))
        if view.drawn is not None:
            return Move.draw(self._rng.random() < 0.5)
        if view.cards_hidden:
            return BLIND_NIL if view.can_blind_nil and self._rng.random() < 0.5 else REVEAL
        return Move.bid(self._rng.choice(view.legal_bids))
