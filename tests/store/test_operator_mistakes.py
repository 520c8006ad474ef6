"""An operator's mistake gets one clear line and loses nothing: a database file deleted or replaced
under a running bot, a damaged file, a second bot on the same file, a SQLite too old, a wrong
DATABASE_URL, a PostgreSQL server that is down or refuses the user, password or database."""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.engine import event_to_json
from bot.store import (
    DatabaseGone,
    DatabaseInUseError,
    DatabaseUrlError,
    PostgresStore,
    StoreError,
    StoreUnavailable,
    open_store,
)
from devkit.pg import PASSWORD, PgServer, free_port
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
    ("path", "meant"),
    [
        ("tmp", "sqlite:////tmp/spades.db"),  # three slashes: ./tmp, not the system's /tmp
        ("var", "sqlite:////var/spades.db"),
        ("spades", "sqlite:///spades.db"),
        ("games/spades.sqlite3x", "sqlite:///games/spades.sqlite3x.db"),
    ],
)
async def test_a_new_file_not_named_as_a_database_is_refused_with_the_url_meant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str, meant: str
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(DatabaseUrlError) as refused:
        await open_store(f"sqlite:///{path}")
    said = str(refused.value)
    assert f"would make a new file {path} in the working directory ({tmp_path / path})" in said
    assert f"did you mean {meant}?" in said and "must end in .db, .sqlite or .sqlite3" in said
    assert "\n" not in said and list(tmp_path.iterdir()) == []


async def test_a_database_name_ends_in_db_sqlite_or_sqlite3_and_an_existing_one_keeps_its_name(
    tmp_path: Path,
) -> None:
    with pytest.raises(DatabaseUrlError, match=f"did you mean sqlite:///{tmp_path}/spades.db\\?"):
        await open_store(f"sqlite:///{tmp_path}/spades")
    for name in ("a.db", "b.sqlite", "c.SQLITE3"):
        await (await open_store(f"sqlite:///{tmp_path / name}")).close()
    (tmp_path / "a.db").rename(tmp_path / "spades")  # made by an older version, say
    store = await open_store(f"sqlite:///{tmp_path}/spades")
    await store.close()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://localhost/spades", "scheme 'mysql' is not supported; use sqlite:///.* or postgresql://"),
        ("sqlite:///", "must name a database file"),
        ("postgresql://bot@localhost:port/spades", "not a PostgreSQL URL asyncpg can read"),
    ],
)
async def test_database_url_mistakes_say_what_is_wrong(url: str, message: str) -> None:
    with pytest.raises(DatabaseUrlError, match=message):
        await open_store(url)


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
async def test_both_postgresql_schemes_open_the_postgresql_store(pg_url: str, scheme: str) -> None:
    store = await open_store(scheme + pg_url.removeprefix("postgresql"))
    try:
        assert isinstance(store, PostgresStore)
        await store.update_settings(1, {"mode": "solo"})
        assert await store.get_settings(1) == {"mode": "solo"}
    finally:
        await store.close()


async def test_a_postgresql_server_that_is_down_is_unavailable_in_one_line() -> None:
    url = f"postgresql://spades:secret@127.0.0.1:{free_port()}/spades"
    message = r"^can't reach the PostgreSQL server 127\.0\.0\.1:\d+/spades right now"
    with pytest.raises(StoreUnavailable, match=message) as raised:
        await open_store(url)
    assert "\n" not in str(raised.value) and "secret" not in str(raised.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"password": "wrong-password"}, "refused the password for this user; check the user and password"),
        ({"user": "nobody_here"}, "refused the password for this user"),  # the server doesn't say which
        ({"database": "no_such_db"}, "has no such database; create it"),
    ],
)
async def test_postgresql_refusals_say_what_to_fix(
    pg_server: PgServer, pg_url: str, change: dict[str, str], message: str
) -> None:
    url = pg_url
    if "password" in change:
        url = url.replace(f":{PASSWORD}@", f":{change['password']}@")
    if "user" in change:
        url = url.replace("//spades:", f"//{change['user']}:")
    if "database" in change:
        url = url.rsplit("/", 1)[0] + "/" + change["database"]
    with pytest.raises(StoreError, match=message) as raised:
        await open_store(url)
    assert not isinstance(raised.value, StoreUnavailable)
    assert "\n" not in str(raised.value) and PASSWORD not in str(raised.value)
