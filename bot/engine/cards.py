"""Cards as small ints so that hands are bitmasks: the engine plays thousands of hands a second.

A card is ``suit * 13 + rank`` with suits clubs, diamonds, hearts, spades (0-3) and ranks 2..A
(0-12); the little and big jokers are 52 and 53 and count as the two highest spades. Because
spades and jokers occupy the top indices, ``card >= FIRST_SPADE`` means "is a trump" and a larger
index always beats a smaller one within a suit. Under the other trump orders (``trumps``) this holds
of a card's place, not its index (bot/engine/card_order.py): places run to 55, so the suit tables
below cover 56 places.

``six`` plays two decks: the second deck's copy of a card is ``card + SECOND_COPY``, so one hand's
bitmask can hold both copies. A copy has its first's code, label, suit and strength: ``card & BASE``
is the first copy (the same card for one deck), so ``card & BASE >= FIRST_SPADE`` and comparing
``card & BASE`` stay the tests of one-deck play.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.engine.errors import CardParseError

Card = int

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
              "jack", "queen", "king", "ace")
LITTLE_JOKER: Card = 52
BIG_JOKER: Card = 53
FIRST_SPADE: Card = SPADES * 13
TWO_OF_CLUBS: Card = 0

STANDARD_DECK: tuple[Card, ...] = tuple(range(52))
JOKER_DECK: tuple[Card, ...] = tuple(range(54))
SECOND_COPY = 64  # the second deck's copy of card c is c + 64 (six)
BASE = SECOND_COPY - 1  # card & BASE: the first copy
CARD_LIMIT = SECOND_COPY + 54  # every card int is below this

PLACES = 56  # the card order's places (card_order.py): 52 cards and four above the A♠
SUIT_OF: tuple[int, ...] = tuple(min((c & BASE) // 13, SPADES) for c in range(CARD_LIMIT))
_ONE_DECK_SUITS = (
    0x1FFF,
    0x1FFF << 13,
    0x1FFF << 26,
    ((1 << (PLACES - 39)) - 1) << 39,  # the jokers, and the places above the A♠
)
SUIT_MASKS: tuple[int, ...] = tuple(m | m << SECOND_COPY for m in _ONE_DECK_SUITS)
SPADE_MASK = SUIT_MASKS[SPADES]
NON_SPADE_MASK = SUIT_MASKS[CLUBS] | SUIT_MASKS[DIAMONDS] | SUIT_MASKS[HEARTS]

# Lookup tables that turn a bitmask into cards a suit at a time (faster than testing 54 bits).
_SUIT_CHUNKS: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(tuple(13 * k + i for i in range(13) if bits >> i & 1) for bits in range(1 << 13 if k < 4 else 16))
    for k in range(5)
)

_SECOND_CHUNKS = tuple(tuple(tuple(c + SECOND_COPY for c in cards) for cards in suit) for suit in _SUIT_CHUNKS[:4])


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a bitmask, lowest first (first copies, then second copies)."""
    chunks = _SUIT_CHUNKS
    cards = (chunks[0][mask & 0x1FFF] + chunks[1][mask >> 13 & 0x1FFF] + chunks[2][mask >> 26 & 0x1FFF]
             + chunks[3][mask >> 39 & 0x1FFF] + chunks[4][mask >> 52 & 0xF])
    if mask >> SECOND_COPY:
        chunks = _SECOND_CHUNKS
        cards += (chunks[0][mask >> 64 & 0x1FFF] + chunks[1][mask >> 77 & 0x1FFF] + chunks[2][mask >> 90 & 0x1FFF]
                  + chunks[3][mask >> 103 & 0x1FFF])
    return cards


def fold(mask: int) -> int:
    """The first copies of a mask's cards (two decks: which cards, not which copy)."""
    return (mask | mask >> SECOND_COPY) & ((1 << SECOND_COPY) - 1)


def stronger(card: Card) -> int:
    """A mask of every card index ranking above ``card`` in its suit's order, both copies (its own
    twin is not: identical cards tie, and the ``identical`` rule breaks the tie by play order)."""
    below = (2 << (card & BASE)) - 1
    return ~(below | below << SECOND_COPY)


def copies(card: Card) -> int:
    """A mask of both copies of a card (only one exists in a one-deck game)."""
    base = card & BASE
    return 1 << base | 1 << (base + SECOND_COPY)


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def card_code(card: Card) -> str:
    """The record form: rank then suit letter (``10H``, ``AS``), ``BJ``/``LJ`` for jokers; both
    copies of a card have one code."""
    card &= BASE
    if card == BIG_JOKER:
        return "BJ"
    if card == LITTLE_JOKER:
        return "LJ"
    return RANKS[card % 13] + SUIT_LETTERS[card // 13]


def card_label(card: Card) -> str:
    """The display form with a suit symbol (``A♠``, ``10♥``)."""
    card &= BASE
    if card == BIG_JOKER:
        return "Big🃏"
    if card == LITTLE_JOKER:
        return "Little🃏"
    return RANKS[card % 13] + SUIT_SYMBOLS[card // 13]


def card_name(card: Card) -> str:
    """Words, for screen readers and autocomplete (``queen of hearts``)."""
    card &= BASE
    if card == BIG_JOKER:
        return "big joker"
    if card == LITTLE_JOKER:
        return "little joker"
    return f"{RANK_NAMES[card % 13]} of {SUIT_NAMES[card // 13]}"


# Display order alternates colours (♠ ♥ ♣ ♦) and goes high to low, as players hold cards.
_DISPLAY_SUIT_ORDER = {SPADES: 0, HEARTS: 1, CLUBS: 2, DIAMONDS: 3}


def display_sorted(cards: Iterable[Card], place: tuple[int, ...] | None = None) -> list[Card]:
    """``place``: the card order's places (``CardOrder.place``), so a 2♦ played as a spade shows
    among the spades, by strength. A card held twice (six) shows twice, side by side."""
    if place is None:
        return sorted(cards, key=lambda c: (_DISPLAY_SUIT_ORDER[SUIT_OF[c]], -(c & BASE), c))
    return sorted(cards, key=lambda c: (_DISPLAY_SUIT_ORDER[SUIT_OF[place[c]]], -place[c]))


ACCEPTED_FORMS = "AS, as, A♠, 10h, th, ace of spades, queen of hearts, BJ (big joker), LJ (little joker)"

_RANK_ALIASES: dict[str, int] = {r.lower(): i for i, r in enumerate(RANKS)}
_RANK_ALIASES.update({"t": 8, "1": 12})
_RANK_ALIASES.update({name: i for i, name in enumerate(RANK_NAMES)})
_RANK_ALIASES.update({"deuce": 0, "jack": 9, "queen": 10, "king": 11, "ace": 12})
_SUIT_ALIASES: dict[str, int] = {}
for _i, (_letter, _symbol, _name) in enumerate(zip(SUIT_LETTERS, SUIT_SYMBOLS, SUIT_NAMES, strict=True)):
    _SUIT_ALIASES[_letter.lower()] = _i
    _SUIT_ALIASES[_symbol] = _i
    _SUIT_ALIASES[_name] = _i
    _SUIT_ALIASES[_name[:-1]] = _i
for _symbol, _i in (("♤", SPADES), ("♡", HEARTS), ("♢", DIAMONDS), ("♧", CLUBS)):
    _SUIT_ALIASES[_symbol] = _i
_JOKER_ALIASES = {
    "bj": BIG_JOKER, "big joker": BIG_JOKER, "big": BIG_JOKER, "big🃏": BIG_JOKER,
    "lj": LITTLE_JOKER, "little joker": LITTLE_JOKER, "little": LITTLE_JOKER, "little🃏": LITTLE_JOKER,
    "small joker": LITTLE_JOKER,
}
_SHORT_FORM = re.compile(r"^(10|[2-9]|[tjqka1])\s*([cdhs♣♦♥♠♤♡♢♧])$")
_WORD_FORM = re.compile(r"^(\w+)\s+of\s+(\w+)$")


def parse_card(text: str) -> Card:
    """Read a card the way people type it; the error lists the accepted forms."""
    cleaned = " ".join(text.strip().lower().replace("\ufe0f", "").split())
    if cleaned in _JOKER_ALIASES:
        return _JOKER_ALIASES[cleaned]
    match = _SHORT_FORM.match(cleaned) or _WORD_FORM.match(cleaned)
    if match:
        rank = _RANK_ALIASES.get(match.group(1))
        suit = _SUIT_ALIASES.get(match.group(2))
        if rank is not None and suit is not None:
            return suit * 13 + rank
    raise CardParseError(f"“{text.strip()}” isn't a card. Try one of: {ACCEPTED_FORMS}.")



def as_copies(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards read from codes (which name no copy): a card named a second time is the second deck's
    copy, so a deal or stock of two decks reads back as it was dealt."""
    seen = 0
    out = []
    for card in cards:
        if seen >> card & 1:
            card += SECOND_COPY
        seen |= 1 << card
        out.append(card)
    return tuple(out)


def held_copy(hand: int, card: Card) -> Card:
    """The copy of ``card`` a hand holds, the first when it holds both (either copy may be named: they
    play alike); ``card`` itself when the hand holds neither, for the caller to refuse."""
    base = card & BASE
    if hand >> base & 1:
        return base
    second = base + SECOND_COPY
    return second if hand >> second & 1 else card
