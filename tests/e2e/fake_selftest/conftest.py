"""Fixtures of the fake's self-tests: `env`, the fake with SelfTestBot in a server of three people;
`table`, the fake with PanelBot."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from devkit.fake_discord.pytest_plugin import started_fake_discord
from tests.e2e.fake_selftest.clients import Env, running, running_bot
from tests.e2e.fake_selftest.panel_bot import PanelBot, Table


@pytest_asyncio.fixture
async def env() -> AsyncIterator[Env]:
    async with started_fake_discord() as fake:
        owner = fake.create_user("Owner")
        alice = fake.create_user("Alice")
        bob = fake.create_user("Bob")
        guild = fake.create_guild("Spades Club", owner)
        fake.add_member(guild, alice)
        fake.add_member(guild, bob)
        channel = fake.create_channel(guild, "spades")
        async with running_bot(fake) as bot:
            yield Env(fake, bot, bot.events, guild, channel, owner, alice, bob)


@pytest_asyncio.fixture
async def table() -> AsyncIterator[Table]:
    async with started_fake_discord() as fake:
        bot = PanelBot()
        world = Table(fake, bot)
        async with running(fake, bot):
            yield world
