"""The seam between the shared queries and a backend: a transaction to run SQL in, and its dialect.

Every read and write of the store is written once (`bot.store.games`, `bot.store.results`,
`bot.store.boards`) as an async function of a `Transaction`, in SQL that SQLite and PostgreSQL both
accept, with PostgreSQL's numbered `$1` placeholders (SQLite's adapter turns them into `?1`). The
few places where the two differ are fields of `Dialect`. Each backend runs such a function as one
transaction: SQLite on its single writer without ever suspending, PostgreSQL on a pooled connection.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from bot.store.models import ShardSet
from bot.store.schema import DialectName

T = TypeVar("T")


class Row(Protocol):
    """A result row, by column name or position (`sqlite3.Row` and `asyncpg.Record` both are)."""

    def __getitem__(self, key: str | int, /) -> Any: ...


@dataclass(frozen=True, slots=True)
class Dialect:
    """What differs between the backends' SQL."""

    name: DialectName
    # Appended to a SELECT of rows the transaction goes on to change, so a concurrent writer waits
    # (PostgreSQL); nothing where one writer at a time is all there is (SQLite).
    lock_rows: str
    # Wins per game, written exactly as the index on it was (SQLite matches index expressions as written).
    win_rate: str


class Transaction(Protocol):
    """One open transaction; a failure rolls all of it back."""

    dialect: Dialect

    async def fetch(self, query: str, *args: Any) -> Sequence[Row]: ...

    async def fetchrow(self, query: str, *args: Any) -> Row | None: ...

    async def execute(self, query: str, *args: Any) -> None: ...

    async def executemany(self, query: str, args: Iterable[Sequence[Any]]) -> None: ...

    async def lock_board(self, guild_id: int, mode: str) -> None:
        """Hold, until this transaction ends, the right to change one leaderboard's ratings, so two
        processes finishing games in one server rate them one after the other."""


Operation = Callable[[Transaction], Coroutine[Any, Any, T]]


def placeholders(count: int, first: int = 1) -> str:
    """`$first, …` for `count` values, e.g. an IN list."""
    return ", ".join(f"${n}" for n in range(first, first + count))


def on_shards(shards: ShardSet | None, guild_column: str = "guild_id") -> str:
    """A condition true for the rows of guilds on `shards` (all of them for None), Discord's own rule.

    The numbers are validated ints, written into the SQL so both dialects read the same text.
    """
    if shards is None:
        return "1 = 1"
    ids = ", ".join(str(int(shard)) for shard in sorted(shards.ids))
    return f"(({guild_column} >> 22) % {int(shards.count)}) IN ({ids})"
