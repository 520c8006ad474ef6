"""A game the service is running, as the service and the Discord layer see it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.engine import Game, Mode, Rules, SeatView, TableView, seat_views, table_view
from bot.service.clock import Alarm
from bot.service.deadlines import Timer, from_stored
from bot.service.errors import Refusal
from bot.store import GameInfo, GameStatus, Seat


@dataclass(eq=False)
class CancelRequest:
    """The host asked to cancel a running game: it is cancelled once every other seated person
    agrees, before `until`. Kept in memory only: a restart drops it, and the host may ask again."""

    host_id: int
    asked: frozenset[int]
    until: float
    agreed: set[int] = field(default_factory=set)


@dataclass(frozen=True, eq=False)
class Shown:
    """What the Discord layer may show of a game: taken under the game's lock right after a save,
    so a move being saved (and perhaps rolled back) is never drawn. The public view, and each
    seated person's own view, as of the event count `token`."""

    token: int
    status: GameStatus
    table: TableView | None
    views: Mapping[int, SeatView]  # user id -> that person's view (people only, once the game started)
    turn: int | None  # the seat of the person to act, if a person is to act
    people: tuple[tuple[int, int], ...] = ()  # (user id, seat) of the views

    def view(self, user_id: int) -> SeatView:
        view = self.views.get(user_id)
        if view is None:
            raise Refusal("You're not playing in this game." if self.table is not None
                          else "The game hasn't started yet.")
        return view


NOTHING_SHOWN = Shown(0, "lobby", None, {}, None)


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
    status: GameStatus = "lobby"
    game: Game | None = None
    lobby_message_id: int | None = None
    table_message_id: int | None = None
    deadline: Timer | None = None  # the timer armed now
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: Alarm | None = None
    ping_timer: Alarm | None = None
    cancel_request: CancelRequest | None = None
    # A tournament's table: its organiser (only they, or Manage Server, may stop it; no hints).
    organiser_id: int | None = None
    save_failures: int = 0  # in a row: how long to wait before retrying what a failed save left undone
    shown: Shown = NOTHING_SHOWN  # as of the last save: all the Discord layer may draw
    # The public snapshot last built, with the game, the event count and the names it was built from.
    _public: tuple[Game, int, tuple[str, ...], TableView] | None = field(default=None, init=False, repr=False)

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
        live.freeze()  # as stored: all of it may be shown
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

    @property
    def started(self) -> bool:
        """The game has started (it has an engine game), whatever became of it since."""
        return self.game is not None

    def table_view(self) -> TableView | None:
        """What everyone may see of the game (None before it starts), for the Discord layer, which
        never reads the game itself: it holds every hand. Built once per accepted action (or rename,
        or game put back after a failed save), however many messages are drawn from it."""
        game = self.game
        if game is None:
            return None
        cached = self._public
        if cached is not None and cached[0] is game and cached[1:3] == (game.event_count, game.names):
            return cached[3]
        earlier = cached[3] if cached is not None and cached[0] is game else None  # a game put back is new
        view = table_view(game, earlier)
        self._public = (game, game.event_count, game.names, view)
        return view

    def freeze(self) -> Shown:
        """Take what may be shown, as the game stands: call with the lock held, after a save."""
        game = self.game
        if game is None:
            self.shown = Shown(0, self.status, None, {}, None)
            return self.shown
        table = self.table_view()  # built once per event count and names
        people = tuple((seat.user_id, seat.seat) for seat in self.seats if seat.user_id is not None)
        shown = self.shown
        if shown.table is table and shown.people == people:
            views = shown.views  # nothing moved: the same views
        else:
            views = dict(zip((user_id for user_id, _ in people), seat_views(game, [seat for _, seat in people]),
                             strict=True))
        self.shown = Shown(game.event_count, self.status, table, views, self.human_turn(), people)
        return self.shown

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
