"""The draw of ``duo`` (RULES.md, "More modes"): no deal, the 52 cards lie face down in a stock.

In turn, the non-dealer first, a player looks at the top card and either keeps it (and then draws the
next and discards it) or discards it (and then must keep the next). Each turn takes two cards, so the
stock of 52 leaves each player 13 cards and 26 discarded. What a player kept or discarded is theirs
alone until the hand ends; the other player sees only that two cards went.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from bot.engine.cards import Card
from bot.engine.modes import check_whole_deck


class DrawLog(NamedTuple):
    """One card drawn: who drew it and whether they kept it (the record's ``draws``)."""

    seat: int
    card: Card
    kept: bool


def seeded_stock(deck: Sequence[Card], rng: random.Random) -> tuple[Card, ...]:
    stock = list(deck)
    rng.shuffle(stock)
    return tuple(stock)


def check_stock(stock: Sequence[Card], deck: Sequence[Card]) -> None:
    """A stock must be the whole deck, each card once."""
    check_whole_deck(stock, deck, "in the stock twice", "The stock must hold the whole deck.")


class Draw:
    """A draw in progress: the stock in order, how far it has gone, and each seat's discards."""

    __slots__ = ("discards", "log", "position", "stock")

    def __init__(self, stock: tuple[Card, ...], seats: int, log: list[DrawLog]) -> None:
        self.stock = stock
        self.position = 0
        self.discards = [0] * seats
        self.log = log  # the hand's log, filled as the draw goes

    @property
    def done(self) -> bool:
        return self.position >= len(self.stock)

    @property
    def offered(self) -> Card:
        """The top card of the stock: what the seat on turn is looking at."""
        return self.stock[self.position]

    @property
    def discarded(self) -> int:
        """Every seat's discards, as one mask."""
        mask = 0
        for discards in self.discards:
            mask |= discards
        return mask

    @property
    def left(self) -> int:
        return len(self.stock) - self.position

    def take(self, seat: int, keep: bool) -> Card:
        """The seat keeps the top card or the one under it, discards the other; the card kept."""
        first, second = self.stock[self.position], self.stock[self.position + 1]
        self.position += 2
        kept, dropped = (first, second) if keep else (second, first)
        self.discards[seat] |= 1 << dropped
        self.log.append(DrawLog(seat, first, keep))
        self.log.append(DrawLog(seat, second, not keep))
        return kept
