"""The SQLite backend: one bot process on one file (`store` says how it is laid out).

`store` runs the shared queries on a writer on the event loop and a reader on its own thread
(`connection`); `group_commit` batches actions, `durability` syncs the log off the loop, `files`
refuses operators' mistakes, `migrate` keeps the schema current and `errors` turns every failure
into a `StoreError`.
"""

from bot.store.sqlite.store import SqliteStore, Synchronous

__all__ = ["SqliteStore", "Synchronous"]
