"""The order of the cards under the house rule ``trumps`` (RULES.md "Cards and play"): which suit a
card is played as, and how strong it is.

An order gives every card a *place* such that the standard assumptions hold of places: the spades
take places 39 and up (so ``place >= FIRST_SPADE`` is "a trump"), and within a suit a higher place
beats a lower one (of two decks, six: ``place & BASE``; six plays the standard order only). The
standard order is the identity, so the standard game pays nothing for it;
``deuces_high`` and ``jokers_deuces`` move four cards to places 52-55, above the A♠. Code that
reasons over bitmasks of cards (fast finish, the computer players' search) works on masks of places
and needs no other change; the engine keeps real cards and asks the order.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine.cards import (
    BASE,
    BIG_JOKER,
    CARD_LIMIT,
    CLUBS,
    DIAMONDS,
    HEARTS,
    LITTLE_JOKER,
    SPADE_MASK,
    SPADES,
    SUIT_MASKS,
    SUIT_OF,
    Card,
)
from bot.engine.rules import Rules

TWO = 0  # a deuce's rank


@dataclass(frozen=True, slots=True, eq=False)
class CardOrder:
    name: str
    moved: tuple[tuple[Card, int], ...]  # (card, place) for each card not at its own index
    back: tuple[tuple[int, Card], ...]  # the same, (place, card)
    place: tuple[int, ...]  # the place of each card int (a second deck's copy, six: its own index)
    card: tuple[int, ...]  # the card at each place (-1: none)
    fixed: int  # the cards at their own index, and so the places they take (none a moved card took)
    suit_masks: tuple[int, ...]  # the cards played as each suit
    spades: int
    non_spades: int

    @property
    def standard(self) -> bool:
        return not self.moved

    def places(self, mask: int) -> int:
        """A mask of cards as a mask of places."""
        return _move(mask, self.fixed, self.moved)

    def cards(self, places: int) -> int:
        """A mask of places as a mask of cards."""
        return _move(places, self.fixed, self.back)

    def suit_of(self, card: Card) -> int:
        """The suit the card is played as (follow suit, breaking spades, trumping)."""
        return SUIT_OF[self.place[card]]


def _move(mask: int, fixed: int, moves: tuple[tuple[int, int], ...]) -> int:
    if not moves:
        return mask
    out = mask & fixed
    for source, target in moves:
        if mask >> source & 1:
            out |= 1 << target
    return out


def _order(name: str, moves: dict[Card, int]) -> CardOrder:
    """The moved cards take their places from any card out of the deck there (deuces_high plays
    without jokers, whose indices are the 2♥'s and the 2♣'s places)."""
    place = [moves.get(c, c) for c in range(CARD_LIMIT)]
    card = [c if (c & BASE) < 54 and c not in moves else -1 for c in range(CARD_LIMIT)]
    for c, p in moves.items():
        card[p] = c
    fixed = sum(1 << c for c in range(54) if c not in moves and c not in moves.values())
    back = tuple((p, c) for c, p in moves.items())
    suit_masks = tuple(_move(mask, fixed, back) for mask in SUIT_MASKS)
    return CardOrder(name, tuple(moves.items()), back, tuple(place), tuple(card), fixed, suit_masks,
                     _move(SPADE_MASK, fixed, back), suit_masks[CLUBS] | suit_masks[DIAMONDS] | suit_masks[HEARTS])


def _deuce(suit: int) -> Card:
    return suit * 13 + TWO


ORDERS: dict[str, CardOrder] = {
    "standard": _order("standard", {}),
    # 2♠ 2♦ 2♣ 2♥ above the A♠, highest first.
    "deuces_high": _order("deuces_high", {_deuce(HEARTS): 52, _deuce(CLUBS): 53, _deuce(DIAMONDS): 54,
                                          _deuce(SPADES): 55}),
    # Big joker, little joker, 2♠, 2♦ above the A♠, highest first.
    "jokers_deuces": _order("jokers_deuces", {_deuce(DIAMONDS): 52, _deuce(SPADES): 53, LITTLE_JOKER: 54,
                                              BIG_JOKER: 55}),
}
STANDARD = ORDERS["standard"]


def card_order(rules: Rules) -> CardOrder:
    return ORDERS[rules.trumps]
