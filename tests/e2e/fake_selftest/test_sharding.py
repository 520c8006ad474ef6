"""Self-test of the fake Discord's sharding: real discord.py clients, in-process and as subprocesses,
each running some shards or all of them; each guild's events reach the session of its shard."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands

from devkit.fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeUser, run_bot_subprocess
from devkit.fake_discord.pytest_plugin import started_fake_discord
from tests.e2e.fake_selftest.clients import running

pytestmark = pytest.mark.asyncio


class Probe(discord.AutoShardedClient):
    """A minimal app whose `/where` answers with the client's name, so a test sees who answered."""

    def __init__(self, name: str, **options: Any) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05, **options)
        self.name = name
        self.tree = app_commands.CommandTree(self)
        self.ready = asyncio.Event()
        self.failures: list[discord.HTTPException] = []

        @self.tree.command(description="Which client answers")
        async def where(interaction: discord.Interaction) -> None:
            try:
                await interaction.response.send_message(self.name)
            except discord.HTTPException as exc:
                self.failures.append(exc)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py sleeps 5 s between shard IDENTIFYs (Discord's rate limit); skip it."""

    async def on_ready(self) -> None:
        self.ready.set()


def world(fake: FakeDiscord, shard_count: int) -> tuple[FakeUser, list[FakeGuild], list[FakeChannel]]:
    """An owner with one guild (and channel) on each shard of `shard_count`."""
    owner = fake.create_user("Owner")
    guilds = [fake.create_guild(f"G{k}", owner, shard=k, shard_count=shard_count) for k in range(shard_count)]
    return owner, guilds, [fake.create_channel(g, "spades") for g in guilds]


async def answer_text(fake: FakeDiscord, user: FakeUser, channel: FakeChannel) -> tuple[Any, str]:
    inter = await fake.send_slash_command(user, channel, "where")
    response = await fake.wait_for_response(inter)
    assert response.message is not None
    return inter, response.message.content


# ------------------------------------------------------------------------------------- sharding


async def test_guilds_are_placed_on_the_shard_asked_for() -> None:
    fake = FakeDiscord()
    owner = fake.create_user("Owner")
    for shard_count in (1, 2, 3, 16):
        for shard in range(shard_count):
            guild = fake.create_guild("G", owner, shard=shard, shard_count=shard_count)
            assert (guild.id >> 22) % shard_count == shard
    with pytest.raises(ValueError):
        fake.create_guild("G", owner, shard=1)
    with pytest.raises(ValueError):
        fake.create_guild("G", owner, shard=2, shard_count=2)


async def test_one_process_running_every_shard() -> None:
    async with started_fake_discord(recommended_shards=2) as fake:
        owner, guilds, channels = world(fake, 2)
        bot = Probe("auto")  # no shard_count: discord.py asks GET /gateway/bot how many to run
        async with running(fake, bot):
            assert bot.shard_count == 2
            await fake.wait_for_ready(shard=1, shard_count=2)
            assert fake.gateway.ready_count == 2
            assert fake.gateway.ready_count_for(0, 2) == fake.gateway.ready_count_for(1, 2) == 1
            [s0] = fake.gateway.sessions_for(0, 2)
            [s1] = fake.gateway.sessions_for(1, 2)
            assert (s0.guild_ids, s1.guild_ids) == ([guilds[0].id], [guilds[1].id])  # each READY: its guilds
            assert [bot.get_guild(g.id).shard_id for g in guilds] == [0, 1]  # type: ignore[union-attr]

            for k in (0, 1):
                inter, text = await answer_text(fake, owner, channels[k])
                assert text == "auto" and inter.shards == [(k, 2)] and inter.buffered_for == []
            dm, text = await answer_text(fake, owner, fake.dm_channel(owner))
            assert text == "auto" and dm.shards == [(0, 2)]  # DMs: shard 0 only

            late = fake.create_channel(guilds[1], "late")  # a guild event goes to its shard only
            await fake.wait_until(lambda: bot.get_channel(late.id), 2, "CHANNEL_CREATE on shard 1")
            assert [e for _, e, _ in s1.log].count("CHANNEL_CREATE") == 1
            assert "CHANNEL_CREATE" not in [e for _, e, _ in s0.log]


async def test_processes_each_running_some_shards() -> None:
    async with started_fake_discord() as fake:
        owner, guilds, channels = world(fake, 2)
        first = Probe("first", shard_ids=[0], shard_count=2)
        second = Probe("second", shard_ids=[1], shard_count=2)
        async with running(fake, first, second):
            assert [g.id for g in first.guilds] == [guilds[0].id]
            assert [g.id for g in second.guilds] == [guilds[1].id]
            for k, name in ((0, "first"), (1, "second")):
                inter, text = await answer_text(fake, owner, channels[k])
                assert (text, inter.shards) == (name, [(k, 2)])
            dm, text = await answer_text(fake, owner, fake.dm_channel(owner))
            assert (text, dm.shards) == ("first", [(0, 2)])

            await fake.drop_gateway(shard=1)  # only shard 1's socket: it resumes, shard 0 is untouched
            await fake.wait_for_resume()
            assert fake.gateway.identify_count == 2 and fake.gateway.resume_count == 1
            inter, text = await answer_text(fake, owner, channels[1])
            assert text == "second"


async def test_sessions_for_the_same_shard_both_get_its_events() -> None:
    """Discord routes each event by every session's own (shard_id, shard_count): two live sessions
    of one shard both get its interactions, and the slower answer fails with 40060."""
    async with started_fake_discord() as fake:
        owner, _, channels = world(fake, 2)
        one = Probe("one", shard_ids=[1], shard_count=2)
        two = Probe("two", shard_ids=[1], shard_count=2)
        whole = Probe("whole", shard_ids=[0], shard_count=1)  # resharding: the old single shard
        async with running(fake, one, two, whole):
            assert len(fake.gateway.live_sessions()) == 3  # none replaced another
            inter = await fake.send_slash_command(owner, channels[1], "where")
            assert sorted(inter.shards, key=str) == [(0, 1), (1, 2), (1, 2)]
            await fake.wait_until(lambda: len(one.failures + two.failures + whole.failures) == 2, 3, "two refusals")
            assert {e.code for e in one.failures + two.failures + whole.failures} == {40060}
            assert len(fake.take_errors(40060)) == 2
            assert inter.response is not None and inter.response.message is not None
            assert inter.response.message.content in ("one", "two", "whole")


async def test_gateway_refuses_bad_shards_and_oversized_sessions() -> None:
    async with started_fake_discord() as fake:
        owner = fake.create_user("Owner")
        for k in range(3):
            fake.create_guild(f"G{k}", owner, shard=k % 2, shard_count=2)
        fake.gateway.max_guilds_per_shard = 2

        async def identify(shard: list[int] | None) -> aiohttp.ClientWebSocketResponse:
            session = aiohttp.ClientSession()
            ws = await session.ws_connect(f"{fake.gateway_url}?v=10&encoding=json")
            ws._test_session = session  # type: ignore[attr-defined]
            assert (await ws.receive_json())["op"] == 10
            data: dict[str, Any] = {"token": fake.token, "intents": 1, "properties": {}}
            if shard is not None:
                data["shard"] = shard
            await ws.send_json({"op": 2, "d": data})
            return ws

        async def close_code(ws: aiohttp.ClientWebSocketResponse) -> int | None:
            while not ws.closed:
                msg = await ws.receive()
                if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    break
            await ws._test_session.close()  # type: ignore[attr-defined]
            return ws.close_code

        for bad in ([2, 2], [0, 0], [-1, 2], [0]):
            assert await close_code(await identify(bad)) == 4010
        assert await close_code(await identify(None)) == 4011  # 3 guilds on one session > 2
        fake.gateway.max_guilds_per_shard = 2500
        first = await identify(None)
        await fake.wait_for_ready(count=1)
        second = await identify(None)  # unsharded: the newer session replaces the older, as before
        assert await close_code(first) == 4009
        await fake.wait_for_ready(count=2)
        assert [s.invalidated for s in fake.gateway.sessions] == [True, False]
        assert fake.gateway.ready_count_for(None) == 2
        await second.close()
        await second._test_session.close()  # type: ignore[attr-defined]


SHARDED_STUB = """
import os

import discord
import yarl
from discord import app_commands

discord.http.Route.BASE = os.environ["DISCORD_API_BASE"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["DISCORD_GATEWAY_URL"])
shard_ids = [int(k) for k in os.environ["SHARD_IDS"].split(",")]


class Stub(discord.AutoShardedClient):
    def __init__(self):
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05,
                         shard_ids=shard_ids, shard_count=int(os.environ["SHARD_COUNT"]))
        self.tree = app_commands.CommandTree(self)

    async def before_identify_hook(self, shard_id, *, initial=False):
        pass

    async def setup_hook(self):
        @self.tree.command(description="which process")
        async def where(interaction: discord.Interaction):
            await interaction.response.send_message(os.environ["NAME"])

        if os.environ.get("SYNC"):
            await self.tree.sync()


Stub().run(os.environ["DISCORD_TOKEN"], log_handler=None)
"""


async def test_sharded_subprocesses_and_a_crashed_shard(tmp_path: Path) -> None:
    script = tmp_path / "sharded_stub.py"
    script.write_text(SHARDED_STUB)
    async with started_fake_discord() as fake:
        owner, _, channels = world(fake, 3)
        argv = [sys.executable, str(script)]
        env_a = {"SHARD_IDS": "0,1", "SHARD_COUNT": "3", "NAME": "a", "SYNC": "1"}
        a = await run_bot_subprocess(fake, tmp_path / "a.db", env_a, argv=argv, wait_ready=False)
        b = None
        try:
            await a.wait_ready(15, readies=2)  # both of its shards, and its command sync
            env_b = {"SHARD_IDS": "2", "SHARD_COUNT": "3", "NAME": "b"}
            b = await run_bot_subprocess(fake, tmp_path / "b.db", env_b, argv=argv, timeout=15)
            assert [fake.gateway.ready_count_for(k, 3) for k in range(3)] == [1, 1, 1]
            assert [(await answer_text(fake, owner, c))[1] for c in channels] == ["a", "a", "b"]

            b.kill()
            await b.wait_exit()
            [dead] = fake.gateway.sessions_for(2, 3)
            await fake.wait_until(lambda: not dead.connected, 5, "shard 2's socket to close")
            lost = await fake.send_slash_command(owner, channels[2], "where")
            assert lost.delivered_to == [] and lost.buffered_for == [dead]  # Discord keeps it for a RESUME
            await b.restart(timeout=15)
            assert fake.gateway.ready_count_for(2, 3) == 2
            inter, text = await answer_text(fake, owner, channels[2])
            assert text == "b" and len(inter.delivered_to) == 1 and inter.delivered_to[0] is not dead
            assert lost.response is None  # never replayed to the new session
        finally:
            await a.stop()
            if b is not None:
                await b.stop()
