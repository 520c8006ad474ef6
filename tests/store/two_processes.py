"""What the tests of several bot processes on one database share: a started game to finish or save
into, and waiting until the bot's sessions are blocked on a PostgreSQL lock."""

from __future__ import annotations

import asyncio

import asyncpg

from bot.engine import Game
from bot.store import Store
from tests.store.helpers import GUILD, channel_of, seats_for


async def started_game(store: Store, game_id: str) -> None:
    """A cutthroat game of people, started and saved, with no move yet."""
    await store.create_game(game_id, guild_id=GUILD, channel_id=channel_of(game_id), mode="cutthroat", rules={},
                            host_id=1, seats=seats_for("cutthroat"))  # fmt: skip
    await store.start_game(game_id, Game.new(game_id, "cutthroat", seed=1).setup_json())


async def wait_for_waiters(conn: asyncpg.Connection, count: int) -> None:
    """Until `count` of the bot's sessions are waiting on a lock (the test's own lock, or each other)."""
    for _ in range(3000):
        waiting = await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'spades-bot' AND wait_event_type = 'Lock'"
        )
        if waiting >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the bot's sessions never all waited on a lock ({waiting} of {count})")
