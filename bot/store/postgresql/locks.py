"""PostgreSQL advisory locks: their keys, and the shards a bot process claims with them.

Keys are one bigint each, `namespace | kind | value`, so they can't collide with another
application's locks on the same server (unless it picks the same namespace).
"""

from __future__ import annotations

import contextlib
import logging
import zlib
from typing import Any

from bot.store.errors import ShardInUseError
from bot.store.models import ShardSet
from bot.store.postgresql.errors import DRIVER_ERRORS

log = logging.getLogger(__name__)

_NAMESPACE = 0x5BAD << 48
_MIGRATIONS, _BOARD, _SHARD = (kind << 40 for kind in (1, 2, 3))
_SHARD_BITS = 20

MIGRATIONS_KEY = _NAMESPACE | _MIGRATIONS


def board_key(guild_id: int, mode: str) -> int:
    """One server's leaderboard in one mode (a hash: two boards may share a key, and then only wait)."""
    return _NAMESPACE | _BOARD | zlib.crc32(f"{guild_id}:{mode}".encode())


def shard_key(count: int, shard: int) -> int:
    if count >= 1 << _SHARD_BITS:
        raise ValueError(f"at most {(1 << _SHARD_BITS) - 1} shards")
    return _NAMESPACE | _SHARD | count << _SHARD_BITS | shard


class ShardClaims:
    """Session-level advisory locks, one per shard served, on a connection of their own that is held
    for the store's life: the server drops them when the session ends, however the process ends."""

    def __init__(self, conn: Any, target: str) -> None:
        self._conn = conn
        self._target = target
        conn.add_termination_listener(self._lost)

    def _lost(self, _: Any) -> None:
        log.error("the connection holding this process's shard claims on %s was lost; another bot process may"
                  " now take the same shards. Restart this one to claim them again.", self._target)

    async def claim(self, shards: ShardSet) -> None:
        """All of `shards`, or (ShardInUseError) none of them."""
        taken: list[int] = []
        try:
            for shard in sorted(shards.ids):
                key = shard_key(shards.count, shard)
                if not await self._conn.fetchval("SELECT pg_try_advisory_lock($1)", key):
                    raise ShardInUseError(
                        f"shard {shard} of {shards.count} is already served by another bot process;"
                        " give each process its own shards"
                    )
                taken.append(key)
        except BaseException:
            for key in taken:
                with contextlib.suppress(*DRIVER_ERRORS):
                    await self._conn.fetchval("SELECT pg_advisory_unlock($1)", key)
            raise

    async def close(self) -> None:
        self._conn.remove_termination_listener(self._lost)  # closed on purpose: nothing was lost
        await self._conn.close()
