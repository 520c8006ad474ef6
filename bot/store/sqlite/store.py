"""`Store` on a SQLite file.

Two connections, both the standard library's sqlite3 rather than aiosqlite. The writer runs on the
event loop itself: every write is one short transaction (a few indexed statements, about 0.06 ms
here), and handing it to aiosqlite's thread cost far more than that under load, because each sqlite3
call on a thread has to win the GIL back from the busy loop (when the writer moved, saves in the load
benchmark went from 25 ms at the median and over 250 ms at p99 to under 1 ms and 4 ms).
`bench/bench_sqlite_writer.py` keeps measuring one move's save both ways, idle and on a busy loop:
on the loop the tail stays short (p99 45 ms against aiosqlite's 65; 15 against 58 with
`synchronous=normal`), though the fsync's own hand-off to a thread costs the median a few ms (25
against 19).
Turns' events from many games share one commit (`group_commit`), made durable off the loop
(`durability`).

The reader is a query-only connection on its own thread (`connection.ReaderThread`), for
everything that may scan: leaderboards, stats, records, recovery. It sees only committed data and
never waits behind a write; WAL mode lets the two run side by side, and the reader's thread also
runs the WAL checkpoints, so copying the log back into the database never stalls the loop.

With `synchronous=full` (the default) a commit survives power loss; `normal` still survives any
crash of the process but may lose the last commits if the machine itself goes down, in exchange
for skipping the fsync.

Failures: whatever SQLite or the OS reports reaches the caller as a `StoreError` (`errors`). A lock
held by another process past the busy timeout, a full disk or an I/O error is `StoreUnavailable`:
the transaction was rolled back (or never began), every caller sharing a group commit hears it, and
the next write starts clean, so the same store works once the cause is gone. A file deleted or
replaced while the bot runs is noticed at the next commit, before it is acknowledged (the path's
device and inode no longer match the file opened: one `stat`, 2-3 µs per commit); from then on
every write is refused with `DatabaseGone`, since the data would go to a file nobody will read.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any, BinaryIO, Literal, TypeVar

from bot.store import games
from bot.store.errors import DatabaseGone
from bot.store.models import ShardSet
from bot.store.sql import Operation
from bot.store.sql_store import SqlStore
from bot.store.sqlite import files
from bot.store.sqlite.connection import ReaderThread, Work, as_work, set_up, snapshot, write_transaction
from bot.store.sqlite.durability import WalSync
from bot.store.sqlite.errors import store_error
from bot.store.sqlite.group_commit import QueuedAction, append_batch
from bot.store.sqlite.migrate import migrate

log = logging.getLogger(__name__)

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000
# The writer waits on the loop; only another process writing the same file could hold it up.
WRITER_BUSY_TIMEOUT_MS = 1000
CHECKPOINT_EVERY = 200  # commits between WAL checkpoints (each commit adds a few pages to the log)
Synchronous = Literal["full", "normal"]


def _open_writer(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        # NORMAL: the log is written at COMMIT but synced by `WalSync`, off the loop
        set_up(conn, WRITER_BUSY_TIMEOUT_MS, "PRAGMA synchronous = NORMAL")
        migrate(conn, path)
        conn.execute("PRAGMA wal_autocheckpoint = 0")  # the reader's thread checkpoints instead
    except BaseException:
        conn.close()
        raise
    return conn


class SqliteStore(SqlStore):
    """`Store` on a SQLite file. Open it with `SqliteStore.open(path)` or `open_store(url)`.

    Each operation is one function run whole as one transaction: a write on the loop, without an
    await in the middle, so nothing interleaves with it and a cancelled caller leaves a whole
    transaction or none; a read on the reader's thread, in one hand-off.
    """

    def __init__(
        self,
        path: Path,
        writer: sqlite3.Connection,
        reader: ReaderThread,
        wal_sync: WalSync | None,
        lock: BinaryIO,
    ) -> None:
        self._path = path
        self._identity = files.file_identity(path)  # the file the connections opened, to notice it go
        self._gone: str | None = None  # why writes are refused, once the file was deleted or replaced
        self._writer = writer
        self._reader = reader
        self._wal_sync = wal_sync
        self._lock = lock
        self._queued: list[QueuedAction] = []
        self._commits = 0
        self._checkpointer: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, path: Path, *, synchronous: Synchronous = "full") -> SqliteStore:
        """Refuse, with one clear line and before writing anything, a SQLite too old, a path that can't
        be a database file, a file another bot process has open, a damaged file, a newer schema. Then
        create the file and its folder if missing and migrate an older schema."""
        files.check_sqlite_version()
        files.check_path(path)
        try:
            async with contextlib.AsyncExitStack() as undo:
                path.parent.mkdir(parents=True, exist_ok=True)
                lock = undo.enter_context(files.lock_database(path))
                files.check_integrity(path)
                writer = _open_writer(path)
                undo.callback(writer.close)
                reader = await ReaderThread.open(path, BUSY_TIMEOUT_MS)
                undo.push_async_callback(reader.close)
                wal_sync = WalSync(Path(f"{path}-wal")) if synchronous == "full" else None
                store = cls(path, writer, reader, wal_sync, lock)
                undo.pop_all()
                return store
        except (sqlite3.Error, OSError) as exc:
            raise store_error(exc, path, writing=False, opening=True) from exc

    async def claim_shards(self, shards: ShardSet) -> None:
        """Nothing to claim: the file's lock already keeps every other bot process out."""

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
                raise store_error(exc, self._path, writing=False) from exc
            finally:
                self._lock.close()

    # -- running operations -----------------------------------------------------------------------

    async def _write(self, operation: Operation[T]) -> T:
        result, commit = self._commit(as_work(operation))
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
            result = write_transaction(work)(self._writer)
        except sqlite3.Error as exc:
            raise store_error(exc, self._path, writing=True) from exc
        self._check_file_is_ours()
        self._commits += 1
        if self._commits >= CHECKPOINT_EVERY and (self._checkpointer is None or self._checkpointer.done()):
            self._commits = 0
            self._checkpointer = asyncio.create_task(self._checkpoint())
        return result, self._wal_sync.note_commit() if self._wal_sync is not None else 0

    def _check_file_is_ours(self) -> None:
        """The path still names the file the connections write (same device and inode)."""
        try:
            ours = files.file_identity(self._path) == self._identity
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
            await self._reader.run(lambda conn: conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall())
        except sqlite3.Error:
            log.warning("WAL checkpoint failed; the next one will retry", exc_info=True)

    async def _read(self, operation: Operation[T]) -> T:
        try:
            return await self._reader.run(snapshot(as_work(operation)))
        except sqlite3.Error as exc:
            raise store_error(exc, self._path, writing=False) from exc

    # -- the group commit -------------------------------------------------------------------------

    async def _append(self, action: games.Action) -> list[int]:
        loop = asyncio.get_running_loop()
        item = QueuedAction(action, loop.create_future())
        self._queued.append(item)
        if len(self._queued) == 1:
            loop.call_soon(self._commit_queued)
        await item.done  # a caller that gives up leaves its action in the batch: it is saved all the same
        return item.post_ids

    def _commit_queued(self) -> None:
        """Every action queued meanwhile goes into one transaction. Callers hear back once it is
        durable, by which time later batches may already be committed."""
        if not self._queued:
            return  # `close` committed them already
        batch, self._queued = self._queued, []
        outcomes: Sequence[Exception | None]
        try:
            outcomes, commit = self._commit(partial(append_batch, batch=batch, now=time.time()))
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

    # -- server settings --------------------------------------------------------------------------

    async def get_settings(self, guild_id: int) -> dict[str, Any]:
        """On the writer: one indexed row is cheaper here than a hand-off to the reader's thread."""
        try:
            return as_work(lambda tx: games.settings(tx, guild_id))(self._writer)
        except sqlite3.Error as exc:
            raise store_error(exc, self._path, writing=False) from exc
