"""The log of a game: one immutable event per accepted action. Replaying them rebuilds the game.

Events are NamedTuples (immutable and cheap to create: a hand appends ~60 of them and the engine
must play thousands of hands a second).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from bot.engine.cards import Card, as_copies, card_code, parse_card
from bot.engine.errors import BadRecord


class Dealt(NamedTuple):
    hands: tuple[tuple[Card, ...], ...]
    set_aside: tuple[Card, ...]
    stock: tuple[Card, ...] = ()  # duo: no hands dealt, the face-down stock in drawing order


class Drew(NamedTuple):
    """Duo: the seat looked at the top card of the stock and kept it (the next one is discarded)
    or discarded it (the next one is kept)."""

    seat: int
    keep: bool


class Revealed(NamedTuple):
    """A blind-nil-eligible seat chose to look at its cards."""

    seat: int


class BidMade(NamedTuple):
    seat: int
    bid: int
    blind: bool
    forced: bool = False  # made by the game: the house rules left the seat this one bid


class CardPassed(NamedTuple):
    """nil_pass: a card put aside for the seat's partner."""

    seat: int
    card: Card


class CardPlayed(NamedTuple):
    seat: int
    card: Card


class FastFinished(NamedTuple):
    """The rest of the hand (``tricks`` tricks) played itself: nobody's choice could change who took
    each of them. Its cards are not logged one by one: replaying this event plays them again."""

    tricks: int


class Cancelled(NamedTuple):
    pass


class Forfeited(NamedTuple):
    seat: int


Event = Dealt | Drew | Revealed | BidMade | CardPassed | CardPlayed | FastFinished | Cancelled | Forfeited


def event_to_json(event: Event) -> dict[str, Any]:
    if isinstance(event, CardPlayed):
        return {"type": "play", "seat": event.seat, "card": card_code(event.card)}
    if isinstance(event, BidMade):
        data = {"type": "bid", "seat": event.seat, "bid": event.bid, "blind": event.blind}
        return {**data, "forced": True} if event.forced else data
    if isinstance(event, Dealt):
        dealt: dict[str, Any] = {
            "type": "deal",
            "hands": [[card_code(c) for c in hand] for hand in event.hands],
            "set_aside": [card_code(c) for c in event.set_aside],
        }
        if event.stock:
            dealt["stock"] = [card_code(c) for c in event.stock]
        return dealt
    if isinstance(event, Drew):
        return {"type": "draw", "seat": event.seat, "keep": event.keep}
    if isinstance(event, Revealed):
        return {"type": "reveal", "seat": event.seat}
    if isinstance(event, Forfeited):
        return {"type": "forfeit", "seat": event.seat}
    if isinstance(event, FastFinished):
        return {"type": "fast_finish", "tricks": event.tricks}
    if isinstance(event, CardPassed):
        return {"type": "pass", "seat": event.seat, "card": card_code(event.card)}
    return {"type": "cancel"}


def dealt_from_codes(hands: list[list[str]], set_aside: list[str], stock: list[str]) -> Dealt:
    """A deal read back; a code given twice is the second deck's copy the second time (six)."""
    cards = iter(as_copies(parse_card(c) for c in (*(c for hand in hands for c in hand), *set_aside)))
    dealt = tuple(tuple(next(cards) for _ in hand) for hand in hands)
    return Dealt(dealt, tuple(cards), as_copies(parse_card(c) for c in stock))


def event_from_json(data: dict[str, Any]) -> Event:
    try:
        kind = data["type"]
        if kind == "play":
            return CardPlayed(_int(data["seat"]), parse_card(data["card"]))
        if kind == "bid":
            return BidMade(_int(data["seat"]), _int(data["bid"]), bool(data["blind"]), bool(data.get("forced")))
        if kind == "deal":
            return dealt_from_codes(data["hands"], data["set_aside"], data.get("stock", ()))
        if kind == "draw":
            return Drew(_int(data["seat"]), _bool(data["keep"]))
        if kind == "reveal":
            return Revealed(_int(data["seat"]))
        if kind == "forfeit":
            return Forfeited(_int(data["seat"]))
        if kind == "pass":
            return CardPassed(_int(data["seat"]), parse_card(data["card"]))
        if kind == "fast_finish":
            return FastFinished(_int(data["tricks"]))
        if kind == "cancel":
            return Cancelled()
    except (KeyError, TypeError, ValueError) as error:
        raise BadRecord(f"Unreadable event {data!r}: {error}") from error
    raise BadRecord(f"Unknown event type in {data!r}")


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return value


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value
