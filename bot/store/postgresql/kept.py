"""A few connections kept out of asyncpg's pool for the saves of moves, the store's busiest write,
and the other writes and reads of one statement.

Taking a connection from asyncpg's pool and giving it back cost about 45 µs of CPU (its release
runs in a shielded task of its own, under a timeout scope, with a reset and an inactivity timer),
more than half of what the save's one statement costs (`bench/bench_store.py`, `cpu_us`). A move's
save is one statement that is a transaction of its own: it leaves nothing in the session (no
transaction, lock, cursor or setting), so the connection it used can go straight to the next save;
so does any other single statement.

Up to `keep` connections are borrowed from the pool as they are first needed and then handed from
save to save. One whose save failed in any way (the server's refusal, a lost connection, a
cancellation) goes back to the pool, which resets it, or replaces it when it is closed; so does one
found closed while it waited (the server restarted). When every kept connection is busy, a save
takes one from the pool as before. `close` gives the idle ones back, so the pool can close.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class KeptConnections:
    def __init__(self, pool: Any, keep: int) -> None:
        self._pool = pool
        self._keep = keep
        self._idle: list[Any] = []
        self._borrowed = 0  # connections taken from the pool and not given back: idle or in use
        self._closed = False

    async def run(self, write: Callable[[Any], Awaitable[T]]) -> T:
        """`write` on a kept connection, or on one of the pool's when all are in use."""
        conn = await self._take()
        if conn is None:
            async with self._pool.acquire() as pooled:
                return await write(pooled)
        try:
            result = await write(conn)
        except BaseException:
            with contextlib.suppress(Exception):  # the pool ends one it can't reset: the write's error counts
                await self._give_back(conn)
            raise
        if self._closed:
            await self._give_back(conn)
        else:
            self._idle.append(conn)
        return result

    async def _take(self) -> Any:
        while self._idle:
            conn = self._idle.pop()
            if not conn.is_closed():
                return conn
            await self._give_back(conn)
        if self._borrowed >= self._keep or self._closed:
            return None
        self._borrowed += 1
        try:
            return await self._pool.acquire()
        except BaseException:
            self._borrowed -= 1
            raise

    async def _give_back(self, conn: Any) -> None:
        self._borrowed -= 1
        await self._pool.release(conn)

    async def close(self) -> None:
        """Give the idle connections back to the pool (those in use come back as their saves end)."""
        self._closed = True
        idle, self._idle = self._idle, []
        for conn in idle:
            await self._give_back(conn)
