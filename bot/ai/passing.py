"""Which card to pass under nil_pass: the nil bidder gives away its most dangerous card (its highest
spade, else its highest card), its partner the card least likely to win a trick (its lowest card,
a side suit's before a spade), so the nil bidder holds fewer winners."""

from __future__ import annotations

from bot.ai.policy import rank
from bot.engine import Card, SeatView
from bot.engine.cards import BASE, FIRST_SPADE


def pass_choice(view: SeatView) -> Card:
    hand = view.hand
    if view.bids[view.seat] == 0:
        spades = [c for c in hand if c & BASE >= FIRST_SPADE]
        return max(spades, key=rank) if spades else max(hand, key=rank)
    return min(hand, key=lambda c: (rank(c), c & BASE >= FIRST_SPADE))
