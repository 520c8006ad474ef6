"""Seasons of a server's leaderboard, as transactions every backend runs (see `bot.store.sql`).

A season runs from its start until it is ended (`end`), at most one per server. While it runs,
every game finished on the server is rated a second time in it (`running_for_game`, called by
`bot.store.results.finish`), from fresh ratings, beside the all-time ones. Ending it takes its row's
lock, as finishing a game does to look it up, so a game is either rated in the season before its
end or not at all, and the final board never moves afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.store import replay
from bot.store.errors import SeasonConflictError
from bot.store.models import RatingPoint, RhythmDue, Season, SeasonPost, SeasonRhythm, ShardSet
from bot.store.sql import Row, Transaction, on_shards

RUNNING = "ended_at IS NULL"


def season(row: Row) -> Season:
    return Season(
        season_id=int(row["season_id"]),
        guild_id=row["guild_id"],
        name=row["name"],
        channel_id=row["channel_id"],
        started_by=row["started_by"],
        rhythm=row["rhythm"],
        started_at=row["started_at"],
        ends_at=row["ends_at"],
        ended_at=row["ended_at"],
    )


async def start(
    tx: Transaction,
    guild_id: int,
    name: str,
    channel_id: int,
    started_at: float,
    ends_at: float | None,
    started_by: int | None,
    rhythm: SeasonRhythm | None,
) -> Season:
    """A new running season; SeasonConflictError if one runs already or the name is taken (either
    way two unique indexes decide, so two processes can't both start one)."""
    created = await tx.fetch(
        "INSERT INTO seasons (guild_id, name, channel_id, started_by, rhythm, started_at, ends_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING *",
        guild_id, name, channel_id, started_by, rhythm, started_at, ends_at,
    )  # fmt: skip
    if created:
        return season(created[0])
    running = await tx.fetchrow(f"SELECT name FROM seasons WHERE guild_id = $1 AND {RUNNING}", guild_id)
    if running is not None:
        raise SeasonConflictError(f"season {running['name']!r} is running on server {guild_id}")
    raise SeasonConflictError(f"server {guild_id} already had a season named {name!r}")


async def end(tx: Transaction, season_id: int, ended_at: float, posts: Sequence[tuple[str, str]]) -> Season | None:
    """End a running season and keep its posts (kind, payload JSON); None if it had ended already."""
    row = await tx.fetchrow(f"SELECT * FROM seasons WHERE season_id = $1{tx.dialect.lock_rows}", season_id)
    if row is None or row["ended_at"] is not None:
        return None
    ended = await tx.fetch("UPDATE seasons SET ended_at = $1 WHERE season_id = $2 RETURNING *", ended_at, season_id)
    if posts:
        await tx.executemany(
            "INSERT INTO outbox (season_id, kind, payload_json, created_at) VALUES ($1, $2, $3, $4)",
            [(season_id, kind, payload, ended_at) for kind, payload in posts],
        )
    return season(ended[0])


async def running_for_game(tx: Transaction, guild_id: int, now: float) -> int | None:
    """The season a game finishing now counts in, its row locked until the game is saved (see the
    module's docstring); None if none runs or the running one's planned end has passed."""
    row = await tx.fetchrow(
        f"SELECT season_id FROM seasons WHERE guild_id = $1 AND {RUNNING} AND (ends_at IS NULL OR ends_at > $2)"
        f"{tx.dialect.lock_rows}",
        guild_id, now,
    )  # fmt: skip
    return None if row is None else int(row["season_id"])


async def of_guild(tx: Transaction, guild_id: int) -> list[Season]:
    found = await tx.fetch("SELECT * FROM seasons WHERE guild_id = $1 ORDER BY started_at DESC, season_id DESC",
                           guild_id)  # fmt: skip
    return [season(row) for row in found]


async def due(tx: Transaction, now: float, shards: ShardSet | None) -> list[Season]:
    found = await tx.fetch(
        f"SELECT * FROM seasons WHERE {RUNNING} AND ends_at <= $1 AND {on_shards(shards)} ORDER BY ends_at, season_id",
        now,
    )
    return [season(row) for row in found]


async def next_end(tx: Transaction, shards: ShardSet | None) -> float | None:
    row = await tx.fetchrow(f"SELECT min(ends_at) AS next FROM seasons WHERE {RUNNING} AND {on_shards(shards)}")
    return None if row is None or row["next"] is None else float(row["next"])


async def set_rhythm(
    tx: Transaction, guild_id: int, rhythm: SeasonRhythm | None, channel_id: int | None, now: float
) -> None:
    if rhythm is None:
        await tx.execute("DELETE FROM season_rhythms WHERE guild_id = $1", guild_id)
        return
    await tx.execute(
        "INSERT INTO season_rhythms (guild_id, rhythm, channel_id, updated_at) VALUES ($1, $2, $3, $4)"
        " ON CONFLICT (guild_id) DO UPDATE SET rhythm = excluded.rhythm, channel_id = excluded.channel_id,"
        " updated_at = excluded.updated_at",
        guild_id, rhythm, channel_id, now,
    )  # fmt: skip


async def rhythm_of(tx: Transaction, guild_id: int) -> SeasonRhythm | None:
    row = await tx.fetchrow("SELECT rhythm FROM season_rhythms WHERE guild_id = $1", guild_id)
    return None if row is None else row["rhythm"]


async def rhythms_due(tx: Transaction, name: str, shards: ShardSet | None) -> list[RhythmDue]:
    found = await tx.fetch(
        f"SELECT guild_id, rhythm, channel_id FROM season_rhythms AS r WHERE {on_shards(shards, 'r.guild_id')}"
        " AND NOT EXISTS (SELECT 1 FROM seasons AS s WHERE s.guild_id = r.guild_id"
        "                 AND (s.ended_at IS NULL OR lower(s.name) = lower($1)))"
        " ORDER BY guild_id",
        name,
    )
    return [RhythmDue(row["guild_id"], row["rhythm"], row["channel_id"]) for row in found]


async def pending_posts(tx: Transaction, shards: ShardSet | None) -> list[SeasonPost]:
    found = await tx.fetch(
        "SELECT o.post_id, o.kind, o.payload_json, o.created_at, s.* FROM outbox AS o"
        f" JOIN seasons AS s ON s.season_id = o.season_id WHERE {on_shards(shards, 's.guild_id')}"
        " ORDER BY o.post_id"
    )
    return [
        SeasonPost(r["post_id"], season(r), r["kind"], replay.loads_object(r["payload_json"]), r["created_at"])
        for r in found
    ]


async def rating_history(tx: Transaction, guild_id: int, user_id: int, mode: str | None) -> list[RatingPoint]:
    found = await tx.fetch(
        "SELECT game_id, mode, finished_at, rating_after, season_id, season_rating FROM results"
        " WHERE guild_id = $1 AND player_key = $2 AND (CAST($3 AS TEXT) IS NULL OR mode = $3)"
        " ORDER BY finished_at, game_id",
        guild_id, str(user_id), mode,
    )  # fmt: skip
    return [
        RatingPoint(r["game_id"], r["mode"], r["finished_at"], r["rating_after"],
                    None if r["season_id"] is None else int(r["season_id"]), r["season_rating"])
        for r in found
    ]  # fmt: skip
