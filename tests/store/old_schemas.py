"""Databases as older bots left them, for the tests of migrating them forward."""

from __future__ import annotations

import sqlite3

import asyncpg

from bot.store.schema import migrations, split_statements
from devkit.pg import run_elsewhere

# A lobby as V001 stored it.
OLD_GAME = (
    "INSERT INTO games (game_id, guild_id, channel_id, mode, rules_json, setup_json, status, host_id, created_at)"
    " VALUES ('old', 1, 2, 'solo', '{\"target\": 300}', NULL, 'lobby', 7, 100.0)",
    "INSERT INTO seats (game_id, seat, name, user_id, bot_level) VALUES ('old', 0, 'ann', 7, NULL),"
    " ('old', 1, 'easy bot', NULL, 'easy')",
)


def build_version(url: str, version: int) -> None:
    """A database exactly as a bot that knew only the first `version` migrations left it."""
    old_game = OLD_GAME if version >= 1 else ()
    if url.startswith("sqlite:///"):
        conn = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        for migration in migrations("sqlite")[:version]:
            for statement in split_statements(migration.script):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {version}")
        for statement in old_game:
            conn.execute(statement)
        conn.close()
        return

    async def build() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                               " applied_at DOUBLE PRECISION NOT NULL)")  # fmt: skip
            for migration in migrations("postgresql")[:version]:
                await conn.execute(migration.script)
                await conn.execute(
                    "INSERT INTO schema_migrations VALUES ($1, $2, 0)", migration.version, migration.name
                )
            for statement in old_game:
                await conn.execute(statement)
        finally:
            await conn.close()

    run_elsewhere(build())
