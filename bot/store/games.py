"""A game's life, its event log, the outbox and server settings, as transactions every backend runs.

Each function is one whole read or write (see `bot.store.sql`); it raises a `StoreError` to refuse,
and the backend then rolls everything back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.store import replay, rows
from bot.store.errors import (
    ChannelBusyError,
    DuplicateEventError,
    EventGapError,
    EventSequenceError,
    GameNotFoundError,
    GameStateError,
    StoreError,
)
from bot.store.models import Deadline, GameInfo, PendingPost, Post, Seat, ShardSet, Unchanged
from bot.store.rows import PostRow
from bot.store.sql import Row, Transaction, on_shards, placeholders

ACTIVE = "status IN ('lobby', 'playing')"

# Only the next seq of a game that is playing is inserted; RETURNING tells whether it was.
APPEND = """
INSERT INTO events (game_id, seq, event_json, created_at)
SELECT $1, $2, $3, $4
WHERE $2 = 1 + (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = $1)
  AND EXISTS (SELECT 1 FROM games WHERE game_id = $1 AND status = 'playing')
RETURNING seq
"""
SET_DEADLINE = "UPDATE games SET deadline_kind = $1, deadline_at = $2 WHERE game_id = $3"


@dataclass(frozen=True, slots=True)
class Action:
    """One accepted action as saved: its events from `first_seq` on (as JSON text), the game's turn
    deadline unless UNCHANGED, and the posts it owes. Serialised up front, so a payload that isn't
    JSON fails its own caller before anything is queued or written."""

    game_id: str
    first_seq: int
    payloads: tuple[str, ...]
    deadline: Deadline | Unchanged | None
    posts: tuple[PostRow, ...]

    @classmethod
    def of(
        cls,
        game_id: str,
        first_seq: int,
        events: Sequence[Mapping[str, Any]],
        deadline: Deadline | Unchanged | None,
        posts: Sequence[Post],
    ) -> Action:
        if first_seq < 1:
            raise EventSequenceError(f"game {game_id!r}: event seqs count from 1, got {first_seq}")
        payloads = tuple(replay.dumps(dict(e)) for e in events)
        return cls(game_id, first_seq, payloads, deadline, tuple(rows.post_rows(game_id, posts)))


async def status(tx: Transaction, game_id: str) -> str:
    """The game's status, its row locked until the transaction ends where that matters."""
    row = await tx.fetchrow(f"SELECT status FROM games WHERE game_id = $1{tx.dialect.lock_rows}", game_id)
    if row is None:
        raise GameNotFoundError(f"no game {game_id!r}")
    return str(row["status"])


async def read_info(tx: Transaction, game_id: str) -> GameInfo | None:
    row = await tx.fetchrow("SELECT * FROM games WHERE game_id = $1", game_id)
    if row is None:
        return None
    return rows.game_info(row, await tx.fetch("SELECT * FROM seats WHERE game_id = $1", game_id))


async def insert_seats(tx: Transaction, game_id: str, seats: Sequence[Seat]) -> None:
    await tx.executemany(
        "INSERT INTO seats (game_id, seat, name, user_id, bot_level, left_user_id, left_name)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7)",
        [(game_id, s.seat, s.name, s.user_id, s.bot_level, s.left_user_id, s.left_name) for s in seats],
    )


async def create(
    tx: Transaction,
    game_id: str,
    guild_id: int,
    channel_id: int,
    mode: str,
    rules_json: str,
    host_id: int | None,
    seats: Sequence[Seat],
    now: float,
) -> GameInfo:
    created = await tx.fetch(
        "INSERT INTO games (game_id, guild_id, channel_id, mode, rules_json, host_id, created_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING game_id",
        game_id, guild_id, channel_id, mode, rules_json, host_id, now,
    )  # fmt: skip
    if not created:  # the id is taken, or the channel has an active game (a unique index each)
        if await tx.fetchrow("SELECT 1 FROM games WHERE game_id = $1", game_id) is not None:
            raise GameStateError(f"game {game_id!r} already exists")
        active = await tx.fetchrow(f"SELECT game_id, status FROM games WHERE channel_id = $1 AND {ACTIVE}", channel_id)
        what = f"game {active['game_id']!r} ({active['status']})" if active is not None else "an active game"
        raise ChannelBusyError(f"channel {channel_id} already has {what}; one lobby or game at a time")
    await insert_seats(tx, game_id, seats)
    info = await read_info(tx, game_id)
    assert info is not None
    return info


async def set_seats(tx: Transaction, game_id: str, seats: Sequence[Seat]) -> None:
    row = await tx.fetchrow(f"SELECT mode, status FROM games WHERE game_id = $1{tx.dialect.lock_rows}", game_id)
    if row is None:
        raise GameNotFoundError(f"no game {game_id!r}")
    if row["status"] not in ("lobby", "playing"):
        raise GameStateError(f"game {game_id!r} is {row['status']}; its seats are final")
    rows.check_seats(row["mode"], seats)
    await tx.execute("DELETE FROM seats WHERE game_id = $1", game_id)
    await insert_seats(tx, game_id, seats)


async def start(tx: Transaction, game_id: str, setup_json: str, now: float) -> None:
    found = await status(tx, game_id)
    if found != "lobby":
        raise GameStateError(f"game {game_id!r} is {found}, not in the lobby")
    await tx.execute(
        "UPDATE games SET status = 'playing', setup_json = $1, started_at = $2 WHERE game_id = $3",
        setup_json, now, game_id,
    )  # fmt: skip


async def update(tx: Transaction, game_id: str, assignments: str, values: Sequence[Any]) -> None:
    """`UPDATE games SET assignments` (placeholders from $1) for one game that must exist. One
    statement, so a store may run it without a transaction around it (`SqlStore._write_statement`)."""
    sql = f"UPDATE games SET {assignments} WHERE game_id = ${len(values) + 1} RETURNING game_id"
    if not await tx.fetch(sql, *values, game_id):
        raise GameNotFoundError(f"no game {game_id!r}")


async def append_action(tx: Transaction, action: Action, now: float) -> list[int]:
    """Store one action (the checks of `Store.append_event`); the ids of its posts, in order."""
    for offset, payload in enumerate(action.payloads):
        seq = action.first_seq + offset
        if not await tx.fetch(APPEND, action.game_id, seq, payload, now):
            raise await append_refusal(tx, action.game_id, seq)
    if not isinstance(action.deadline, Unchanged):
        await tx.execute(SET_DEADLINE, *rows.deadline_columns(action.deadline), action.game_id)
    return await insert_posts(tx, action.posts, now)


async def append_refusal(tx: Transaction, game_id: str, seq: int) -> StoreError:
    """Why an append was refused: the game's state or its last seq, read in the same transaction."""
    row = await tx.fetchrow(
        "SELECT status, (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = $1) AS last"
        " FROM games WHERE game_id = $1",
        game_id,
    )
    return refusal(game_id, seq, None, 0) if row is None else refusal(game_id, seq, row["status"], row["last"])


def refusal(game_id: str, seq: int, status: str | None, last: int) -> StoreError:
    """Why appending from `seq` was refused, given the game's status (None: no such game) and last seq."""
    if status is None:
        return GameNotFoundError(f"no game {game_id!r}")
    if status != "playing":
        return GameStateError(f"game {game_id!r} is {status}; it takes no more events")
    if seq <= last:
        return DuplicateEventError(f"game {game_id!r}: event {seq} is already stored (last is {last})")
    return EventGapError(f"game {game_id!r}: event {seq} would leave a gap; next is {last + 1}")


async def cancel(tx: Transaction, game_id: str, posts: Sequence[PostRow], now: float) -> list[int]:
    found = await status(tx, game_id)
    if found == "finished":
        raise GameStateError(f"game {game_id!r} has finished; it cannot be cancelled")
    if found == "cancelled":
        return []
    await tx.execute(
        "UPDATE games SET status = 'cancelled', ended_at = $1, deadline_kind = NULL, deadline_at = NULL"
        " WHERE game_id = $2",
        now, game_id,
    )  # fmt: skip
    return await insert_posts(tx, posts, now)


# -- the outbox -------------------------------------------------------------------------------------


async def insert_posts(tx: Transaction, posts: Sequence[PostRow], now: float) -> list[int]:
    """The new posts' ids, in the posts' order: one statement inserts them in order, and ids only grow."""
    if not posts:
        return []
    values = ", ".join(f"(${3 * n + 2}, ${3 * n + 3}, ${3 * n + 4}, $1)" for n in range(len(posts)))
    inserted = await tx.fetch(
        f"INSERT INTO outbox (game_id, kind, payload_json, created_at) VALUES {values} RETURNING post_id",
        now, *(column for post in posts for column in post),
    )  # fmt: skip
    return sorted(row["post_id"] for row in inserted)


async def add_posts(tx: Transaction, game_id: str, posts: Sequence[PostRow], now: float) -> list[int]:
    await status(tx, game_id)  # GameNotFoundError for an unknown game
    return await insert_posts(tx, posts, now)


async def forget_posts(tx: Transaction, post_ids: Sequence[int]) -> None:
    """One statement, as `update`."""
    await tx.execute(f"DELETE FROM outbox WHERE post_id IN ({placeholders(len(post_ids))})", *post_ids)


async def pending_posts(tx: Transaction, shards: ShardSet | None) -> list[PendingPost]:
    found = await tx.fetch(
        "SELECT o.post_id, o.game_id, g.guild_id, g.channel_id, o.kind, o.payload_json, o.created_at"
        f" FROM outbox AS o JOIN games AS g ON g.game_id = o.game_id WHERE {on_shards(shards, 'g.guild_id')}"
        " ORDER BY o.post_id"
    )
    return [
        PendingPost(r["post_id"], r["game_id"], r["guild_id"], r["channel_id"], r["kind"],
                    replay.loads_object(r["payload_json"]), r["created_at"])
        for r in found
    ]  # fmt: skip


# -- reading games back -----------------------------------------------------------------------------

GameRows = tuple[Row, Sequence[Row], Sequence[Row]]  # the game, its seats, its events (seq order)


async def load_rows(tx: Transaction, game_id: str) -> GameRows | None:
    row = await tx.fetchrow("SELECT * FROM games WHERE game_id = $1", game_id)
    if row is None:
        return None
    return (
        row,
        await tx.fetch("SELECT * FROM seats WHERE game_id = $1", game_id),
        await tx.fetch("SELECT seq, event_json FROM events WHERE game_id = $1 ORDER BY seq", game_id),
    )


def _unfinished_ids(shards: ShardSet | None) -> str:
    return f"SELECT game_id FROM games WHERE {ACTIVE} AND {on_shards(shards)}"


async def unfinished_rows(tx: Transaction, shards: ShardSet | None) -> tuple[Sequence[Row], ...]:
    """Every unfinished game's row, seats and events, in three statements however many games."""
    ids = _unfinished_ids(shards)
    return (
        await tx.fetch(f"SELECT * FROM games WHERE {ACTIVE} AND {on_shards(shards)} ORDER BY created_at"),
        await tx.fetch(f"SELECT * FROM seats WHERE game_id IN ({ids})"),
        await tx.fetch(f"SELECT game_id, seq, event_json FROM events WHERE game_id IN ({ids}) ORDER BY game_id, seq"),
    )


async def unfinished_ids(tx: Transaction, shards: ShardSet | None) -> list[str]:
    return [row["game_id"] for row in await tx.fetch(_unfinished_ids(shards))]


async def recent_rows(tx: Transaction, guild_id: int, channel_id: int, limit: int) -> tuple[Sequence[Row], ...]:
    """A channel's newest games, their seats and their results (seat order)."""
    found = await tx.fetch(
        "SELECT * FROM games WHERE guild_id = $1 AND channel_id = $2 ORDER BY created_at DESC, game_id DESC LIMIT $3",
        guild_id, channel_id, limit,
    )  # fmt: skip
    ids = [g["game_id"] for g in found]
    if not ids:
        return found, [], []
    marks = placeholders(len(ids))
    return (
        found,
        await tx.fetch(f"SELECT * FROM seats WHERE game_id IN ({marks})", *ids),
        await tx.fetch(
            f"SELECT game_id, {rows.RESULT_COLUMNS} FROM results WHERE game_id IN ({marks}) ORDER BY seat", *ids
        ),
    )


# -- server settings --------------------------------------------------------------------------------


async def settings(tx: Transaction, guild_id: int) -> dict[str, Any]:
    row = await tx.fetchrow("SELECT settings_json FROM guild_settings WHERE guild_id = $1", guild_id)
    return {} if row is None else replay.loads_object(row["settings_json"])


async def update_settings(tx: Transaction, guild_id: int, changes: Mapping[str, Any], now: float) -> dict[str, Any]:
    """Merge under the row's lock (created first if missing), so two processes' changes both stay."""
    return await merge_guild_json(tx, guild_id, "settings_json", changes, now)


async def merge_guild_json(
    tx: Transaction, guild_id: int, column: str, changes: Mapping[str, Any], now: float
) -> dict[str, Any]:
    """Merge `changes` into a JSON object column of the server's row (a None value removes the key),
    under the row's lock, creating the row first if missing; returns the merged object."""
    await tx.execute(
        "INSERT INTO guild_settings (guild_id, settings_json, updated_at) VALUES ($1, '{}', $2) ON CONFLICT DO NOTHING",
        guild_id, now,
    )  # fmt: skip
    row = await tx.fetchrow(f"SELECT {column} FROM guild_settings WHERE guild_id = $1{tx.dialect.lock_rows}", guild_id)
    assert row is not None
    merged = replay.loads_object(row[column])
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    await tx.execute(
        f"UPDATE guild_settings SET {column} = $1, updated_at = $2 WHERE guild_id = $3",
        replay.dumps(merged), now, guild_id,
    )  # fmt: skip
    return merged
