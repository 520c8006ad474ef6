"""The house rules of card play (RULES.md, "Cards and play"): who leads first, and the first-trick
and overtrump restrictions (the deck each mode and rule set plays with is `modes.deck_for`).

Pure functions over bitmasks of places (bot/engine/card_order.py; under the standard trumps, the
cards themselves), shared by the engine and the search simulator (``bot/ai/sim.py``) so
the two can't drift. :func:`narrow` is on the hot path of search; :func:`refusal` only explains.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine.card_order import card_order
from bot.engine.cards import (
    CLUBS,
    NON_SPADE_MASK,
    SECOND_COPY,
    SPADE_MASK,
    SPADES,
    SUIT_MASKS,
    Card,
    card_label,
    copies,
    fold,
    stronger,
)
from bot.engine.rules import Rules

CLUB_MASK = SUIT_MASKS[CLUBS]


def restricts_play(rules: Rules) -> bool:
    """Whether :func:`narrow` can ever change the standard legal cards (most games: no)."""
    return rules.first_trick != "free" or rules.must_overtrump


def first_leader(rules: Rules, hands: Sequence[int], left_of_dealer: int) -> int:
    """Who leads the first trick: left of the dealer, or with ``first_lead=two_clubs`` the holder of
    the lowest club dealt (the 2♣ unless it is out of the deck or set aside); of two identical
    lowest clubs (six), the first holder clockwise from the dealer's left."""
    if rules.first_lead == "two_clubs":
        clubs = card_order(rules).suit_masks[CLUBS]  # deuces_high plays the 2♣ as a spade: the 3♣ leads
        seats = len(hands)
        for club in range(13):
            for seat in (s % seats for s in range(left_of_dealer, left_of_dealer + seats)):
                if fold(hands[seat]) >> club & clubs >> club & 1:
                    return seat
    return left_of_dealer


def plain_legal(hand: int, led: int, broken: bool, must_break: bool) -> int:
    """The rules every game plays by: follow the suit led (``led``, or -1 for the leader); don't lead
    a spade before spades are broken unless nothing else is left."""
    if led >= 0:
        return hand & SUIT_MASKS[led] or hand
    if must_break and not broken:
        return hand & NON_SPADE_MASK or hand
    return hand


def narrow(rules: Rules, legal: int, first_trick: bool, led: int, best_spade: Card) -> int:
    """The standard legal cards (``legal``) less what the house rules forbid. ``led`` is the suit
    led, or -1 for the leader; ``best_spade`` the highest spade on the trick, or -1."""
    if first_trick:
        legal = _first_trick(rules.first_trick, legal, led)
    if rules.must_overtrump:
        legal = _overtrump(legal, led, best_spade, rules.identical == "last")
    return legal


def refusal(rules: Rules, legal: int, first_trick: bool, led: int, best_spade: Card, card: Card) -> str | None:
    """Why a card the standard rules allow is refused by a house rule, or None if it isn't."""
    if first_trick:
        narrowed = _first_trick(rules.first_trick, legal, led)
        if not narrowed >> card & 1:
            if rules.first_trick == "lowest_club":
                lowest = card_order(rules).card[narrowed.bit_length() - 1]
                return f"On the first trick you must play your lowest club, {card_label(lowest)}."
            return "On the first trick you can't play a spade while you hold another suit."
        legal = narrowed
    if rules.must_overtrump and not _overtrump(legal, led, best_spade, rules.identical == "last") >> card & 1:
        return f"You can beat the {card_label(card_order(rules).card[best_spade])}, so you must: play a higher spade."
    return None


def _first_trick(rule: str, legal: int, led: int) -> int:
    if rule == "no_spades":
        return legal & NON_SPADE_MASK or legal
    if rule == "lowest_club" and led in (-1, CLUBS):
        clubs = legal & CLUB_MASK
        lowest = fold(clubs) & -fold(clubs)
        return clubs & (lowest | lowest << SECOND_COPY) or legal
    return legal


def _overtrump(legal: int, led: int, best_spade: Card, twin_beats: bool) -> int:
    """A seat that can't follow a side suit must beat a spade already on the trick if it can (with
    ``identical=last``, the top spade's twin beats it too)."""
    if led in (-1, SPADES) or best_spade < 0 or legal & SUIT_MASKS[led]:
        return legal
    return legal & SPADE_MASK & (stronger(best_spade) | (copies(best_spade) if twin_beats else 0)) or legal
