"""The duo draw for computer players: keep the card drawn, or take the unseen one under it.

A card is worth what it adds to the hand the seat will hold when the draw is over, measured as the
bidder measures hands (``honour_count``: high spades, spade length, side aces and guarded kings,
ruffs). The rest of that hand is not known yet, so it is filled with unseen cards, a few times over:
a lone K♠ is worth little in a hand of one card and a trick in most hands of thirteen. The card under
the drawn one is any card the seat hasn't seen; the drawn card is kept when, on the same fillings,
it adds at least as much as that card would.
"""

from __future__ import annotations

import random

from bot.ai.bidding import calibration, honour_count
from bot.engine import SeatView, mask_of
from bot.engine.modes import DUO_HAND

FILLINGS = 24  # completed hands a decision looks at: well under a millisecond


def keeps_drawn(view: SeatView) -> bool:
    """Whether to keep the card the seat is looking at in the draw (the same answer every time it is
    asked in the same position, so a player and a replay of it agree)."""
    drawn = view.drawn
    assert drawn is not None, "only asked on the seat's turn in the draw"
    rng = random.Random(f"{view.game_id}/{view.hand_number}/{view.seat}/{len(view.hand)}")
    cal = calibration(view.mode, view.rules)
    hand = mask_of(view.hand)
    pool = [c for c in view.unseen_cards() if c != drawn]
    to_come = min(DUO_HAND - len(view.hand) - 1, len(pool) - 1)
    gain = 0.0
    for _ in range(FILLINGS):
        other, *filling = rng.sample(pool, to_come + 1)
        held = hand | mask_of(filling)
        gain += honour_count(held | 1 << drawn, cal) - honour_count(held | 1 << other, cal)
    return gain >= 0
