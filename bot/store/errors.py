"""Exceptions raised by the store, so callers can tell a refused write from a broken database."""

from __future__ import annotations


class StoreError(Exception):
    """Base class: anything the store refuses or cannot do."""


class DatabaseUrlError(StoreError):
    """`DATABASE_URL` names a backend or path the store cannot open."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer version of the bot; it is left untouched."""


class GameNotFoundError(StoreError):
    """No game with this id is stored."""


class GameStateError(StoreError):
    """The game's status does not allow this write (e.g. an event after the game ended)."""


class EventSequenceError(StoreError):
    """An event's seq is not the next one in the game's log; nothing was written."""


class DuplicateEventError(EventSequenceError):
    """This seq is already stored: the action was applied before and must not be stored twice."""


class EventGapError(EventSequenceError):
    """This seq would leave a hole in the log: an earlier event was never stored."""


class DamagedGameError(StoreError):
    """A stored game's rows cannot be read back or replayed."""
