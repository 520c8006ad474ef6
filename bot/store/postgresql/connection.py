"""asyncpg connections as the shared queries use them, and how the store connects.

asyncpg takes the `DATABASE_URL` as it is (`postgresql://user:password@host:port/database?...`).
Every connection sets a lock timeout, so a write that waits on another session's lock gives up
(`StoreUnavailable`) instead of stalling a channel; the pool reconnects on its own once a server
that went away is back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import asyncpg

from bot.store.errors import DatabaseUrlError
from bot.store.postgresql.locks import board_key
from bot.store.sql import Dialect, Row

POSTGRESQL = Dialect(
    name="postgresql", lock_rows=" FOR UPDATE", win_rate="(CAST(wins AS DOUBLE PRECISION) / games)"
)

POOL_SIZE = 10
CONNECT_TIMEOUT_S = 10.0
COMMAND_TIMEOUT_S = 60.0  # the client's own limit, should the server or the network hang
LOCK_TIMEOUT_MS = 1000  # as long as SQLite's writer waits for another process's lock


def describe(url: str) -> str:
    """`host:port/database` for messages: never the password. A URL that can't be read is refused."""
    try:
        parts = urlsplit(url)
        port = parts.port or 5432
    except ValueError as exc:
        raise DatabaseUrlError(f"DATABASE_URL is not a PostgreSQL URL asyncpg can read ({exc})") from exc
    options = dict(parse_qsl(parts.query))
    host = parts.hostname or options.get("host", "localhost")
    database = parts.path.lstrip("/") or options.get("dbname") or parts.username or "postgres"
    return f"{host}:{port}/{database}"


def connect_options() -> dict[str, Any]:
    """What every connection of the store is opened with (read when opening, so tests can shorten it)."""
    return {
        "timeout": CONNECT_TIMEOUT_S,
        "command_timeout": COMMAND_TIMEOUT_S,
        "server_settings": {"lock_timeout": f"{LOCK_TIMEOUT_MS}ms", "application_name": "spades-bot"},
    }


async def open_pool(url: str) -> Any:
    """A pool with one connection open already, so a wrong URL or a server that is down shows now."""
    return await asyncpg.create_pool(url, min_size=1, max_size=POOL_SIZE, reset=reset_if_needed, **connect_options())


async def reset_if_needed(conn: asyncpg.Connection) -> None:
    """What a connection needs when it goes back to the pool. asyncpg's default resets every session
    setting (advisory locks, cursors, listeners, SET values) with one more round trip per save; the
    store's pooled connections change none of those (its advisory locks are per transaction; the
    shard locks hold a connection of their own), so only one left inside a transaction (a failure
    mid-way) is reset, by asyncpg's own reset."""
    if conn.is_in_transaction():
        await conn.reset()


class PgTransaction:
    """`bot.store.sql.Transaction` on an asyncpg connection inside a transaction the caller began."""

    dialect = POSTGRESQL

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def fetch(self, query: str, *args: Any) -> list[Row]:
        rows: list[Row] = await self._conn.fetch(query, *args)
        return rows

    async def fetchrow(self, query: str, *args: Any) -> Row | None:
        row: Row | None = await self._conn.fetchrow(query, *args)
        return row

    async def execute(self, query: str, *args: Any) -> None:
        await self._conn.execute(query, *args)

    async def executemany(self, query: str, args: Iterable[Sequence[Any]]) -> None:
        await self._conn.executemany(query, args)

    async def lock_board(self, guild_id: int, mode: str) -> None:
        await self._conn.execute("SELECT pg_advisory_xact_lock($1)", board_key(guild_id, mode))
