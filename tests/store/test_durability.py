"""SQLite: with `synchronous=full` nothing is acknowledged before the log is on disk; the fsync runs off the
loop, and saves that arrive while one runs share the next. PostgreSQL: an acknowledged save survives a crash."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.engine import event_to_json
from bot.store import open_store
from bot.store.sqlite import durability
from devkit.pg import PgServer
from tests.store.helpers import random_game, seats_for, store_game


class HeldFsync:
    """os.fsync (and fdatasync) that records which file it synced and waits until the test lets it go."""

    def __init__(self, real: Callable[[int], None]) -> None:
        self.real = real
        self.synced: list[str] = []
        self.release = threading.Event()
        self.release.set()

    def __call__(self, fd: int) -> None:
        self.release.wait(timeout=10)
        self.synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        self.real(fd)


@pytest.fixture
def fsync(monkeypatch: pytest.MonkeyPatch) -> HeldFsync:
    held = HeldFsync(os.fsync)
    monkeypatch.setattr(os, "fsync", held)
    monkeypatch.setattr(durability, "sync_data", held)
    return held


async def test_full_acknowledges_only_after_the_log_is_synced(tmp_path: Path, fsync: HeldFsync) -> None:
    store = await open_store(f"sqlite:///{tmp_path / 'spades.db'}")
    try:
        games = {f"g{n}": random_game(f"g{n}", actions=6, seed=n) for n in range(5)}
        for n in range(5):
            await store_game(store, random_game(f"g{n}", actions=4, seed=n), seats_for("cutthroat"))
        assert fsync.synced and all(path.endswith("spades.db-wal") or path == str(tmp_path) for path in fsync.synced)

        fsync.release.clear()
        before = len(fsync.synced)
        first = asyncio.create_task(store.append_events("g0", 5, [event_to_json(e) for e in games["g0"].events[4:6]]))
        await asyncio.sleep(0.05)
        # the loop is free while the fsync runs: other saves commit, and wait for the next fsync
        others = [
            asyncio.create_task(store.append_events(g, 5, [event_to_json(e) for e in games[g].events[4:6]]))
            for g in ("g1", "g2", "g3", "g4")
        ]
        await asyncio.sleep(0.05)
        assert not first.done() and not any(task.done() for task in others)
        fsync.release.set()
        await asyncio.wait_for(asyncio.gather(first, *others), timeout=10)
        assert len(fsync.synced) - before == 2  # one for the first save, one shared by the four others
        for game_id, game in games.items():
            stored = await store.load_game(game_id)
            assert stored is not None and stored.game is not None
            assert stored.game.to_json() == game.to_json()
    finally:
        fsync.release.set()
        await store.close()


async def test_normal_never_syncs_on_a_save(tmp_path: Path, fsync: HeldFsync) -> None:
    store = await open_store(f"sqlite:///{tmp_path / 'spades.db'}?synchronous=normal")
    try:
        await store_game(store, random_game("g", actions=6, seed=3), seats_for("cutthroat"))
        assert fsync.synced == []
    finally:
        await store.close()


async def test_postgresql_keeps_an_acknowledged_save_through_a_crash_of_a_durable_server(
    pg_durable_server: PgServer,
) -> None:
    """The test suite's shared server trades durability for speed; production servers don't. On a
    server with PostgreSQL's crash-safe settings, a save the store acknowledged survives the
    postmaster being killed (no shutdown checkpoint) and comes back after crash recovery."""
    server = pg_durable_server
    assert server.sql("SHOW fsync").strip() == "on" and server.sql("SHOW synchronous_commit").strip() == "on"
    url = server.create_database("spades")
    store = await open_store(url)
    game = random_game("g", actions=8, seed=5)
    try:
        await store_game(store, random_game("g", actions=4, seed=5), seats_for("cutthroat"))
        await store.append_events("g", 5, [event_to_json(e) for e in game.events[4:8]])
    finally:
        server.kill()
        await store.close()
    server.start()
    store = await open_store(url)
    try:
        stored = await store.load_game("g")
        assert stored is not None and stored.game is not None and stored.game.to_json() == game.to_json()
    finally:
        await store.close()
