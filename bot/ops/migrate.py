"""`python -m bot migrate-to URL`: move a whole database between SQLite and PostgreSQL.

Both directions run the same steps (SQLite to PostgreSQL to grow into several processes, and back
to leave them). The source is opened with the store first, as the bot would open it: that brings
an older schema up to date and, for SQLite, takes the file's lock, so a bot still running on it is
refused with the store's own line. The target must be empty (no row in any of the bot's tables and
no table of anyone else's); the store then creates its schema there with its own migrations, and
every table is copied as it is (ids, times and the exact JSON text) in one transaction on the
target, from one snapshot of the source. Before that transaction commits, every table's count is
compared on both sides; after it, every game is rebuilt from its event log on both sides through
the store and compared (its row and seats, and the record its replay gives), and so is every
tournament. A failure before the commit leaves the target empty.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.ops.errors import OpsError, VerifyError, is_postgresql
from bot.ops.tables import TABLES, PostgresSide, Side, SqliteSide
from bot.store import DamagedGameError, Store, check_database_url, open_store, parse_sqlite_url
from bot.store.postgresql.connection import describe
from bot.store.postgresql.errors import DRIVER_ERRORS
from bot.store.replay import game_record

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MigrationDone:
    target: str  # host:port/database or a path: never a password
    counts: dict[str, int]  # rows per table, the same on both sides
    games_replayed: int
    games_damaged: int  # could not be rebuilt on either side: copied as they were
    tournaments: int


async def open_side(database_url: str) -> Side:
    if is_postgresql(database_url):
        return await PostgresSide.connect(database_url)
    path, _ = parse_sqlite_url(database_url)
    return SqliteSide(path)


async def migrate(source_url: str, target_url: str) -> MigrationDone:
    """Copy everything from `source_url` into the empty database `target_url` and check it.

    `OpsError` (nothing written to the target) for the same backend on both sides, a missing source,
    a target that isn't empty; `VerifyError` if the copy, once made, replays differently.
    `StoreError` from either store passes through (a bot still running on the SQLite file, a
    server that can't be reached...).
    """
    if is_postgresql(source_url) == is_postgresql(target_url):
        raise OpsError("migrate-to moves a database between SQLite and PostgreSQL; both URLs name the same kind "
                       "(to copy a SQLite file, use backup)")
    if not is_postgresql(source_url):
        path, _ = parse_sqlite_url(source_url)
        if not path.is_file():
            raise OpsError(f"there is no database at {path.absolute()} to move (check DATABASE_URL or --from)")
    check_database_url(target_url)
    source = await open_store(source_url)
    try:
        await _plainly(_refuse_unless_empty(target_url), target_url)
        target = await open_store(target_url)
        try:
            counts, game_ids, tournament_ids = await _plainly(_copy(source_url, target_url), target_url)
            replayed, damaged = await _compare_games(source, target, game_ids)
            await _compare_tournaments(source, target, tournament_ids)
        finally:
            await target.close()
    finally:
        await source.close()
    return MigrationDone(_label(target_url), counts, replayed, damaged, len(tournament_ids))


def _label(database_url: str) -> str:
    return describe(database_url) if is_postgresql(database_url) else str(parse_sqlite_url(database_url)[0])


async def _plainly(work: Coroutine[Any, Any, T], target_url: str) -> T:
    """`work` on the plain connections, whatever a driver raises turned into one line: the target's
    transaction was rolled back, so it is as it was."""
    try:
        return await work
    except (sqlite3.Error, *DRIVER_ERRORS) as error:
        raise OpsError(f"moving the data to {_label(target_url)} failed ({type(error).__name__}: {error}); "
                       "the target was left as it was") from error


async def _refuse_unless_empty(target_url: str) -> None:
    """Before the store creates its schema there: a target with rows in the bot's tables, or with
    tables of something else, is refused (a missing SQLite file or an empty database is fine)."""
    if not is_postgresql(target_url) and not parse_sqlite_url(target_url)[0].exists():
        return
    side = await open_side(target_url)
    try:
        tables = await side.tables()
        foreign = sorted(tables - set(TABLES))
        if foreign:
            raise OpsError(f"{side.label} is not empty: it holds tables that aren't the bot's ({', '.join(foreign)}); "
                           "migrate-to only fills an empty database")
        filled = [f"{table}: {count:,}" for table in TABLES if table in tables and (count := await side.count(table))]
        if filled:
            raise OpsError(f"{side.label} is not empty ({', '.join(filled)} rows): migrate-to only fills an empty "
                           "database; create a new one (createdb) or point at another")
    finally:
        await side.close()


async def _copy(source_url: str, target_url: str) -> tuple[dict[str, int], list[str], list[str]]:
    """Every table, in one snapshot of the source and one transaction on the target; the counts,
    and the ids of the games and tournaments copied."""
    source, target = await open_side(source_url), await open_side(target_url)
    try:
        await source.begin(read_only=True)
        await target.begin(read_only=False)
        unknown = sorted((await source.tables() | await target.tables()) - set(TABLES))
        if unknown:
            raise OpsError(f"this version of migrate-to doesn't know the tables {', '.join(unknown)}; nothing was "
                           "copied")
        counts: dict[str, int] = {}
        for table in TABLES:
            columns = await source.columns(table)
            if set(columns) != set(await target.columns(table)):
                raise OpsError(f"table {table} has different columns on the two sides; nothing was copied")
            async for rows in source.batches(table, columns):
                await target.insert(table, columns, rows)
            await target.after_insert(table)
            counts[table] = await source.count(table)
            copied = await target.count(table)
            if copied != counts[table]:
                raise VerifyError(f"table {table}: {counts[table]:,} rows in {source.label} but {copied:,} in "
                                  f"{target.label}; nothing was copied")
        game_ids = [str(row[0]) async for rows in source.batches("games", ["game_id"]) for row in rows]
        tournament_ids = [str(row[0]) async for rows in source.batches("tournaments", ["tournament_id"])
                          for row in rows]
        await target.commit()
    finally:
        await target.close()
        await source.close()
    return counts, game_ids, tournament_ids


async def _replayed(store: Store, game_id: str) -> tuple[Any, ...]:
    """A game as the store rebuilds it from its event log: its row and seats, and its replay's record."""
    try:
        stored = await store.load_game(game_id)
    except DamagedGameError:
        return ("damaged",)
    if stored is None:
        return ("missing",)
    return (stored.info, game_record(stored))


async def _compare_games(source: Store, target: Store, game_ids: list[str]) -> tuple[int, int]:
    """Replay every game on both sides; the numbers replayed alike and damaged on both."""
    damaged = await _compare(source, target, game_ids, _replayed, "game")
    return len(game_ids) - damaged, damaged


async def _compare_tournaments(source: Store, target: Store, tournament_ids: list[str]) -> None:
    async def load(store: Store, tournament_id: str) -> Any:
        return await store.load_tournament(tournament_id)

    await _compare(source, target, tournament_ids, load, "tournament")


async def _compare(source: Store, target: Store, ids: list[str], load: Callable[[Store, str], Awaitable[Any]],
                   what: str) -> int:
    """Raise VerifyError on the first id that loads differently; how many were damaged on both sides."""
    damaged = 0
    for item_id in ids:
        before, after = await load(source, item_id), await load(target, item_id)
        if before != after:
            raise VerifyError(f"{what} {item_id} reads differently after the move; the target holds a copy that "
                              "must not be used: empty it (dropdb/createdb, or delete the file) and try again")
        damaged += before == ("damaged",)
    return damaged
