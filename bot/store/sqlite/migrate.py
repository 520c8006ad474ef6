"""Bringing a SQLite file to the latest schema: its version is `PRAGMA user_version`."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from bot.store.errors import SchemaTooNewError, StoreError
from bot.store.schema import latest_version, migrations, split_statements
from bot.store.sqlite.connection import write_transaction

log = logging.getLogger(__name__)


def _user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _refuse_newer(version: int, path: Path) -> None:
    if version > latest_version():
        raise SchemaTooNewError(
            f"{path} has schema version {version} but this bot only knows up to {latest_version()}: "
            "it was written by a newer version of the bot. Upgrade the bot or point DATABASE_URL "
            "elsewhere; the database was not changed."
        )


def migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a newer schema before touching anything, then switch to WAL and migrate, all
    migrations in one transaction."""
    version = _user_version(conn)
    _refuse_newer(version, path)
    row = conn.execute("PRAGMA journal_mode = WAL").fetchone()
    if row is None or str(row[0]).lower() != "wal":
        raise StoreError(f"{path}: could not switch to WAL journal mode")
    if version < latest_version():
        write_transaction(lambda c: _apply_migrations(c, path))(conn)


def _apply_migrations(conn: sqlite3.Connection, path: Path) -> None:
    version = _user_version(conn)  # another process may have migrated while we waited
    _refuse_newer(version, path)
    for migration in migrations("sqlite")[version:]:
        log.info("%s: applying migration V%03d %s", path, migration.version, migration.name)
        for statement in split_statements(migration.script):
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {latest_version()}")
