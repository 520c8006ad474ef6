"""Start-up as an operator sees it: one clear line and exit code 2 for a missing or rejected token
(and no database file left behind), and slash commands synced only when they changed since the
last start."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from devkit.fake_discord import FakeDiscord
from devkit.fake_discord.pytest_plugin import BotRunner


def _error_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("error:")]


async def test_a_rejected_token_prints_one_line_exits_2_and_leaves_no_database(
        fake_discord: FakeDiscord, bot_runner: BotRunner, tmp_path: Path) -> None:
    db = tmp_path / "data" / "spades.db"
    bot = await bot_runner(db_path=db, extra_env={"DISCORD_TOKEN": "not-the-token"}, wait_ready=False,
                           log_path=tmp_path / "bot.log")
    assert await bot.wait_exit(20) == 2
    log = bot.log_text()
    assert _error_lines(log) == [_error_lines(log)[0]] and "Discord rejected DISCORD_TOKEN" in log
    assert "Traceback" not in log
    assert [p.name for p in tmp_path.iterdir()] == ["bot.log"]  # no database, lock or folder


async def test_a_missing_token_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2
    assert err.decode().strip().splitlines() == [
        "error: DISCORD_TOKEN is not set: put it in .env or the environment (see .env.example)."]
    assert out == b"" and list(tmp_path.iterdir()) == []  # no database file


async def test_commands_are_synced_once_and_not_again_when_unchanged(fake_discord: FakeDiscord,
                                                                     bot_runner: BotRunner) -> None:
    def syncs() -> int:
        return sum(1 for r in fake_discord.requests if r.method == "PUT" and r.path.endswith("/commands"))

    bot = await bot_runner()
    assert syncs() == 1
    assert fake_discord.find_command("spades") is not None
    await bot.restart()
    assert syncs() == 1, "an unchanged command tree must not be synced again"
    assert "slash commands unchanged; not syncing" in bot.log_text()


async def _start_and_fail(tmp_path: Path, **env: str) -> list[str]:
    """`python -m bot` with these settings: it must exit 2 with one line on stderr, nothing else."""
    full = {**os.environ, "DISCORD_TOKEN": "t", "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10", **env}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=tmp_path, env=full,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2, err.decode()
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err.decode(), lines
    return lines


async def test_setting_mistakes_are_one_clear_line(tmp_path: Path) -> None:
    cases = {
        "LOG_LEVEL": ("LOUD", "LOG_LEVEL must be one of"),
        "BOT_MOVE_DELAY": ("-1", "BOT_MOVE_DELAY must be between 0 and 60 seconds"),
        "TURN_TIMEOUT": ("abc", "TURN_TIMEOUT must be a number of seconds"),
        "SHARD_IDS": ("0,1", "SHARD_IDS needs SHARD_COUNT"),
        "SHARD_COUNT": ("0", "SHARD_COUNT must be a whole number from 1"),
    }
    for key, (value, said) in cases.items():
        [line] = await _start_and_fail(tmp_path, **{key: value})
        assert said in line, line
    [line] = await _start_and_fail(tmp_path, SHARD_COUNT="2", SHARD_IDS="1")
    assert "needs PostgreSQL" in line, line


async def test_database_mistakes_are_one_clear_line_and_touch_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    [line] = await _start_and_fail(tmp_path, DATABASE_URL=f"sqlite:///{folder}")
    assert "folder" in line or "directory" in line, line
    [line] = await _start_and_fail(tmp_path, DATABASE_URL="mysql://somewhere/db")
    assert "mysql" in line, line
    [line] = await _start_and_fail(tmp_path, DATABASE_URL="sqlite:///tmp")  # meant /tmp: made ./tmp
    assert "did you mean sqlite:////tmp/spades.db?" in line and not (tmp_path / "tmp").exists(), line


async def test_a_damaged_database_is_one_clear_line_and_left_as_it_is(fake_discord: FakeDiscord,
                                                                       bot_runner: BotRunner, tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\x01" * 4000)
    before = damaged.read_bytes()
    bot = await bot_runner(db_path=damaged, wait_ready=False, log_path=tmp_path / "bot.log")
    assert await bot.wait_exit(20) == 2
    [line] = _error_lines(bot.log_text())
    assert str(damaged) in line and "not a readable SQLite database" in line and damaged.read_bytes() == before


async def test_a_second_bot_on_the_same_file_is_refused(fake_discord: FakeDiscord, bot_runner: BotRunner,
                                                       tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite3"
    first = await bot_runner(db_path=db)
    second = await bot_runner(db_path=db, wait_ready=False, log_path=tmp_path / "second.log")
    assert await second.wait_exit(20) == 2
    assert "another bot process" in second.log_text() and first.running
