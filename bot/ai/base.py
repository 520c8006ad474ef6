"""The one interface every computer player has: a seat's view in, a move out."""

from __future__ import annotations

from typing import Literal, NamedTuple, Protocol

from bot.engine import Game, SeatView

MoveKind = Literal["bid", "blind_nil", "reveal", "play", "draw", "pass"]


class Move(NamedTuple):
    kind: MoveKind
    value: int = 0  # the bid, or the card, or for a draw 1 to keep the card drawn and 0 to discard it

    @classmethod
    def bid(cls, tricks: int) -> Move:
        return cls("bid", tricks)

    @classmethod
    def play(cls, card: int) -> Move:
        return cls("play", card)

    @classmethod
    def draw(cls, keep: bool) -> Move:
        return cls("draw", int(keep))

    @classmethod
    def pass_card(cls, card: int) -> Move:
        """nil_pass: one card to the partner (a seat passing two is asked twice)."""
        return cls("pass", card)

    @classmethod
    def blind(cls, tricks: int) -> Move:
        """A blind bid before looking: nil (0), or a trailing blind bid of 1 to 7 tricks."""
        return cls("blind_nil", tricks)


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
    elif move.kind == "draw":
        game.draw(seat, bool(move.value))
    elif move.kind == "pass":
        game.pass_cards(seat, (move.value,))
    elif move.kind == "blind_nil":
        game.bid(seat, move.value, blind=True)
    else:
        game.reveal(seat)


def forced_move(view: SeatView) -> Move | None:
    """The move when there is no real choice (one legal card, a blind nil the seat can't bid),
    so callers can answer at once without thinking."""
    if len(view.legal_cards) == 1:
        return Move.play(view.legal_cards[0])
    if view.cards_hidden and not view.can_blind_nil and not view.blind_bids:
        return REVEAL
    if not view.legal_cards and not view.cards_hidden and len(view.legal_bids) == 1:
        return Move.bid(view.legal_bids[0])
    return None
