"""SQLite connections as the shared queries use them, and the reader's thread.

The shared queries (`bot.store.sql`) are async functions; on SQLite every statement they await is
answered at once by the sqlite3 module, so such a function never suspends and `run_now` runs it to
the end in one call: on the event loop for the writer, with nothing interleaved (a whole
transaction or none, even if its caller is cancelled), or on the reader's own thread.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from collections.abc import Callable, Coroutine, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar, cast

from bot.store.sql import Dialect, Operation

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]

SQLITE = Dialect(name="sqlite", lock_rows="", win_rate="(CAST(wins AS REAL) / games)")

_NUMBERED = re.compile(r"\$(\d+)")


@lru_cache(maxsize=1024)
def to_sqlite(query: str) -> str:
    """PostgreSQL's `$1` placeholders as SQLite's `?1`, which binds the same values the same way."""
    return _NUMBERED.sub(r"?\1", query)


class SqliteTransaction:
    """`bot.store.sql.Transaction` on a sqlite3 connection inside a transaction the caller began."""

    dialect = SQLITE

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    async def fetch(self, query: str, *args: Any) -> list[sqlite3.Row]:
        return self._conn.execute(to_sqlite(query), args).fetchall()

    async def fetchrow(self, query: str, *args: Any) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self._conn.execute(to_sqlite(query), args).fetchone()
        return row

    async def execute(self, query: str, *args: Any) -> None:
        self._conn.execute(to_sqlite(query), args)

    async def executemany(self, query: str, args: Iterable[Sequence[Any]]) -> None:
        self._conn.executemany(to_sqlite(query), args)

    async def lock_board(self, guild_id: int, mode: str) -> None:
        """Nothing to do: a write transaction (BEGIN IMMEDIATE) already excludes every other writer."""


def run_now(operation: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never suspends, run to the end in this one call."""
    try:
        operation.send(None)
    except StopIteration as finished:
        return cast(T, finished.value)
    operation.close()
    raise RuntimeError("an operation on SQLite suspended: it may await only its SqliteTransaction")


def as_work(operation: Operation[T]) -> Work[T]:
    """A shared operation as a function of a sqlite3 connection."""
    return lambda conn: run_now(operation(SqliteTransaction(conn)))


def _begin(conn: sqlite3.Connection, statement: str) -> None:
    if conn.in_transaction:  # a ROLLBACK that failed last time: finish it first
        conn.execute("ROLLBACK")
    conn.execute(statement)


def _roll_back(conn: sqlite3.Connection) -> None:
    """Undo a transaction that failed; SQLite has sometimes done so already (a full disk, an I/O error)."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:  # the error that got us here says more; `_begin` retries
            log.warning("ROLLBACK failed; it is retried before the next transaction", exc_info=True)


def write_transaction(work: Work[T]) -> Work[T]:
    """`work` as one write transaction; whatever it raises leaves nothing behind."""

    def run(conn: sqlite3.Connection) -> T:
        _begin(conn, "BEGIN IMMEDIATE")
        try:
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException:
            _roll_back(conn)
            raise
        return result

    return run


def snapshot(work: Work[T]) -> Work[T]:
    """`work` in one read transaction, so queries that belong together see the same committed state."""

    def run(conn: sqlite3.Connection) -> T:
        _begin(conn, "BEGIN")
        try:
            return work(conn)
        finally:
            _roll_back(conn)

    return run


def set_up(conn: sqlite3.Connection, busy_timeout_ms: int, *pragmas: str) -> None:
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
    conn.execute("PRAGMA foreign_keys = ON")
    for pragma in pragmas:
        conn.execute(pragma)


class ReaderThread:
    """A query-only connection with a thread of its own: each read is one hand-off to it.

    Under load every hand-off waits its turn in a busy event loop, so a whole read (one function)
    goes over at once, and reads run in the order they were asked for.
    """

    def __init__(self, thread: ThreadPoolExecutor, conn: sqlite3.Connection) -> None:
        self._thread = thread
        self._conn = conn

    @classmethod
    async def open(cls, path: Path, busy_timeout_ms: int) -> ReaderThread:
        thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-reader")

        def connect() -> sqlite3.Connection:
            conn = sqlite3.connect(path, isolation_level=None)
            try:
                set_up(conn, busy_timeout_ms, "PRAGMA query_only = ON")
            except BaseException:
                conn.close()
                raise
            return conn

        try:
            return cls(thread, await asyncio.get_running_loop().run_in_executor(thread, connect))
        except BaseException:
            thread.shutdown()  # its thread would otherwise keep the process alive
            raise

    async def run(self, work: Work[T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, work, self._conn)

    async def close(self) -> None:
        try:
            await self.run(lambda conn: conn.close())
        finally:
            self._thread.shutdown()
