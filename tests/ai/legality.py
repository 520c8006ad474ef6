"""The yardstick for the computer players' tests: would the engine accept a move?"""

from __future__ import annotations

from bot.ai import Move
from bot.engine import Game


def is_legal(game: Game, seat: int, move: Move) -> bool:
    """Whether the engine would accept `move` from `seat` now, asked without making it."""
    if move.kind == "play":
        return game.can_play(seat, move.value)
    if move.kind == "bid":
        return game.can_bid(seat, move.value)
    if move.kind == "draw":
        return game.can_draw(seat, bool(move.value))
    if move.kind == "blind_nil":
        return game.can_bid(seat, move.value, blind=True)
    if move.kind == "pass":
        return game.can_pass(seat, (move.value,))
    return game.can_reveal(seat)
