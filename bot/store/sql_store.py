"""`Store` written once over the shared queries; each backend supplies how a transaction runs.

A backend subclasses `SqlStore` and implements `_read` and `_write` (run one operation of
`bot.store.sql` as one read-only or one write transaction, turning whatever its driver or the OS
raises into a `StoreError`), `_append` (its own commit path for actions: SQLite's group commit,
PostgreSQL's per-action transactions), `claim_shards` and `close`.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from bot.engine import Mode
from bot.store import boards, coach, games, presets, replay, rows, seasons, tournaments
from bot.store.errors import DamagedGameError, StoreError, StoreUnavailable
from bot.store.models import (
    UNCHANGED,
    DamagedGame,
    Deadline,
    FinishOutcome,
    GameInfo,
    GameSummary,
    HintTaken,
    LeaderboardEntry,
    LeaderboardSort,
    PendingPost,
    PlayerStats,
    Post,
    RatingPoint,
    Recovery,
    RhythmDue,
    Season,
    SeasonPost,
    SeasonRhythm,
    Seat,
    SeatResult,
    ShardSet,
    StoredGame,
    StoredTournament,
    TournamentInfo,
    TournamentPost,
    TournamentStatus,
    Unchanged,
)
from bot.store.results import finish, forfeit
from bot.store.sql import Operation

log = logging.getLogger(__name__)

T = TypeVar("T")


class SqlStore(ABC):
    """The `Store` methods, each one operation run as one transaction by the backend."""

    @abstractmethod
    async def _read(self, operation: Operation[T]) -> T:
        """Run `operation` in one read-only transaction: all it reads is one committed state."""

    @abstractmethod
    async def _write(self, operation: Operation[T]) -> T:
        """Run `operation` as one transaction, committed (durably) before returning; all or nothing."""

    async def _read_statement(self, operation: Operation[T]) -> T:
        """Run `operation`, a single statement (one committed state by itself), as `_read` does; a
        backend may spare it the transaction around it."""
        return await self._read(operation)

    async def _write_statement(self, operation: Operation[T]) -> T:
        """Run `operation`, a single statement (atomic by itself), as `_write` does; a backend may
        spare it the transaction around it."""
        return await self._write(operation)

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def claim_shards(self, shards: ShardSet) -> None: ...

    @abstractmethod
    async def _append(self, action: games.Action) -> list[int]:
        """Save one action (`games.append_action`), committed before returning; its posts' ids."""

    # -- a game's life ----------------------------------------------------------------------------

    async def create_game(
        self,
        game_id: str,
        *,
        guild_id: int,
        channel_id: int,
        mode: str,
        rules: Mapping[str, Any],
        host_id: int | None,
        seats: Sequence[Seat] = (),
    ) -> GameInfo:
        mode = Mode.parse(mode).value
        rows.check_seats(mode, seats)
        rules_json, now = replay.dumps(dict(rules)), time.time()
        return await self._write(
            lambda tx: games.create(tx, game_id, guild_id, channel_id, mode, rules_json, host_id, seats, now)
        )

    async def set_seats(self, game_id: str, seats: Sequence[Seat]) -> None:
        await self._write(lambda tx: games.set_seats(tx, game_id, seats))

    async def start_game(self, game_id: str, setup: Mapping[str, Any]) -> None:
        setup_json, now = replay.dumps(dict(setup)), time.time()
        await self._write(lambda tx: games.start(tx, game_id, setup_json, now))

    async def set_lobby_message(self, game_id: str, message_id: int | None) -> None:
        await self._write_statement(lambda tx: games.update(tx, game_id, "lobby_message_id = $1", (message_id,)))

    async def set_table_message(self, game_id: str, message_id: int | None) -> None:
        await self._write_statement(lambda tx: games.update(tx, game_id, "table_message_id = $1", (message_id,)))

    async def set_deadline(self, game_id: str, deadline: Deadline | None) -> None:
        columns = rows.deadline_columns(deadline)
        assignments = "deadline_kind = $1, deadline_at = $2"
        await self._write_statement(lambda tx: games.update(tx, game_id, assignments, columns))

    async def append_event(self, game_id: str, seq: int, event: Mapping[str, Any]) -> None:
        await self.append_events(game_id, seq, [event])

    async def append_events(
        self,
        game_id: str,
        first_seq: int,
        events: Sequence[Mapping[str, Any]],
        deadline: Deadline | Unchanged | None = UNCHANGED,
        posts: Sequence[Post] = (),
    ) -> list[int]:
        return await self._append(games.Action.of(game_id, first_seq, events, deadline, posts))

    async def finish_game(
        self, game_id: str, results: Sequence[SeatResult], posts: Sequence[Post] = ()
    ) -> FinishOutcome:
        post_rows = rows.post_rows(game_id, posts)
        return await self._write(lambda tx: finish(tx, game_id, results, post_rows))

    async def forfeit_seat(
        self, game_id: str, seats: Sequence[Seat], standing: Sequence[SeatResult], seat: int
    ) -> None:
        await self._write(lambda tx: forfeit(tx, game_id, seats, standing, seat))

    async def cancel_game(self, game_id: str, posts: Sequence[Post] = ()) -> list[int]:
        post_rows, now = rows.post_rows(game_id, posts), time.time()
        return await self._write(lambda tx: games.cancel(tx, game_id, post_rows, now))

    # -- the outbox -------------------------------------------------------------------------------

    async def add_posts(self, game_id: str, posts: Sequence[Post]) -> list[int]:
        post_rows, now = rows.post_rows(game_id, posts), time.time()
        if not post_rows:
            return []
        return await self._write(lambda tx: games.add_posts(tx, game_id, post_rows, now))

    async def pending_posts(self, shards: ShardSet | None = None) -> list[PendingPost]:
        return await self._read(lambda tx: games.pending_posts(tx, shards))

    async def posts_delivered(self, post_ids: Sequence[int]) -> None:
        ids = [int(post_id) for post_id in post_ids]
        if ids:
            await self._write_statement(lambda tx: games.forget_posts(tx, ids))

    # -- reading games back -----------------------------------------------------------------------

    async def get_game(self, game_id: str) -> GameInfo | None:
        return await self._read(lambda tx: games.read_info(tx, game_id))

    async def load_game(self, game_id: str) -> StoredGame | None:
        try:
            found = await self._read(lambda tx: games.load_rows(tx, game_id))
            return None if found is None else rows.rebuild(*found)
        except (DamagedGameError, StoreUnavailable):
            raise
        except Exception as exc:  # any other failure to read or replay means the same to the caller
            raise DamagedGameError(f"game {game_id!r}: {type(exc).__name__}: {exc}") from exc

    async def recover(self, shards: ShardSet | None = None) -> Recovery:
        try:
            game_rows, seat_rows, event_rows = await self._read(lambda tx: games.unfinished_rows(tx, shards))
        except StoreUnavailable:
            raise
        except StoreError:
            log.warning("reading unfinished games in bulk failed; loading them one by one", exc_info=True)
            return await self._recover_one_by_one(shards)
        seats_of, events_of = rows.group_by_game(seat_rows), rows.group_by_game(event_rows)
        loaded: list[StoredGame] = []
        damaged: list[DamagedGame] = []
        for row in game_rows:
            game_id = row["game_id"]
            try:
                loaded.append(rows.rebuild(row, seats_of[game_id], events_of[game_id]))
            except Exception as exc:  # one bad game must not keep the others from loading
                damaged.append(self._set_aside(game_id, exc))
        return Recovery(tuple(loaded), tuple(damaged))

    async def _recover_one_by_one(self, shards: ShardSet | None) -> Recovery:
        loaded: list[StoredGame] = []
        damaged: list[DamagedGame] = []
        for game_id in await self._read(lambda tx: games.unfinished_ids(tx, shards)):
            try:
                stored = await self.load_game(game_id)
            except DamagedGameError as exc:
                damaged.append(self._set_aside(game_id, exc))
            else:
                if stored is not None:
                    loaded.append(stored)
        return Recovery(tuple(loaded), tuple(damaged))

    @staticmethod
    def _set_aside(game_id: str, exc: Exception) -> DamagedGame:
        reason = f"{type(exc).__name__}: {exc}"
        log.warning("game %s could not be rebuilt and is set aside: %s", game_id, reason)
        return DamagedGame(game_id, reason)

    async def game_record(self, game_id: str) -> dict[str, Any] | None:
        stored = await self.load_game(game_id)
        return None if stored is None else replay.game_record(stored)

    async def recent_games(self, guild_id: int, channel_id: int, limit: int = 10) -> list[GameSummary]:
        game_rows, seat_rows, result_rows = await self._read(
            lambda tx: games.recent_rows(tx, guild_id, channel_id, limit)
        )
        seats_of = rows.group_by_game(seat_rows)
        results_of: dict[str, list[SeatResult]] = defaultdict(list)
        for row in result_rows:
            results_of[row["game_id"]].append(rows.seat_result(row))
        return [
            GameSummary(rows.game_info(g, seats_of[g["game_id"]]), tuple(results_of[g["game_id"]])) for g in game_rows
        ]

    # -- leaderboards and stats -------------------------------------------------------------------

    async def leaderboard(
        self,
        guild_id: int,
        mode: str,
        sort: LeaderboardSort = "rating",
        *,
        limit: int = 10,
        offset: int = 0,
        min_games: int = 5,
        season_id: int | None = None,
    ) -> list[LeaderboardEntry]:
        return await self._read(
            lambda tx: boards.leaderboard(tx, guild_id, mode, sort, limit, offset, min_games, season_id)
        )

    async def player_stats(
        self, guild_id: int, user_id: int, mode: str | None = None, season_id: int | None = None
    ) -> PlayerStats:
        return await self._read(lambda tx: boards.player_stats(tx, guild_id, user_id, mode, season_id))

    async def rating_history(self, guild_id: int, user_id: int, mode: str | None = None) -> list[RatingPoint]:
        return await self._read(lambda tx: seasons.rating_history(tx, guild_id, user_id, mode))

    # -- seasons ----------------------------------------------------------------------------------

    async def start_season(
        self,
        guild_id: int,
        name: str,
        *,
        channel_id: int,
        started_at: float,
        ends_at: float | None = None,
        started_by: int | None = None,
        rhythm: SeasonRhythm | None = None,
    ) -> Season:
        if not name.strip():
            raise ValueError("a season needs a name")
        if ends_at is not None and ends_at <= started_at:
            raise ValueError("a season must end after it starts")
        return await self._write(
            lambda tx: seasons.start(tx, guild_id, name, channel_id, started_at, ends_at, started_by, rhythm)
        )

    async def end_season(self, season_id: int, ended_at: float, posts: Sequence[Post] = ()) -> Season | None:
        post_rows = [(post.kind, replay.dumps(post.payload)) for post in posts]
        return await self._write(lambda tx: seasons.end(tx, season_id, ended_at, post_rows))

    async def seasons(self, guild_id: int) -> list[Season]:
        return await self._read(lambda tx: seasons.of_guild(tx, guild_id))

    async def due_seasons(self, now: float, shards: ShardSet | None = None) -> list[Season]:
        return await self._read(lambda tx: seasons.due(tx, now, shards))

    async def next_season_end(self, shards: ShardSet | None = None) -> float | None:
        return await self._read(lambda tx: seasons.next_end(tx, shards))

    async def set_season_rhythm(self, guild_id: int, rhythm: SeasonRhythm | None, channel_id: int | None) -> None:
        if rhythm is not None and channel_id is None:
            raise ValueError("a rhythm needs the channel its podiums go to")
        now = time.time()
        await self._write(lambda tx: seasons.set_rhythm(tx, guild_id, rhythm, channel_id, now))

    async def season_rhythm(self, guild_id: int) -> SeasonRhythm | None:
        return await self._read(lambda tx: seasons.rhythm_of(tx, guild_id))

    async def rhythms_due(self, name: str, shards: ShardSet | None = None) -> list[RhythmDue]:
        return await self._read(lambda tx: seasons.rhythms_due(tx, name, shards))

    async def pending_season_posts(self, shards: ShardSet | None = None) -> list[SeasonPost]:
        return await self._read(lambda tx: seasons.pending_posts(tx, shards))

    # -- hints and reviews ------------------------------------------------------------------------

    async def add_hint(self, game_id: str, hint: HintTaken) -> None:
        await self._write(lambda tx: coach.add_hint(tx, game_id, hint))

    async def game_hints(self, game_id: str) -> list[HintTaken]:
        return await self._read(lambda tx: coach.hints(tx, game_id))

    async def save_review(self, game_id: str, seat: int, version: int, text: str) -> None:
        now = time.time()
        await self._write(lambda tx: coach.save_review(tx, game_id, seat, version, text, now))

    async def review(self, game_id: str, seat: int, version: int) -> str | None:
        return await self._read(lambda tx: coach.review(tx, game_id, seat, version))

    # -- tournaments ------------------------------------------------------------------------------

    async def create_tournament(self, tournament_id: str, *, guild_id: int, channel_id: int, organiser_id: int,
                                setup: Mapping[str, Any], deadline: float | None = None) -> TournamentInfo:
        setup_json, now = replay.dumps(dict(setup)), time.time()
        return await self._write(lambda tx: tournaments.create(tx, tournament_id, guild_id, channel_id, organiser_id,
                                                               setup_json, deadline, now))

    async def set_tournament_message(self, tournament_id: str, message_id: int | None) -> None:
        await self._write(lambda tx: tournaments.set_message(tx, tournament_id, message_id))

    async def append_tournament_events(
        self, tournament_id: str, first_seq: int, events: Sequence[Mapping[str, Any]], posts: Sequence[Post] = (),
        status: TournamentStatus | None = None, deadline: float | Unchanged | None = UNCHANGED,
    ) -> list[int]:
        if first_seq < 1 or not events:
            raise ValueError("events are numbered from 1, and at least one is needed")
        if status not in (None, "open", "over", "cancelled"):
            raise ValueError(f"unknown tournament status {status!r}")
        payloads = [replay.dumps(dict(event)) for event in events]
        post_rows = [(post.kind, replay.dumps(post.payload)) for post in posts]
        now = time.time()
        return await self._write(
            lambda tx: tournaments.append(tx, tournament_id, first_seq, payloads, post_rows, status, deadline, now)
        )

    async def set_tournament_table(self, tournament_id: str, round_number: int, table: int, *,
                                   thread_id: int | None = None, game_id: str | None = None) -> None:
        await self._write(lambda tx: tournaments.set_table(tx, tournament_id, round_number, table, thread_id, game_id))

    async def load_tournament(self, tournament_id: str) -> StoredTournament | None:
        return await self._read(lambda tx: tournaments.load(tx, tournament_id))

    async def open_tournaments(self, shards: ShardSet | None = None) -> list[StoredTournament]:
        return await self._read(lambda tx: tournaments.open_ones(tx, shards))

    async def latest_tournament(self, guild_id: int, channel_id: int) -> StoredTournament | None:
        return await self._read(lambda tx: tournaments.latest(tx, guild_id, channel_id))

    async def pending_tournament_posts(self, shards: ShardSet | None = None) -> list[TournamentPost]:
        return await self._read(lambda tx: tournaments.pending_posts(tx, shards))

    async def tournament_posts_delivered(self, post_ids: Sequence[int]) -> None:
        ids = [int(post_id) for post_id in post_ids]
        if ids:
            await self._write(lambda tx: tournaments.forget_posts(tx, ids))

    # -- server settings --------------------------------------------------------------------------

    async def get_settings(self, guild_id: int) -> dict[str, Any]:
        return await self._read_statement(lambda tx: games.settings(tx, guild_id))

    async def update_settings(self, guild_id: int, changes: Mapping[str, Any]) -> dict[str, Any]:
        now = time.time()
        return await self._write(lambda tx: games.update_settings(tx, guild_id, changes, now))

    async def get_presets(self, guild_id: int) -> dict[str, dict[str, Any]]:
        return await self._read_statement(lambda tx: presets.presets(tx, guild_id))

    async def save_preset(self, guild_id: int, name: str, rules: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
        now = time.time()
        saved = None if rules is None else dict(rules)
        return await self._write(lambda tx: presets.save_preset(tx, guild_id, name, saved, now))
