"""Ids and times as Discord makes them: snowflakes (time-based, optionally placed on a shard), opaque
tokens, and ISO timestamps."""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from datetime import UTC, datetime

DISCORD_EPOCH_MS = 1420070400000

_snowflake_lock = threading.Lock()
_last_snowflake = 0
_increment = itertools.count()


def new_snowflake(shard: tuple[int, int] | None = None) -> int:
    """A unique, increasing, time-based id so discord.py's `created_at` values are realistic.

    With `shard=(shard_id, shard_count)` the id is one whose guild would live on that shard,
    `(id >> 22) % shard_count == shard_id`: its timestamp is moved up to `shard_count - 1` ms on.
    """
    global _last_snowflake
    with _snowflake_lock:
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = (now_ms << 22) | (next(_increment) & 0xFFF)
        if candidate <= _last_snowflake:
            candidate = _last_snowflake + 1
        if shard is not None:
            shard_id, shard_count = shard
            if shard_count < 1 or not 0 <= shard_id < shard_count:
                raise ValueError(f"shard {shard_id} of {shard_count} does not exist")
            ms = candidate >> 22
            candidate = ((ms + (shard_id - ms) % shard_count) << 22) | (candidate & 0x3FFFFF)
        _last_snowflake = candidate
        return candidate


def snowflake_time(snowflake: int) -> datetime:
    """When a snowflake was made (its timestamp bits)."""
    return datetime.fromtimestamp(((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000, UTC)


def new_token(prefix: str = "") -> str:
    """An opaque random token (interaction tokens, bot tokens)."""
    return prefix + secrets.token_urlsafe(32)


def iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.isoformat()


def utcnow() -> datetime:
    return datetime.now(UTC)
