"""A game the service is running, as the service and the Discord layer see it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from bot.engine import Game, Mode, Rules
from bot.service.deadlines import Timer, from_stored
from bot.store import GameInfo, Seat


@dataclass(eq=False)
class LiveGame:
    """A game's row, seats, engine state, lock and timers."""

    game_id: str
    guild_id: int
    channel_id: int
    mode: Mode
    rules: Rules
    host_id: int | None
    seats: list[Seat]
    turn_timeout: float
    turn_ping_delay: float = 5.0
    status: str = "lobby"
    game: Game | None = None
    lobby_message_id: int | None = None
    table_message_id: int | None = None
    deadline: Timer | None = None  # the timer armed now
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.Task[None] | None = None
    ping_timer: asyncio.Task[None] | None = None
    save_failures: int = 0  # in a row: how long to wait before retrying what a failed save left undone

    @classmethod
    def from_info(cls, info: GameInfo, game: Game | None, turn_timeout: float) -> LiveGame:
        live = cls(
            game_id=info.game_id,
            guild_id=info.guild_id,
            channel_id=info.channel_id,
            mode=Mode.parse(info.mode),
            rules=Rules.from_options(info.rules),
            host_id=info.host_id,
            seats=list(info.seats),
            turn_timeout=turn_timeout,
            status=info.status,
            game=game,
            lobby_message_id=info.lobby_message_id,
            table_message_id=info.table_message_id,
            deadline=from_stored(info.deadline),
        )
        live.name_seats()
        return live

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)

    @property
    def is_full(self) -> bool:
        return len(self.seats) == self.mode.seats

    @property
    def active(self) -> bool:
        return self.status in ("lobby", "playing")

    @property
    def token(self) -> int:
        """Changes with every accepted action, so a timer set before it knows it is stale."""
        return self.game.event_count if self.game is not None else 0

    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    def name_seats(self) -> None:
        """Seat names live with the seats (a computer player taking over renames one), not in events."""
        if self.game is not None:
            for seat in self.seats:
                self.game.rename(seat.seat, seat.name)

    def human_turn(self) -> int | None:
        """The seat to act if a person sits there."""
        game = self.game
        if game is None or game.turn is None or self.status != "playing" or self.seats[game.turn].is_bot:
            return None
        return game.turn
