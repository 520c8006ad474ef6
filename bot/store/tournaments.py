"""Tournaments, as transactions every backend runs (see `bot.store.sql`).

A tournament's events are appended with the same sequence checks as a game's (a duplicate or a
gap is refused, writing nothing), together with the posts they owe and, for the last one, the
tournament's new status, so what the service acts on is always saved first.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.store import replay
from bot.store.errors import (
    ChannelBusyError,
    DuplicateEventError,
    EventGapError,
    GameNotFoundError,
    GameStateError,
    StoreError,
)
from bot.store.models import (
    ShardSet,
    StoredTournament,
    TournamentInfo,
    TournamentPost,
    TournamentStatus,
    TournamentTable,
    Unchanged,
)
from bot.store.sql import Row, Transaction, on_shards


def info(row: Row) -> TournamentInfo:
    return TournamentInfo(
        tournament_id=row["tournament_id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
        organiser_id=row["organiser_id"], setup=replay.loads_object(row["setup_json"]),
        message_id=row["message_id"], deadline_at=row["deadline_at"], status=row["status"],
        created_at=row["created_at"],
    )


async def create(tx: Transaction, tournament_id: str, guild_id: int, channel_id: int, organiser_id: int,
                 setup_json: str, deadline: float | None, now: float) -> TournamentInfo:
    created = await tx.fetch(
        "INSERT INTO tournaments (tournament_id, guild_id, channel_id, organiser_id, setup_json, deadline_at, status,"
        " created_at) VALUES ($1, $2, $3, $4, $5, $6, 'open', $7) ON CONFLICT DO NOTHING RETURNING *",
        tournament_id, guild_id, channel_id, organiser_id, setup_json, deadline, now,
    )  # fmt: skip
    if created:
        return info(created[0])
    if await tx.fetchrow("SELECT 1 FROM tournaments WHERE tournament_id = $1", tournament_id) is not None:
        raise GameStateError(f"tournament {tournament_id!r} already exists")
    raise ChannelBusyError(f"channel {channel_id} already has an open tournament")


async def set_message(tx: Transaction, tournament_id: str, message_id: int | None) -> None:
    if not await tx.fetch("UPDATE tournaments SET message_id = $1 WHERE tournament_id = $2 RETURNING tournament_id",
                          message_id, tournament_id):  # fmt: skip
        raise GameNotFoundError(f"no tournament {tournament_id!r}")


async def append(tx: Transaction, tournament_id: str, first_seq: int, payloads: Sequence[str],
                 posts: Sequence[tuple[str, str]], status: TournamentStatus | None, deadline: float | Unchanged | None,
                 now: float) -> list[int]:
    """Events from `first_seq` on, the posts they owe, the status and deadline they lead to, all or nothing."""
    row = await tx.fetchrow(
        "SELECT status, (SELECT coalesce(max(seq), 0) FROM tournament_events WHERE tournament_id = $1) AS last"
        f" FROM tournaments WHERE tournament_id = $1{tx.dialect.lock_rows}",
        tournament_id,
    )
    if row is None:
        raise GameNotFoundError(f"no tournament {tournament_id!r}")
    if row["status"] != "open":
        raise GameStateError(f"tournament {tournament_id!r} is {row['status']}; it takes no more events")
    refusal = _sequence_refusal(tournament_id, first_seq, int(row["last"]))
    if refusal is not None:
        raise refusal
    await tx.executemany(
        "INSERT INTO tournament_events (tournament_id, seq, event_json, created_at) VALUES ($1, $2, $3, $4)",
        [(tournament_id, first_seq + offset, payload, now) for offset, payload in enumerate(payloads)],
    )
    if not isinstance(deadline, Unchanged):
        await tx.execute("UPDATE tournaments SET deadline_at = $1 WHERE tournament_id = $2", deadline, tournament_id)
    if status is not None:
        await tx.execute("UPDATE tournaments SET status = $1 WHERE tournament_id = $2", status, tournament_id)
    ids: list[int] = []
    for kind, payload in posts:
        [created] = await tx.fetch(
            "INSERT INTO tournament_posts (tournament_id, kind, payload_json, created_at) VALUES ($1, $2, $3, $4)"
            " RETURNING post_id",
            tournament_id, kind, payload, now,
        )  # fmt: skip
        ids.append(int(created["post_id"]))
    return ids


def _sequence_refusal(tournament_id: str, seq: int, last: int) -> StoreError | None:
    if seq <= last:
        return DuplicateEventError(f"tournament {tournament_id!r}: event {seq} is already stored (last is {last})")
    if seq > last + 1:
        return EventGapError(f"tournament {tournament_id!r}: event {seq} would leave a gap; next is {last + 1}")
    return None


async def set_table(tx: Transaction, tournament_id: str, round_number: int, table: int, thread_id: int | None,
                    game_id: str | None) -> None:
    """Note a table's thread or game; a value given as None keeps what was stored."""
    await tx.execute(
        "INSERT INTO tournament_tables (tournament_id, round, table_no, thread_id, game_id) VALUES ($1, $2, $3, $4, $5)"
        " ON CONFLICT (tournament_id, round, table_no) DO UPDATE SET"
        " thread_id = coalesce(excluded.thread_id, tournament_tables.thread_id),"
        " game_id = coalesce(excluded.game_id, tournament_tables.game_id)",
        tournament_id, round_number, table, thread_id, game_id,
    )  # fmt: skip


async def _load(tx: Transaction, rows: Sequence[Row]) -> list[StoredTournament]:
    loaded = []
    for row in rows:
        tournament_id = row["tournament_id"]
        events = await tx.fetch("SELECT event_json FROM tournament_events WHERE tournament_id = $1 ORDER BY seq",
                                tournament_id)  # fmt: skip
        tables = await tx.fetch(
            "SELECT round, table_no, thread_id, game_id FROM tournament_tables WHERE tournament_id = $1"
            " ORDER BY round, table_no",
            tournament_id,
        )
        loaded.append(StoredTournament(
            info(row), tuple(replay.loads_object(e["event_json"]) for e in events),
            tuple(TournamentTable(t["round"], t["table_no"], t["thread_id"], t["game_id"]) for t in tables),
        ))  # fmt: skip
    return loaded


async def load(tx: Transaction, tournament_id: str) -> StoredTournament | None:
    found = await _load(tx, await tx.fetch("SELECT * FROM tournaments WHERE tournament_id = $1", tournament_id))
    return found[0] if found else None


async def open_ones(tx: Transaction, shards: ShardSet | None) -> list[StoredTournament]:
    return await _load(tx, await tx.fetch(
        f"SELECT * FROM tournaments WHERE status = 'open' AND {on_shards(shards)} ORDER BY created_at, tournament_id"
    ))  # fmt: skip


async def latest(tx: Transaction, guild_id: int, channel_id: int) -> StoredTournament | None:
    found = await _load(tx, await tx.fetch(
        "SELECT * FROM tournaments WHERE guild_id = $1 AND channel_id = $2"
        " ORDER BY created_at DESC, tournament_id DESC LIMIT 1",
        guild_id, channel_id,
    ))  # fmt: skip
    return found[0] if found else None


async def pending_posts(tx: Transaction, shards: ShardSet | None) -> list[TournamentPost]:
    found = await tx.fetch(
        "SELECT p.post_id, p.kind, p.payload_json, t.* FROM tournament_posts AS p"
        f" JOIN tournaments AS t ON t.tournament_id = p.tournament_id WHERE {on_shards(shards, 't.guild_id')}"
        " ORDER BY p.post_id"
    )
    return [TournamentPost(int(r["post_id"]), info(r), r["kind"], replay.loads_object(r["payload_json"]))
            for r in found]  # fmt: skip


async def forget_posts(tx: Transaction, post_ids: Sequence[int]) -> None:
    await tx.executemany("DELETE FROM tournament_posts WHERE post_id = $1", [(post_id,) for post_id in post_ids])
