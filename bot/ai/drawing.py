"""The duo draw for computer players: keep the card drawn, or take the unseen one under it.

A card is worth what it adds to the hand's expected tricks (``honour_count``, the bidder's own
measure: high spades, spade length, side aces and guarded kings, ruffs). The card under the drawn
one is any card this seat hasn't seen, so the drawn card is kept when it adds at least as much as an
unseen card would on average.
"""

from __future__ import annotations

from bot.ai.bidding import calibration, honour_count
from bot.engine import SeatView, mask_of


def keeps_drawn(view: SeatView) -> bool:
    """Whether to keep the card the seat is looking at in the draw."""
    drawn = view.drawn
    assert drawn is not None, "only asked on the seat's turn in the draw"
    cal = calibration(view.mode, view.rules)
    hand = mask_of(view.hand)
    base = honour_count(hand, cal)
    unseen = [c for c in view.unseen_cards() if c != drawn]
    if not unseen:
        return True
    average = sum(honour_count(hand | 1 << c, cal) for c in unseen) / len(unseen)
    return honour_count(hand | 1 << drawn, cal) - base >= average - base
