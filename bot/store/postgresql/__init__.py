"""The PostgreSQL backend: several bot processes, each serving its own shards, on one database.

`store` runs the shared queries on pooled asyncpg connections (`connection`); `migrate` keeps the
schema current, `locks` holds the advisory locks (shards, leaderboards, migrations) and `errors`
turns every failure into a `StoreError`.
"""

from bot.store.postgresql.store import PostgresStore

__all__ = ["PostgresStore"]
