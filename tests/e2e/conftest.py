"""Fixtures for end-to-end tests of the bot as it ships (`python -m bot`) against the fake Discord;
the helpers they drive it with are in `tests.e2e.helpers`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from devkit.fake_discord import FakeDiscord
from devkit.fake_discord.pytest_plugin import BotRunner
from tests.e2e.helpers.server import Spades


@pytest.fixture
def bot_env() -> dict[str, str]:
    """Extra environment for the bot (over TEST_ENV); override with parametrize."""
    return {}


@pytest_asyncio.fixture
async def spades(fake_discord: FakeDiscord, bot_runner: BotRunner, tmp_path: Path,
                 bot_env: dict[str, str]) -> AsyncIterator[Spades]:
    """The bot, running as it ships, in a fresh server; on teardown every interaction of the test
    must have been acknowledged in under a second (`fake_discord` also asserts no protocol error)."""
    world = Spades(fake_discord, bot_runner, tmp_path / "spades.sqlite3")
    await world.start_bot(bot_env)
    yield world
    world.assert_acknowledged()
