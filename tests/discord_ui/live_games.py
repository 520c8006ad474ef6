"""A running game for the renderers' tests, built without a service or a store."""

from __future__ import annotations

from bot.engine import Game, Mode, Rules
from bot.service import LiveGame
from bot.store import Seat


def live_game(mode: Mode, rules: Rules, seed: int) -> LiveGame:
    """A game just started by people only (alice, bob, ...) as the renderers get it, reproducible from `seed`."""
    names = ["alice", "bob", "carol", "dave", "erin", "frank"][: mode.seats]
    seats = [Seat(i, n, user_id=i + 1) for i, n in enumerate(names)]
    live = LiveGame("abc123", 1, 2, mode, rules, 1, seats, 120.0, status="playing")
    live.game = Game.new("abc123", mode, rules, seed=seed, names=names)
    return live
