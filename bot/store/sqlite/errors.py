"""What a caller hears when SQLite or the OS fails: never a bare sqlite3 or OS error."""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from bot.store.errors import StoreError, StoreUnavailable

# Primary result codes that mean "not now": the transaction was rolled back or never began, and the
# same connection works again once the cause is gone.
_UNAVAILABLE = {
    sqlite3.SQLITE_BUSY: "another process holds a lock on it",
    sqlite3.SQLITE_LOCKED: "it is locked",
    sqlite3.SQLITE_PROTOCOL: "another process holds a lock on it",
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_IOERR: "the disk reported an I/O error",
    sqlite3.SQLITE_CANTOPEN: "the file can't be opened",
    sqlite3.SQLITE_READONLY: "the file can't be written",
    sqlite3.SQLITE_PERM: "permission denied",
    sqlite3.SQLITE_NOMEM: "out of memory",
}
DAMAGED = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
# Refusals that waiting won't cure while the database is opened: the folder or file isn't the bot's to write.
_NOT_ALLOWED_ERRNOS = (errno.EACCES, errno.EPERM, errno.EROFS)
_NOT_ALLOWED_CODES = (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM)


def _not_allowed(path: Path, why: str) -> StoreError:
    """Opening failed for want of rights: say so, who the bot runs as, and where it must write."""
    where = path.absolute()
    return StoreError(
        f"can't open or create the database {where}: {why}. The bot runs as user id {os.geteuid()}: let it write"
        f" in {where.parent} (SQLite also keeps its -wal, -shm and .lock files there), or point DATABASE_URL at a"
        " folder it may write (in the Docker image: sqlite:////data/spades.db, on the /data volume)"
    )


def store_error(exc: Exception, path: Path, *, writing: bool, opening: bool = False) -> StoreError:
    """`opening`: the store is being opened, where a refusal for want of rights is no passing outage."""
    if isinstance(exc, StoreError):
        return exc
    outcome = "; nothing was saved" if writing else ""
    if isinstance(exc, OSError):
        if opening and exc.errno in _NOT_ALLOWED_ERRNOS:
            return _not_allowed(path, f"{os.strerror(exc.errno).lower()} ({exc.filename or path})")
        return StoreUnavailable(f"can't use the database {path} right now ({exc}){outcome}")
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if opening and primary in _NOT_ALLOWED_CODES:
        return _not_allowed(path, f"{_UNAVAILABLE[primary]} ({exc})")
    if primary in _UNAVAILABLE:
        return StoreUnavailable(f"can't use the database {path} right now: {_UNAVAILABLE[primary]} ({exc}){outcome}")
    if primary in DAMAGED:
        return StoreError(f"the database {path} is damaged ({exc}); restore it from a backup{outcome}")
    return StoreError(f"the database {path} failed: {type(exc).__name__}: {exc}{outcome}")
