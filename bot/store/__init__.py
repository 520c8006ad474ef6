"""Durable state: games that survive any crash, per-server leaderboards and skill ratings.

The game and Discord code use only `Store` (opened with `open_store`) and the values in
`bot.store.models`; SQL stays inside the backend, so another backend can be added behind the same
interface.

Every failure is a `StoreError` (see `bot.store.errors`): `StoreUnavailable` when the database
can't be used right now (nothing was saved), `DatabaseGone` once its file was deleted or replaced,
and at start-up `DatabaseUrlError`, `DatabaseInUseError`, `SchemaTooNewError` or a plain
`StoreError` (a damaged file, a SQLite too old), each with one line an operator can act on.
Posts owed to Discord are kept in the transaction of the write that owes them (`Post`,
`pending_posts`, `posts_delivered`): the outbox.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl

from bot.store.base import Store
from bot.store.errors import (
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
    LeaderboardEntry,
    LeaderboardSort,
    ModeRating,
    PendingPost,
    PlayerStats,
    Post,
    RatingChange,
    Recovery,
    Seat,
    SeatResult,
    StoredGame,
    Unchanged,
    player_key,
)
from bot.store.sqlite import SqliteStore, Synchronous

DEFAULT_DATABASE_URL = "sqlite:///spades.db"
_SQLITE_PREFIX = "sqlite:///"
POSTGRESQL_NOT_YET = (
    "DATABASE_URL names a PostgreSQL database, but PostgreSQL support isn't available yet; "
    "use sqlite:///path/to/file.db for now"
)


def parse_sqlite_url(database_url: str) -> tuple[Path, Synchronous]:
    """The file a `sqlite:///` URL names, and its `?synchronous=full|normal` option (default full).

    `sqlite:///rel/x.db` is relative to the working directory, `sqlite:////abs/x.db` absolute.
    """
    if not database_url.startswith(_SQLITE_PREFIX):
        scheme = database_url.split(":", 1)[0]
        if scheme in ("postgresql", "postgres"):
            raise DatabaseUrlError(POSTGRESQL_NOT_YET)
        raise DatabaseUrlError(f"DATABASE_URL scheme {scheme!r} is not supported; use sqlite:///path/to/file.db")
    path, _, query = database_url.removeprefix(_SQLITE_PREFIX).partition("?")
    if not path or path == ":memory:":
        raise DatabaseUrlError("DATABASE_URL must name a database file, e.g. sqlite:///spades.db")
    options = dict(parse_qsl(query, keep_blank_values=True))
    synchronous = options.pop("synchronous", "full").lower()
    if options or synchronous not in ("full", "normal"):
        raise DatabaseUrlError(f"DATABASE_URL options {query!r}: only synchronous=full or synchronous=normal")
    return Path(path), "full" if synchronous == "full" else "normal"


async def open_store(database_url: str = DEFAULT_DATABASE_URL) -> Store:
    """Open (creating and migrating as needed) the database that `database_url` names."""
    path, synchronous = parse_sqlite_url(database_url)
    return await SqliteStore.open(path, synchronous=synchronous)


__all__ = [
    "DEFAULT_DATABASE_URL",
    "UNCHANGED",
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
    "LeaderboardEntry",
    "LeaderboardSort",
    "ModeRating",
    "PendingPost",
    "PlayerStats",
    "Post",
    "RatingChange",
    "Recovery",
    "SchemaTooNewError",
    "Seat",
    "SeatResult",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "StoredGame",
    "Unchanged",
    "open_store",
    "parse_sqlite_url",
    "player_key",
]
