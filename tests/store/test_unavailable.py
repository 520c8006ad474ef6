"""Whatever the database, its driver or the OS does reaches callers as a StoreError: a lock another
process holds, a full disk, a log that won't sync, a damaged page, a PostgreSQL server that stops.
Nothing is half-saved, and the same store works again once the cause is gone."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import sqlite3
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.engine import event_to_json
from bot.store import Deadline, Post, Seat, Store, StoreError, StoreUnavailable, open_store
from bot.store.postgresql import connection as pg_connection
from bot.store.postgresql.errors import store_error as pg_store_error
from bot.store.sqlite import durability
from bot.store.sqlite import store as sqlite_store
from devkit.pg import PgServer
from tests.store import other_process
from tests.store.helpers import CHANNEL, GUILD, random_game, result, seats_for, store_game


class WriteLockHolder:
    """Another process inside BEGIN IMMEDIATE on the SQLite file, or another PostgreSQL session
    holding every table in EXCLUSIVE mode (reads go on, writes wait), until `release`."""

    def __init__(self, url: str) -> None:
        self.child = other_process.start("hold-write-lock", url)
        assert self.child.stdout is not None and self.child.stdout.readline() == "locked\n"

    def release(self) -> None:
        assert self.child.stdin is not None and self.child.stdout is not None
        if self.child.poll() is None:
            self.child.stdin.write("\n")
            self.child.stdin.flush()
            assert self.child.stdout.readline() == "released\n"
        assert self.child.wait(timeout=30) == 0


async def outcome(write: Awaitable[Any]) -> Exception | None:
    try:
        await write
    except Exception as error:
        return error
    return None


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Writes give up on another process's lock after 50 ms instead of a second."""
    monkeypatch.setattr(sqlite_store, "WRITER_BUSY_TIMEOUT_MS", 50)
    monkeypatch.setattr(pg_connection, "LOCK_TIMEOUT_MS", 50)


@pytest.fixture
def lock_holder(db_url: str) -> Iterator[Callable[[], WriteLockHolder]]:
    holders: list[WriteLockHolder] = []

    def hold() -> WriteLockHolder:
        holders.append(WriteLockHolder(db_url))
        return holders[-1]

    yield hold
    for holder in holders:
        holder.release()


async def test_a_lock_held_by_another_process_refuses_every_write_until_released(
    db_url: str, short_busy_timeout: None, lock_holder: Callable[[], WriteLockHolder]
) -> None:
    store = await open_store(db_url)
    try:
        later = {f"g{n}": random_game(f"g{n}", actions=6, seed=n) for n in range(3)}
        for n, game_id in enumerate(later):
            await store_game(store, random_game(game_id, actions=4, seed=n))
        await store.create_game("lobby", guild_id=GUILD, channel_id=CHANNEL, mode="solo", rules={}, host_id=1)
        await store.add_posts("g0", [Post("table", {"n": 0})])
        [before] = await store.pending_posts()

        def save(game_id: str) -> Any:
            events = [event_to_json(e) for e in later[game_id].events[4:6]]
            return store.append_events(game_id, 5, events, Deadline("remind", 9.0), [Post("hand_dealt", {})])

        holder = lock_holder()
        writes = {
            "append_events": save("g0"),
            "finish_game": store.finish_game("g1", [result(s, str(s + 1), 100 - s, s + 1) for s in range(3)],
                                             [Post("game_over", {})]),
            "cancel_game": store.cancel_game("g2", [Post("cancelled", {})]),
            "set_seats": store.set_seats("lobby", [Seat(0, "ann", user_id=7)]),
            "create_game": store.create_game("new", guild_id=GUILD, channel_id=CHANNEL, mode="solo", rules={},
                                             host_id=1),
            "start_game": store.start_game("lobby", random_game("lobby", "solo").setup_json()),
            "set_deadline": store.set_deadline("g2", Deadline("takeover", 1.0)),
            "set_table_message": store.set_table_message("g2", 5),
            "update_settings": store.update_settings(GUILD, {"mode": "solo"}),
            "add_posts": store.add_posts("g2", [Post("table", {})]),
            "posts_delivered": store.posts_delivered([before.post_id]),
        }  # fmt: skip
        outcomes = {name: await outcome(write) for name, write in writes.items()}
        assert {name: type(error) for name, error in outcomes.items()} == dict.fromkeys(writes, StoreUnavailable)
        messages = [str(error) for error in outcomes.values()]
        assert all("holds a lock" in m and "nothing was saved" in m for m in messages), messages
        shared = await asyncio.gather(save("g1"), save("g2"), return_exceptions=True)  # one group commit
        assert [type(error) for error in shared] == [StoreUnavailable, StoreUnavailable]

        # nothing of any of them was stored
        for game_id in later:
            stored = await store.load_game(game_id)
            assert stored is not None and stored.game is not None
            assert (stored.info.status, stored.game.event_count, stored.info.deadline) == ("playing", 4, None)
        assert await store.pending_posts() == [before]
        assert await store.get_game("new") is None
        lobby = await store.get_game("lobby")
        assert lobby is not None and lobby.seats == () and lobby.status == "lobby"
        assert await store.get_settings(GUILD) == {}

        holder.release()
        await save("g0")  # the very same call, on the same store
        await asyncio.gather(save("g1"), save("g2"))
        for game_id, game in later.items():
            stored = await store.load_game(game_id)
            assert stored is not None and stored.game is not None
            assert stored.game.to_json() == game.to_json()
            assert stored.info.deadline == Deadline("remind", 9.0)
        assert [p.kind for p in await store.pending_posts()] == ["table", "hand_dealt", "hand_dealt", "hand_dealt"]
    finally:
        await store.close()


def test_a_full_disk_refuses_writes_whole_and_they_work_once_there_is_room(tmp_path: Path) -> None:
    """In a process of its own, since the file size limit applies to the whole process."""
    url = f"sqlite:///{tmp_path / 'spades.db'}"
    child = other_process.start("fill-disk", url)
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0
    report = json.loads(out)
    assert all(outcome.startswith("StoreUnavailable: ") and "nothing was saved" in outcome
               for outcome in report["full"]), report["full"]  # fmt: skip
    assert report["stored_when_full"] == {"games": {"g": ["playing", 4], "h": ["playing", 4]}, "posts": []}
    assert report["settings_when_full"] == {}
    assert report["after"] == [None, None, None]
    assert report["stored_after"] == {"games": {"g": ["playing", 6], "h": ["playing", 6]},
                                      "posts": ["hand_dealt", "hand_dealt"]}  # fmt: skip
    assert report["settings_after"] == {"mode": "solo"}
    with sqlite3.connect(tmp_path / "spades.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT game_id, count(*) FROM events GROUP BY game_id").fetchall() == [("g", 6), ("h", 6)]


class FailingSync:
    """The log's fsync reports an I/O error `failures` times, then works."""

    def __init__(self, failures: int) -> None:
        self.failures = failures

    def __call__(self, fd: int) -> None:
        if self.failures:
            self.failures -= 1
            raise OSError(errno.EIO, "Input/output error")
        os.fsync(fd)


async def test_a_log_that_fails_to_sync_is_reported_and_the_next_sync_is_tried_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await open_store(f"sqlite:///{tmp_path / 'spades.db'}")
    try:
        await _two_saves_sync_once_failing(store, monkeypatch)
    finally:
        await store.close()


async def _two_saves_sync_once_failing(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    later = {f"g{n}": random_game(f"g{n}", actions=6, seed=n) for n in range(2)}
    for n, game_id in enumerate(later):
        await store_game(store, random_game(game_id, actions=4, seed=n), seats_for("cutthroat"))
    monkeypatch.setattr(durability, "sync_data", FailingSync(failures=1))
    outcomes = await asyncio.gather(
        *(store.append_events(g, 5, [event_to_json(later[g].events[4])]) for g in later), return_exceptions=True
    )
    assert all(isinstance(o, StoreUnavailable) and "could not be synced" in str(o) for o in outcomes), outcomes
    await asyncio.gather(*(store.append_events(g, 6, [event_to_json(later[g].events[5])]) for g in later))
    for game_id, game in later.items():
        stored = await store.load_game(game_id)
        assert stored is not None and stored.game is not None and stored.game.to_json() == game.to_json()


async def test_a_page_damaged_under_a_running_store_is_a_store_error_for_readers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'spades.db'}"
    store = await open_store(url)
    for n in range(30):
        await store.create_game(f"g{n}", guild_id=GUILD, channel_id=CHANNEL + n, mode="solo",
                                rules={"pad": "x" * 500}, host_id=n)  # fmt: skip
    await store.close()  # everything is checkpointed into the database file itself

    store = await open_store(url)
    try:
        with open(tmp_path / "spades.db", "r+b") as file:  # the disk garbles every page but the first
            size = file.seek(0, os.SEEK_END)
            file.seek(4096)
            file.write(b"\xa5" * (size - 4096))
        with pytest.raises(StoreError, match="damaged") as raised:
            await store.recent_games(GUILD, CHANNEL + 29)
        assert not isinstance(raised.value, StoreUnavailable)
    finally:
        await store.close()


async def test_a_postgresql_server_that_stops_refuses_writes_and_they_work_once_it_is_back(
    pg_own_server: PgServer,
) -> None:
    server = pg_own_server
    store = await open_store(server.create_database("spades"))
    try:
        later = random_game("g", actions=6, seed=2)
        await store_game(store, random_game("g", actions=4, seed=2), seats_for("cutthroat"))

        def save() -> Any:
            return store.append_events("g", 5, [event_to_json(e) for e in later.events[4:6]],
                                       Deadline("remind", 9.0), [Post("hand_dealt", {})])  # fmt: skip

        await asyncio.gather(*(store.get_game("g") for _ in range(5)))  # several pooled connections
        server.stop()
        for attempt in (save, lambda: store.update_settings(GUILD, {"mode": "solo"}), lambda: store.load_game("g")):
            with pytest.raises(StoreUnavailable, match=r"PostgreSQL \w+ 127\.0\.0\.1:\d+/spades"):
                await attempt()
        server.start()
        await save()  # the very same call, on the same store
        stored = await store.load_game("g")
        assert stored is not None and stored.game is not None and stored.game.to_json() == later.to_json()
        assert [p.kind for p in await store.pending_posts()] == ["hand_dealt"]
        assert await store.get_settings(GUILD) == {}
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("error", "unavailable", "says"),
    [
        (asyncpg.exceptions.DiskFullError("could not extend file"), True, "disk is full"),
        (asyncpg.exceptions.TooManyConnectionsError("sorry, too many clients"), True, "too many connections"),
        (asyncpg.exceptions.AdminShutdownError("terminating connection"), True, "shutting down"),
        (asyncpg.exceptions.LockNotAvailableError("canceling statement due to lock timeout"), True, "holds a lock"),
        (asyncpg.exceptions.SerializationError("could not serialize access"), True, "conflict"),
        (asyncpg.exceptions.PostgresIOError("could not read block"), True, "I/O error"),
        (ConnectionResetError(104, "Connection reset by peer"), True, "can't reach"),
        (asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed"), True, "connection to the server"),
        (asyncpg.exceptions.DataCorruptedError("invalid page in block 3"), False, "reports damage"),
        (asyncpg.exceptions.InvalidPasswordError("password authentication failed"), False, "refused the password"),
        (asyncpg.exceptions.InvalidCatalogNameError('database "x" does not exist'), False, "no such database"),
    ],
)
def test_postgresql_failures_are_store_errors_that_say_why(error: Exception, unavailable: bool, says: str) -> None:
    mapped = pg_store_error(error, "db.example:5432/spades", writing=True)
    assert isinstance(mapped, StoreUnavailable) == unavailable
    assert says in str(mapped) and "db.example:5432/spades" in str(mapped)


async def test_a_connection_lost_during_the_commit_says_the_save_may_have_been_made(
    pg_durable_server: PgServer,
) -> None:
    """A server whose commits wait for a standby that never comes; the session is ended while its
    COMMIT waits. PostgreSQL has committed locally by then, so "nothing was saved" would be wrong:
    the store says it can't tell, and the game shows the action once read back. (A durable server:
    a throwaway one doesn't wait for commits.)"""
    server = pg_durable_server
    store = await open_store(server.create_database("spades"))
    try:
        later = random_game("g", actions=5, seed=3)
        await store_game(store, random_game("g", actions=4, seed=3), seats_for("cutthroat"))
        server.sql("ALTER SYSTEM SET synchronous_standby_names = 'a_standby_that_never_comes'")
        server.sql("SELECT pg_reload_conf()")
        saving = asyncio.create_task(store.append_events("g", 5, [event_to_json(later.events[4])]))
        for _ in range(3000):
            if server.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'").strip() == "1":
                break
            await asyncio.sleep(0.01)
        else:
            raise AssertionError("the save's COMMIT never waited for the standby")
        server.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
        with pytest.raises(StoreUnavailable, match="while committing .*may or may not have been made"):
            await saving
        server.sql("ALTER SYSTEM RESET synchronous_standby_names")
        server.sql("SELECT pg_reload_conf()")
        stored = await store.load_game("g")
        assert stored is not None and stored.game is not None and stored.game.to_json() == later.to_json()
    finally:
        await store.close()
