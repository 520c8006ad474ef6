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
    TurnStarted,
)
from bot.service.clock import Clock, ManualClock, SystemClock
from bot.service.context import BOT_LEVELS, BOT_WIDE, DEFAULT_LOBBY_TIMEOUT, Listener, PublisherPort
from bot.service.errors import Refusal, SaveFailed
from bot.service.games import GameService
from bot.service.inputs import SHOW_MY_CARDS, asks_to_see_cards, parse_bid
from bot.service.live import CancelRequest, LiveGame
from bot.service.timers import Decider, InlineDecider
from bot.store import FinishOutcome, LeaderboardEntry, LeaderboardSort, PlayerStats, RatingChange, Season, SeasonRhythm

__all__ = [
    "BOT_LEVELS", "BOT_WIDE", "DEFAULT_LOBBY_TIMEOUT", "SHOW_MY_CARDS", "ActedForPlayer", "CancelRequest", "Change",
    "Clock", "Decider",
    "FinishOutcome", "GameCancelled", "GameOver", "GameService", "GameStarted", "HandDealt", "HandScored",
    "InlineDecider", "LeaderboardEntry", "LeaderboardSort", "Listener", "LiveGame", "LobbyChanged",
    "ManualClock", "PlayerStats", "PublisherPort", "RatingChange", "Refusal", "SaveFailed", "Season", "SeasonRhythm",
    "SeatTakenOver",
    "SystemClock", "TableChanged", "TrickWon", "TurnReminder", "TurnStarted", "asks_to_see_cards", "parse_bid",
]
