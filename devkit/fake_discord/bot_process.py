"""Run the real bot (`python -m bot`) as a subprocess wired to a FakeDiscord.

The subprocess is the production entry point, so end-to-end tests exercise the same startup,
config parsing and shutdown paths as a deployment; SIGKILL + restart tests crash recovery.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from .records import FakeDiscordTimeout
from .server import FakeDiscord

REPO_ROOT = Path(__file__).resolve().parents[2]


def bot_environment(
    fake: FakeDiscord, db_path: Path | str, extra_env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment the bot reads to find the fake Discord and its database."""
    env = dict(os.environ)
    env.update(
        {
            "DISCORD_TOKEN": fake.token,
            "DISCORD_API_BASE": fake.api_base,
            "DISCORD_GATEWAY_URL": fake.gateway_url,
            "DATABASE_URL": f"sqlite:///{Path(db_path).resolve()}",
            "BOT_MOVE_DELAY": "0",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra_env or {})
    return env


class BotProcess:
    """A bot subprocess: start, wait until it is connected, SIGKILL it, restart it."""

    def __init__(
        self,
        fake: FakeDiscord,
        db_path: Path | str,
        extra_env: Mapping[str, str] | None = None,
        *,
        argv: Sequence[str] | None = None,
        cwd: Path | str | None = None,
        log_path: Path | str | None = None,
    ) -> None:
        self.fake = fake
        self.db_path = Path(db_path)
        self.extra_env = dict(extra_env or {})
        self.argv = list(argv) if argv is not None else [sys.executable, "-m", "bot"]
        self.cwd = Path(cwd) if cwd is not None else REPO_ROOT
        self.log_path = Path(log_path) if log_path is not None else self.db_path.with_suffix(".bot.log")
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0
        self._ready_baseline = 0

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    @property
    def returncode(self) -> int | None:
        return None if self.proc is None else self.proc.returncode

    def log_text(self) -> str:
        """Everything the bot printed (stdout and stderr, all runs appended)."""
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    async def start(self) -> None:
        """Spawn the process (does not wait for it to connect)."""
        if self.running:
            raise RuntimeError("the bot is already running")
        self._ready_baseline = self.fake.gateway.ready_count
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            log.write(f"\n===== start #{self.starts + 1}: {' '.join(self.argv)}\n".encode())
            log.flush()
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv,
                cwd=str(self.cwd),
                env=bot_environment(self.fake, self.db_path, self.extra_env),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,  # a group of its own: `kill` takes its worker processes too
            )
        self.starts += 1

    async def wait_ready(self, timeout: float = 30.0, *, wait_commands: bool = True, readies: int = 1) -> None:
        """Wait until this run got `readies` READYs on the gateway (one per shard it runs) and
        commands are registered.

        Commands registered by an earlier run count (Discord keeps them), so a restarted
        bot that skips an unchanged sync is ready as soon as it has identified.
        """
        baseline = self._ready_baseline

        def ready() -> bool:
            if self.proc is not None and self.proc.returncode is not None:
                code = self.proc.returncode
                raise RuntimeError(f"the bot exited with code {code} before it was ready:\n{self._log_tail()}")
            if self.fake.gateway.ready_count < baseline + readies:
                return False
            if not wait_commands:
                return True
            return bool(self.fake.global_commands) or any(self.fake.guild_commands.values())

        try:
            await self.fake.wait_until(ready, timeout, "the bot to IDENTIFY and register its commands")
        except FakeDiscordTimeout as exc:
            raise FakeDiscordTimeout(f"{exc}\n--- bot log tail ---\n{self._log_tail()}") from None

    def kill(self) -> None:
        """SIGKILL to the bot and the processes it started (its computer players' and coach's
        pools): no cleanup, no graceful close, like a crash or an OOM kill of its container. (The
        pools' workers, killed with the bot alone, would wait on their queues forever.)"""
        if self.running:
            assert self.proc is not None
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    async def wait_exit(self, timeout: float = 10.0) -> int:
        if self.proc is None:
            raise RuntimeError("the bot was never started")
        return await asyncio.wait_for(self.proc.wait(), timeout)

    async def restart(self, *, wait_ready: bool = True, timeout: float = 30.0, readies: int = 1) -> None:
        """Kill (if running) and start again with the same database and environment."""
        if self.running:
            self.kill()
            await self.wait_exit()
        await self.start()
        if wait_ready:
            await self.wait_ready(timeout, readies=readies)

    async def stop(self, timeout: float = 5.0) -> int | None:
        """SIGTERM, then SIGKILL after `timeout` seconds; returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.terminate()
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                self.kill()
                await self.proc.wait()
        return self.proc.returncode


async def run_bot_subprocess(
    fake: FakeDiscord,
    db_path: Path | str,
    extra_env: Mapping[str, str] | None = None,
    *,
    wait_ready: bool = True,
    timeout: float = 30.0,
    argv: Sequence[str] | None = None,
    cwd: Path | str | None = None,
) -> BotProcess:
    """Start `python -m bot` against `fake` and (by default) wait until it is connected.

    Env: DISCORD_TOKEN, DISCORD_API_BASE, DISCORD_GATEWAY_URL, DATABASE_URL=sqlite:///<db_path>,
    BOT_MOVE_DELAY=0, plus `extra_env`. Output goes to `<db_path>.bot.log` (see `log_text()`).
    """
    bot = BotProcess(fake, db_path, extra_env, argv=argv, cwd=cwd)
    await bot.start()
    if wait_ready:
        try:
            await bot.wait_ready(timeout)
        except BaseException:
            bot.kill()
            raise
    return bot
