"""Computer players. Each sees only a seat's view and returns a bid, a blind nil decision or a card."""

from __future__ import annotations

from bot.ai.base import BLIND_NIL, REVEAL, ComputerPlayer, Move, apply_move, forced_move
from bot.ai.hard import Budget, HardPlayer
from bot.ai.heuristic import EasyPlayer, NormalPlayer
from bot.ai.places import InPlaces
from bot.ai.random_player import RandomPlayer

LEVELS = ("random", "easy", "normal", "hard")  # what people may seat at a table
# Earlier players kept exactly as they were, as yardsticks: improving "normal" must not hide whether
# "hard" still beats the player it was first measured against. Offline only (selfplay, benches).
YARDSTICKS = ("normal-v1",)
ALL_LEVELS = LEVELS + YARDSTICKS


def make_player(level: str, seed: int | None = None, budget: str | float | Budget | None = None) -> ComputerPlayer:
    """A computer player of the named level (or yardstick); ``budget`` bounds the hard player's search
    (seconds, or ``"300it"`` determinizations). Unknown levels are refused with the known ones. Every
    player sees cards as places under the game's trumps (bot/ai/places.py)."""
    return InPlaces(_player(level, seed, budget))


def _player(level: str, seed: int | None, budget: str | float | Budget | None) -> ComputerPlayer:
    if level == "random":
        return RandomPlayer(seed)
    if level == "easy":
        return EasyPlayer(seed)
    if level == "normal":
        return NormalPlayer(seed)
    if level == "normal-v1":
        return NormalPlayer(seed, version=1)
    if level == "hard":
        return HardPlayer(seed, budget)
    raise ValueError(f"Unknown computer player level “{level}”: use one of {', '.join(ALL_LEVELS)}.")


__all__ = ["ALL_LEVELS", "BLIND_NIL", "LEVELS", "REVEAL", "YARDSTICKS", "Budget", "ComputerPlayer", "EasyPlayer",
           "HardPlayer", "Move", "NormalPlayer", "RandomPlayer", "apply_move", "forced_move", "make_player"]
