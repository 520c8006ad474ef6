"""The store's tables read and written row by row, on either backend, for `migrate-to`.

The store itself only speaks in games, results and seasons; moving a whole database needs the
rows as they are (ids, times, the exact JSON text), so this module opens plain connections beside
the stores. `TABLES` lists every table the migrations create, parents before children (the foreign
keys need that order); a table the migrations add later and this list lacks makes `migrate-to`
refuse rather than leave data behind.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import asyncpg

from bot.store.postgresql.connection import connect_options, describe

TABLES = (
    "games", "seats", "events", "seasons", "season_ratings", "season_rhythms", "results", "ratings",
    "guild_settings", "outbox", "hints", "reviews", "tournaments", "tournament_events", "tournament_tables",
    "tournament_posts",
)  # fmt: skip
# Bookkeeping of the backends themselves, never copied: each target keeps its own.
_BOOKKEEPING = ("schema_migrations", "sqlite_sequence", "sqlite_stat1", "sqlite_stat4")
BATCH = 5_000  # rows read and written at a time: a big events table never sits in memory whole

Rows = list[tuple[Any, ...]]


class Side(Protocol):
    """Plain access to one database's tables, inside one transaction (`begin` … `commit`)."""

    label: str  # for messages: a path, or host:port/database, never a password

    async def begin(self, *, read_only: bool) -> None: ...

    async def commit(self) -> None: ...

    async def close(self) -> None:
        """Roll back whatever was not committed and let the connection go."""

    async def tables(self) -> set[str]:
        """The tables in the database, without the backend's bookkeeping."""

    async def columns(self, table: str) -> list[str]: ...

    async def count(self, table: str) -> int: ...

    def batches(self, table: str, columns: Sequence[str]) -> AsyncIterator[Rows]:
        """Every row of `table`, `BATCH` at a time."""

    async def insert(self, table: str, columns: Sequence[str], rows: Rows) -> None:
        """Insert rows as they are, ids included."""

    async def after_insert(self, table: str) -> None:
        """Make ids handed out from now on follow the ones inserted."""


def _quoted(name: str) -> str:
    if not (name.isascii() and name.replace("_", "").isalnum()):
        raise ValueError(f"not a table or column name: {name!r}")
    return f'"{name}"'


class SqliteSide:
    """A SQLite file through the standard library's sqlite3 (the bot's store holds its lock)."""

    def __init__(self, path: Path) -> None:
        self.label = str(path)
        self._conn = sqlite3.connect(path, isolation_level=None, timeout=5.0)

    async def begin(self, *, read_only: bool) -> None:
        self._conn.execute("BEGIN" if read_only else "BEGIN IMMEDIATE")

    async def commit(self) -> None:
        self._conn.execute("COMMIT")

    async def close(self) -> None:
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")
        self._conn.close()

    async def tables(self) -> set[str]:
        found = self._conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'").fetchall()
        return {str(row[0]) for row in found} - set(_BOOKKEEPING)

    async def columns(self, table: str) -> list[str]:
        return [str(row[1]) for row in self._conn.execute(f"PRAGMA table_info({_quoted(table)})")]

    async def count(self, table: str) -> int:
        return int(self._conn.execute(f"SELECT count(*) FROM {_quoted(table)}").fetchone()[0])

    async def batches(self, table: str, columns: Sequence[str]) -> AsyncIterator[Rows]:
        cursor = self._conn.execute(f"SELECT {', '.join(map(_quoted, columns))} FROM {_quoted(table)}")
        while rows := cursor.fetchmany(BATCH):
            yield [tuple(row) for row in rows]

    async def insert(self, table: str, columns: Sequence[str], rows: Rows) -> None:
        marks = ", ".join("?" for _ in columns)
        self._conn.executemany(f"INSERT INTO {_quoted(table)} ({', '.join(map(_quoted, columns))}) VALUES ({marks})",
                               rows)

    async def after_insert(self, table: str) -> None:
        """Nothing: an AUTOINCREMENT table's counter already moved past every id inserted."""


class PostgresSide:
    """A PostgreSQL database through asyncpg: reads in one repeatable-read snapshot, writes with COPY."""

    def __init__(self, conn: asyncpg.Connection, label: str) -> None:
        self.label = label
        self._conn = conn
        self._transaction: Any = None

    @classmethod
    async def connect(cls, url: str) -> PostgresSide:
        options = connect_options()
        options["command_timeout"] = None  # copying a big table may take minutes
        return cls(await asyncpg.connect(url, **options), describe(url))

    async def begin(self, *, read_only: bool) -> None:
        self._transaction = self._conn.transaction(isolation="repeatable_read", readonly=read_only)
        await self._transaction.start()

    async def commit(self) -> None:
        await self._transaction.commit()
        self._transaction = None

    async def close(self) -> None:
        if self._transaction is not None:
            await self._transaction.rollback()
        await self._conn.close()

    async def tables(self) -> set[str]:
        found = await self._conn.fetch("SELECT table_name FROM information_schema.tables"
                                       " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'")
        return {str(row[0]) for row in found} - set(_BOOKKEEPING)

    async def columns(self, table: str) -> list[str]:
        found = await self._conn.fetch("SELECT column_name FROM information_schema.columns WHERE table_schema ="
                                       " current_schema() AND table_name = $1 ORDER BY ordinal_position", table)
        return [str(row[0]) for row in found]

    async def count(self, table: str) -> int:
        return int(await self._conn.fetchval(f"SELECT count(*) FROM {_quoted(table)}"))

    async def batches(self, table: str, columns: Sequence[str]) -> AsyncIterator[Rows]:
        query = f"SELECT {', '.join(map(_quoted, columns))} FROM {_quoted(table)}"
        cursor = await self._conn.cursor(query)
        while rows := await cursor.fetch(BATCH):
            yield [tuple(row) for row in rows]

    async def insert(self, table: str, columns: Sequence[str], rows: Rows) -> None:
        # COPY writes identity columns as given (as INSERT … OVERRIDING SYSTEM VALUE would).
        await self._conn.copy_records_to_table(table, records=rows, columns=list(columns))

    async def after_insert(self, table: str) -> None:
        identity = await self._conn.fetch("SELECT column_name FROM information_schema.columns WHERE table_schema ="
                                          " current_schema() AND table_name = $1 AND is_identity = 'YES'", table)
        for row in identity:
            column = _quoted(str(row[0]))
            await self._conn.execute(
                f"SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max({column}), 0) + 1, false)"
                f" FROM {_quoted(table)}", table, str(row[0]))
