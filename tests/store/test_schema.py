"""Opening a database: the URL, the file and folder, pragmas, migrations (numbered alike on both
backends, tracked in the database), and refusing newer schemas."""

from __future__ import annotations

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
from bot.store.postgresql import migrate as pg_migrate
from bot.store.schema import Migration, latest_version, migrations, split_statements
from bot.store.sqlite import migrate as sqlite_migrate
from tests.store.helpers import run_sql
from tests.store.old_schemas import build_version


@pytest.fixture
def empty_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A database that doesn't exist yet (SQLite) or has no table (PostgreSQL)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'spades.db'}"
    return str(request.getfixturevalue("pg_empty_url"))


def schema_version(url: str) -> int:
    if url.startswith("sqlite:///"):
        [[(version,)]] = run_sql(url, "PRAGMA user_version")
    else:
        [[(version,)]] = run_sql(url, "SELECT coalesce(max(version), 0) FROM schema_migrations")
    return int(version)


def tables(url: str) -> set[str]:
    if url.startswith("sqlite:///"):
        [found] = run_sql(url, "SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        [found] = run_sql(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    return {name for (name,) in found}


def test_both_backends_ship_the_same_numbered_steps() -> None:
    assert latest_version() >= 5
    for dialect in ("sqlite", "postgresql"):
        assert [m.version for m in migrations(dialect)] == list(range(1, latest_version() + 1))
    assert [m.name for m in migrations("sqlite")] == [m.name for m in migrations("postgresql")]


async def test_an_empty_database_gets_every_table_and_the_latest_version(empty_url: str) -> None:
    store = await open_store(empty_url)
    await store.close()
    assert {"games", "seats", "events", "results", "ratings", "guild_settings", "outbox"} <= tables(empty_url)
    assert schema_version(empty_url) == latest_version()


async def test_sqlite_creates_the_file_and_its_folders(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deeper" / "spades.db"
    store = await open_store(f"sqlite:///{path}")
    await store.close()
    assert path.exists()


async def test_postgresql_records_each_migration_in_the_database(pg_empty_url: str) -> None:
    store = await open_store(pg_empty_url)
    await store.close()
    [applied] = run_sql(pg_empty_url, "SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
    assert [(version, name) for version, name, _ in applied] == [(m.version, m.name) for m in migrations("postgresql")]
    assert all(applied_at > 0 for _, _, applied_at in applied)


@pytest.mark.parametrize("option", ["", "?synchronous=normal"])
async def test_sqlite_connection_pragmas(tmp_path: Path, option: str) -> None:
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
async def test_upgrade_from_each_older_version_keeps_data(empty_url: str, version: int) -> None:
    build_version(empty_url, version)
    store = await open_store(empty_url)
    try:
        assert schema_version(empty_url) == latest_version()
        if version >= 1:
            info = await store.get_game("old")
            assert info is not None
            assert info.rules == {"target": 300}
            assert info.deadline is None
            assert info.seats == (Seat(0, "ann", user_id=7), Seat(1, "easy bot", bot_level="easy"))
        # the upgraded database takes every kind of write
        await store.create_game("new", guild_id=1, channel_id=3, mode="cutthroat", rules={}, host_id=None)
        await store.update_settings(1, {"mode": "solo"})
        assert await store.get_settings(1) == {"mode": "solo"}
        await store.add_posts("new", [Post("table", {"n": 1})])
        assert [(p.game_id, p.payload) for p in await store.pending_posts()] == [("new", {"n": 1})]
    finally:
        await store.close()


async def test_upgrading_sqlite_keeps_only_the_newest_active_game_of_a_channel(tmp_path: Path) -> None:
    """Before V005 nothing stopped two active games in one channel; the bot showed the newest."""
    url = f"sqlite:///{tmp_path / 'spades.db'}"
    build_version(url, 4)
    run_sql(
        url,
        "INSERT INTO games (game_id, guild_id, channel_id, mode, rules_json, status, created_at) VALUES"
        " ('older', 1, 2, 'solo', '{}', 'playing', 50.0), ('other', 1, 9, 'solo', '{}', 'lobby', 60.0)",
    )

    await (await open_store(url)).close()
    [statuses] = run_sql(url, "SELECT game_id, status FROM games ORDER BY game_id")
    assert statuses == [("old", "lobby"), ("older", "cancelled"), ("other", "lobby")]


async def test_reopening_the_latest_version_changes_nothing(db_url: str) -> None:
    store = await open_store(db_url)
    await store.create_game("g", guild_id=1, channel_id=2, mode="cutthroat", rules={}, host_id=None)
    await store.close()
    store = await open_store(db_url)
    try:
        assert await store.get_game("g") is not None
        assert schema_version(db_url) == latest_version()
    finally:
        await store.close()


async def test_a_newer_database_is_refused_and_left_untouched(empty_url: str) -> None:
    build_version(empty_url, latest_version())
    if empty_url.startswith("sqlite:///"):
        run_sql(empty_url, f"PRAGMA user_version = {latest_version() + 1}")
    else:
        run_sql(empty_url, f"INSERT INTO schema_migrations VALUES ({latest_version() + 1}, 'from_the_future', 0)")
    def state() -> object:
        if empty_url.startswith("sqlite:///"):
            return Path(empty_url.removeprefix("sqlite:///")).read_bytes()
        return tables(empty_url), run_sql(empty_url, "SELECT * FROM games", "SELECT * FROM seats")

    before = state()
    with pytest.raises(SchemaTooNewError, match=r"newer version of the bot.*not changed"):
        await open_store(empty_url)
    assert state() == before
    assert schema_version(empty_url) == latest_version() + 1


async def test_migrations_run_in_one_transaction(empty_url: str, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    build_version(empty_url, 1)
    dialect = "sqlite" if backend == "sqlite" else "postgresql"
    broken_step = Migration(latest_version() + 1, "broken", "CREATE TABLE half (a INTEGER); SELECT nope;")
    broken = (*migrations(dialect), broken_step)
    module = sqlite_migrate if backend == "sqlite" else pg_migrate
    monkeypatch.setattr(module, "migrations", lambda dialect: broken)
    monkeypatch.setattr(module, "latest_version", lambda: len(broken))
    with pytest.raises(StoreError, match='column "?nope"? does not exist|no such column: nope'):
        await open_store(empty_url)
    assert schema_version(empty_url) == 1
    assert "half" not in tables(empty_url)
    assert "results" not in tables(empty_url)  # V002 rolled back with the broken one


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
        "spades.db",
        "sqlite:///",
        "sqlite:///:memory:",
        "sqlite:///x.db?synchronous=off",
        "sqlite:///x.db?cache=shared",
    ],
)
def test_unsupported_sqlite_urls(url: str) -> None:
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
