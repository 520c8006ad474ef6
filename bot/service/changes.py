"""What the service tells the Discord layer after each accepted action, in order.

Plain values, no discord imports: the renderer decides what to post, edit or send privately.
A change that carries a `post_id` was owed in the same transaction as the action that caused it
(the outbox): the listener calls `GameService.delivered(post_id)` once it is out, and whatever was
not delivered before a crash is published again after the restart.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine import TrickLog
from bot.store import FinishOutcome


@dataclass(frozen=True, slots=True)
class LobbyChanged:
    pass


@dataclass(frozen=True, slots=True)
class GameStarted:
    pass


@dataclass(frozen=True, slots=True)
class HandDealt:
    """A new hand: humans get their cards privately, except seats whose cards are hidden."""

    hand_number: int
    hidden_seats: tuple[int, ...]
    post_id: int | None = None


@dataclass(frozen=True, slots=True)
class TableChanged:
    pass


@dataclass(frozen=True, slots=True)
class TrickWon:
    trick: TrickLog


@dataclass(frozen=True, slots=True)
class HandScored:
    """A hand ended. `table_message_id`: the table message that showed it, which becomes its summary.
    The number only: the Discord layer draws the summary from the public view, and the hand's log
    holds its deal."""

    hand_number: int
    table_message_id: int | None = None
    post_id: int | None = None


@dataclass(frozen=True, slots=True)
class GameOver:
    outcome: FinishOutcome
    post_id: int | None = None


@dataclass(frozen=True, slots=True)
class GameCancelled:
    reason: str
    post_id: int | None = None


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A person's turn began and they haven't acted for a few seconds: worth one mention.

    `token` is the game's event count then; any later action makes the mention stale."""

    seat: int
    token: int


@dataclass(frozen=True, slots=True)
class TurnReminder:
    seat: int


@dataclass(frozen=True, slots=True)
class ActedForPlayer:
    """A computer player moved for a human who did not act in time."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeatTakenOver:
    """A human left a running game; a computer player has the seat now."""

    seat: int
    left: str


Change = (LobbyChanged | GameStarted | HandDealt | TableChanged | TrickWon | HandScored | GameOver
          | GameCancelled | TurnStarted | TurnReminder | ActedForPlayer | SeatTakenOver)
