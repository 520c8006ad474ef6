"""What the computer players' bidding knows of the house rules (RULES.md "House rules" › Bidding).

The engine's legal bids already hold every constraint (whiz, mirrors, suicide, fredieu, min_bid, the
moon and double nil); this module picks sensibly among them: no 10-for-200 nor moon without a real
chance of making it, nil rather than a least bid far above the hand, trailing blind bids only when far
behind, and the bids others are held to when the hard player predicts them.
"""

from __future__ import annotations

from bot.engine import Rules, SeatView
from bot.engine.cards import SPADE_MASK

TEN_FOR_200 = 10
# Tricks a side must expect above a long shot's contract to bid it. The expectation (``bidding``'s
# linear fit) runs high for the strongest hands: with no margin normal players made 36 of 112
# cutthroat and 14 of 29 partners 10-for-200s, and scored 27.5 and 41.4 points a side a hand
# against 29.6 and 42.0 with a margin of 1 (which still tried 6, made 2); 1.5 waits for a hand
# that really holds them (150 games a mode, normal players all round).
LONG_SHOT_MARGIN = 1.5
NIL_RATHER_THAN = 2  # take nil when the least legal bid is this many tricks above the hand
NIL_RISK_FOR_ESCAPE = 3.0  # ... and the hand isn't a hopeless nil (``bidding.nil_risk``)
# A blind bid made about two times in three with rule-based play all round (a random hand takes
# about a quarter of 13 tricks, a third of 17): the expected tricks less about one.
BLIND_BID_BY_TRICKS = {13: 2, 17: 4, 18: 4}


def long_shots(rules: Rules, tricks: int) -> tuple[int, ...]:
    """Contracts that score apart: 10-for-200 and the moon; bid them only with a real chance."""
    return ((TEN_FOR_200,) if rules.ten_for_200 else ()) + ((tricks,) if rules.moon else ())


def sensible_bids(legal: tuple[int, ...], rules: Rules, tricks: int, mate: int | None, expected: float,
                  ) -> tuple[int, ...]:
    """The legal non-nil bids, less those that make the side's contract a long shot it is not
    expected to take with room to spare (``expected`` tricks, the partner's bid added,
    ``LONG_SHOT_MARGIN``); all of them if none is left."""
    mate_part = mate or 0
    avoid = {c - mate_part for c in long_shots(rules, tricks) if expected + mate_part < c + LONG_SHOT_MARGIN}
    positive = tuple(b for b in legal if b > 0)
    return tuple(b for b in positive if b not in avoid) or positive


def nil_rather(bid: int, wanted: int, legal: tuple[int, ...], risk: float) -> bool:
    """Nil instead of a bid the rules' least bid put far above the hand, when nil is a fair try."""
    return 0 in legal and bid - wanted >= NIL_RATHER_THAN and risk < NIL_RISK_FOR_ESCAPE


def predicted_legal(rules: Rules, hand: int, tricks: int) -> tuple[int, ...]:
    """The bids a seat with ``hand`` may make as far as its own cards decide (whiz, mirrors,
    fredieu, min_bid), for predicting others' bids over sampled deals."""
    spades = (hand & SPADE_MASK).bit_count()
    low = 0 if rules.nil else 1
    if rules.bidding == "whiz":
        return (0, spades) if spades else (0,)
    if rules.bidding == "mirrors":
        return (spades,)
    least = max(rules.min_bid, 4 if rules.bidding in ("fredieu", "suicide") else 1)
    return tuple(b for b in range(low, tricks + 1) if b == 0 or b >= least)


def blind_bid(view: SeatView, desperate: bool) -> int | None:
    """A trailing blind bid when far behind and blind nil is not the better throw: about the tricks
    an unseen hand takes less one, so it is made more often than not (20 a trick, no bags)."""
    if not desperate or not view.blind_bids:
        return None
    wanted = BLIND_BID_BY_TRICKS.get(view.tricks_per_hand, max(1, view.tricks_per_hand // view.seats - 1))
    fitting = [b for b in view.blind_bids if b <= wanted]
    return max(fitting) if fitting else None
