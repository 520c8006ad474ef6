"""`python -m bot migrate-to`: a SQLite database with games, seasons and a tournament moves to an
empty PostgreSQL database and back, and players see the same everywhere; a target that isn't empty,
a missing source and a copy that doesn't match are refused, leaving the target as it was."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.ops.tables import TABLES, PostgresSide, Rows
from bot.store import Post, open_store
from devkit.pg import PgServer
from tests.ops.filled import build, what_players_see
from tests.store.helpers import GUILD, run_sql


def _counts(url: str) -> dict[str, int]:
    found = run_sql(url, *(f"SELECT count(*) FROM {table}" for table in TABLES))
    return {table: rows[0][0] for table, rows in zip(TABLES, found, strict=True)}


async def _new_ids(url: str) -> tuple[list[int], int]:
    """Ids the moved database hands out next: a post, a season."""
    store = await open_store(url)
    try:
        posts = await store.add_posts("mid", [Post("table", {"after": "move"})])
        season = await store.start_season(GUILD + 1, "Autumn", channel_id=5, started_at=0)
        return posts, season.season_id
    finally:
        await store.close()


def test_a_database_moves_to_postgresql_and_back_and_players_see_the_same(
        tmp_path: Path, pg_empty_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    sqlite_url = f"sqlite:///{tmp_path / 'spades.db'}"
    asyncio.run(build(sqlite_url))
    seen = asyncio.run(what_players_see(sqlite_url))
    counts = _counts(sqlite_url)
    assert all(counts.values()), counts  # every table has something to move

    assert main(["migrate-to", pg_empty_url, "--from", sqlite_url]) == 0
    said = capsys.readouterr().out
    assert "games 5, seats " in said and "5 games replay the same" in said and "1 tournament reads the same" in said
    assert "spades-test-password" not in said
    assert _counts(pg_empty_url) == counts
    assert asyncio.run(what_players_see(pg_empty_url)) == seen

    back_url = f"sqlite:///{tmp_path / 'back' / 'spades.db'}"
    assert main(["migrate-to", back_url, "--from", pg_empty_url]) == 0
    assert _counts(back_url) == counts
    assert asyncio.run(what_players_see(back_url)) == seen

    # New rows never take a moved one's id, on either side.
    highest_post = run_sql(sqlite_url, "SELECT max(post_id) FROM outbox")[0][0][0]
    for url in (pg_empty_url, back_url):
        posts, season = asyncio.run(_new_ids(url))
        assert posts[0] > highest_post and season > 2


def test_a_target_that_is_not_empty_is_refused_and_left_as_it_was(
        tmp_path: Path, pg_url: str, pg_server: PgServer, capsys: pytest.CaptureFixture[str]) -> None:
    sqlite_url = f"sqlite:///{tmp_path / 'spades.db'}"
    asyncio.run(build(sqlite_url))
    assert main(["migrate-to", pg_url, "--from", sqlite_url]) == 0  # a migrated but empty database is fine
    capsys.readouterr()
    before = _counts(pg_url)

    assert main(["migrate-to", pg_url, "--from", sqlite_url]) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "is not empty (games: 5" in said and "only fills an empty database" in said
    assert _counts(pg_url) == before

    other = pg_server.create_database("someone_elses")
    pg_server.sql("CREATE TABLE invoices (n INTEGER)", "someone_elses")
    assert main(["migrate-to", other, "--from", sqlite_url]) == 2
    assert "holds tables that aren't the bot's (invoices)" in capsys.readouterr().err
    assert pg_server.sql("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
                         "someone_elses").strip() == "1"  # the bot's schema was not created there


def test_a_missing_source_two_databases_of_one_kind_or_no_server_are_refused(
        tmp_path: Path, pg_empty_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nothing.db"
    assert main(["migrate-to", pg_empty_url, "--from", f"sqlite:///{missing}"]) == 2
    assert f"there is no database at {missing}" in capsys.readouterr().err
    assert not missing.exists()
    assert main(["migrate-to", f"sqlite:///{tmp_path / 'b.db'}", "--from", f"sqlite:///{missing}"]) == 2
    assert "between SQLite and PostgreSQL" in capsys.readouterr().err

    sqlite_url = f"sqlite:///{tmp_path / 'spades.db'}"
    asyncio.run(build(sqlite_url))
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        nobody_there = f"postgresql://spades:secret@127.0.0.1:{probe.getsockname()[1]}/spades"
    assert main(["migrate-to", nobody_there, "--from", sqlite_url]) == 2
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and said.startswith("error: ") and "secret" not in said, said


def test_a_copy_that_differs_from_its_source_is_caught(
        tmp_path: Path, pg_empty_url: str, pg_server: PgServer, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    sqlite_url = f"sqlite:///{tmp_path / 'spades.db'}"
    asyncio.run(build(sqlite_url))
    copy = PostgresSide.insert

    async def losing_one_event(side: PostgresSide, table: str, columns: Sequence[str], rows: Rows) -> None:
        await copy(side, table, columns, rows[1:] if table == "events" else rows)

    monkeypatch.setattr(PostgresSide, "insert", losing_one_event)
    assert main(["migrate-to", pg_empty_url, "--from", sqlite_url]) == 1
    assert "table events:" in capsys.readouterr().err
    assert not any(_counts(pg_empty_url).values())  # the whole copy was rolled back

    async def changing_one_event(side: PostgresSide, table: str, columns: Sequence[str], rows: Rows) -> None:
        if table == "events":  # the same number of rows, but the first game's last event is another one
            at = columns.index("event_json")
            last = max(n for n, row in enumerate(rows) if row[0] == rows[0][0])
            rows = [*rows]
            rows[last] = (*rows[last][:at], rows[last - 1][at], *rows[last][at + 1:])
        await copy(side, table, columns, rows)

    monkeypatch.setattr(PostgresSide, "insert", changing_one_event)
    assert main(["migrate-to", pg_empty_url, "--from", sqlite_url]) == 1
    assert "reads differently after the move" in capsys.readouterr().err
