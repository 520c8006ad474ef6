"""SQLite's group commit: the actions of many games that arrive together share one transaction.

SQLite has one writer, on the event loop; a commit costs far more than the few statements before
it, so every action queued while the loop was busy is saved by one commit (and one fsync).
Normally the whole batch is three statements, whatever its size: each sqlite3 call hands the GIL
back and forth with the busy event loop, so one statement instead of one per event keeps a save
from queueing behind it. If any action is refused, the batch is redone one savepoint per action
(the shared `append_action`), so a refused one leaves the others intact.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.store import replay, rows
from bot.store.errors import StoreError
from bot.store.games import Action, append_action
from bot.store.models import Unchanged
from bot.store.sqlite.connection import SqliteTransaction, run_now

# A whole batch's events in one statement, from one JSON array of [game_id, first seq of the action,
# seq, event]. An action's events go in only if its first seq follows what is stored; a duplicate
# fails the primary key. Either way the row count (or the error) sends the batch the slow way.
_APPEND_BATCH = """
INSERT INTO events (game_id, seq, event_json, created_at)
SELECT value ->> 0, value ->> 2, value ->> 3, ?2 FROM json_each(?1) AS a
WHERE a.value ->> 1 = 1 + (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = a.value ->> 0
                                                                     AND seq < a.value ->> 1)
  AND EXISTS (SELECT 1 FROM games WHERE game_id = a.value ->> 0 AND status = 'playing')
"""
_SET_DEADLINES = """
UPDATE games SET deadline_kind = d.value ->> 1, deadline_at = d.value ->> 2
FROM json_each(?) AS d WHERE games.game_id = d.value ->> 0
"""
# Posts from a JSON array of [game_id, kind, payload_json], in the array's order so ids follow it.
_INSERT_POSTS = """
INSERT INTO outbox (game_id, kind, payload_json, created_at)
SELECT value ->> 0, value ->> 1, value ->> 2, ?2 FROM json_each(?1) ORDER BY key
"""


@dataclass(slots=True)
class QueuedAction:
    """An action waiting for the next group commit, and the future its caller awaits."""

    action: Action
    done: asyncio.Future[None]
    post_ids: list[int] = field(default_factory=list)


def _insert_posts(conn: sqlite3.Connection, posts: Sequence[rows.PostRow], now: float) -> list[int]:
    """The new posts' ids, in order: one INSERT under the single writer numbers them consecutively."""
    if not posts:
        return []
    last = conn.execute(_INSERT_POSTS, (replay.dumps(posts), now)).lastrowid
    assert last is not None
    return list(range(last - len(posts) + 1, last + 1))


def append_batch(conn: sqlite3.Connection, batch: Sequence[QueuedAction], now: float) -> list[StoreError | None]:
    """Inside the caller's transaction: every action of the batch, or each one's refusal."""
    actions = [item.action for item in batch]
    events = [
        (action.game_id, action.first_seq, action.first_seq + offset, payload)
        for action in actions
        for offset, payload in enumerate(action.payloads)
    ]
    deadlines = [
        (action.game_id, *rows.deadline_columns(action.deadline))
        for action in actions
        if not isinstance(action.deadline, Unchanged)
    ]
    conn.execute("SAVEPOINT batch")
    try:
        if conn.execute(_APPEND_BATCH, (replay.dumps(events), now)).rowcount == len(events):
            conn.execute(_SET_DEADLINES, (replay.dumps(deadlines),))
            ids = iter(_insert_posts(conn, [post for action in actions for post in action.posts], now))
            for item in batch:
                item.post_ids = [next(ids) for _ in item.action.posts]
            conn.execute("RELEASE batch")
            return [None] * len(batch)
    except sqlite3.IntegrityError:
        pass  # an event already stored: the slow path says which action it was
    conn.execute("ROLLBACK TO batch")
    conn.execute("RELEASE batch")
    return [_write_one(conn, item, now) for item in batch]


def _write_one(conn: sqlite3.Connection, item: QueuedAction, now: float) -> StoreError | None:
    conn.execute("SAVEPOINT action")
    try:
        item.post_ids = run_now(append_action(SqliteTransaction(conn), item.action, now))
    except StoreError as refusal:
        conn.execute("ROLLBACK TO action")
        conn.execute("RELEASE action")
        return refusal
    conn.execute("RELEASE action")
    return None
