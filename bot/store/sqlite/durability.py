"""Making SQLite's commits durable off the event loop.

SQLite itself runs with `synchronous=NORMAL`, which in WAL mode writes each commit to the log
without syncing it; the store then fsyncs the log on a thread of its own before the caller hears
back, which is exactly what `synchronous=FULL` does at COMMIT. The fsync (about 0.4 ms, most of a
write) is the one thing done off the loop. One fsync covers every commit made before it started, so
commits that pile up behind one share the next. On this VM an fsync usually takes under a
millisecond but stalls for 100-600 ms when both cores are busy; with the fsync off the loop, a
stall delays only the saves waiting for it, not every channel's replies.

An fsync of the log that fails is `StoreUnavailable`, but those commits are made (visible, maybe
not on disk); the next fsync is tried afresh.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bot.store.errors import StoreUnavailable

# What SQLite itself calls at COMMIT on Linux: the data and the file size, not the timestamps, so a
# log overwritten in place needs no journal commit of the file system. macOS has no fdatasync.
sync_data: Callable[[int], None] = getattr(os, "fdatasync", os.fsync)


class WalSync:
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
        sync_data(self._fd)

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
