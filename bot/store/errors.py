"""Exceptions raised by the store, so callers can tell a refused write from a broken database.

Every public `Store` method raises only `StoreError` (and its subclasses) for anything the
database, its driver or the operating system does. Plain `ValueError`/`TypeError` mean the caller's
own mistake (seats that don't fit the table, results missing a seat, a payload that isn't JSON);
they are raised before anything is written.
"""

from __future__ import annotations


class StoreError(Exception):
    """Base class: anything the store refuses or cannot do."""


class DatabaseUrlError(StoreError):
    """`DATABASE_URL` names a backend or path the store cannot open."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer version of the bot; it is left untouched."""


class DatabaseInUseError(StoreError):
    """Another process has the database open; SQLite serves one bot process at a time."""


class ShardInUseError(StoreError):
    """Another bot process already serves one of the shards this one was asked to serve."""


class StoreUnavailable(StoreError):
    """The database can't be written (or read) right now: locked by another process, disk full, an
    I/O error, a database server that is down or unreachable. Nothing was saved (except when only
    syncing SQLite's log to disk failed, or the connection to PostgreSQL was lost during the commit
    itself: the message then says the save may have been made). The same store works again once
    the cause is gone."""


class DatabaseGone(StoreError):
    """The database file was deleted or replaced while the bot ran: nothing more is written to the
    file nobody will read again. Only a restart opens what is at the path now."""


class GameNotFoundError(StoreError):
    """No game with this id is stored."""


class GameStateError(StoreError):
    """The game's status does not allow this write (e.g. an event after the game ended)."""


class ChannelBusyError(GameStateError):
    """The channel already has a lobby or a game in play: one active game per channel, enforced by
    the database itself, so two processes can't both open one."""


class EventSequenceError(StoreError):
    """An event's seq is not the next one in the game's log; nothing was written."""


class DuplicateEventError(EventSequenceError):
    """This seq is already stored: the action was applied before and must not be stored twice."""


class EventGapError(EventSequenceError):
    """This seq would leave a hole in the log: an earlier event was never stored."""


class DamagedGameError(StoreError):
    """A stored game's rows cannot be read back or replayed."""


class SeasonConflictError(StoreError):
    """A season is already running on the server, or one already has that name; nothing was written."""
