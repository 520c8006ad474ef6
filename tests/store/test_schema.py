"""Opening a database: the URL, the file and folder, pragmas, migrations, and refusing newer schemas."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import (
    DatabaseUrlError,
    Post,
    SchemaTooNewError,
    Seat,
    StoreError,
    open_store,
    parse_sqlite_url,
)
from bot.store import sqlite as sqlite_backend
from bot.store.schema import Migration, latest_version, migrations, split_statements


def build_version(path: Path, version: int) -> None:
    """A database exactly as a bot that knew only the first `version` migrations left it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    for migration in migrations()[:version]:
        for statement in migration.statements:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {version}")
    if version >= 1:  # a game in play, with seats and two events, as V001 stored them
        conn.execute(
            "INSERT INTO games (game_id, guild_id, channel_id, mode, rules_json, setup_json, status, host_id,"
            " created_at) VALUES ('old', 1, 2, 'solo', '{\"target\": 300}', NULL, 'lobby', 7, 100.0)"
        )
        conn.execute("INSERT INTO seats (game_id, seat, name, user_id, bot_level)"
                     " VALUES ('old', 0, 'ann', 7, NULL), ('old', 1, 'easy bot', NULL, 'easy')")
    conn.close()


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def test_at_least_two_versions_ship_as_package_data() -> None:
    assert latest_version() >= 2
    assert [m.version for m in migrations()] == list(range(1, latest_version() + 1))


async def test_empty_file_gets_every_table_and_the_latest_version(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / "spades.db"
    store = await open_store(f"sqlite:///{path}")
    await store.close()
    assert path.exists()
    assert {"games", "seats", "events", "results", "ratings", "guild_settings", "outbox"} <= tables(path)
    assert user_version(path) == latest_version()


@pytest.mark.parametrize("option", ["", "?synchronous=normal"])
async def test_connection_pragmas(tmp_path: Path, option: str) -> None:
    store = await open_store(f"sqlite:///{tmp_path / 'spades.db'}{option}")
    try:
        writer = store._writer  # type: ignore[attr-defined]
        assert writer.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert writer.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert writer.execute("PRAGMA busy_timeout").fetchone()[0] > 0
        assert writer.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL: the store syncs the log
    finally:
        await store.close()


@pytest.mark.parametrize("version", range(latest_version()))
async def test_upgrade_from_each_older_version_keeps_data(tmp_path: Path, version: int) -> None:
    path = tmp_path / "spades.db"
    build_version(path, version)
    store = await open_store(f"sqlite:///{path}")
    try:
        assert user_version(path) == latest_version()
        if version >= 1:
            info = await store.get_game("old")
            assert info is not None
            assert info.rules == {"target": 300}
            assert info.deadline is None
            assert info.seats == (Seat(0, "ann", user_id=7), Seat(1, "easy bot", bot_level="easy"))
        # the upgraded database takes every kind of write
        await store.create_game("new", guild_id=1, channel_id=2, mode="cutthroat", rules={}, host_id=None)
        await store.update_settings(1, {"mode": "solo"})
        assert await store.get_settings(1) == {"mode": "solo"}
        await store.add_posts("new", [Post("table", {"n": 1})])
        assert [(p.game_id, p.payload) for p in await store.pending_posts()] == [("new", {"n": 1})]
    finally:
        await store.close()


async def test_reopening_the_latest_version_changes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'spades.db'}"
    store = await open_store(url)
    await store.create_game("g", guild_id=1, channel_id=2, mode="cutthroat", rules={}, host_id=None)
    await store.close()
    store = await open_store(url)
    try:
        assert await store.get_game("g") is not None
    finally:
        await store.close()


async def test_newer_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    build_version(path, latest_version())
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA user_version = {latest_version() + 1}")
    before = path.read_bytes()
    with pytest.raises(SchemaTooNewError, match=r"newer version of the bot.*not changed"):
        await open_store(f"sqlite:///{path}")
    assert path.read_bytes() == before
    assert user_version(path) == latest_version() + 1


async def test_migrations_run_in_one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "spades.db"
    build_version(path, 1)
    broken = (*migrations(), Migration(latest_version() + 1, "broken", ("CREATE TABLE half (a)", "SELECT nope")))
    monkeypatch.setattr(sqlite_backend, "migrations", lambda: broken)
    monkeypatch.setattr(sqlite_backend, "latest_version", lambda: len(broken))
    with pytest.raises(StoreError, match="no such column: nope"):
        await open_store(f"sqlite:///{path}")
    assert user_version(path) == 1
    assert "half" not in tables(path)
    assert "results" not in tables(path)  # V002 rolled back with the broken one


async def test_a_file_that_is_not_a_database_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "spades.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a readable SQLite database"):
        await open_store(f"sqlite:///{path}")


@pytest.mark.parametrize(
    ("url", "parsed"),
    [
        ("sqlite:///spades.db", (Path("spades.db"), "full")),
        ("sqlite:///data/x.db", (Path("data/x.db"), "full")),
        ("sqlite:////var/lib/spades.db", (Path("/var/lib/spades.db"), "full")),
        ("sqlite:///x.db?synchronous=NORMAL", (Path("x.db"), "normal")),
    ],
)
def test_sqlite_urls(url: str, parsed: tuple[Path, str]) -> None:
    assert parse_sqlite_url(url) == parsed


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://localhost/spades",
        "spades.db",
        "sqlite:///",
        "sqlite:///:memory:",
        "sqlite:///x.db?synchronous=off",
        "sqlite:///x.db?cache=shared",
    ],
)
def test_unsupported_urls(url: str) -> None:
    with pytest.raises(DatabaseUrlError):
        parse_sqlite_url(url)


def test_split_statements_respects_strings_comments_and_triggers() -> None:
    script = """
    -- a comment; with a semicolon
    CREATE TABLE t (a TEXT DEFAULT 'x;y');
    CREATE TRIGGER tr BEFORE UPDATE ON t BEGIN SELECT 1; SELECT 2; END;
    -- trailing comment
    """
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[0].endswith("DEFAULT 'x;y');")
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")
    with pytest.raises(ValueError, match="unterminated"):
        split_statements("CREATE TRIGGER tr BEFORE UPDATE ON t BEGIN SELECT 1;")
