"""Durable state: games that survive any crash, per-server leaderboards and skill ratings.

The game and Discord code use only `Store` (opened with `open_store`) and the values in
`bot.store.models`; SQL stays inside the store. `DATABASE_URL` picks the backend: `sqlite:///path`
(one bot process) or `postgresql://user:password@host/database` (several, each serving its own
`ShardSet`). Both run the same queries (`bot.store.sql`) and the same migrations, numbered alike.

Every failure is a `StoreError` (see `bot.store.errors`): `StoreUnavailable` when the database
can't be used right now (nothing was saved), `DatabaseGone` once a SQLite file was deleted or
replaced, and at start-up `DatabaseUrlError`, `DatabaseInUseError`, `SchemaTooNewError`,
`ShardInUseError` or a plain `StoreError` (a damaged file, a SQLite too old, a wrong password),
each with one line an operator can act on. Posts owed to Discord are kept in the transaction of
the write that owes them (`Post`, `pending_posts`, `posts_delivered`): the outbox. Seasons of a
server's leaderboard rate its games again from scratch while they run (`start_season`, `end_season`).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl

from bot.store.base import Store
from bot.store.errors import (
    ChannelBusyError,
    DamagedGameError,
    DatabaseGone,
    DatabaseInUseError,
    DatabaseUrlError,
    DuplicateEventError,
    EventGapError,
    EventSequenceError,
    GameNotFoundError,
    GameStateError,
    SchemaTooNewError,
    SeasonConflictError,
    ShardInUseError,
    StoreError,
    StoreUnavailable,
)
from bot.store.models import (
    UNCHANGED,
    DamagedGame,
    Deadline,
    FinishOutcome,
    GameInfo,
    GameStatus,
    GameSummary,
    HintTaken,
    LeaderboardEntry,
    LeaderboardSort,
    ModeRating,
    PendingPost,
    PlayerStats,
    Post,
    RatingChange,
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
    TournamentTable,
    Unchanged,
    player_key,
)
from bot.store.postgresql import PostgresStore
from bot.store.sqlite import SqliteStore, Synchronous
from bot.store.sqlite.files import check_path, check_sqlite_version

DEFAULT_DATABASE_URL = "sqlite:///spades.db"
_SQLITE_PREFIX = "sqlite:///"
_POSTGRESQL_SCHEMES = ("postgresql", "postgres")


def parse_sqlite_url(database_url: str) -> tuple[Path, Synchronous]:
    """The file a `sqlite:///` URL names, and its `?synchronous=full|normal` option (default full).

    `sqlite:///rel/x.db` is relative to the working directory, `sqlite:////abs/x.db` absolute.
    """
    if not database_url.startswith(_SQLITE_PREFIX):
        scheme = database_url.split(":", 1)[0]
        raise DatabaseUrlError(
            f"DATABASE_URL scheme {scheme!r} is not supported; use sqlite:///path/to/file.db"
            " or postgresql://user:password@host/database"
        )
    path, _, query = database_url.removeprefix(_SQLITE_PREFIX).partition("?")
    if not path or path == ":memory:":
        raise DatabaseUrlError("DATABASE_URL must name a database file, e.g. sqlite:///spades.db")
    options = dict(parse_qsl(query, keep_blank_values=True))
    synchronous = options.pop("synchronous", "full").lower()
    if options or synchronous not in ("full", "normal"):
        raise DatabaseUrlError(f"DATABASE_URL options {query!r}: only synchronous=full or synchronous=normal")
    return Path(path), "full" if synchronous == "full" else "normal"


def check_database_url(database_url: str) -> None:
    """Refuse, writing nothing, what `open_store` would refuse from the URL alone: a scheme not
    supported, a malformed SQLite URL, a SQLite too old, a path that can't be a database file. Start-up
    runs it before Discord is asked about the token, which comes before `open_store` creates a file."""
    if database_url.split("://", 1)[0] in _POSTGRESQL_SCHEMES:
        return
    path, _ = parse_sqlite_url(database_url)
    check_sqlite_version()
    check_path(path)


async def open_store(database_url: str = DEFAULT_DATABASE_URL) -> Store:
    """Open (creating and migrating as needed) the database that `database_url` names."""
    if database_url.split("://", 1)[0] in _POSTGRESQL_SCHEMES:
        return await PostgresStore.open(database_url)
    path, synchronous = parse_sqlite_url(database_url)
    return await SqliteStore.open(path, synchronous=synchronous)


__all__ = [
    "DEFAULT_DATABASE_URL",
    "UNCHANGED",
    "ChannelBusyError",
    "DamagedGame",
    "DamagedGameError",
    "DatabaseGone",
    "DatabaseInUseError",
    "DatabaseUrlError",
    "Deadline",
    "DuplicateEventError",
    "EventGapError",
    "EventSequenceError",
    "FinishOutcome",
    "GameInfo",
    "GameNotFoundError",
    "GameStateError",
    "GameStatus",
    "GameSummary",
    "HintTaken",
    "LeaderboardEntry",
    "LeaderboardSort",
    "ModeRating",
    "PendingPost",
    "PlayerStats",
    "Post",
    "PostgresStore",
    "RatingChange",
    "RatingPoint",
    "Recovery",
    "RhythmDue",
    "SchemaTooNewError",
    "Season",
    "SeasonConflictError",
    "SeasonPost",
    "SeasonRhythm",
    "Seat",
    "SeatResult",
    "ShardInUseError",
    "ShardSet",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "StoredGame",
    "StoredTournament",
    "TournamentInfo",
    "TournamentPost",
    "TournamentStatus",
    "TournamentTable",
    "Unchanged",
    "check_database_url",
    "open_store",
    "parse_sqlite_url",
    "player_key",
]
