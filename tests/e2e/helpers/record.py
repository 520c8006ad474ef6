"""Moves in record terms, to compare what the bot acknowledged with the game's exported record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class Move:
    """An action the bot acknowledged, in record terms."""

    seat: int
    kind: Literal["bid", "pass", "play", "draw"]
    value: str  # a bid as typed ("nil", "4", "blind nil"), a card code ("10H"), or "keep" / "discard"
    how: str = ""  # the way the player acted: command or panel

    def key(self) -> tuple[Any, ...]:
        if self.kind in ("play", "pass"):
            return (self.kind, self.seat, self.value)
        if self.kind == "draw":
            return ("draw", self.seat, self.value == "keep")
        blind = self.value == "blind nil"
        return ("bid", self.seat, 0 if self.value in ("nil", "blind nil") else int(self.value), blind)


def chosen_tricks(hand: dict[str, Any]) -> list[Any]:
    """A record's hand's tricks whose cards someone chose: not those that played themselves."""
    tricks: list[Any] = hand["tricks"]
    return tricks[:hand["fast_finish"]["from_trick"] - 1] if "fast_finish" in hand else tricks


def record_moves(record: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Every bid and card of a `spades-record/1` document that someone chose, in the order they were
    made (not the tricks that played themselves: `fast_finish`)."""
    moves: list[tuple[Any, ...]] = []
    for hand in record["hands"]:
        moves += [("bid", b["seat"], b["bid"], b["blind"]) for b in hand["bids"]]
        moves += [("pass", p["from"], card) for p in hand.get("passes", ()) for card in p["cards"]]
        for trick in chosen_tricks(hand):
            moves += [("play", seat, card) for seat, card in trick["plays"]]
    return moves

