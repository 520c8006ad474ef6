"""An operator's mistake gets one clear line and loses nothing: a database file deleted or replaced
under a running bot, a damaged file, a second bot on the same file, a SQLite too old, a wrong
DATABASE_URL."""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.engine import event_to_json
from bot.store import DatabaseGone, DatabaseInUseError, DatabaseUrlError, StoreError, open_store
from tests.store import other_process
from tests.store.helpers import random_game, seats_for, store_game


@pytest.mark.parametrize("mistake", ["deleted", "replaced"])
async def test_a_database_file_deleted_or_replaced_while_running_refuses_every_write(
    tmp_path: Path, mistake: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "spades.db"
    store = await open_store(f"sqlite:///{path}")
    try:
        later = random_game("g", actions=6, seed=4)
        await store_game(store, random_game("g", actions=4, seed=4), seats_for("cutthroat"))
        if mistake == "deleted":
            path.unlink()
        else:  # an operator restores a copy over it
            shutil.copyfile(path, tmp_path / "copy.db")
            os.replace(tmp_path / "copy.db", path)
        with pytest.raises(DatabaseGone, match=r"spades\.db was deleted or replaced.*Restart the bot"):
            await store.append_events("g", 5, [event_to_json(later.events[4])])
        with pytest.raises(DatabaseGone):
            await store.update_settings(1, {"mode": "solo"})
        with pytest.raises(DatabaseGone):
            await store.append_events("g", 5, [event_to_json(later.events[4])])
        assert [r.levelno for r in caplog.records if "deleted or replaced" in r.getMessage()] == [logging.ERROR]
    finally:
        await store.close()


async def _damaged_database(path: Path) -> bytes:
    """A real database with one table page overwritten, as a failing disk might leave it."""
    store = await open_store(f"sqlite:///{path}")
    for n in range(4):
        await store_game(store, random_game(f"g{n}", actions=60, seed=n), seats_for("cutthroat"))
    await store.close()
    with sqlite3.connect(path) as conn:
        [root] = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchone()
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(path, "r+b") as file:
        file.seek((root - 1) * page_size + 8)
        file.write(b"\x7f" * 64)
    return path.read_bytes()


async def test_a_damaged_database_is_refused_at_start_and_left_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    damaged = await _damaged_database(path)
    with pytest.raises(StoreError, match=r"spades\.db is not a readable SQLite database .*it was not changed"):
        await open_store(f"sqlite:///{path}")
    assert path.read_bytes() == damaged


async def test_a_second_bot_process_on_the_same_file_is_refused_until_the_first_closes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'spades.db'}"
    first = other_process.start("open-store", url)
    assert first.stdin is not None and first.stdout is not None
    try:
        assert first.stdout.readline() == "open\n"
        with pytest.raises(DatabaseInUseError, match="in use by another bot process.*PostgreSQL"):
            await open_store(url)
        first.stdin.write("close\n")
        first.stdin.flush()
        assert first.stdout.readline() == "closed\n"
        store = await open_store(url)  # the first process still runs, but has closed its store
        await store.close()
    finally:
        first.communicate("exit\n", timeout=30)
    assert first.returncode == 0


async def test_closing_releases_the_file_for_the_next_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'spades.db'}"
    store = await open_store(url)
    with pytest.raises(DatabaseInUseError):
        await open_store(url)
    await store.close()
    store = await open_store(url)
    await store.close()


async def test_a_sqlite_too_old_for_the_sql_is_refused_before_anything_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite3, "sqlite_version", "3.37.2")
    with pytest.raises(StoreError, match=r"SQLite 3\.37\.2 is too old: the bot needs SQLite 3\.38\.0 or newer"):
        await open_store(f"sqlite:///{tmp_path / 'data' / 'spades.db'}")
    assert list(tmp_path.iterdir()) == []


async def test_a_database_url_naming_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUrlError, match="which is a folder; name a file in it"):
        await open_store(f"sqlite:///{tmp_path}")


@pytest.mark.parametrize("under", ["notes.txt/spades.db", "notes.txt/more/spades.db"])
async def test_a_database_url_under_a_file_is_refused(tmp_path: Path, under: str) -> None:
    (tmp_path / "notes.txt").write_text("not a folder")
    with pytest.raises(DatabaseUrlError, match=r"notes\.txt is a file, not a folder"):
        await open_store(f"sqlite:///{tmp_path / under}")
    assert (tmp_path / "notes.txt").read_text() == "not a folder"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://bot@localhost/spades", "PostgreSQL support isn't available yet"),
        ("postgres://bot@localhost/spades", "PostgreSQL support isn't available yet"),
        ("mysql://localhost/spades", "scheme 'mysql' is not supported; use sqlite:///"),
        ("sqlite:///", "must name a database file"),
    ],
)
async def test_database_url_mistakes_say_what_is_wrong(url: str, message: str) -> None:
    with pytest.raises(DatabaseUrlError, match=message):
        await open_store(url)
