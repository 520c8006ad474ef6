"""The database file itself: operators' mistakes refused with one clear line before anything is
written, and the file's identity, to notice it deleted or replaced while the bot runs.

A SQLite older than the SQL here needs, a `DATABASE_URL` path that is a folder or lies under a file
or would make a new database whose name doesn't end in .db, .sqlite or .sqlite3 (`sqlite:///tmp` is
`./tmp`, not `/tmp`: three slashes are relative to the working directory, four absolute),
a second bot process on the same file (`DatabaseInUseError`: an exclusive `flock` on `<db>.lock`,
held until the store closes), a damaged file (`PRAGMA quick_check` on a read-only connection, so
the file is left as it is).
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path
from typing import BinaryIO

from bot.store.errors import DatabaseInUseError, DatabaseUrlError, StoreError
from bot.store.sqlite.errors import DAMAGED

MIN_SQLITE_VERSION = (3, 38, 0)  # `->>`, used by the group commit's batched statements
DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def check_sqlite_version() -> None:
    found = tuple(int(part) for part in sqlite3.sqlite_version.split("."))
    if found < MIN_SQLITE_VERSION:
        needed = ".".join(map(str, MIN_SQLITE_VERSION))
        raise StoreError(
            f"SQLite {sqlite3.sqlite_version} is too old: the bot needs SQLite {needed} or newer. Run it on a "
            "Python whose sqlite3 module is linked against a newer SQLite (the bot's Docker image has one)."
        )


def check_path(path: Path) -> None:
    """A folder, a 'folder' on the way that is really a file, or a new file not named as a database
    (`sqlite:///tmp` meant as /tmp) is the URL's mistake: say so, with the URL that was meant."""
    if path.is_dir():
        raise DatabaseUrlError(
            f"DATABASE_URL names {path}, which is a folder; name a file in it, e.g. sqlite:///{path / 'spades.db'}"
        )
    if path.suffix.lower() not in DATABASE_SUFFIXES and not path.exists():
        raise DatabaseUrlError(_unnamed_database(path))
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                raise DatabaseUrlError(f"DATABASE_URL names {path}, but {folder} is a file, not a folder")
            return


def _unnamed_database(path: Path) -> str:
    """The refusal of a new database file without a database's name, and the URL likely meant: a
    folder at the root (`sqlite:///tmp` for /tmp) or the name with .db."""
    root = Path("/", path)
    meant = root / "spades.db" if not path.is_absolute() and root.is_dir() else Path(f"{path}.db")
    where = f" in the working directory ({path.absolute()})" if not path.is_absolute() else ""
    return (f"DATABASE_URL=sqlite:///{path} would make a new file {path}{where}: did you mean sqlite:///{meant}? "
            "A database file's name must end in .db, .sqlite or .sqlite3; "
            "sqlite:///name.db is relative to the working directory, sqlite:////abs/path.db absolute.")


def lock_database(path: Path) -> BinaryIO:
    """Hold `<db>.lock` exclusively until it is closed, so a second bot process on the file is refused.

    SQLite serves one process here: two bots would each run their own games on the same rows. The
    kernel drops the lock when the process dies, however it dies; the file itself stays.
    """
    lock_path = path.with_name(path.name + ".lock")
    lock = lock_path.open("ab")
    try:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        lock.close()
        raise DatabaseInUseError(
            f"{path} is already in use by another bot process (it holds {lock_path}); stop that one first. "
            "SQLite serves one bot process: running several needs PostgreSQL."
        ) from exc
    except BaseException:
        lock.close()
        raise
    return lock


def check_integrity(path: Path) -> None:
    """`PRAGMA quick_check` before anything writes (the WAL switch, migrations), on a read-only
    connection, which never checkpoints on close: a damaged file is refused exactly as it is."""
    if not path.exists() or path.stat().st_size == 0:
        return  # a new database
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        if exc.sqlite_errorcode not in DAMAGED:
            raise
        problems = [str(exc)]
    finally:
        conn.close()
    if problems != ["ok"]:
        more = f" and {len(problems) - 1} more problems" if len(problems) > 1 else ""
        raise StoreError(
            f"{path} is not a readable SQLite database ({problems[0]}{more}); it was not changed. "
            "Restore it from a backup, or move it aside to start a new one."
        )


def file_identity(path: Path) -> tuple[int, int]:
    found = os.stat(path)
    return found.st_dev, found.st_ino
