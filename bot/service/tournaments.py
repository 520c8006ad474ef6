"""Swiss tournaments run by the bot, from sign-up to podium. No discord imports.

The engine (`bot.engine.tournament`) decides who sits where and who ranks where; this service saves
each of its events before acting on it, opens each table's game (in a thread the Discord side
creates) through the game service's public methods, hears when those games end, and seats the next
round itself. Everything it needs after a restart is in the store: the events, each table's thread
and game (saved as soon as each exists), the one deadline that is due next (sign-up closing, the
round's time limit, the next round's seating) and the posts it owes (a round's standings, the
podium). A table is noted before its thread is asked for, so a crash in between is followed by a
search for what that try posted, not a second post. `recover` therefore finds the threads again,
lets unfinished games go on, records the results of games that ended while the bot was down and
advances the round, never seating twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Protocol

from bot.engine import EngineError, Game, Mode, Rules
from bot.engine.swiss import Standing, TableResult, members_per_entrant, standings, units_per_table
from bot.engine.tournament import MIN_TO_START, Stage, Tournament, table_result
from bot.engine.tournament_events import tournament_event_from_json, tournament_event_to_json
from bot.service.changes import Change, GameCancelled, GameOver
from bot.service.clock import Clock, SystemClock
from bot.service.context import BOT_LEVELS, Listener
from bot.service.errors import Refusal, SaveFailed
from bot.service.games import GameService
from bot.service.live import LiveGame
from bot.store import (
    UNCHANGED,
    ChannelBusyError,
    GameStateError,
    Post,
    ShardSet,
    Store,
    StoredTournament,
    StoreError,
    TournamentInfo,
    TournamentStatus,
    TournamentTable,
    Unchanged,
)

log = logging.getLogger(__name__)

MAX_TABLES = 25  # per round: each is a thread, and a server has Discord's limit of active threads
MAX_ROUND_MINUTES = 24 * 60
MAX_SIGNUP_MINUTES = 7 * 24 * 60
RETRY = 30.0  # after a thread couldn't be opened, or the store failed
STANDINGS, PODIUM, CANCELLED = "standings", "podium", "cancelled"
TIME_UP = "the round's time is up"


class TableSeat(NamedTuple):
    """A seat of a table's game: a person (user id) or a computer (None), and the name shown."""

    user_id: int | None
    name: str


class ThreadRefused(Exception):
    """Discord wouldn't open a table's thread; the message tells the organiser what to fix."""


class Listeners:
    """Hands the game service's changes to several listeners in turn: the publisher, and the
    tournament service, which hears from it when a table's game ends."""

    def __init__(self, *listeners: Listener) -> None:
        self.listeners = list(listeners)

    def publish(self, live: LiveGame, changes: Sequence[Change]) -> None:
        for listener in self.listeners:
            listener.publish(live, changes)


class TournamentHost(Protocol):
    """The Discord side. The plain methods must not block; `open_thread` and `archive_thread` are
    awaited (the tournament waits for its threads)."""

    def signup_changed(self, live: LiveTournament) -> None: ...

    def post(self, live: LiveTournament, kind: str, payload: dict[str, Any], post_id: int) -> None:
        """Publish an owed post, then call `TournamentService.delivered(post_id)`."""

    def notify(self, live: LiveTournament, text: str) -> None:
        """Tell the organiser something they must act on (not owed: said again if still true)."""

    async def open_thread(self, live: LiveTournament, round_number: int, table: int,
                          seats: Sequence[TableSeat], *, again: bool) -> int:
        """Open the table's thread under the tournament's message, mention its players there, and
        return its id. `again`: this table was tried before (a refusal, or a crash before its thread
        was saved), so what that try left in the channel is found and used, not posted twice.
        Raises ThreadRefused when Discord won't."""

    async def archive_thread(self, live: LiveTournament, thread_id: int) -> None: ...


@dataclass(eq=False)
class LiveTournament:
    info: TournamentInfo
    engine: Tournament
    level: str  # the computer players' level
    round_minutes: int | None
    signup_minutes: int | None
    deadline: float | None = None
    tables: dict[tuple[int, int], TournamentTable] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.Task[None] | None = None

    @property
    def tournament_id(self) -> str:
        return self.info.tournament_id

    @property
    def guild_id(self) -> int:
        return self.info.guild_id

    @property
    def channel_id(self) -> int:
        return self.info.channel_id

    @property
    def organiser_id(self) -> int:
        return self.info.organiser_id

    @property
    def mode(self) -> Mode:
        return self.engine.mode

    @property
    def round_number(self) -> int:
        return len(self.engine.played)

    def standings_after(self, round_number: int) -> list[Standing]:
        """The standings as they stood when round `round_number` ended (0: before any round)."""
        engine = self.engine
        return standings(engine.mode, engine.entrants, engine.played[:round_number], engine.dropped)

    def table_seats(self, round_number: int, table: int) -> tuple[TableSeat, ...]:
        """A table of a round as game seats, in the engine's order (partners: teams across)."""
        seating = self.engine.played[round_number - 1].tables[table]
        entrants = {e.entrant_id: e for e in self.engine.entrants}
        per_unit: list[list[TableSeat]] = []
        computers = 0
        for entrant_id in seating.seats:
            if entrant_id is None:
                computers += 1
                count = members_per_entrant(self.mode)
                per_unit.append([TableSeat(None, f"Bot {computers}{'ab'[i] if count > 1 else ''} ({self.level})")
                                 for i in range(count)])
                continue
            per_unit.append([TableSeat(int(m), self.engine.member_name(m)) for m in entrants[entrant_id].members])
        if self.mode is not Mode.PARTNERS:
            return tuple(unit[0] for unit in per_unit)
        return tuple(per_unit[seat % 2][seat // 2] for seat in range(4))

    def table_of_game(self, game_id: str) -> tuple[int, int] | None:
        return next(((r, t) for (r, t), row in self.tables.items() if row.game_id == game_id), None)


def team_name(names: Sequence[str]) -> str:
    """An entry's name from its players' own: one player's, or "A & B" for a team."""
    return " & ".join(names)


def _rotation(seats: Sequence[TableSeat]) -> int:
    """The game seats the table turned by this much, so a person sits first (and hosts the game)."""
    return next(index for index, seat in enumerate(seats) if seat.user_id is not None)


def result_of(game: Game, rotation: int) -> TableResult:
    """The table's result in the tournament's seat order, from its game (seated turned by `rotation`)."""
    found = table_result(game)
    units = len(found.scores)

    def back(values: Sequence[int]) -> tuple[int, ...]:
        return tuple(values[(unit - rotation) % units] for unit in range(units))

    return TableResult(back(found.scores), back(found.places), found.unfinished)


class TournamentService:
    def __init__(self, store: Store, games: GameService, host: TournamentHost, *, clock: Clock | None = None,
                 shards: ShardSet | None = None, round_pause: float = 60.0, rng: random.Random | None = None) -> None:
        self.store = store
        self.games = games
        self._host = host
        self._clock = clock or SystemClock()
        self._shards = shards
        self.round_pause = round_pause  # seconds between a round's end and the next one's seating
        self._channels: dict[int, LiveTournament] = {}
        self._by_game: dict[str, LiveTournament] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._in_flight: set[int] = set()
        self._rng = rng  # seeded: tournament ids and seatings follow from it (tests); None: unpredictable

    # ------------------------------------------------------------------ start-up and shutdown
    async def recover(self) -> None:
        """Publish owed posts, then take up every open tournament where it stopped. Run after the
        game service recovered its games, so the tables' games are running again."""
        await self._publish_owed()
        for stored in await self.store.open_tournaments(self._shards):
            try:
                live = self._rebuild(stored)
            except EngineError as error:
                log.error("tournament %s can't be replayed and is left alone: %s", stored.info.tournament_id, error)
                continue
            self._register(live)
            async with live.lock:
                await self._advance(live)

    async def close(self) -> None:
        tasks = [t.timer for t in self._channels.values() if t.timer is not None] + list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def delivered(self, post_id: int) -> None:
        try:
            await self.store.tournament_posts_delivered([post_id])
        except StoreError:
            log.warning("tournament post %s went out but couldn't be marked", post_id, exc_info=True)
        self._in_flight.discard(post_id)

    def _rebuild(self, stored: StoredTournament) -> LiveTournament:
        setup = stored.info.setup
        engine = Tournament.from_json({"format": "spades-tournament/1", "setup": setup["engine"],
                                       "events": list(stored.events)})
        live = LiveTournament(stored.info, engine, str(setup["computer"]), setup.get("round_minutes"),
                              setup.get("signup_minutes"), deadline=stored.info.deadline_at)
        live.tables = {(t.round, t.table): t for t in stored.tables}
        return live

    def _register(self, live: LiveTournament) -> None:
        self._channels[live.channel_id] = live
        for row in live.tables.values():
            if row.game_id is not None:
                self._by_game[row.game_id] = live

    def _forget(self, live: LiveTournament) -> None:
        if self._channels.get(live.channel_id) is live:
            del self._channels[live.channel_id]
        for game_id in [g for g, t in self._by_game.items() if t is live]:
            del self._by_game[game_id]
        if live.timer is not None and live.timer is not asyncio.current_task():
            live.timer.cancel()
        live.timer = None

    # ------------------------------------------------------------------ lookups
    def in_channel(self, channel_id: int) -> LiveTournament | None:
        return self._channels.get(channel_id)

    def require(self, guild_id: int, channel_id: int) -> LiveTournament:
        live = self._channels.get(channel_id)
        if live is None or live.guild_id != guild_id:
            raise Refusal("There's no tournament in this channel. Start one with /spades tournament new.")
        return live

    def require_id(self, tournament_id: str, guild_id: int | None, channel_id: int | None) -> LiveTournament:
        """The tournament a button names, checked against where the click came from."""
        live = self._channels.get(channel_id or 0)
        if live is None or live.tournament_id != tournament_id or live.guild_id != guild_id:
            raise Refusal("That tournament isn't taking sign-ups any more.")
        return live

    async def latest(self, guild_id: int, channel_id: int) -> LiveTournament:
        """This channel's open tournament, else its last one (for the final standings)."""
        live = self._channels.get(channel_id)
        if live is not None and live.guild_id == guild_id:
            return live
        stored = await self.store.latest_tournament(guild_id, channel_id)
        if stored is None:
            raise Refusal("No tournament has been played in this channel yet. Start one with /spades tournament new.")
        return self._rebuild(stored)

    # ------------------------------------------------------------------ the organiser's actions
    async def new(self, guild_id: int, channel_id: int, organiser_id: int, *, mode: str | None = None,
                  options: dict[str, object] | None = None, rounds: int = 3, level: str = "normal",
                  signup_minutes: int | None = None, round_minutes: int | None = None) -> LiveTournament:
        """Open a tournament for sign-up in this channel (its tables will play in threads under its
        message). It starts when the organiser says so, or when sign-up closes if a window was given."""
        if channel_id in self._channels:
            raise Refusal("There's already a tournament in this channel: one at a time. "
                          "`/spades tournament standings` shows it.")
        if level not in BOT_LEVELS:
            raise Refusal(f"Unknown computer level “{level}”: use {', '.join(BOT_LEVELS)}.")
        for name, value, most in (("signup", signup_minutes, MAX_SIGNUP_MINUTES),
                                  ("round_minutes", round_minutes, MAX_ROUND_MINUTES)):
            if value is not None and not 1 <= value <= most:
                raise Refusal(f"`{name}` is a number of minutes from 1 to {most}.")
        defaults = await self.games.server_defaults(guild_id)
        try:
            game_mode = Mode.parse(mode or "cutthroat")
            rules = Rules.from_options(dict(options or {}), base=Rules.from_options(defaults.get("rules", {})))
            tournament_id = f"{self._rng.getrandbits(32):08x}" if self._rng is not None else secrets.token_hex(4)
            seed = self._rng.getrandbits(63) if self._rng is not None else None
            engine = Tournament.new(tournament_id, game_mode, rules, rounds, seed)
        except EngineError as error:
            raise Refusal(str(error)) from None
        now = self._clock.now()
        deadline = now + signup_minutes * 60 if signup_minutes else None
        setup = {"engine": engine.to_json()["setup"], "computer": level, "round_minutes": round_minutes,
                 "signup_minutes": signup_minutes}
        try:
            info = await self.store.create_tournament(engine.tournament_id, guild_id=guild_id, channel_id=channel_id,
                                                      organiser_id=organiser_id, setup=setup, deadline=deadline)
        except ChannelBusyError:
            raise Refusal("There's already a tournament in this channel: one at a time.") from None
        except StoreError as error:
            raise SaveFailed("I couldn't save the tournament just now; please try again.") from error
        live = LiveTournament(info, engine, level, round_minutes, signup_minutes, deadline=deadline)
        self._register(live)
        self._arm(live, deadline)
        return live

    async def set_organiser_role(self, guild_id: int, role_id: int) -> dict[str, Any]:
        """Members with this role may run tournaments on the server, besides those with Manage Server."""
        try:
            return await self.store.update_settings(guild_id, {"tournament_role": role_id})
        except StoreError as error:
            raise SaveFailed("I couldn't save that just now; the settings didn't change.") from error

    async def set_message(self, live: LiveTournament, message_id: int) -> None:
        """The sign-up message is out: its threads hang from it, and it is edited as people join."""
        await self.store.set_tournament_message(live.tournament_id, message_id)
        live.info = replace(live.info, message_id=message_id)
        self._host.signup_changed(live)

    async def join(self, live: LiveTournament, user_id: int, name: str,
                   partner: tuple[int, str] | None = None) -> None:
        """Enter (with a partner in partners). Before round 1 and between rounds; a late entry starts
        with no points."""
        async with live.lock:
            self._require_open(live)
            if live.engine.stage is Stage.PLAYING:
                raise Refusal(f"Round {live.round_number} is being played: entries open again when it ends.")
            if str(user_id) in {m for e in live.engine.entrants for m in e.members}:
                left = live.engine.entrant_of(str(user_id)) is None
                raise Refusal("You left this tournament, so you can't come back as a new entry." if left
                              else "You're already in this tournament.")
            if partner is not None and live.engine.entrant_of(str(partner[0])) is not None:
                raise Refusal(f"{partner[1]} is already in this tournament.")
            if live.mode is Mode.PARTNERS:
                if partner is None:
                    raise Refusal("This is a partners tournament: name your partner with `partner:`.")
                if partner[0] == user_id:
                    raise Refusal("Your partner must be someone else.")
                members, names = [str(user_id), str(partner[0])], [name, partner[1]]
                entrant_id, shown = "+".join(members), team_name(names)
            else:
                if partner is not None:
                    raise Refusal(f"A {live.mode.value} tournament is played alone: leave out `partner:`.")
                members, names, entrant_id, shown = [str(user_id)], [name], str(user_id), name
            if len(live.engine.active) >= MAX_TABLES * units_per_table(live.mode):
                raise Refusal(f"This tournament is full: {MAX_TABLES} tables a round is as many threads as I "
                              "open at once.")
            await self._act(live, lambda: live.engine.join(entrant_id, shown, members, names))
            self._host.signup_changed(live)

    async def leave(self, live: LiveTournament, user_id: int, player: int | None = None,
                    is_organiser: bool = False) -> str:
        """Leave (or, for the organiser, drop `player`): before round 1 the entry goes; later its
        results stay, a game it is in is played out by a computer, and it is not seated again."""
        async with live.lock:
            self._require_open(live)
            target = user_id if player is None else player
            if target != user_id and not is_organiser:
                raise Refusal("Only the organiser (or a member with Manage Server) can drop someone else.")
            entrant = live.engine.entrant_of(str(target))
            if entrant is None:
                raise Refusal("You're not in this tournament." if target == user_id
                              else "That player isn't in this tournament.")
            await self._act(live, lambda: live.engine.drop(entrant.entrant_id))
            self._host.signup_changed(live)
        await self._leave_running_game(live, entrant.members)
        return entrant.name

    async def replace(self, live: LiveTournament, out: int, new: int, new_name: str) -> str:
        """Between rounds, `new` takes over `out`'s entry with its points and history."""
        async with live.lock:
            self._require_open(live)
            entrant = live.engine.entrant_of(str(out))
            if entrant is None:
                raise Refusal("That player isn't in this tournament.")
            names = [new_name if m == str(out) else live.engine.member_name(m) for m in entrant.members]
            await self._act(live, lambda: live.engine.replace(entrant.entrant_id, str(out), str(new),
                                                               team_name(names), new_name))
            self._host.signup_changed(live)
            return entrant.name

    async def start(self, live: LiveTournament) -> int:
        """Seat round 1 now (or, between rounds, the next round without waiting); its number."""
        async with live.lock:
            self._require_open(live)
            stage = live.engine.stage
            if stage is Stage.PLAYING:
                raise Refusal(f"Round {live.round_number} is being played; the next one is seated when it ends.")
            needed = MIN_TO_START[live.mode] if stage is Stage.SIGNUP else 2
            if len(live.engine.active) < needed:
                what = "teams" if live.mode is Mode.PARTNERS else "players"
                raise Refusal(f"A {live.mode.value} tournament needs at least {needed} {what}; "
                              f"{len(live.engine.active)} signed up so far.")
            await self._seat(live)
            return live.round_number

    async def cancel(self, live: LiveTournament, reason: str = "cancelled by its organiser") -> None:
        """Stop it; nothing of it counts. Its running games are cancelled too."""
        async with live.lock:
            self._require_open(live)
            await self._act(live, live.engine.cancel, posts=[Post(CANCELLED, {"reason": reason})],
                            status="cancelled", deadline=None)
            self._forget(live)
            self._host.signup_changed(live)
            running = [g for g in (self._running_game(live, key) for key in live.tables) if g is not None]
        for game in running:
            await self.games.cancel_for(game, "the tournament was cancelled")

    # ------------------------------------------------------------------ the games' ends
    def publish(self, live_game: LiveGame, changes: Sequence[Change]) -> None:
        """Called with every change the game service publishes (under its game's lock: no waiting):
        a table's game that ended is recorded in its tournament."""
        if not any(isinstance(c, GameOver | GameCancelled) for c in changes):
            return
        live = self._by_game.get(live_game.game_id)
        if live is None or live_game.game is None:
            return
        task = asyncio.create_task(self._game_ended(live, live_game.game_id, live_game.game))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _game_ended(self, live: LiveTournament, game_id: str, game: Game) -> None:
        async with live.lock:
            where = live.table_of_game(game_id)
            if (where is None or live.engine.stage is not Stage.PLAYING or where[0] != live.round_number
                    or live.engine.played[-1].results[where[1]] is not None):
                return  # another round's, or already decided (the time limit cancels the games it decided)
            try:
                await self._record(live, where[1], game)
                await self._advance(live)
            except (StoreError, SaveFailed):
                log.warning("tournament %s: a table's result wasn't saved; retrying", live.tournament_id,
                            exc_info=True)
                self._arm(live, self._clock.now() + RETRY)

    # ------------------------------------------------------------------ moving on
    async def _advance(self, live: LiveTournament) -> None:
        """Lock held. Do whatever is due, and set the timer for what comes next."""
        stage, now = live.engine.stage, self._clock.now()
        due = live.deadline is not None and now >= live.deadline
        if stage is Stage.SIGNUP:
            if due:
                if live.engine.can_seat():
                    await self._seat(live)
                else:
                    await self._close_unplayed(live)
                return
            self._arm(live, live.deadline)
        elif stage is Stage.BETWEEN:
            if due:
                if live.engine.can_seat():
                    await self._seat(live)
                else:  # fewer than two still in: the standings now are final
                    await self._act(live, live.engine.finish, posts=[Post(PODIUM, {})], status="over", deadline=None)
                    await self._ended(live)
                return
            self._arm(live, live.deadline)
        elif stage is Stage.PLAYING:
            await self._play_round(live, time_up=due)
        else:
            await self._ended(live)

    async def _seat(self, live: LiveTournament) -> None:
        """Seat the next round (saved first), then open its tables."""
        minutes = live.round_minutes
        deadline = self._clock.now() + minutes * 60 if minutes else None
        await self._act(live, live.engine.seat, deadline=deadline)
        self._host.signup_changed(live)
        await self._archive_round(live, live.round_number - 1)
        await self._play_round(live, time_up=False)

    async def _play_round(self, live: LiveTournament, time_up: bool) -> None:
        """Lock held. Open what isn't open yet, record games that ended (while the bot was down too),
        and at the time limit decide the rest by their scores."""
        number = live.round_number
        current = live.engine.played[-1]
        refused: str | None = None
        for table, result in enumerate(current.results):
            if result is not None:
                continue
            try:
                game = await self._ensure_table(live, number, table)
            except ThreadRefused as error:
                refused = refused or str(error)
                continue
            if game is not None and (game.is_over or time_up):
                await self._record(live, table, game)
        if live.engine.stage is Stage.PLAYING and time_up:  # tables that never got a game: all even
            size = units_per_table(live.mode)
            for table, result in enumerate(live.engine.played[-1].results):
                if result is None:
                    await self._record_result(live, table, TableResult((0,) * size, (1,) * size, unfinished=True))
        if time_up:  # decided by the score: stopped before anyone is seated again
            for key in list(live.tables):
                running = self._running_game(live, key)
                if running is not None and key[0] == number:
                    await self.games.cancel_for(running, TIME_UP)
        if live.engine.stage is not Stage.PLAYING:
            await self._after_round(live)
            return
        if refused is not None:
            self._host.notify(live, refused)
            self._arm(live, min(self._clock.now() + RETRY, live.deadline or float("inf")))
        else:
            self._arm(live, live.deadline)

    async def _after_round(self, live: LiveTournament) -> None:
        if live.engine.stage is Stage.OVER:
            await self._ended(live)
        else:
            await self._advance(live)

    async def _ended(self, live: LiveTournament) -> None:
        await self._archive_round(live, live.round_number)
        self._forget(live)
        self._host.signup_changed(live)

    async def _record(self, live: LiveTournament, table: int, game: Game) -> None:
        """A table's result (by the score now if its game isn't over), saved with what it leads to:
        the round's standings and the next round's seating time, or the podium."""
        rotation = _rotation(live.table_seats(live.round_number, table))
        await self._record_result(live, table, result_of(game, rotation))

    async def _record_result(self, live: LiveTournament, table: int, result: TableResult) -> None:
        engine = live.engine
        closes = sum(1 for r in engine.played[-1].results if r is None) == 1
        last = closes and live.round_number == engine.rounds
        posts: list[Post] = []
        deadline: float | Unchanged | None = UNCHANGED
        status: TournamentStatus | None = None
        if closes:
            posts = [Post(PODIUM, {})] if last else [Post(STANDINGS, {"round": live.round_number})]
            deadline = None if last else self._clock.now() + self.round_pause
            status = "over" if last else None
        await self._act(live, lambda: engine.record(table, result), posts=posts, status=status, deadline=deadline)

    async def _close_unplayed(self, live: LiveTournament) -> None:
        needed = MIN_TO_START[live.mode]
        reason = f"sign-up closed with fewer than {needed} entries"
        await self._act(live, live.engine.cancel, posts=[Post(CANCELLED, {"reason": reason})], status="cancelled",
                        deadline=None)
        await self._ended(live)

    # ------------------------------------------------------------------ a table's thread and game
    async def _ensure_table(self, live: LiveTournament, number: int, table: int) -> Game | None:
        """The table's game, opened if need be: its thread first, then the game in it, each saved as
        soon as it exists. None while the game runs (its end is heard through `publish`)."""
        seats = live.table_seats(number, table)
        row = live.tables.get((number, table)) or TournamentTable(number, table, None, None)
        if row.game_id is not None:
            info = await self.store.get_game(row.game_id)
            if info is not None and info.status in ("finished", "cancelled"):
                stored = await self.store.load_game(row.game_id)
                return stored.game if stored is not None else None
            running = self.games.game_in_channel(info.channel_id) if info is not None else None
            if running is not None and running.status == "playing":
                return running.game
        if row.thread_id is None:
            again = (number, table) in live.tables
            if not again:  # the intent first: a crash while the thread opens leaves a trace to look for
                await self.store.set_tournament_table(live.tournament_id, number, table)
                live.tables[(number, table)] = row
            thread_id = await self._host.open_thread(live, number, table, seats, again=again)
            await self.store.set_tournament_table(live.tournament_id, number, table, thread_id=thread_id)
            row = TournamentTable(number, table, thread_id, None)
            live.tables[(number, table)] = row
        assert row.thread_id is not None
        game = await self._start_game(live, row, seats)
        return game.game

    async def _start_game(self, live: LiveTournament, row: TournamentTable, seats: Sequence[TableSeat]) -> LiveGame:
        """The table's game in its thread, seated as the engine says (turned so a person hosts it)."""
        assert row.thread_id is not None
        rotation = _rotation(seats)
        turned = [*seats[rotation:], *seats[:rotation]]
        host = turned[0]
        assert host.user_id is not None
        game = self.games.game_in_channel(row.thread_id)
        if game is None:
            game = await self.games.new_lobby(live.guild_id, row.thread_id, host.user_id, host.name, live.mode.value,
                                              live.engine.rules.to_dict())
        await self.store.set_tournament_table(live.tournament_id, row.round, row.table, game_id=game.game_id)
        live.tables[(row.round, row.table)] = TournamentTable(row.round, row.table, row.thread_id, game.game_id)
        self._by_game[game.game_id] = live
        if game.status == "lobby":
            for seat in turned[len(game.seats):]:
                if seat.user_id is None:
                    await self.games.add_bot(game, host.user_id, live.level)
                else:
                    await self.games.join(game, seat.user_id, seat.name)
            await self.games.start(game, host.user_id)
        return game

    def _running_game(self, live: LiveTournament, key: tuple[int, int]) -> LiveGame | None:
        row = live.tables.get(key)
        if row is None or row.thread_id is None:
            return None
        game = self.games.game_in_channel(row.thread_id)
        return game if game is not None and game.game_id == row.game_id else None

    async def _leave_running_game(self, live: LiveTournament, members: Sequence[str]) -> None:
        """A dropped entrant's seat in a game still running is played out by a computer."""
        for key in list(live.tables):
            game = self._running_game(live, key)
            for member in members:
                if game is not None and game.status == "playing" and game.seat_of(int(member)) is not None:
                    with contextlib.suppress(Refusal):
                        await self.games.leave(game, int(member))

    async def _archive_round(self, live: LiveTournament, number: int) -> None:
        for (round_number, _), row in list(live.tables.items()):
            if round_number == number and row.thread_id is not None:
                with contextlib.suppress(Exception):
                    await self._host.archive_thread(live, row.thread_id)

    # ------------------------------------------------------------------ saving
    async def _act(self, live: LiveTournament, action: Callable[[], object], *, posts: Sequence[Post] = (),
                   status: TournamentStatus | None = None, deadline: float | Unchanged | None = UNCHANGED) -> None:
        """Try an engine action, save its events (with the posts, status and deadline it leads to),
        and only then let it count; if the save fails the tournament is put back as stored."""
        before = len(live.engine.events)
        try:
            action()
        except EngineError as error:
            raise Refusal(str(error)) from None
        events = [tournament_event_to_json(e) for e in live.engine.events[before:]]
        try:
            ids = await self.store.append_tournament_events(live.tournament_id, before + 1, events, posts=posts,
                                                            status=status, deadline=deadline)
        except (StoreError, asyncio.CancelledError) as error:
            await self._rewind(live)
            if isinstance(error, GameStateError):
                raise Refusal("This tournament is over.") from None
            if isinstance(error, StoreError):
                raise SaveFailed("I couldn't save that just now, so it didn't count. Please try again.") from error
            raise
        if not isinstance(deadline, Unchanged):
            live.deadline = deadline
        for post, post_id in zip(posts, ids, strict=True):
            self._in_flight.add(post_id)
            self._host.post(live, post.kind, post.payload, post_id)

    async def _rewind(self, live: LiveTournament) -> None:
        """Memory never runs ahead of the store: replay what is stored."""
        try:
            stored = await self.store.load_tournament(live.tournament_id)
        except StoreError:
            stored = None
        if stored is not None:
            rebuilt = self._rebuild(stored)
            live.engine, live.deadline = rebuilt.engine, rebuilt.deadline
        else:
            engine = Tournament(live.tournament_id, live.engine.mode, live.engine.rules, live.engine.rounds,
                                live.engine.seed)
            engine.replay([tournament_event_from_json(tournament_event_to_json(e)) for e in live.engine.events[:-1]])
            live.engine = engine

    async def _publish_owed(self) -> None:
        for owed in await self.store.pending_tournament_posts(self._shards):
            if owed.post_id in self._in_flight:
                continue
            stored = await self.store.load_tournament(owed.info.tournament_id)
            if stored is None:
                continue
            self._in_flight.add(owed.post_id)
            self._host.post(self._rebuild(stored), owed.kind, owed.payload, owed.post_id)

    # ------------------------------------------------------------------ the timer
    def _arm(self, live: LiveTournament, at: float | None) -> None:
        if live.timer is not None and live.timer is not asyncio.current_task():
            live.timer.cancel()
        live.timer = None
        if at is not None:
            live.timer = asyncio.create_task(self._wake_at(live, at))

    async def _wake_at(self, live: LiveTournament, at: float) -> None:
        await self._clock.sleep_until(at)
        async with live.lock:
            live.timer = None
            if self._channels.get(live.channel_id) is not live:
                return
            try:
                await self._advance(live)
            except (StoreError, SaveFailed, Refusal):
                log.warning("tournament %s: couldn't move on; retrying", live.tournament_id, exc_info=True)
                self._arm(live, self._clock.now() + RETRY)
            except Exception:
                log.exception("tournament %s: moving on failed", live.tournament_id)
                self._arm(live, self._clock.now() + RETRY)

    @staticmethod
    def _require_open(live: LiveTournament) -> None:
        if live.engine.stage in (Stage.OVER, Stage.CANCELLED):
            raise Refusal(f"This tournament is {'over' if live.engine.stage is Stage.OVER else 'cancelled'}.")


