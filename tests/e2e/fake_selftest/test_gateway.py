"""Self-test of the fake Discord's connection with a real discord.py bot: 429s retried without a word,
a dropped gateway resumed and replayed, a reconnect and an invalid session, a compressed gateway
with member chunking, and a bot run as a subprocess killed and started again."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import discord
import discord.gateway
import discord.http
import pytest

from devkit.fake_discord import (
    run_bot_subprocess,
)
from devkit.fake_discord.pytest_plugin import started_fake_discord
from tests.e2e.fake_selftest.clients import Env, running_bot

pytestmark = pytest.mark.asyncio


async def test_rate_limits_are_retried_transparently(env: Env) -> None:
    fake = env.fake
    fake.rate_limit_next("POST", "/channels/{channel_id}/messages", retry_after=0.2)
    fake.rate_limit_next("POST", "/interactions/*", retry_after=0.05)
    started = time.monotonic()
    inter = await fake.send_slash_command(
        env.alice, env.channel, "spades", subcommand="announce", options={"text": "hello"}
    )
    done = await fake.wait_for_followup(inter, lambda m: m.content == "announced")
    assert time.monotonic() - started >= 0.25
    assert done.ephemeral
    msg = await fake.wait_for_message(env.channel, lambda m: m.content == "hello")
    assert msg.attachments[0].filename == "scores.txt" and msg.attachments[0].data == b"scores"
    statuses = [(r.template, r.status) for r in fake.requests if r.method == "POST"]
    assert ("/channels/{channel_id}/messages", 429) in statuses
    assert ("/channels/{channel_id}/messages", 200) in statuses
    assert ("/interactions/{interaction_id}/{token}/callback", 429) in statuses


async def test_gateway_drop_resumes_and_replays(env: Env) -> None:
    fake = env.fake
    await fake.drop_gateway()
    # Dispatched while the socket is down: must be replayed after RESUME.
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="play", options={"card": "KS"})
    await fake.wait_for_resume()
    assert (await fake.wait_for_response(inter)).message.content == "You played KS"  # type: ignore[union-attr]
    await asyncio.wait_for(env.events.resumed.wait(), 2)
    later = await fake.send_slash_command(env.bob, env.channel, "spades", subcommand="play", options={"card": "QS"})
    assert (await fake.wait_for_response(later)).type == 4
    assert fake.gateway.identify_count == 1 and fake.gateway.resume_count == 1


async def test_reconnect_and_invalid_session(env: Env) -> None:
    fake = env.fake
    fake.send_gateway_reconnect()
    await fake.wait_for_resume()
    env.events.ready.clear()
    fake.invalidate_session()
    await fake.wait_for_ready(count=2)
    await asyncio.wait_for(env.events.ready.wait(), 2)
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="play", options={"card": "AC"})
    assert (await fake.wait_for_response(inter)).type == 4
    assert fake.gateway.identify_count == 2 and fake.gateway.heartbeat_count >= 2


async def test_compressed_gateway_and_member_chunking() -> None:
    async with started_fake_discord(compress_gateway=True) as fake:
        owner = fake.create_user("Owner")
        guild = fake.create_guild("Big", owner)
        for name in ("ann", "andy", "zed"):
            fake.add_member(guild, fake.create_user(name))
        channel = fake.create_channel(guild, "general")
        intents = discord.Intents.default()
        intents.members = True
        async with running_bot(fake, intents) as bot:
            assert fake.gateway.last_connect_query == {
                "v": "10",
                "encoding": "json",
                "compress": "zlib-stream",
            }
            found = await bot.get_guild(guild.id).query_members("an")  # type: ignore[union-attr]
            assert sorted(mb.name for mb in found) == ["andy", "ann"]
            late = fake.create_user("late")
            fake.add_member(guild, late)
            await fake.wait_until(lambda: bot.get_guild(guild.id).get_member(late.id), 2, "member add")  # type: ignore[union-attr]
            inter = await fake.send_slash_command(owner, channel, "spades", subcommand="play", options={"card": "AS"})
            assert (await fake.wait_for_response(inter)).type == 4


async def test_subprocess_runner_kill_and_restart(tmp_path: Path) -> None:
    script = tmp_path / "stub_bot.py"
    script.write_text(STUB_BOT)
    async with started_fake_discord() as fake:
        owner = fake.create_user("Owner")
        guild = fake.create_guild("G", owner)
        channel = fake.create_channel(guild, "general")
        bot = await run_bot_subprocess(
            fake,
            tmp_path / "db.sqlite3",
            {"STUB_GREETING": "hi"},
            argv=[sys.executable, str(script)],
            timeout=15,
        )
        try:
            inter = await fake.send_slash_command(owner, channel, "ping")
            first = (await fake.wait_for_response(inter)).message
            assert first is not None and first.content.startswith("hi sqlite:///")
            assert first.content.endswith("db.sqlite3 0")

            bot.kill()
            assert await bot.wait_exit() == -9
            await bot.restart(timeout=15)
            inter = await fake.send_slash_command(owner, channel, "ping")
            second = (await fake.wait_for_response(inter)).message
            assert second is not None and second.content == first.content
            assert fake.gateway.identify_count == 2 and bot.starts == 2
        finally:
            await bot.stop()


STUB_BOT = """
import os

import discord
import yarl
from discord import app_commands

discord.http.Route.BASE = os.environ["DISCORD_API_BASE"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["DISCORD_GATEWAY_URL"])


class StubBot(discord.Client):
    def __init__(self):
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.tree = app_commands.CommandTree(self)

    async def setup_hook(self):
        @self.tree.command(description="ping")
        async def ping(interaction: discord.Interaction):
            env = os.environ
            text = f"{env['STUB_GREETING']} {env['DATABASE_URL']} {env['BOT_MOVE_DELAY']}"
            await interaction.response.send_message(text)

        await self.tree.sync()


StubBot().run(os.environ["DISCORD_TOKEN"], log_handler=None)
"""
