"""What each mode plays with: its deck and the cards each seat holds (RULES.md, "Modes" and "More
modes"). One place, so that the engine, the seats' views and the computer players' simulator agree."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.engine.cards import (
    CARD_LIMIT,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JOKER_DECK,
    SECOND_COPY,
    STANDARD_DECK,
    TWO_OF_CLUBS,
    Card,
    card_label,
    mask_of,
)
from bot.engine.errors import IllegalAction
from bot.engine.rules import Mode, Rules

# Five players: the 2♦ and the 2♥ come out so that 50 cards deal 10 each (file 003).
FIVE_DECK: tuple[Card, ...] = tuple(c for c in STANDARD_DECK if c not in (DIAMONDS * 13, HEARTS * 13))
# Jokers in a four-seat game: both jokers in, the 2♣ and 2♦ out, so 52 cards still deal 13 each.
FOUR_SEAT_JOKER_DECK: tuple[Card, ...] = tuple(c for c in JOKER_DECK if c not in (CLUBS * 13, DIAMONDS * 13))
# Six players: two decks without their 2♣, 102 cards, 17 each; the second deck's cards are copies.
SIX_DECK: tuple[Card, ...] = tuple(c + copy for copy in (0, SECOND_COPY) for c in STANDARD_DECK if c != TWO_OF_CLUBS)
SIX_SIDES = {"solo": 6, "pairs": 3, "trios": 2}  # seat s is on side s % sides: 1+4, 2+5, 3+6 or 1, 3, 5
# trumps=jokers_deuces outside cutthroat: both jokers in, the 2♣ and 2♥ out (the 2♦ is a top spade).
JOKERS_DEUCES_DECK: tuple[Card, ...] = tuple(c for c in JOKER_DECK if c not in (CLUBS * 13, HEARTS * 13))
DUO_HAND = 13  # the draw leaves each of the two players 13 cards and 26 discarded


def deck_for(mode: Mode, rules: Rules) -> tuple[Card, ...]:
    """The cards a hand is dealt from (cutthroat's leftover is dealt aside, so it is in here)."""
    if mode is Mode.FIVE:
        return FIVE_DECK
    if mode is Mode.SIX:
        return SIX_DECK
    if rules.trumps == "jokers_deuces":  # 54 cards, 18 each, in cutthroat
        return JOKER_DECK if mode is Mode.CUTTHROAT else JOKERS_DEUCES_DECK
    if not rules.jokers:
        return STANDARD_DECK
    return JOKER_DECK if mode is Mode.CUTTHROAT else FOUR_SEAT_JOKER_DECK


def sides_for(mode: Mode, rules: Rules) -> int:
    """How many sides score apart; seat ``s`` plays for side ``s % sides`` (partners: 1+3 and 2+4)."""
    if mode is Mode.PARTNERS:
        return 2
    if mode is Mode.SIX:
        return SIX_SIDES[rules.teams]
    return mode.seats


def sets_aside(mode: Mode, rules: Rules) -> bool:
    """Cutthroat's 52 cards leave one over, set aside each hand; with the jokers in, 54 deal evenly."""
    return mode is Mode.CUTTHROAT and len(deck_for(mode, rules)) % mode.seats != 0


def deck_mask_for(mode: Mode, rules: Rules) -> int:
    return mask_of(deck_for(mode, rules))


def check_whole_deck(cards: Iterable[Card], deck: Sequence[Card], twice: str, short: str) -> None:
    """Every card of ``deck`` once among ``cards`` (a deal with its set-aside cards, or duo's stock);
    the message for a card given twice ends with ``twice``, the one for a card missing is ``short``."""
    deck_mask = mask_of(deck)
    seen = 0
    for card in cards:
        if not isinstance(card, int) or not 0 <= card < CARD_LIMIT or not deck_mask >> card & 1:
            raise IllegalAction(f"{card!r} is not in this game's deck.")
        if seen >> card & 1:
            raise IllegalAction(f"{card_label(card)} is {twice}.")
        seen |= 1 << card
    if seen != deck_mask:
        raise IllegalAction(short)


def tricks_for(mode: Mode, rules: Rules) -> int:
    """Cards each seat holds, hence tricks a hand: the deck shared out evenly (cutthroat's 52nd card
    is set aside), except in duo where half the stock is discarded in the draw."""
    if mode.draws:
        return DUO_HAND
    return len(deck_for(mode, rules)) // mode.seats
