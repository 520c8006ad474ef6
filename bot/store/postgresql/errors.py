"""What a caller hears when PostgreSQL, asyncpg or the network fails: never a bare driver error.

"Not now" is `StoreUnavailable`: the server can't be reached or went away, is shutting down or
starting up, is out of disk, memory or connections, or another session held a lock past the
store's lock timeout. The transaction was rolled back (or never began), and the same store works
again once the cause is gone: the pool opens new connections as needed. A connection lost during
the COMMIT itself is the one case where the save may have been made; the message says so.
"""

from __future__ import annotations

import asyncpg

from bot.store.errors import StoreError, StoreUnavailable

# By SQLSTATE code, then by class (its first two characters).
_UNAVAILABLE = {
    "55P03": "another session holds a lock it needs",
    "57014": "the server cancelled a statement that ran too long",
    "53100": "the server's disk is full",
    "53200": "the server is out of memory",
    "53300": "the server has too many connections",
    "08": "the connection to the server failed",
    "40": "the server rolled the transaction back to resolve a conflict with another one",
    "53": "the server is out of resources",
    "57": "the server is shutting down or starting up",
    "58": "the server reported an I/O error",
}
# Refusals of the connection itself, which only the operator can fix.
_REFUSED = {
    "28P01": "refused the password for this user; check the user and password in DATABASE_URL",
    "28000": "refused this user; check the user in DATABASE_URL and the server's pg_hba.conf",
    "3D000": "has no such database; create it (createdb) or fix its name in DATABASE_URL",
    "42501": "refused the user the rights the bot needs (create tables in the database)",
}
_DAMAGED_CLASS = "XX"


def store_error(exc: BaseException, target: str, *, writing: bool) -> StoreError:
    """The `StoreError` for anything the driver, the server or the OS raised, naming `target`."""
    if isinstance(exc, StoreError):
        return exc
    outcome = "; nothing was saved" if writing else ""
    if isinstance(exc, OSError | TimeoutError):
        reason = str(exc) or type(exc).__name__
        return StoreUnavailable(f"can't reach the PostgreSQL server {target} right now ({reason}){outcome}")
    if isinstance(exc, asyncpg.InterfaceError) and not isinstance(exc, asyncpg.ClientConfigurationError):
        return StoreUnavailable(f"lost the connection to the PostgreSQL server {target} ({exc}){outcome}")
    code = str(getattr(exc, "sqlstate", "") or "")
    if code in _REFUSED:
        return StoreError(f"the PostgreSQL server {target} {_REFUSED[code]} ({exc})")
    why = _UNAVAILABLE.get(code) or _UNAVAILABLE.get(code[:2])
    if why is not None:
        return StoreUnavailable(f"can't use the PostgreSQL database {target} right now: {why} ({exc}){outcome}")
    if code.startswith(_DAMAGED_CLASS):
        return StoreError(f"the PostgreSQL database {target} reports damage ({exc}); restore it from a backup{outcome}")
    return StoreError(f"the PostgreSQL database {target} failed: {type(exc).__name__}: {exc}{outcome}")


def commit_lost(exc: BaseException, target: str) -> StoreUnavailable:
    """The connection failed during COMMIT: the server may have committed before it went."""
    return StoreUnavailable(
        f"lost the connection to the PostgreSQL server {target} while committing ({exc}); "
        "the save may or may not have been made"
    )


DRIVER_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError)
