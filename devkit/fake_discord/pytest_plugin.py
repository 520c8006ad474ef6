"""pytest fixtures for end-to-end tests against FakeDiscord.

Wire with `pytest_plugins = ["devkit.fake_discord.pytest_plugin"]` in the root conftest.
Fixtures:
- `fake_discord`: a started FakeDiscord; teardown fails the test if a protocol error was recorded.
  `@pytest.mark.fake_discord(**options)` passes options to FakeDiscord, e.g. Discord's rate limits
  on: `@pytest.mark.fake_discord(**DISCORD_LIMITS)` (from devkit.fake_discord.ratelimits).
- `bot_runner`: async factory `await bot_runner(db_path=None, extra_env=None, **kw) -> BotProcess`
  that starts `python -m bot` against `fake_discord`; every process is killed at teardown.
  `readies=N` waits for N READYs (a process running N shards).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from .bot_process import BotProcess
from .server import FakeDiscord

BotRunner = Callable[..., Awaitable[BotProcess]]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fake_discord(**options): FakeDiscord options for the fake_discord fixture")


@contextlib.asynccontextmanager
async def started_fake_discord(*, check_errors: bool = True, **kwargs: Any) -> AsyncIterator[FakeDiscord]:
    """Start a FakeDiscord; on exit stop it and raise if protocol errors were recorded."""
    fake = FakeDiscord(**kwargs)
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()
    if check_errors:
        fake.assert_no_errors()


@pytest_asyncio.fixture
async def fake_discord(request: pytest.FixtureRequest) -> AsyncIterator[FakeDiscord]:
    marker = request.node.get_closest_marker("fake_discord")
    async with started_fake_discord(**(marker.kwargs if marker is not None else {})) as fake:
        yield fake


@pytest_asyncio.fixture
async def bot_runner(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[BotRunner]:
    processes: list[BotProcess] = []

    async def run(
        db_path: Path | str | None = None, extra_env: Mapping[str, str] | None = None, **kwargs: Any
    ) -> BotProcess:
        path = Path(db_path) if db_path is not None else tmp_path / "bot.sqlite3"
        wait_ready = kwargs.pop("wait_ready", True)
        timeout = kwargs.pop("timeout", 30.0)
        readies = kwargs.pop("readies", 1)
        bot = BotProcess(fake_discord, path, extra_env, **kwargs)
        processes.append(bot)  # registered before waiting so teardown kills it even on failure
        await bot.start()
        if wait_ready:
            await bot.wait_ready(timeout, readies=readies)
        return bot

    try:
        yield run
    finally:
        for bot in processes:
            bot.kill()
            with contextlib.suppress(Exception):
                await bot.wait_exit()
