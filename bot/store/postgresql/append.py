"""Saving one action on PostgreSQL: in one statement, the commit included, instead of a transaction.

A move's save is the bot's most frequent write. As a transaction it costs BEGIN, an INSERT per
event, an UPDATE of the deadline, an INSERT of the posts and COMMIT: four to six round trips, each
one a driver call on the event loop. `APPEND_ACTION` does all of it in one statement (a
data-modifying CTE), which PostgreSQL runs as a transaction of its own: the events go in only as
the game's next seqs while it is playing, as `bot.store.games.APPEND` checks, and the deadline and
the posts only if they did. When nothing went in, the statement hands back the status and last seq
it decided on, and `games.refusal` says why, as the transaction's `append_refusal` does.
"""

from __future__ import annotations

from typing import Any

import asyncpg

from bot.store import rows
from bot.store.errors import DuplicateEventError
from bot.store.games import Action, refusal
from bot.store.models import Unchanged

# $1 game, $2 first seq, $3 the events' JSON, $4 now, $5 whether to set the deadline, $6-$7 the
# deadline, $8-$9 the posts' kinds and JSON. Every sub-statement sees the one snapshot `state` was
# read in; the posts are inserted in order, so their ids (which only grow) sorted are their order.
APPEND_ACTION = """
WITH state AS (
    SELECT (SELECT status FROM games WHERE game_id = $1) AS status,
           (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = $1) AS last
), stored AS (
    INSERT INTO events (game_id, seq, event_json, created_at)
    SELECT $1, $2::integer + e.n::integer - 1, e.payload, $4
    FROM state, unnest($3::text[]) WITH ORDINALITY AS e (payload, n)
    WHERE state.status = 'playing' AND $2::integer = state.last + 1
    RETURNING seq
), deadline AS (
    UPDATE games SET deadline_kind = $6, deadline_at = $7
    WHERE game_id = $1 AND $5::boolean AND EXISTS (SELECT FROM stored)
), posts AS (
    INSERT INTO outbox (game_id, kind, payload_json, created_at)
    SELECT $1, p.kind, p.payload, $4
    FROM unnest($8::text[], $9::text[]) WITH ORDINALITY AS p (kind, payload, n)
    WHERE EXISTS (SELECT FROM stored)
    ORDER BY p.n
    RETURNING post_id
)
SELECT state.status, state.last, (SELECT count(*) FROM stored) AS stored,
       ARRAY(SELECT post_id FROM posts ORDER BY post_id) AS post_ids
FROM state
"""


async def in_one_statement(conn: Any, action: Action, now: float) -> list[int]:
    """Store an action of at least one event (the checks of `Store.append_event`); its posts' ids."""
    deadline = action.deadline
    kind, at = (None, None) if isinstance(deadline, Unchanged) else rows.deadline_columns(deadline)
    try:
        row = await conn.fetchrow(
            APPEND_ACTION, action.game_id, action.first_seq, list(action.payloads), now,
            not isinstance(deadline, Unchanged), kind, at,
            [post[1] for post in action.posts], [post[2] for post in action.posts],
        )  # fmt: skip
    except asyncpg.UniqueViolationError as exc:
        if exc.constraint_name != "events_pkey":
            raise
        # another process stored one of these seqs after this statement read the last one
        raise DuplicateEventError(f"game {action.game_id!r}: event {action.first_seq} is already stored") from exc
    if not row["stored"]:
        raise refusal(action.game_id, action.first_seq, row["status"], row["last"])
    return list(row["post_ids"])
