"""The one interface every computer player has: a seat's view in, a move out."""

from __future__ import annotations

from typing import Literal, NamedTuple, Protocol

from bot.engine import Game, SeatView

MoveKind = Literal["bid", "blind_nil", "reveal", "play"]


class Move(NamedTuple):
    kind: MoveKind
    value: int = 0  # the bid, or the card

    @classmethod
    def bid(cls, tricks: int) -> Move:
        return cls("bid", tricks)

    @classmethod
    def play(cls, card: int) -> Move:
        return cls("play", card)


BLIND_NIL = Move("blind_nil")
REVEAL = Move("reveal")


class ComputerPlayer(Protocol):
    """Sees only ``SeatView`` (never another seat's cards) and is asked only on its own turn."""

    level: str

    def choose(self, view: SeatView) -> Move: ...


def apply_move(game: Game, seat: int, move: Move) -> None:
    """Carry out a computer player's move through the engine's checked actions."""
    if move.kind == "play":
        game.play(seat, move.value)
    elif move.kind == "bid":
        game.bid(seat, move.value)
    elif move.kind == "blind_nil":
        game.bid(seat, 0, blind=True)
    else:
        game.reveal(seat)
