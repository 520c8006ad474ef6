"""The SQLite backend of `Store`.

Two connections. The writer runs on the event loop itself: every write is one short transaction
(a few indexed statements, about 0.06 ms here), and a thread hand-off cost far more than that under
load, because each sqlite3 call on a thread has to win the GIL back from the busy loop (median 25 ms,
p99 over 250 ms per save in the load benchmark). Turns' events from many games share one commit
(group commit).

The fsync that makes a commit durable (about 0.4 ms, most of a write) is the one thing done off the
loop: SQLite itself runs with `synchronous=NORMAL`, which in WAL mode writes each commit to the log
without syncing it, and the store then fsyncs the log on a thread of its own before the caller
hears back; that is exactly what `synchronous=FULL` does at COMMIT. One fsync covers every commit
made before it started, so commits that pile up behind one share the next. On this VM an fsync
usually takes under a millisecond but stalls for 100-600 ms when both cores are busy; with the
fsync off the loop, a stall delays only the saves waiting for it, not every channel's replies.

The reader is a query-only aiosqlite connection on its own thread, for everything that may scan:
leaderboards, stats, records, recovery. It sees only committed data and never waits behind a
write; WAL mode lets the two run side by side, and the reader's thread also runs the WAL
checkpoints, so copying the log back into the database never stalls the loop.

With `synchronous=full` (the default) a commit survives power loss; `normal` still survives any
crash of the process but may lose the last commits if the machine itself goes down, in exchange
for skipping the fsync.

Failures: whatever SQLite or the OS reports reaches the caller as a `StoreError`. A lock held by
another process past the busy timeout, a full disk or an I/O error is `StoreUnavailable`: the
transaction was rolled back (or never began), every caller sharing a group commit hears it, and
the next write starts clean, so the same store works once the cause is gone. An fsync of the log
that fails is `StoreUnavailable` too, but those commits are made (visible, maybe not on disk);
the next fsync is tried afresh.

Operators' mistakes are refused with one clear line before anything is written: a SQLite older
than the SQL here needs, a `DATABASE_URL` path that is a folder or lies under a file, a second
bot process on the same file (`DatabaseInUseError`: an exclusive `flock` on `<db>.lock`, held
until `close`), a damaged file (`PRAGMA quick_check` on a read-only connection, so the file is left
as it is). A file deleted or replaced while the bot runs is noticed at the next commit, before it
is acknowledged (the path's device and inode no longer match the file opened: one `stat`, 2-3 µs
per commit); from then on every write is refused with `DatabaseGone`, since the data would go to
a file nobody will read.

The outbox: posts owed to Discord are rows of `outbox`, inserted in the transaction of the write
that owes them (a batched group commit inserts every accepted action's posts in one statement) and
deleted once reported delivered; ids come from AUTOINCREMENT, so they grow and are never reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any, BinaryIO, Literal, TypeVar

import aiosqlite

from bot.engine import Mode
from bot.store import replay
from bot.store.errors import (
    DamagedGameError,
    DatabaseGone,
    DatabaseInUseError,
    DatabaseUrlError,
    DuplicateEventError,
    EventGapError,
    EventSequenceError,
    GameNotFoundError,
    GameStateError,
    SchemaTooNewError,
    StoreError,
    StoreUnavailable,
)
from bot.store.models import (
    UNCHANGED,
    DamagedGame,
    Deadline,
    FinishOutcome,
    GameInfo,
    GameSummary,
    LeaderboardEntry,
    LeaderboardSort,
    ModeRating,
    PendingPost,
    PlayerStats,
    Post,
    RatingChange,
    Recovery,
    Seat,
    SeatResult,
    StoredGame,
    Unchanged,
)
from bot.store.ratings import Rating, rate_game
from bot.store.schema import latest_version, migrations

log = logging.getLogger(__name__)

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000
# The writer waits on the loop; only another process writing the same file could hold it up.
WRITER_BUSY_TIMEOUT_MS = 1000
CHECKPOINT_EVERY = 200  # commits between WAL checkpoints (each commit adds a few pages to the log)
MIN_SQLITE_VERSION = (3, 38, 0)  # `->>`, used by the batched statements below
Synchronous = Literal["full", "normal"]
# What SQLite itself calls at COMMIT on Linux: the data and the file size, not the timestamps, so a
# log overwritten in place needs no journal commit of the file system. macOS has no fdatasync.
_sync_data: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)
_UNFINISHED = "status IN ('lobby', 'playing')"
_UNFINISHED_IDS = f"SELECT game_id FROM games WHERE {_UNFINISHED}"

# Only the next seq of a game that is playing is inserted (the one-action-at-a-time path of a group
# commit); RETURNING tells whether it was, in the same statement.
_APPEND = """
INSERT INTO events (game_id, seq, event_json, created_at)
SELECT ?1, ?2, ?3, ?4
WHERE ?2 = 1 + (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?1)
  AND EXISTS (SELECT 1 FROM games WHERE game_id = ?1 AND status = 'playing')
RETURNING seq
"""

_SET_DEADLINE = "UPDATE games SET deadline_kind = ?, deadline_at = ? WHERE game_id = ?"

# A whole group commit's events in one statement, from one JSON array of [game_id, first seq of the
# action, seq, event]: each sqlite3 call hands the GIL back and forth with the busy event loop, so
# one statement instead of one per event keeps a save from queueing behind it. An action's events go
# in only if its first seq follows what is stored; a duplicate fails the primary key. Either way the
# row count (or the error) sends the batch to the one-action-at-a-time path.
_APPEND_BATCH = """
INSERT INTO events (game_id, seq, event_json, created_at)
SELECT value ->> 0, value ->> 2, value ->> 3, ?2 FROM json_each(?1) AS a
WHERE a.value ->> 1 = 1 + (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = a.value ->> 0
                                                                     AND seq < a.value ->> 1)
  AND EXISTS (SELECT 1 FROM games WHERE game_id = a.value ->> 0 AND status = 'playing')
"""
_SET_DEADLINES = """
UPDATE games SET deadline_kind = d.value ->> 1, deadline_at = d.value ->> 2
FROM json_each(?) AS d WHERE games.game_id = d.value ->> 0
"""


# Posts from a JSON array of [game_id, kind, payload_json], in the array's order so ids follow it.
_INSERT_POSTS = """
INSERT INTO outbox (game_id, kind, payload_json, created_at)
SELECT value ->> 0, value ->> 1, value ->> 2, ?2 FROM json_each(?1) ORDER BY key
"""

PostRow = tuple[str, str, str]  # game_id, kind, payload_json


def _post_rows(game_id: str, posts: Sequence[Post]) -> list[PostRow]:
    """Serialised before anything is queued or written, so a payload that isn't JSON fails its caller only."""
    return [(game_id, post.kind, replay.dumps(post.payload)) for post in posts]


def _insert_posts(conn: sqlite3.Connection, rows: Sequence[PostRow], now: float) -> list[int]:
    """The new posts' ids, in order: one INSERT under the single writer numbers them consecutively."""
    if not rows:
        return []
    last = conn.execute(_INSERT_POSTS, (replay.dumps(rows), now)).lastrowid
    assert last is not None
    return list(range(last - len(rows) + 1, last + 1))


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
_DAMAGED = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _store_error(exc: Exception, path: Path, *, writing: bool) -> StoreError:
    """What a caller hears when SQLite or the OS fails: never a bare sqlite3 or OS error."""
    if isinstance(exc, StoreError):
        return exc
    outcome = "; nothing was saved" if writing else ""
    if isinstance(exc, OSError):
        return StoreUnavailable(f"can't use the database {path} right now ({exc}){outcome}")
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary in _UNAVAILABLE:
        return StoreUnavailable(f"can't use the database {path} right now: {_UNAVAILABLE[primary]} ({exc}){outcome}")
    if primary in _DAMAGED:
        return StoreError(f"the database {path} is damaged ({exc}); restore it from a backup{outcome}")
    return StoreError(f"the database {path} failed: {type(exc).__name__}: {exc}{outcome}")


def _deadline_columns(deadline: Deadline | None) -> tuple[str | None, float | None]:
    return (deadline.kind, deadline.at) if deadline else (None, None)


# What each leaderboard sorts by; each expression has an index in V002 (SQLite matches it as written).
_SORT_KEYS: dict[str, str] = {
    "rating": "ordinal",
    "wins": "wins",
    "win_rate": "(CAST(wins AS REAL) / games)",
    "points": "points",
}
_ON_BOARD = "guild_id = ? AND mode = ? AND is_bot = 0 AND games >= ?"

_RESULT_COLUMNS = (
    "seat, player_key, name, final_score, place, won, hands, bids_made, bids_set, nils_tried, nils_made, bags"
)


Work = Callable[[sqlite3.Connection], T]


async def _on_thread(db: aiosqlite.Connection, work: Work[T]) -> T:
    """Run `work` on the connection's own thread in a single hand-off.

    Every awaited statement is a hand-off, and under load each one waits its turn in a busy event
    loop; one function per read waits once. aiosqlite's own queue (`_execute`) keeps the work in
    order with everything else on the connection.
    """
    result: T = await db._execute(work, db._conn)  # type: ignore[no-untyped-call]
    return result


def _begin(conn: sqlite3.Connection, statement: str) -> None:
    if conn.in_transaction:  # a ROLLBACK that failed last time: finish it first
        conn.execute("ROLLBACK")
    conn.execute(statement)


def _roll_back(conn: sqlite3.Connection) -> None:
    """Undo a transaction that failed; SQLite has sometimes done so already (a full disk, an I/O error)."""
    if conn.in_transaction:
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error:  # the error that got us here says more; `_begin` retries
            log.warning("ROLLBACK failed; it is retried before the next transaction", exc_info=True)


def _write_transaction(work: Work[T]) -> Work[T]:
    """`work` as one write transaction; whatever it raises leaves nothing behind."""

    def run(conn: sqlite3.Connection) -> T:
        _begin(conn, "BEGIN IMMEDIATE")
        try:
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException:
            _roll_back(conn)
            raise
        return result

    return run


def _snapshot(work: Work[T]) -> Work[T]:
    """`work` in one read transaction, so queries that belong together see the same committed state."""

    def run(conn: sqlite3.Connection) -> T:
        _begin(conn, "BEGIN")
        try:
            return work(conn)
        finally:
            _roll_back(conn)

    return run


def _set_up_connection(busy_timeout_ms: int, *pragmas: str) -> Work[None]:
    def run(conn: sqlite3.Connection) -> None:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms}")
        conn.execute("PRAGMA foreign_keys = ON")
        for pragma in pragmas:
            conn.execute(pragma)

    return run


def _open_writer(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        # NORMAL: the log is written at COMMIT but synced by `_WalSync`, off the loop
        _set_up_connection(WRITER_BUSY_TIMEOUT_MS, "PRAGMA synchronous = NORMAL")(conn)
        _migrate(path)(conn)
        conn.execute("PRAGMA wal_autocheckpoint = 0")  # the reader's thread checkpoints instead
    except BaseException:
        conn.close()
        raise
    return conn


async def _open_reader(path: Path) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(path, isolation_level=None)
    try:
        await _on_thread(conn, _set_up_connection(BUSY_TIMEOUT_MS, "PRAGMA query_only = ON"))
    except BaseException:
        await conn.close()  # its worker thread would otherwise keep the process alive
        raise
    return conn


def _check_sqlite_version() -> None:
    found = tuple(int(part) for part in sqlite3.sqlite_version.split("."))
    if found < MIN_SQLITE_VERSION:
        needed = ".".join(map(str, MIN_SQLITE_VERSION))
        raise StoreError(
            f"SQLite {sqlite3.sqlite_version} is too old: the bot needs SQLite {needed} or newer. Run it on a "
            "Python whose sqlite3 module is linked against a newer SQLite (the bot's Docker image has one)."
        )


def _check_path(path: Path) -> None:
    """A folder, or a 'folder' on the way that is really a file, is the URL's mistake: say so."""
    if path.is_dir():
        raise DatabaseUrlError(
            f"DATABASE_URL names {path}, which is a folder; name a file in it, e.g. sqlite:///{path / 'spades.db'}"
        )
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                raise DatabaseUrlError(f"DATABASE_URL names {path}, but {folder} is a file, not a folder")
            return


def _lock_database(path: Path) -> BinaryIO:
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


def _check_integrity(path: Path) -> None:
    """`PRAGMA quick_check` before anything writes (the WAL switch, migrations), on a read-only
    connection, which never checkpoints on close: a damaged file is refused exactly as it is."""
    if not path.exists() or path.stat().st_size == 0:
        return  # a new database
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        if exc.sqlite_errorcode not in _DAMAGED:
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


def _file_identity(path: Path) -> tuple[int, int]:
    found = os.stat(path)
    return found.st_dev, found.st_ino


def _all(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
    return conn.execute(sql, params).fetchall()


def _one(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(sql, params).fetchone()
    return row


def _user_version(conn: sqlite3.Connection) -> int:
    row = _one(conn, "PRAGMA user_version")
    assert row is not None
    return int(row[0])


def _refuse_newer(version: int, path: Path) -> None:
    if version > latest_version():
        raise SchemaTooNewError(
            f"{path} has schema version {version} but this bot only knows up to {latest_version()}: "
            "it was written by a newer version of the bot. Upgrade the bot or point DATABASE_URL "
            "elsewhere; the database was not changed."
        )


def _migrate(path: Path) -> Work[None]:
    """Refuse a newer schema before touching anything, then switch to WAL and migrate."""

    def run(conn: sqlite3.Connection) -> None:
        version = _user_version(conn)
        _refuse_newer(version, path)
        row = _one(conn, "PRAGMA journal_mode = WAL")
        if row is None or str(row[0]).lower() != "wal":
            raise StoreError(f"{path}: could not switch to WAL journal mode")
        if version < latest_version():
            _write_transaction(lambda c: _apply_migrations(c, path))(conn)

    return run


def _apply_migrations(conn: sqlite3.Connection, path: Path) -> None:
    version = _user_version(conn)  # another process may have migrated while we waited
    _refuse_newer(version, path)
    for migration in migrations()[version:]:
        log.info("%s: applying migration V%03d %s", path, migration.version, migration.name)
        for statement in migration.statements:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {latest_version()}")


def _seat(row: sqlite3.Row) -> Seat:
    return Seat(row["seat"], row["name"], row["user_id"], row["bot_level"], row["left_user_id"], row["left_name"])


def _seat_result(row: sqlite3.Row) -> SeatResult:
    return SeatResult(
        seat=row["seat"],
        player_key=row["player_key"],
        name=row["name"],
        final_score=row["final_score"],
        place=row["place"],
        won=bool(row["won"]),
        hands=row["hands"],
        bids_made=row["bids_made"],
        bids_set=row["bids_set"],
        nils_tried=row["nils_tried"],
        nils_made=row["nils_made"],
        bags=row["bags"],
    )


def _game_info(row: sqlite3.Row, seat_rows: Iterable[sqlite3.Row]) -> GameInfo:
    deadline = None
    if row["deadline_kind"] is not None and row["deadline_at"] is not None:
        deadline = Deadline(row["deadline_kind"], row["deadline_at"])
    return GameInfo(
        game_id=row["game_id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        mode=row["mode"],
        rules=replay.loads_object(row["rules_json"]),
        status=row["status"],
        host_id=row["host_id"],
        created_at=row["created_at"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        lobby_message_id=row["lobby_message_id"],
        table_message_id=row["table_message_id"],
        deadline=deadline,
        seats=tuple(sorted((_seat(s) for s in seat_rows), key=lambda s: s.seat)),
    )


def _rebuild(row: sqlite3.Row, seat_rows: Iterable[sqlite3.Row], event_rows: Sequence[sqlite3.Row]) -> StoredGame:
    info = _game_info(row, seat_rows)
    if row["setup_json"] is None:
        if info.status != "lobby":
            raise DamagedGameError(f"game is {info.status} but has no setup")
        return StoredGame(info, None)
    setup = replay.loads_object(row["setup_json"])
    game = replay.rebuild_game(setup, [(e["seq"], e["event_json"]) for e in event_rows])
    for seat in info.seats:  # names change without an event when a computer player takes over
        game.rename(seat.seat, seat.name)
    return StoredGame(info, game)


def _check_seats(mode: str, seats: Sequence[Seat]) -> None:
    numbers = [s.seat for s in seats]
    if len(set(numbers)) != len(numbers) or not all(0 <= n < Mode.parse(mode).seats for n in numbers):
        raise ValueError(f"seats {numbers} do not fit a {mode} table")


def _check_results(mode: str, results: Sequence[SeatResult]) -> None:
    if sorted(r.seat for r in results) != list(range(Mode.parse(mode).seats)):
        raise ValueError(f"a {mode} game needs one result per seat, got seats {[r.seat for r in results]}")
    if any(r.place < 1 for r in results):
        raise ValueError("places count from 1")


def _placeholders(n: int) -> str:
    return ", ".join("?" * n)


@dataclass(slots=True)
class _QueuedAction:
    game_id: str
    first_seq: int
    payloads: list[str]
    deadline: Deadline | Unchanged | None
    posts: list[PostRow]
    done: asyncio.Future[None]
    post_ids: list[int] = field(default_factory=list)


def _status(conn: sqlite3.Connection, game_id: str) -> str:
    row = _one(conn, "SELECT status FROM games WHERE game_id = ?", (game_id,))
    if row is None:
        raise GameNotFoundError(f"no game {game_id!r}")
    return str(row["status"])


def _read_info(conn: sqlite3.Connection, game_id: str) -> GameInfo | None:
    row = _one(conn, "SELECT * FROM games WHERE game_id = ?", (game_id,))
    if row is None:
        return None
    return _game_info(row, _all(conn, "SELECT * FROM seats WHERE game_id = ?", (game_id,)))


def _insert_seats(conn: sqlite3.Connection, game_id: str, seats: Sequence[Seat]) -> None:
    conn.executemany(
        "INSERT INTO seats (game_id, seat, name, user_id, bot_level, left_user_id, left_name)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [(game_id, s.seat, s.name, s.user_id, s.bot_level, s.left_user_id, s.left_name) for s in seats],
    )


def _append_batch(conn: sqlite3.Connection, batch: Sequence[_QueuedAction], now: float) -> list[StoreError | None]:
    """Normally the whole batch is two statements. If any action is refused, the batch is redone one
    savepoint per action, so a refused one leaves the others intact."""
    events = [
        (item.game_id, item.first_seq, item.first_seq + offset, payload)
        for item in batch
        for offset, payload in enumerate(item.payloads)
    ]
    deadlines = [
        (item.game_id, *_deadline_columns(item.deadline)) for item in batch if not isinstance(item.deadline, Unchanged)
    ]
    conn.execute("SAVEPOINT batch")
    try:
        if conn.execute(_APPEND_BATCH, (replay.dumps(events), now)).rowcount == len(events):
            conn.execute(_SET_DEADLINES, (replay.dumps(deadlines),))
            ids = iter(_insert_posts(conn, [row for item in batch for row in item.posts], now))
            for item in batch:
                item.post_ids = [next(ids) for _ in item.posts]
            conn.execute("RELEASE batch")
            return [None] * len(batch)
    except sqlite3.IntegrityError:
        pass  # an event already stored: the slow path says which action it was
    conn.execute("ROLLBACK TO batch")
    conn.execute("RELEASE batch")
    return [_write_action(conn, item, now) for item in batch]


def _write_action(conn: sqlite3.Connection, item: _QueuedAction, now: float) -> StoreError | None:
    conn.execute("SAVEPOINT action")
    try:
        for offset, payload in enumerate(item.payloads):
            seq = item.first_seq + offset
            if not _all(conn, _APPEND, (item.game_id, seq, payload, now)):
                raise _append_refusal(conn, item.game_id, seq)
        if not isinstance(item.deadline, Unchanged):
            conn.execute(_SET_DEADLINE, (*_deadline_columns(item.deadline), item.game_id))
        item.post_ids = _insert_posts(conn, item.posts, now)
    except StoreError as refusal:
        conn.execute("ROLLBACK TO action")
        conn.execute("RELEASE action")
        return refusal
    conn.execute("RELEASE action")
    return None


def _append_refusal(conn: sqlite3.Connection, game_id: str, seq: int) -> StoreError:
    """Why an append was refused: the game's state or its last seq, read in the same transaction."""
    row = _one(
        conn,
        "SELECT status, (SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?1) AS last"
        " FROM games WHERE game_id = ?1",
        (game_id,),
    )
    if row is None:
        return GameNotFoundError(f"no game {game_id!r}")
    if row["status"] != "playing":
        return GameStateError(f"game {game_id!r} is {row['status']}; it takes no more events")
    if seq <= row["last"]:
        return DuplicateEventError(f"game {game_id!r}: event {seq} is already stored (last is {row['last']})")
    return EventGapError(f"game {game_id!r}: event {seq} would leave a gap; next is {row['last'] + 1}")


def _finish(
    conn: sqlite3.Connection, game_id: str, results: Sequence[SeatResult], posts: Sequence[PostRow]
) -> FinishOutcome:
    game = _one(conn, "SELECT guild_id, mode, status FROM games WHERE game_id = ?", (game_id,))
    if game is None:
        raise GameNotFoundError(f"no game {game_id!r}")
    if game["status"] == "finished":
        return FinishOutcome(game_id, _stored_changes(conn, game_id), already_finished=True)
    if game["status"] != "playing":
        raise GameStateError(f"game {game_id!r} is {game['status']}; only a game in play can finish")
    guild_id, mode = game["guild_id"], game["mode"]
    _check_results(mode, results)
    now = time.time()
    moves = _rate(conn, guild_id, mode, results, now)
    conn.executemany(
        "INSERT INTO results (game_id, guild_id, mode, is_bot, rating_before, rating_after,"
        f" rank_before, rank_after, finished_at, {_RESULT_COLUMNS}) VALUES ({_placeholders(21)})",
        [
            (game_id, guild_id, mode, int(r.is_bot), *moves[r.player_key], now, r.seat, r.player_key,
             r.name, r.final_score, r.place, int(r.won), r.hands, r.bids_made, r.bids_set,
             r.nils_tried, r.nils_made, r.bags)
            for r in results
        ],
    )  # fmt: skip
    conn.execute(
        "UPDATE games SET status = 'finished', ended_at = ?, deadline_kind = NULL, deadline_at = NULL"
        " WHERE game_id = ?",
        (now, game_id),
    )
    _insert_posts(conn, posts, now)
    return FinishOutcome(game_id, _stored_changes(conn, game_id), already_finished=False)


def _rate(
    conn: sqlite3.Connection, guild_id: int, mode: str, results: Sequence[SeatResult], now: float
) -> dict[str, tuple[float | None, float, int | None, int | None]]:
    """Update everyone's rating and running totals; per player key, rating and rank before and after.

    Ranks are for humans only, since leaderboards list only humans.
    """
    seats_of: dict[str, list[SeatResult]] = defaultdict(list)
    for r in results:
        seats_of[r.player_key].append(r)
    rows = _all(
        conn,
        f"SELECT * FROM ratings WHERE guild_id = ? AND mode = ? AND player_key IN ({_placeholders(len(seats_of))})",
        (guild_id, mode, *seats_of),
    )
    before = {row["player_key"]: Rating(row["mu"], row["sigma"]) for row in rows}
    after = rate_game(mode, results, before)
    humans = [key for key, seats in seats_of.items() if not seats[0].is_bot]
    rank_before = {k: _rank(conn, guild_id, mode, before[k].ordinal) for k in humans if k in before}
    conn.executemany(
        "INSERT INTO ratings (guild_id, mode, player_key, is_bot, name, mu, sigma, ordinal,"
        " games, wins, points, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (guild_id, mode, player_key) DO UPDATE SET name = excluded.name,"
        " mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal,"
        " games = games + excluded.games, wins = wins + excluded.wins,"
        " points = points + excluded.points, updated_at = excluded.updated_at",
        [
            (guild_id, mode, key, int(seats[0].is_bot), seats[0].name, after[key].mu, after[key].sigma,
             after[key].ordinal, len(seats), sum(r.won for r in seats),
             sum(r.final_score for r in seats), now)
            for key, seats in seats_of.items()
        ],
    )  # fmt: skip
    rank_after = {k: _rank(conn, guild_id, mode, after[k].ordinal) for k in humans}
    return {
        key: (
            before[key].ordinal if key in before else None,
            after[key].ordinal,
            rank_before.get(key),
            rank_after.get(key),
        )
        for key in seats_of
    }


def _rank(conn: sqlite3.Connection, guild_id: int, mode: str, ordinal: float) -> int:
    """Place on the rating leaderboard: one more than the humans rated strictly higher."""
    row = _one(
        conn,
        "SELECT count(*) + 1 FROM ratings WHERE guild_id = ? AND mode = ? AND is_bot = 0 AND ordinal > ?",
        (guild_id, mode, ordinal),
    )
    assert row is not None
    return int(row[0])


def _stored_changes(conn: sqlite3.Connection, game_id: str) -> tuple[RatingChange, ...]:
    rows = _all(
        conn,
        "SELECT seat, player_key, name, rating_before, rating_after, rank_before, rank_after,"
        " (SELECT count(*) FROM results AS o WHERE o.guild_id = r.guild_id AND o.player_key = r.player_key"
        "  AND o.mode = r.mode AND o.finished_at <= r.finished_at) AS games"
        " FROM results AS r WHERE game_id = ? AND is_bot = 0 ORDER BY seat",
        (game_id,),
    )
    return tuple(
        RatingChange(
            r["seat"],
            r["player_key"],
            r["name"],
            r["rating_before"],
            r["rating_after"],
            r["rank_before"],
            r["rank_after"],
            r["games"],
        )
        for r in rows
    )


def _group_by_game(rows: Iterable[sqlite3.Row]) -> dict[str, list[sqlite3.Row]]:
    grouped: dict[str, list[sqlite3.Row]] = defaultdict(list)
    for row in rows:
        grouped[row["game_id"]].append(row)
    return grouped


class _WalSync:
    """Makes commits durable off the loop: fsyncs of the WAL file, one at a time, on a thread of its own.

    Commits are numbered as they are made. A commit is on disk once an fsync that started after it
    has finished, so every commit made while one fsync runs shares the next. The thread reports
    straight back to the loop with one callback, and waiters are plain futures: under load every
    extra task step or future callback is another pass through a busy loop for the caller.
    The log file exists once anything was committed, so it is opened at the first fsync.
    """

    def __init__(self, wal_path: Path) -> None:
        self._path = wal_path
        self._fd: int | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="wal-sync")
        self._made = 0
        self._synced = 0
        self._running = False
        self._waiting: list[tuple[int, asyncio.Future[None]]] = []

    def note_commit(self) -> int:
        self._made += 1
        return self._made

    def resolve_when_durable(self, commit: int, done: asyncio.Future[None]) -> None:
        """Resolve `done` once commit number `commit` is on disk (or fail it with a StoreError)."""
        if commit <= self._synced:
            done.set_result(None)
            return
        self._waiting.append((commit, done))
        if not self._running:
            self._start(asyncio.get_running_loop())

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._running = True
        self._thread.submit(self._fsync_and_report, loop, self._made)

    def _fsync_and_report(self, loop: asyncio.AbstractEventLoop, covered: int) -> None:
        """On the thread. Whatever the fsync raises is reported: a lost report would strand every waiter."""
        error: Exception | None = None
        try:
            self._fsync()
        except Exception as exc:
            error = exc
        loop.call_soon_threadsafe(self._synced_up_to, loop, covered, error)

    def _fsync(self) -> None:
        if self._fd is None:
            self._fd = os.open(self._path, os.O_RDONLY)
            directory = os.open(self._path.parent, os.O_RDONLY)  # the log's own entry, once
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
        _sync_data(self._fd)

    def _synced_up_to(self, loop: asyncio.AbstractEventLoop, covered: int, error: Exception | None) -> None:
        self._running = False
        if error is None:
            self._synced = covered
        waiting, self._waiting = self._waiting, []
        for commit, done in waiting:
            if done.done():
                continue  # its caller gave up; the commit is made all the same
            if commit <= self._synced:
                done.set_result(None)
            elif error is not None and commit <= covered:
                done.set_exception(
                    StoreUnavailable(
                        f"the log {self._path} could not be synced to disk ({error}); the save is made"
                        " but may not survive a power cut"
                    )
                )
            else:
                self._waiting.append((commit, done))
        if self._waiting:
            self._start(loop)

    async def close(self) -> None:
        try:
            final: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.resolve_when_durable(self._made, final)
            await final
        finally:
            self._thread.shutdown()
            if self._fd is not None:
                os.close(self._fd)


class SqliteStore:
    """`Store` on a SQLite file. Open it with `SqliteStore.open(path)` or `open_store(url)`.

    Each operation is one function run whole as one transaction: a write on the loop, without an
    await in the middle, so nothing interleaves with it and a cancelled caller leaves a whole
    transaction or none; a read on the reader's thread, in one hand-off.
    """

    def __init__(
        self,
        path: Path,
        writer: sqlite3.Connection,
        reader: aiosqlite.Connection,
        wal_sync: _WalSync | None,
        lock: BinaryIO,
    ) -> None:
        self._path = path
        self._identity = _file_identity(path)  # the file the connections opened, to notice it go
        self._gone: str | None = None  # why writes are refused, once the file was deleted or replaced
        self._writer = writer
        self._reader = reader
        self._wal_sync = wal_sync
        self._lock = lock
        self._queued: list[_QueuedAction] = []
        self._commits = 0
        self._checkpointer: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, path: Path, *, synchronous: Synchronous = "full") -> SqliteStore:
        """Refuse, with one clear line and before writing anything, a SQLite too old, a path that can't
        be a database file, a file another bot process has open, a damaged file, a newer schema. Then
        create the file and its folder if missing and migrate an older schema."""
        _check_sqlite_version()
        _check_path(path)
        try:
            async with contextlib.AsyncExitStack() as undo:
                path.parent.mkdir(parents=True, exist_ok=True)
                lock = undo.enter_context(_lock_database(path))
                _check_integrity(path)
                writer = _open_writer(path)
                undo.callback(writer.close)
                reader = await _open_reader(path)
                undo.push_async_callback(reader.close)
                wal_sync = _WalSync(Path(f"{path}-wal")) if synchronous == "full" else None
                store = cls(path, writer, reader, wal_sync, lock)
                undo.pop_all()
                return store
        except (sqlite3.Error, OSError) as exc:
            raise _store_error(exc, path, writing=False) from exc

    async def close(self) -> None:
        """Save what was handed over, then release the connections and the lock, whatever fails."""
        try:
            if self._queued:
                self._commit_queued()  # actions already handed over are saved first
            if self._checkpointer is not None:
                await asyncio.wait([self._checkpointer])
            if self._wal_sync is not None:
                await self._wal_sync.close()
        finally:
            try:
                await self._reader.close()
                self._writer.close()  # the last connection to close checkpoints and removes the log
            except sqlite3.Error as exc:
                raise _store_error(exc, self._path, writing=False) from exc
            finally:
                self._lock.close()

    async def _write(self, work: Work[T]) -> T:
        result, commit = self._commit(work)
        if self._wal_sync is not None:
            durable: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._wal_sync.resolve_when_durable(commit, durable)
            await durable
        return result

    def _commit(self, work: Work[T]) -> tuple[T, int]:
        """Run `work` as one transaction on the loop, without an await; its result and commit number.

        Refusals (`StoreError`) and the caller's mistakes pass through; anything SQLite raises becomes
        a `StoreError`. A commit into a file that was deleted or replaced is never acknowledged.
        """
        if self._gone is not None:
            raise DatabaseGone(self._gone)
        try:
            result = _write_transaction(work)(self._writer)
        except sqlite3.Error as exc:
            raise _store_error(exc, self._path, writing=True) from exc
        self._check_file_is_ours()
        self._commits += 1
        if self._commits >= CHECKPOINT_EVERY and (self._checkpointer is None or self._checkpointer.done()):
            self._commits = 0
            self._checkpointer = asyncio.create_task(self._checkpoint())
        return result, self._wal_sync.note_commit() if self._wal_sync is not None else 0

    def _check_file_is_ours(self) -> None:
        """The path still names the file the connections write (same device and inode)."""
        try:
            ours = _file_identity(self._path) == self._identity
        except OSError:  # gone, or its folder is: either way nobody will find this file there again
            ours = False
        if not ours:
            self._gone = (
                f"the database file {self._path} was deleted or replaced while the bot was running; nothing"
                " more is saved to it (nor was the save just tried). Restart the bot: it then opens whatever"
                " is at that path."
            )
            log.error("%s", self._gone)
            raise DatabaseGone(self._gone)

    async def _checkpoint(self) -> None:
        """Copy the log back into the database off the loop. PASSIVE never blocks the writer."""
        try:
            await _on_thread(self._reader, lambda conn: conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall())
        except sqlite3.Error:
            log.warning("WAL checkpoint failed; the next one will retry", exc_info=True)

    async def _read(self, work: Work[T]) -> T:
        try:
            return await _on_thread(self._reader, _snapshot(work))
        except sqlite3.Error as exc:
            raise _store_error(exc, self._path, writing=False) from exc

    async def _update_game(self, game_id: str, assignments: str, params: Sequence[Any]) -> None:
        def update(conn: sqlite3.Connection) -> None:
            sql = f"UPDATE games SET {assignments} WHERE game_id = ? RETURNING game_id"
            if not _all(conn, sql, (*params, game_id)):
                raise GameNotFoundError(f"no game {game_id!r}")

        await self._write(update)

    # -- a game's life ----------------------------------------------------------------------------

    async def create_game(
        self,
        game_id: str,
        *,
        guild_id: int,
        channel_id: int,
        mode: str,
        rules: Mapping[str, Any],
        host_id: int | None,
        seats: Sequence[Seat] = (),
    ) -> GameInfo:
        mode = Mode.parse(mode).value
        _check_seats(mode, seats)
        row = (game_id, guild_id, channel_id, mode, replay.dumps(dict(rules)), host_id, time.time())

        def create(conn: sqlite3.Connection) -> GameInfo:
            try:
                conn.execute(
                    "INSERT INTO games (game_id, guild_id, channel_id, mode, rules_json, host_id, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
            except sqlite3.IntegrityError as exc:
                raise GameStateError(f"game {game_id!r} already exists") from exc
            _insert_seats(conn, game_id, seats)
            info = _read_info(conn, game_id)
            assert info is not None
            return info

        return await self._write(create)

    async def set_seats(self, game_id: str, seats: Sequence[Seat]) -> None:
        def replace(conn: sqlite3.Connection) -> None:
            info = _read_info(conn, game_id)
            if info is None:
                raise GameNotFoundError(f"no game {game_id!r}")
            if info.status not in ("lobby", "playing"):
                raise GameStateError(f"game {game_id!r} is {info.status}; its seats are final")
            _check_seats(info.mode, seats)
            conn.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
            _insert_seats(conn, game_id, seats)

        await self._write(replace)

    async def start_game(self, game_id: str, setup: Mapping[str, Any]) -> None:
        setup_json = replay.dumps(dict(setup))

        def start(conn: sqlite3.Connection) -> None:
            status = _status(conn, game_id)
            if status != "lobby":
                raise GameStateError(f"game {game_id!r} is {status}, not in the lobby")
            conn.execute(
                "UPDATE games SET status = 'playing', setup_json = ?, started_at = ? WHERE game_id = ?",
                (setup_json, time.time(), game_id),
            )

        await self._write(start)

    async def set_lobby_message(self, game_id: str, message_id: int | None) -> None:
        await self._update_game(game_id, "lobby_message_id = ?", (message_id,))

    async def set_table_message(self, game_id: str, message_id: int | None) -> None:
        await self._update_game(game_id, "table_message_id = ?", (message_id,))

    async def set_deadline(self, game_id: str, deadline: Deadline | None) -> None:
        await self._update_game(game_id, "deadline_kind = ?, deadline_at = ?", _deadline_columns(deadline))

    async def append_event(self, game_id: str, seq: int, event: Mapping[str, Any]) -> None:
        await self.append_events(game_id, seq, [event])

    async def append_events(
        self,
        game_id: str,
        first_seq: int,
        events: Sequence[Mapping[str, Any]],
        deadline: Deadline | Unchanged | None = UNCHANGED,
        posts: Sequence[Post] = (),
    ) -> list[int]:
        if first_seq < 1:
            raise EventSequenceError(f"game {game_id!r}: event seqs count from 1, got {first_seq}")
        item = _QueuedAction(
            game_id,
            first_seq,
            [replay.dumps(dict(e)) for e in events],
            deadline,
            _post_rows(game_id, posts),
            asyncio.get_running_loop().create_future(),
        )
        self._queued.append(item)
        if len(self._queued) == 1:
            asyncio.get_running_loop().call_soon(self._commit_queued)
        await item.done  # a caller that gives up leaves its action in the batch: it is saved all the same
        return item.post_ids

    def _commit_queued(self) -> None:
        """Group commit: every action queued meanwhile goes into one transaction. Callers hear back
        once it is durable, by which time later batches may already be committed."""
        if not self._queued:
            return  # `close` committed them already
        batch, self._queued = self._queued, []
        outcomes: Sequence[Exception | None]
        try:
            outcomes, commit = self._commit(partial(_append_batch, batch=batch, now=time.time()))
        except Exception as error:
            outcomes, commit = [error] * len(batch), 0
        for item, outcome in zip(batch, outcomes, strict=True):
            if item.done.done():
                continue
            if outcome is not None:
                item.done.set_exception(outcome)
            elif self._wal_sync is not None:
                self._wal_sync.resolve_when_durable(commit, item.done)
            else:
                item.done.set_result(None)

    async def finish_game(
        self, game_id: str, results: Sequence[SeatResult], posts: Sequence[Post] = ()
    ) -> FinishOutcome:
        rows = _post_rows(game_id, posts)
        return await self._write(partial(_finish, game_id=game_id, results=results, posts=rows))

    async def cancel_game(self, game_id: str, posts: Sequence[Post] = ()) -> list[int]:
        rows = _post_rows(game_id, posts)

        def cancel(conn: sqlite3.Connection) -> list[int]:
            status = _status(conn, game_id)
            if status == "finished":
                raise GameStateError(f"game {game_id!r} has finished; it cannot be cancelled")
            if status == "cancelled":
                return []
            now = time.time()
            conn.execute(
                "UPDATE games SET status = 'cancelled', ended_at = ?, deadline_kind = NULL,"
                " deadline_at = NULL WHERE game_id = ?",
                (now, game_id),
            )
            return _insert_posts(conn, rows, now)

        return await self._write(cancel)

    # -- the outbox ---------------------------------------------------------------------------------

    async def add_posts(self, game_id: str, posts: Sequence[Post]) -> list[int]:
        rows = _post_rows(game_id, posts)
        if not rows:
            return []

        def add(conn: sqlite3.Connection) -> list[int]:
            _status(conn, game_id)  # GameNotFoundError for an unknown game
            return _insert_posts(conn, rows, time.time())

        return await self._write(add)

    async def pending_posts(self) -> list[PendingPost]:
        rows = await self._read(
            partial(
                _all,
                sql="SELECT o.post_id, o.game_id, g.guild_id, g.channel_id, o.kind, o.payload_json, o.created_at"
                " FROM outbox AS o JOIN games AS g USING (game_id) ORDER BY o.post_id",
            )
        )
        return [
            PendingPost(r["post_id"], r["game_id"], r["guild_id"], r["channel_id"], r["kind"],
                        replay.loads_object(r["payload_json"]), r["created_at"])
            for r in rows
        ]  # fmt: skip

    async def posts_delivered(self, post_ids: Sequence[int]) -> None:
        if not post_ids:
            return
        ids = replay.dumps([int(post_id) for post_id in post_ids])

        def forget(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM outbox WHERE post_id IN (SELECT value FROM json_each(?))", (ids,))

        await self._write(forget)

    # -- reading games back -------------------------------------------------------------------------

    async def get_game(self, game_id: str) -> GameInfo | None:
        return await self._read(partial(_read_info, game_id=game_id))

    async def load_game(self, game_id: str) -> StoredGame | None:
        def rows(conn: sqlite3.Connection) -> tuple[sqlite3.Row, list[sqlite3.Row], list[sqlite3.Row]] | None:
            row = _one(conn, "SELECT * FROM games WHERE game_id = ?", (game_id,))
            if row is None:
                return None
            return (
                row,
                _all(conn, "SELECT * FROM seats WHERE game_id = ?", (game_id,)),
                _all(conn, "SELECT seq, event_json FROM events WHERE game_id = ? ORDER BY seq", (game_id,)),
            )

        try:
            found = await self._read(rows)
            return None if found is None else _rebuild(*found)
        except (DamagedGameError, StoreUnavailable):
            raise
        except Exception as exc:  # any other failure to read or replay means the same to the caller
            raise DamagedGameError(f"game {game_id!r}: {type(exc).__name__}: {exc}") from exc

    async def recover(self) -> Recovery:
        def rows(conn: sqlite3.Connection) -> tuple[list[sqlite3.Row], list[sqlite3.Row], list[sqlite3.Row]]:
            return (
                _all(conn, f"SELECT * FROM games WHERE {_UNFINISHED} ORDER BY created_at"),
                _all(conn, f"SELECT * FROM seats WHERE game_id IN ({_UNFINISHED_IDS})"),
                _all(
                    conn,
                    "SELECT game_id, seq, event_json FROM events"
                    f" WHERE game_id IN ({_UNFINISHED_IDS}) ORDER BY game_id, seq",
                ),
            )

        try:
            games, seat_rows, event_rows = await self._read(rows)
        except StoreUnavailable:
            raise
        except StoreError:
            log.warning("reading unfinished games in bulk failed; loading them one by one", exc_info=True)
            return await self._recover_one_by_one()
        seats_of, events_of = _group_by_game(seat_rows), _group_by_game(event_rows)
        loaded: list[StoredGame] = []
        damaged: list[DamagedGame] = []
        for row in games:
            game_id = row["game_id"]
            try:
                loaded.append(_rebuild(row, seats_of[game_id], events_of[game_id]))
            except Exception as exc:  # one bad game must not keep the others from loading
                damaged.append(self._set_aside(game_id, exc))
        return Recovery(tuple(loaded), tuple(damaged))

    async def _recover_one_by_one(self) -> Recovery:
        ids = [r["game_id"] for r in await self._read(partial(_all, sql=_UNFINISHED_IDS))]
        loaded: list[StoredGame] = []
        damaged: list[DamagedGame] = []
        for game_id in ids:
            try:
                stored = await self.load_game(game_id)
            except DamagedGameError as exc:
                damaged.append(self._set_aside(game_id, exc))
            else:
                if stored is not None:
                    loaded.append(stored)
        return Recovery(tuple(loaded), tuple(damaged))

    @staticmethod
    def _set_aside(game_id: str, exc: Exception) -> DamagedGame:
        reason = f"{type(exc).__name__}: {exc}"
        log.warning("game %s could not be rebuilt and is set aside: %s", game_id, reason)
        return DamagedGame(game_id, reason)

    async def game_record(self, game_id: str) -> dict[str, Any] | None:
        stored = await self.load_game(game_id)
        return None if stored is None else replay.game_record(stored)

    async def recent_games(self, guild_id: int, channel_id: int, limit: int = 10) -> list[GameSummary]:
        def rows(conn: sqlite3.Connection) -> tuple[list[sqlite3.Row], list[sqlite3.Row], list[sqlite3.Row]]:
            games = _all(
                conn,
                "SELECT * FROM games WHERE guild_id = ? AND channel_id = ?"
                " ORDER BY created_at DESC, rowid DESC LIMIT ?",
                (guild_id, channel_id, limit),
            )
            ids = [g["game_id"] for g in games]
            marks = _placeholders(len(ids))
            return (
                games,
                _all(conn, f"SELECT * FROM seats WHERE game_id IN ({marks})", ids),
                _all(
                    conn,
                    f"SELECT game_id, {_RESULT_COLUMNS} FROM results WHERE game_id IN ({marks}) ORDER BY seat",
                    ids,
                ),
            )

        games, seat_rows, result_rows = await self._read(rows)
        seats_of = _group_by_game(seat_rows)
        results_of: dict[str, list[SeatResult]] = defaultdict(list)
        for row in result_rows:
            results_of[row["game_id"]].append(_seat_result(row))
        return [GameSummary(_game_info(g, seats_of[g["game_id"]]), tuple(results_of[g["game_id"]])) for g in games]

    # -- leaderboards and stats -----------------------------------------------------------------------

    async def leaderboard(
        self,
        guild_id: int,
        mode: str,
        sort: LeaderboardSort = "rating",
        *,
        limit: int = 10,
        offset: int = 0,
        min_games: int = 5,
    ) -> list[LeaderboardEntry]:
        if sort not in _SORT_KEYS:
            raise ValueError(f"unknown leaderboard sort {sort!r}")
        key = _SORT_KEYS[sort]
        board = (guild_id, mode, min_games if sort == "win_rate" else 1)

        def page(conn: sqlite3.Connection) -> tuple[list[sqlite3.Row], int]:
            rows = _all(
                conn,
                f"SELECT {key} AS sort_key, * FROM ratings WHERE {_ON_BOARD}"
                f" ORDER BY {key} DESC, ordinal DESC, player_key LIMIT ? OFFSET ?",
                (*board, limit, offset),
            )
            if not rows:
                return rows, 0
            # Only the page's first rank needs counting: after it, a row shares the rank of the row
            # before when their keys tie, and otherwise its rank is its position.
            first = _one(
                conn, f"SELECT count(*) + 1 FROM ratings WHERE {_ON_BOARD} AND {key} > ?", (*board, rows[0]["sort_key"])
            )
            assert first is not None
            return rows, int(first[0])

        rows, first_rank = await self._read(page)
        if not rows:
            return []
        ranks = [first_rank]
        for position, (previous, row) in enumerate(pairwise(rows), start=offset + 2):
            ranks.append(ranks[-1] if row["sort_key"] == previous["sort_key"] else position)
        return [
            LeaderboardEntry(
                rank=rank,
                user_id=int(r["player_key"]),
                name=r["name"],
                games=r["games"],
                wins=r["wins"],
                win_rate=r["wins"] / r["games"],
                points=r["points"],
                average_score=r["points"] / r["games"],
                rating=r["ordinal"],
                mu=r["mu"],
                sigma=r["sigma"],
            )
            for rank, r in zip(ranks, rows, strict=True)
        ]

    async def player_stats(self, guild_id: int, user_id: int, mode: str | None = None) -> PlayerStats:
        key = str(user_id)

        def rows(conn: sqlite3.Connection) -> tuple[sqlite3.Row | None, list[sqlite3.Row]]:
            totals = _one(
                conn,
                "SELECT count(*) AS games, total(won) AS wins, total(final_score) AS points,"
                " total(bids_made) AS bids_made, total(bids_made + bids_set) AS bids_total,"
                " total(nils_made) AS nils_made, total(nils_tried) AS nils_tried,"
                " total(hands) AS hands, total(bags) AS bags"
                " FROM results WHERE guild_id = ?1 AND player_key = ?2 AND (?3 IS NULL OR mode = ?3)",
                (guild_id, key, mode),
            )
            ratings = _all(
                conn,
                "SELECT r.*, (SELECT count(*) + 1 FROM ratings AS o WHERE o.guild_id = r.guild_id"
                " AND o.mode = r.mode AND o.is_bot = 0 AND o.ordinal > r.ordinal) AS rank"
                " FROM ratings AS r WHERE r.guild_id = ?1 AND r.mode IN ('cutthroat', 'solo', 'partners')"
                " AND r.player_key = ?2 AND (?3 IS NULL OR r.mode = ?3) ORDER BY r.mode",
                (guild_id, key, mode),
            )
            return totals, ratings

        totals, ratings = await self._read(rows)
        assert totals is not None
        games, hands = int(totals["games"]), int(totals["hands"])
        return PlayerStats(
            guild_id=guild_id,
            user_id=user_id,
            mode=mode,
            games=games,
            wins=int(totals["wins"]),
            win_rate=totals["wins"] / games if games else 0.0,
            average_score=totals["points"] / games if games else 0.0,
            bids_made=int(totals["bids_made"]),
            bids_total=int(totals["bids_total"]),
            nils_made=int(totals["nils_made"]),
            nils_tried=int(totals["nils_tried"]),
            hands=hands,
            bags=int(totals["bags"]),
            bags_per_hand=totals["bags"] / hands if hands else 0.0,
            ratings=tuple(
                ModeRating(r["mode"], r["ordinal"], r["mu"], r["sigma"], r["rank"], r["games"], r["wins"])
                for r in ratings
            ),
        )

    # -- server settings ------------------------------------------------------------------------------

    async def get_settings(self, guild_id: int) -> dict[str, Any]:
        try:
            row = _settings_row(self._writer, guild_id)  # one indexed row: cheaper here than a hand-off
        except sqlite3.Error as exc:
            raise _store_error(exc, self._path, writing=False) from exc
        return {} if row is None else replay.loads_object(row["settings_json"])

    async def update_settings(self, guild_id: int, changes: Mapping[str, Any]) -> dict[str, Any]:
        def update(conn: sqlite3.Connection) -> dict[str, Any]:
            row = _settings_row(conn, guild_id)
            settings = {} if row is None else replay.loads_object(row["settings_json"])
            for key, value in changes.items():
                if value is None:
                    settings.pop(key, None)
                else:
                    settings[key] = value
            conn.execute(
                "INSERT INTO guild_settings (guild_id, settings_json, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET settings_json = excluded.settings_json,"
                " updated_at = excluded.updated_at",
                (guild_id, replay.dumps(settings), time.time()),
            )
            return settings

        return await self._write(update)


def _settings_row(conn: sqlite3.Connection, guild_id: int) -> sqlite3.Row | None:
    return _one(conn, "SELECT settings_json FROM guild_settings WHERE guild_id = ?", (guild_id,))
