"""Computer players. Each sees only a seat's view and returns a bid, a blind nil decision or a card."""

from __future__ import annotations

from bot.ai.base import BLIND_NIL, REVEAL, ComputerPlayer, Move, apply_move
from bot.ai.random_player import RandomPlayer

LEVELS = ("random",)


def make_player(level: str, seed: int | None = None) -> ComputerPlayer:
    """A computer player of the named level; unknown levels are refused with the known ones."""
    if level == "random":
        return RandomPlayer(seed)
    raise ValueError(f"Unknown computer player level “{level}”: use one of {', '.join(LEVELS)}.")


__all__ = ["BLIND_NIL", "LEVELS", "REVEAL", "ComputerPlayer", "Move", "RandomPlayer", "apply_move",
           "make_player"]
