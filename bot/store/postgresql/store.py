"""`Store` on a PostgreSQL database, shared by several bot processes (each serving its own shards).

Every write is one transaction on a pooled connection, committed before the caller hears back:
what SQLite gets from its group commit, PostgreSQL gets from its own commit path, where the
commits of concurrent transactions share one flush of its log. A write, once handed over, runs to
its end even if its caller gives up (a shutdown, a timeout), so it is made or refused whole; `close`
waits for such writes. One game's actions are saved one at a time, in the order they were handed
over, as SQLite's single writer does; different games' go side by side. An action, the most frequent
write, is one statement that is a transaction of its own (`append`): no BEGIN and COMMIT round trips;
so are the other writes of a single statement (`_write_statement`).
Reads run in one read-only snapshot each; a read of one statement needs none
(`_read_statement`).

Concurrency that SQLite's single writer hid is explicit here: one active game per channel is a
unique index; finishing takes the game's row lock, then the server-and-mode's leaderboard lock
(see `bot.store.results`); shards are claimed with session-level advisory locks (`locks`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import asyncpg

from bot.store.games import Action, append_action
from bot.store.models import ShardSet
from bot.store.postgresql import append, connection
from bot.store.postgresql.connection import PgTransaction
from bot.store.postgresql.errors import DRIVER_ERRORS, commit_lost, store_error
from bot.store.postgresql.kept import KeptConnections
from bot.store.postgresql.locks import ShardClaims
from bot.store.postgresql.migrate import migrate
from bot.store.sql import Operation
from bot.store.sql_store import SqlStore

T = TypeVar("T")

CLOSE_TIMEOUT_S = 10.0
KEPT_FOR_MOVES = connection.POOL_SIZE // 2  # the rest stay in the pool for transactions and reads


class _OneAtATime:
    """A FIFO lock per key, forgotten once nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


def _connection_lost(exc: BaseException) -> bool:
    """Whether a failed COMMIT (or a statement that commits itself) may have been committed: the
    connection, not the server's answer to it, failed."""
    if isinstance(exc, asyncpg.PostgresError):
        return str(exc.sqlstate)[:2] in ("08", "57")
    return True


class PostgresStore(SqlStore):
    """`Store` on PostgreSQL. Open it with `PostgresStore.open(url)` or `open_store(url)`."""

    def __init__(self, url: str, target: str, pool: Any) -> None:
        self._url = url
        self._target = target  # host:port/database, for messages
        self._pool = pool
        self._kept = KeptConnections(pool, KEPT_FOR_MOVES)  # the saves of moves, without the pool's cost
        self._handed_over: set[asyncio.Task[Any]] = set()
        self._per_game = _OneAtATime()
        self._claims: ShardClaims | None = None

    @classmethod
    async def open(cls, url: str) -> PostgresStore:
        """Connect and migrate; a server that is down or unreachable is `StoreUnavailable`, a wrong
        password, user or database name a `StoreError`, each with one clear line."""
        target = connection.describe(url)
        try:
            pool = await connection.open_pool(url)
        except (*DRIVER_ERRORS, ValueError) as exc:
            raise store_error(exc, target, writing=False) from exc
        try:
            async with pool.acquire() as conn:
                await migrate(conn, target)
        except BaseException as exc:
            pool.terminate()
            if isinstance(exc, DRIVER_ERRORS):
                raise store_error(exc, target, writing=False) from exc
            raise
        return cls(url, target, pool)

    async def claim_shards(self, shards: ShardSet) -> None:
        try:
            if self._claims is None:
                conn = await asyncpg.connect(self._url, **connection.connect_options())
                self._claims = ShardClaims(conn, self._target)
            await self._claims.claim(shards)
        except DRIVER_ERRORS as exc:
            raise store_error(exc, self._target, writing=False) from exc

    async def close(self) -> None:
        """Finish the writes handed over, then release the connections and the shards claimed."""
        try:
            if self._handed_over:
                await asyncio.wait(self._handed_over)
        finally:
            with contextlib.suppress(*DRIVER_ERRORS):
                await self._kept.close()
            if self._claims is not None:
                with contextlib.suppress(*DRIVER_ERRORS):
                    await self._claims.close()
            try:
                await asyncio.wait_for(self._pool.close(), CLOSE_TIMEOUT_S)
            except (TimeoutError, *DRIVER_ERRORS):  # a server that is gone has nothing left to lose
                self._pool.terminate()

    # -- running operations -----------------------------------------------------------------------

    async def _read(self, operation: Operation[T]) -> T:
        try:
            async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
                return await operation(PgTransaction(conn))
        except DRIVER_ERRORS as exc:
            raise store_error(exc, self._target, writing=False) from exc

    async def _read_statement(self, operation: Operation[T]) -> T:
        """One statement reads one committed state by itself: no pooled connection, BEGIN or COMMIT
        around it (a server's settings, read as each game is set up)."""
        try:
            return await self._kept.run(lambda conn: operation(PgTransaction(conn)))
        except DRIVER_ERRORS as exc:
            raise store_error(exc, self._target, writing=False) from exc

    async def _write(self, operation: Operation[T]) -> T:
        return await self._hand_over(self._transaction(operation))

    async def _write_statement(self, operation: Operation[T]) -> T:
        """One statement is a transaction of its own: no pooled connection, BEGIN or COMMIT around it
        (three round trips and the pool's cost, for the game's message ids, its deadline and the
        posts delivered, several times a game)."""
        return await self._hand_over(self._one_statement(lambda conn: operation(PgTransaction(conn))))

    async def _hand_over(self, write: Coroutine[Any, Any, T]) -> T:
        """Run `write` to its end even if the caller gives up (a shutdown, a timeout), so it is made or
        refused whole, never cut off halfway; a cancelled caller hears so once it has ended."""
        task = asyncio.ensure_future(write)
        self._handed_over.add(task)
        task.add_done_callback(self._settled)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.done():
                await asyncio.wait([task])
            raise

    def _settled(self, task: asyncio.Task[Any]) -> None:
        self._handed_over.discard(task)
        if not task.cancelled():
            task.exception()  # heard by its caller, or by nobody once the caller gave up: no warning

    async def _transaction(self, operation: Operation[T]) -> T:
        try:
            async with self._pool.acquire() as conn:
                transaction = conn.transaction()
                await transaction.start()
                try:
                    result = await operation(PgTransaction(conn))
                except BaseException:
                    with contextlib.suppress(*DRIVER_ERRORS):  # a lost connection has rolled back already
                        await transaction.rollback()
                    raise
                try:
                    await transaction.commit()
                except DRIVER_ERRORS as exc:
                    if _connection_lost(exc):
                        raise commit_lost(exc, self._target) from exc
                    raise
                return result
        except DRIVER_ERRORS as exc:
            raise store_error(exc, self._target, writing=True) from exc

    async def _committing(self, write: Callable[[Any], Awaitable[T]], conn: Any) -> T:
        """`write`, whose statement commits itself: a connection lost while it runs may have saved it."""
        try:
            return await write(conn)
        except DRIVER_ERRORS as exc:
            if _connection_lost(exc):
                raise commit_lost(exc, self._target) from exc
            raise

    # -- actions ----------------------------------------------------------------------------------

    async def _append(self, action: Action) -> list[int]:
        return await self._hand_over(self._append_in_turn(action))

    async def _append_in_turn(self, action: Action) -> list[int]:
        async with self._per_game.hold(action.game_id):
            if not action.payloads:  # posts or a deadline alone: no seq to check, the shared transaction
                return await self._transaction(lambda tx: append_action(tx, action, time.time()))
            return await self._one_statement(lambda conn: append.in_one_statement(conn, action, time.time()))

    async def _one_statement(self, write: Callable[[Any], Awaitable[T]]) -> T:
        """Run `write`, one statement on a kept connection and a transaction of its own (no BEGIN
        or COMMIT to wait for). Its commit is part of it, so a connection lost while it runs leaves
        the save made or not, as a lost COMMIT does; a statement the server refused saved nothing."""
        try:
            return await self._kept.run(functools.partial(self._committing, write))
        except DRIVER_ERRORS as exc:
            raise store_error(exc, self._target, writing=True) from exc
