"""A message's layout as plain frozen data, decided once and drawn two ways: discord.py's views
(answers to clicks) and `transport.fastpath`'s JSON (the edits the bot makes most). Below both, so
the transport writes a layout without knowing the table that decided it (`table.faces`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from bot.engine import Card, card_label
from bot.engine.cards import BASE

ROW_WIDTH = 5  # buttons per action row
RED_SUITS = (1, 2)  # diamonds, hearts

# Discord's button styles
PRIMARY, SECONDARY, SUCCESS, DANGER = 1, 2, 3, 4


@dataclass(frozen=True, slots=True)
class Button:
    """One button: `kind` names the dynamic item that answers its clicks, `args` rebuild it."""

    kind: str
    args: tuple[str | int, ...]
    custom_id: str
    label: str
    style: int
    disabled: bool = False
    emoji: str | None = None


@dataclass(frozen=True, slots=True)
class Text:
    content: str


@dataclass(frozen=True, slots=True)
class Divider:
    pass


@dataclass(frozen=True, slots=True)
class Row:
    buttons: tuple[Button, ...]


@dataclass(frozen=True, slots=True)
class Cards:
    """One suit's card buttons, `enabled` or not, drawn as rows of `ROW_WIDTH`. Kept as numbers, not
    buttons: a panel's face is built on every move of its game and kept until the next, and a button
    object per card (made anew, or held in a cache too small for hundreds of games) left tens of
    thousands of young objects for every garbage collection to walk (11 ms each under load)."""

    game_id: str
    cards: tuple[Card, ...]
    enabled: tuple[bool, ...]

    def as_rows(self) -> list[Row]:
        return rows([card_button(self.game_id, card, on) for card, on in zip(self.cards, self.enabled, strict=True)])


Part = Text | Divider | Row | Cards


@dataclass(frozen=True, slots=True)
class Face:
    """A message laid out as one coloured container of parts (Discord's components v2)."""

    colour: int
    parts: tuple[Part, ...]


def card_button(game_id: str, card: Card, enabled: bool = True) -> Button:
    label, style = card_look(card)
    return Button("card", (game_id, card), card_custom_id(game_id, card), label, style, disabled=not enabled)


@functools.cache
def card_look(card: Card) -> tuple[str, int]:
    """A card button's label and style."""
    red = card & BASE < 52 and (card & BASE) // 13 in RED_SUITS
    return card_label(card), DANGER if red else SECONDARY


def card_custom_id(game_id: str, card: Card) -> str:
    return f"spades:card:{game_id}:{card}"


def rows(buttons: list[Button]) -> list[Row]:
    return [Row(tuple(buttons[i:i + ROW_WIDTH])) for i in range(0, len(buttons), ROW_WIDTH)]
