"""Games per channel on top of the engine and the store; drivable without Discord."""

from bot.service.changes import (
    ActedForPlayer,
    Change,
    GameCancelled,
    GameOver,
    GameStarted,
    HandDealt,
    HandScored,
    LobbyChanged,
    SeatTakenOver,
    TableChanged,
    TrickWon,
    TurnReminder,
)
from bot.service.clock import Clock, ManualClock, SystemClock
from bot.service.errors import Refusal, SaveFailed
from bot.service.games import BOT_LEVELS, Decider, GameService, InlineDecider, Listener, LiveGame, parse_bid

__all__ = [
    "BOT_LEVELS", "ActedForPlayer", "Change", "Clock", "Decider", "GameCancelled", "GameOver",
    "GameService", "GameStarted", "HandDealt", "HandScored", "InlineDecider", "Listener", "LiveGame",
    "LobbyChanged", "ManualClock", "Refusal", "SaveFailed", "SeatTakenOver", "SystemClock",
    "TableChanged", "TrickWon", "TurnReminder", "parse_bid",
]
