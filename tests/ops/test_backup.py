"""`python -m bot backup PATH`: copies taken while another thread saves games each open and hold a
consistent state; a PostgreSQL URL, a missing database and an existing file are refused."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.store import open_store
from tests.store.helpers import finished_game, random_game, result, store_game


def _writer(url: str, stop: threading.Event, saved: list[int]) -> None:
    """The bot's store saving games, turn by turn, and finishing others, until told to stop."""

    async def write() -> None:
        store = await open_store(url)
        try:
            number = 0
            while not stop.is_set():
                number += 1
                await store_game(store, random_game(f"g{number}", actions=60, seed=number))
                await finished_game(store, f"f{number}", "cutthroat",
                                    [result(0, "1", 300, 1), result(1, "2", 200, 2), result(2, "3", 100, 3)])
                saved.append(number)
        finally:
            await store.close()

    asyncio.run(write())


async def _consistent(url: str) -> tuple[int, int]:
    """Every game replays from its events (each saved whole but the newest, which may have been
    mid-save as the copy was taken: created with none of its events yet, or some), every finished
    game has all its results; the numbers of games and events."""
    store = await open_store(url)
    try:
        with contextlib.closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as conn:
            ids = [row[0] for row in conn.execute("SELECT game_id FROM games")]
            counts = conn.execute(
                "SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM events),"
                " (SELECT count(*) FROM games g WHERE status = 'finished'"
                "  AND (SELECT count(*) FROM results r WHERE r.game_id = g.game_id) != 3)").fetchone()
        played = sorted((int(game_id[1:]) for game_id in ids if game_id.startswith("g")), reverse=True)
        for game_id in ids:
            stored = await store.load_game(game_id)
            assert stored is not None
            if game_id.startswith("g") and game_id != f"g{played[0]}":  # the newest may be mid-save
                assert stored.game is not None and stored.game.event_count == 60
        assert counts[2] == 0, "a finished game without all of its results"
        return counts[0], counts[1]
    finally:
        await store.close()


def test_backups_taken_while_games_are_saved_are_each_consistent(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'live' / 'spades.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.chdir(tmp_path)
    stop, saved = threading.Event(), list[int]()
    writer = threading.Thread(target=_writer, args=(url, stop, saved))
    writer.start()
    copies = []
    try:
        for n in range(6):
            while len(saved) < 2 * (n + 1):  # some games saved between one copy and the next
                assert writer.is_alive()
                writer.join(0.01)
            copies.append(tmp_path / f"copy{n}.db")
            assert main(["backup", str(copies[-1])]) == 0
            assert f"to {copies[-1]}" in capsys.readouterr().out
    finally:
        stop.set()
        writer.join()
    assert not list(tmp_path.glob("*.partial")) and not list(tmp_path.glob("copy*.db-wal"))  # each one file
    sizes = [asyncio.run(_consistent(f"sqlite:///{copy}")) for copy in copies]
    assert sizes == sorted(sizes) and sizes[0][0] >= 4 and sizes[-1][0] > sizes[0][0]


def test_what_a_backup_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.db"
    assert main(["backup", str(tmp_path / "b.db"), "--from", f"sqlite:///{missing}"]) == 2
    assert f"there is no database at {missing}" in capsys.readouterr().err
    assert not missing.exists() and not (tmp_path / "b.db").exists()

    assert main(["backup", str(tmp_path / "b.db"), "--from", "postgresql://u:secret@127.0.0.1/spades"]) == 2
    said = capsys.readouterr().err
    assert "pg_dump" in said and "secret" not in said

    source = tmp_path / "spades.db"
    asyncio.run(_consistent(f"sqlite:///{source}"))  # creates an empty database
    taken = tmp_path / "taken.db"
    taken.write_text("keep me")
    assert main(["backup", str(taken), "--from", f"sqlite:///{source}"]) == 2
    assert "already exists" in capsys.readouterr().err and taken.read_text() == "keep me"
