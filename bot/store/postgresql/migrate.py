"""Bringing a PostgreSQL database to the latest schema, tracked in the database itself: one row per
migration applied in `schema_migrations`. One process migrates at a time (an advisory lock), all
migrations in one transaction, since PostgreSQL's DDL is transactional."""

from __future__ import annotations

import logging
import time
from typing import Any

from bot.store.errors import SchemaTooNewError
from bot.store.postgresql.locks import MIGRATIONS_KEY
from bot.store.schema import latest_version, migrations

log = logging.getLogger(__name__)

_CREATE_LOG = """
CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at DOUBLE PRECISION NOT NULL
)
"""


async def migrate(conn: Any, target: str) -> None:
    """Refuse a newer schema, changing nothing; otherwise apply what is missing."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATIONS_KEY)
        if await conn.fetchval("SELECT to_regclass('schema_migrations')") is None:
            await conn.execute(_CREATE_LOG)
        version = await conn.fetchval("SELECT coalesce(max(version), 0) FROM schema_migrations")
        if version > latest_version():
            raise SchemaTooNewError(
                f"the PostgreSQL database {target} has schema version {version} but this bot only knows up to"
                f" {latest_version()}: it was written by a newer version of the bot. Upgrade the bot or point"
                " DATABASE_URL elsewhere; the database was not changed."
            )
        for migration in migrations("postgresql")[version:]:
            log.info("%s: applying migration V%03d %s", target, migration.version, migration.name)
            await conn.execute(migration.script)
            await conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                migration.version, migration.name, time.time(),
            )  # fmt: skip
