"""`python -m bot backup PATH`: a consistent copy of the SQLite database, safe while the bot runs.

SQLite's online backup API copies every page inside one read transaction: in WAL mode that is a
snapshot of the last commit, taken without stopping the bot's writer (which keeps writing to the
log meanwhile) and without its lock file. The copy is written beside its destination, switched
out of WAL mode so it is one self-contained file, checked (`PRAGMA integrity_check`), synced, and
only then renamed into place: an interrupted backup never leaves a half-written file under the
name asked for. PostgreSQL has its own tool for this (`pg_dump`); the command says so.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.ops.errors import OpsError, is_postgresql
from bot.store import parse_sqlite_url

PG_DUMP_HINT = ("back up PostgreSQL with its own tool: pg_dump --format=custom --file=spades.dump "
                "'postgresql://user:password@host/database' (restore with pg_restore; see docs/operations.md)")


@dataclass(frozen=True, slots=True)
class BackupDone:
    path: Path
    games: int
    schema_version: int
    size: int


def backup(database_url: str, destination: Path) -> BackupDone:
    """Copy the database `database_url` names to `destination`, a new file; `OpsError` for a
    PostgreSQL URL, a missing database or a destination that exists (nothing is written then)."""
    if is_postgresql(database_url):
        raise OpsError(f"the database is PostgreSQL: {PG_DUMP_HINT}")
    source_path, _ = parse_sqlite_url(database_url)
    if not source_path.is_file():
        raise OpsError(f"there is no database at {source_path.absolute()} to back up (check DATABASE_URL or --from)")
    if destination.exists() or destination.is_symlink():
        raise OpsError(f"{destination} already exists: name a new file (a backup never overwrites one)")
    if not destination.parent.is_dir():
        raise OpsError(f"{destination.parent} is not a folder: create it first, or name a file in an existing one")
    partial = destination.with_name(destination.name + ".partial")
    try:
        done = _copy(source_path, partial)
        os.replace(partial, destination)
        _sync_folder(destination.parent)
    except BaseException as error:
        with contextlib.suppress(OSError):
            partial.unlink()
        if isinstance(error, (sqlite3.Error, OSError)):
            raise OpsError(f"backing up {source_path} to {destination} failed: {error}") from error
        raise
    return BackupDone(destination, *done)


def _copy(source_path: Path, partial: Path) -> tuple[int, int, int]:
    """The copy itself, into `partial`; the number of games, the schema version and the size."""
    partial.unlink(missing_ok=True)  # what an interrupted backup left
    # mode=rw: never create a database where none is; not mode=ro, which can't read a WAL file
    # whose shared-memory index it may not create.
    source = sqlite3.connect(f"{source_path.absolute().as_uri()}?mode=rw", uri=True, timeout=5.0)
    copy = sqlite3.connect(partial, isolation_level=None)
    try:
        source.backup(copy)  # every page in one step: one read transaction, one snapshot
        copy.execute("PRAGMA journal_mode = DELETE")
        problems = [str(row[0]) for row in copy.execute("PRAGMA integrity_check").fetchall()]
        if problems != ["ok"]:
            raise OpsError(f"the copy of {source_path} failed its integrity check ({problems[0]}); the source may be "
                           "damaged: it was not changed")
        games = int(copy.execute("SELECT count(*) FROM games").fetchone()[0])
        version = int(copy.execute("PRAGMA user_version").fetchone()[0])
    finally:
        copy.close()
        source.close()
    with partial.open("rb") as written:
        os.fsync(written.fileno())
    return games, version, partial.stat().st_size


def _sync_folder(folder: Path) -> None:
    """Make the rename itself survive a power cut."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
