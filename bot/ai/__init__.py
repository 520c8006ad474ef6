"""Computer players. Each sees only a seat's view and returns a bid, a blind nil decision or a card."""

from __future__ import annotations

from bot.ai.base import BLIND_NIL, REVEAL, ComputerPlayer, Move, apply_move, forced_move
from bot.ai.hard import Budget, HardPlayer
from bot.ai.heuristic import EasyPlayer, NormalPlayer
from bot.ai.random_player import RandomPlayer

LEVELS = ("random", "easy", "normal", "hard")


def make_player(level: str, seed: int | None = None, budget: str | float | Budget | None = None) -> ComputerPlayer:
    """A computer player of the named level; ``budget`` bounds the hard player's search (seconds, or
    ``"300it"`` determinizations). Unknown levels are refused with the known ones."""
    if level == "random":
        return RandomPlayer(seed)
    if level == "easy":
        return EasyPlayer(seed)
    if level == "normal":
        return NormalPlayer(seed)
    if level == "hard":
        return HardPlayer(seed, budget)
    raise ValueError(f"Unknown computer player level “{level}”: use one of {', '.join(LEVELS)}.")


__all__ = ["BLIND_NIL", "LEVELS", "REVEAL", "Budget", "ComputerPlayer", "EasyPlayer", "HardPlayer", "Move",
           "NormalPlayer", "RandomPlayer", "apply_move", "forced_move", "make_player"]
