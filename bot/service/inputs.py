"""What people type, read strictly: anything that isn't plainly a bid or a setting is refused in words."""

from __future__ import annotations

import re

from bot.engine import Card, EngineError, parse_card
from bot.service.errors import Refusal

_PLAIN_NUMBER = re.compile(r"[0-9]{1,4}")  # ASCII digits only: "²" and "٣" are digits to str.isdigit
_BLIND_NUMBER = re.compile(r"blind ?([0-9]{1,2})")


SHOW_MY_CARDS = "show my cards"  # what /spades bid offers beside blind nil: giving it up to look
_SHOW_WORDS = (SHOW_MY_CARDS, "show cards", "show", "reveal", "look", "see my cards")


def asks_to_see_cards(text: str) -> bool:
    """``/spades bid show my cards``: the slash-command way to give up blind nil and look."""
    return " ".join(text.strip().lower().split()) in _SHOW_WORDS


def parse_bid(text: str) -> tuple[int, bool]:
    """``nil``, ``blind nil``, ``blind 3`` or a number, as people type them, into (tricks, blind)."""
    cleaned = " ".join(text.strip().lower().replace("_", " ").split())
    spaced = cleaned.replace("-", " ")
    if spaced in ("blind nil", "blind", "bn", "blind 0"):
        return 0, True
    if (blind := _BLIND_NUMBER.fullmatch(spaced)) is not None:  # a trailing blind bid
        return int(blind[1]), True
    if cleaned in ("nil", "zero", "0"):
        return 0, False
    if _PLAIN_NUMBER.fullmatch(cleaned):
        return int(cleaned), False
    if cleaned.startswith("-") and _PLAIN_NUMBER.fullmatch(cleaned[1:]):
        raise Refusal("A bid can't be negative: type nil, blind nil, or a number of tricks.")
    raise Refusal(f"“{text.strip()}” isn't a bid: type nil, blind nil, or a number of tricks.")


def parse_cards(text: str) -> list[Card]:
    """Cards as people type a few of them: ``AS KH``, ``A♠, 10h`` or ``ace of spades, king of hearts``."""
    cards: list[Card] = []
    for part in text.replace(";", ",").split(","):
        words = part.split()
        pieces = [part] if " of " in f" {part.lower()} " or part.strip().lower() in _JOKER_WORDS else words
        try:
            cards += [parse_card(piece) for piece in pieces if piece.strip()]
        except EngineError as error:
            raise Refusal(str(error)) from None
    if not cards:
        raise Refusal("Name the cards to pass, for example `AS` or `AS KH`.")
    return cards


_JOKER_WORDS = ("big joker", "little joker", "small joker")


def parse_whole_number(name: str, value: object, low: int, high: int) -> int:
    """A setting given as a number or as text; the refusal names the setting and its range."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _PLAIN_NUMBER.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        raise Refusal(f"{name} can't be “{value}”: it takes a whole number from {low} to {high}.")
    if not low <= number <= high:
        raise Refusal(f"{name} can't be {number}: it takes a whole number from {low} to {high}.")
    return number
