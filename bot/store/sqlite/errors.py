"""What a caller hears when SQLite or the OS fails: never a bare sqlite3 or OS error."""

from __future__ import annotations

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


def store_error(exc: Exception, path: Path, *, writing: bool) -> StoreError:
    if isinstance(exc, StoreError):
        return exc
    outcome = "; nothing was saved" if writing else ""
    if isinstance(exc, OSError):
        return StoreUnavailable(f"can't use the database {path} right now ({exc}){outcome}")
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary in _UNAVAILABLE:
        return StoreUnavailable(f"can't use the database {path} right now: {_UNAVAILABLE[primary]} ({exc}){outcome}")
    if primary in DAMAGED:
        return StoreError(f"the database {path} is damaged ({exc}); restore it from a backup{outcome}")
    return StoreError(f"the database {path} failed: {type(exc).__name__}: {exc}{outcome}")
