"""Start-up as an operator sees it: one clear line and exit code 2 for a missing or rejected token,
and slash commands synced only when they changed since the last start."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.fake_discord import FakeDiscord
from tests.fake_discord.pytest_plugin import BotRunner


def _error_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("error:")]


async def test_a_rejected_token_prints_one_line_and_exits_2(fake_discord: FakeDiscord,
                                                              bot_runner: BotRunner) -> None:
    bot = await bot_runner(extra_env={"DISCORD_TOKEN": "not-the-token"}, wait_ready=False)
    assert await bot.wait_exit(20) == 2
    log = bot.log_text()
    assert _error_lines(log) == [_error_lines(log)[0]] and "Discord rejected DISCORD_TOKEN" in log
    assert "Traceback" not in log


async def test_a_missing_token_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 2
    assert err.decode().strip().splitlines() == [
        "error: DISCORD_TOKEN is not set: put it in .env or the environment (see .env.example)."]
    assert out == b""


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
