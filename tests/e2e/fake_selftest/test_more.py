"""Self-test of the fake Discord's sharding, nonces, injected faults, token lifetime and transcripts.

As in test_fake_discord_selftest, real discord.py clients talk to the fake in-process, so what
passes here is what the library does with what the fake sends.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
import pytest_asyncio
from discord import app_commands

from devkit.fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeUser, run_bot_subprocess
from devkit.fake_discord import models as m
from devkit.fake_discord.pytest_plugin import started_fake_discord
from tests.e2e.fake_selftest.test_selftest import pointed_at, raw_request

pytestmark = pytest.mark.asyncio

V2 = 1 << 15


class HandPanel(discord.ui.LayoutView):
    """A private components V2 panel: a container with a section (Pass as its accessory) and a row of
    cards; a card click updates the panel in place (type 7), Pass defers and edits it by webhook."""

    def __init__(self, played: tuple[str, ...] = (), passed: bool = False) -> None:
        super().__init__(timeout=None)
        pass_button: discord.ui.Button[HandPanel] = discord.ui.Button(label="Pass", custom_id="pass", disabled=passed)
        pass_button.callback = self.pass_turn  # type: ignore[method-assign]
        cards: discord.ui.ActionRow[HandPanel] = discord.ui.ActionRow()
        for code in ("AS", "KS"):
            card: discord.ui.Button[HandPanel] = discord.ui.Button(
                label=code, custom_id=f"card:{code}", disabled=code in played
            )
            card.callback = self.player(code)  # type: ignore[method-assign]
            cards.add_item(card)
        status = "passed" if passed else "Played: " + (", ".join(played) or "nothing")
        self.add_item(
            discord.ui.Container(
                discord.ui.TextDisplay("## Your hand"),
                discord.ui.Section(status, accessory=pass_button),
                discord.ui.Separator(),
                cards,
            )
        )
        self.played = played

    def player(self, code: str) -> Any:
        async def play(interaction: discord.Interaction) -> None:
            await interaction.response.edit_message(view=HandPanel((*self.played, code)))

        return play

    async def pass_turn(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(view=HandPanel(self.played, passed=True))


class PanelBot(discord.Client):
    """`/panel` answers with a private HandPanel; every interaction is kept so a test can use its token."""

    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        self.tree = app_commands.CommandTree(self)
        self.ready = asyncio.Event()
        self.seen: dict[int, discord.Interaction] = {}

        @self.tree.command(description="Your private hand panel")
        async def panel(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(view=HandPanel(), ephemeral=True)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        self.seen[interaction.id] = interaction

    async def on_ready(self) -> None:
        self.ready.set()


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


@contextlib.asynccontextmanager
async def running(fake: FakeDiscord, *clients: discord.Client, sync: bool = True) -> AsyncIterator[None]:
    """Start `clients` against `fake` one after the other, wait until each is ready; close them after."""
    with pointed_at(fake):
        tasks: list[asyncio.Task[None]] = []
        try:
            for client in clients:
                task = asyncio.create_task(client.start(fake.token))
                tasks.append(task)
                ready = asyncio.create_task(client.ready.wait())  # type: ignore[attr-defined]
                done, _ = await asyncio.wait({task, ready}, timeout=5, return_when=asyncio.FIRST_COMPLETED)
                if task in done:
                    task.result()
                assert ready in done, f"{client} did not become ready"
            if sync:
                await clients[0].tree.sync()  # type: ignore[attr-defined]
            yield
        finally:
            for client in clients:
                await client.close()
            for task in tasks:
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await asyncio.wait_for(task, 2)


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


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


# ------------------------------------------------------------------- a small world with PanelBot


class Table:
    def __init__(self, fake: FakeDiscord, bot: PanelBot) -> None:
        self.fake, self.bot = fake, bot
        self.owner = fake.create_user("Owner")
        self.alice = fake.create_user("Alice")
        self.bob = fake.create_user("Bob")
        self.guild = fake.create_guild("Spades Club", self.owner)
        fake.add_member(self.guild, self.alice)
        fake.add_member(self.guild, self.bob)
        self.channel = fake.create_channel(self.guild, "table")

    def text_channel(self, channel: FakeChannel | None = None) -> discord.TextChannel:
        found = self.bot.get_channel((channel or self.channel).id)
        assert isinstance(found, discord.TextChannel)
        return found


@pytest_asyncio.fixture
async def table() -> AsyncIterator[Table]:
    async with started_fake_discord() as fake:
        bot = PanelBot()
        world = Table(fake, bot)
        async with running(fake, bot):
            yield world


async def open_panel(table: Table, user: FakeUser) -> tuple[Any, m.FakeMessage]:
    inter = await table.fake.send_slash_command(user, table.channel, "panel")
    message = (await table.fake.wait_for_response(inter)).message
    assert message is not None
    return inter, message


# ------------------------------------------------------------------------------------- nonces


async def test_an_enforced_nonce_returns_the_earlier_message(table: Table) -> None:
    fake, channel = table.fake, table.text_channel()
    first = await channel.send("Hand 3 starts", nonce="hand-3")
    again = await channel.send("Hand 3 starts", nonce="hand-3")  # a retry after a lost answer
    assert again.id == first.id and first.nonce == "hand-3"
    assert [x.content for x in fake.visible_messages(table.owner, table.channel)] == ["Hand 3 starts"]

    elsewhere = fake.create_channel(table.guild, "other")
    await fake.wait_until(lambda: table.bot.get_channel(elsewhere.id), 2, "the new channel")
    other = await table.text_channel(elsewhere).send("Hand 3 starts", nonce="hand-3")
    assert other.id != first.id  # unique per channel
    plain = [await channel.send("no nonce of mine") for _ in range(2)]  # discord.py's random nonces
    assert plain[0].id != plain[1].id

    fake.delete_message(fake.messages[first.id])
    with pytest.raises(discord.NotFound):
        await channel.send("Hand 3 starts", nonce="hand-3")  # explicitly deleted shortly before

    with pytest.raises(discord.HTTPException) as info:
        await channel.send("too long", nonce="n" * 26)
    assert info.value.code == 50035 and "nonce" in info.value.text
    assert len(fake.take_errors(50035)) == 1

    fake.nonce_window = 0  # the earlier message is out of the window: a new one is created
    renewed = await channel.send("Hand 4 starts", nonce="plain-4")
    assert (await channel.send("Hand 4 starts", nonce="plain-4")).id != renewed.id


# --------------------------------------------------------------------------- injected failures


async def test_injected_failures_for_a_number_of_requests_or_a_while(table: Table) -> None:
    fake, channel = table.fake, table.text_channel()
    route = "POST /channels/{channel_id}/messages"
    rule = fake.fail_requests("POST", "/channels/{channel_id}/messages", 403, 50013, times=1)
    with pytest.raises(discord.Forbidden) as info:
        await channel.send("blocked")
    assert (info.value.status, info.value.code, info.value.text) == (403, 50013, "Missing Permissions")
    assert rule.hits == 1 and not rule.active
    await channel.send("allowed")

    before = fake.request_counts[route]
    outage = fake.fail_requests("*", "/channels/*", 503, seconds=600)
    with pytest.raises(discord.DiscordServerError):
        await channel.send("during the outage")  # discord.py does not retry a 503
    assert fake.request_counts[route] == before + 1 and outage.hits == 1
    outage.cancel()
    await channel.send("after the outage")

    fake.fail_requests("POST", "/channels/{channel_id}/messages", 502, times=1)
    retried = await channel.send("retried")  # discord.py retries a 502 once after sleeping 1 s
    statuses = [r.status for r in fake.requests if r.template == "/channels/{channel_id}/messages"][-2:]
    assert statuses == [502, 200] and retried.content == "retried"

    fake.fail_requests("POST", "*", 500, seconds=0)  # already over
    fake.fail_requests("GET", "/channels/{channel_id}/messages", 500)  # another method
    await channel.send("unaffected")
    fake.clear_failures()
    assert [x.content for x in fake.visible_messages(table.alice, table.channel)] == [
        "allowed",
        "after the outage",
        "retried",
        "unaffected",
    ]
    assert fake.errors == []


async def test_revoking_and_restoring_send_messages(table: Table) -> None:
    fake, channel = table.fake, table.text_channel()
    me = channel.guild.me
    fake.revoke_bot_permissions(table.channel)  # Send Messages by default
    await fake.wait_until(lambda: not channel.permissions_for(me).send_messages, 2, "CHANNEL_UPDATE")
    assert channel.permissions_for(me).view_channel
    with pytest.raises(discord.Forbidden) as info:
        await channel.send("nobody hears this")
    assert info.value.code == 50013
    inter, panel = await open_panel(table, table.alice)  # interaction responses need no Send Messages
    assert not int(inter.payload["app_permissions"]) & m.SEND_MESSAGES and panel.ephemeral

    fake.restore_bot_permissions(table.channel)
    await fake.wait_until(lambda: channel.permissions_for(me).send_messages, 2, "CHANNEL_UPDATE")
    assert table.channel.overwrites == {}
    await channel.send("back")


# ------------------------------------------------------------- token lifetime and private panels


async def test_expired_tokens_and_a_live_private_v2_panel(table: Table) -> None:
    fake = table.fake
    inter, panel = await open_panel(table, table.alice)
    assert panel.ephemeral and panel.flags & V2 and panel.visible_to is table.alice
    assert [b["custom_id"] for b in panel.buttons()] == ["pass", "card:AS", "card:KS"]  # nested ones
    assert panel.find_component("pass") == {**(panel.find_component("pass") or {}), "type": 2, "label": "Pass"}

    fake.expire_token(inter)  # as if 15 minutes had passed
    with pytest.raises(discord.HTTPException) as info:
        await table.bot.seen[inter.id].edit_original_response(view=HandPanel(("KS",)))
    assert (info.value.status, info.value.code) == (401, 50027)
    with pytest.raises(discord.HTTPException) as info:
        await table.bot.seen[inter.id].followup.send("late", ephemeral=True)
    assert (info.value.status, info.value.code) == (401, 50027)
    assert len(fake.take_errors(50027)) == 2

    click = await fake.click_button(table.alice, panel, "card:AS")  # a fresh token
    assert click.token != inter.token and not click.token_expired
    assert (await fake.wait_for_response(click)).type == 7
    assert panel.find_component("card:AS")["disabled"] and "Played: AS" in panel.text  # type: ignore[index]
    assert panel.ephemeral and panel.flags & V2 and panel.edited_at is not None

    passed = await fake.click_button(table.alice, panel, "pass")  # type 6, then PATCH @original
    assert (await fake.wait_for_response(passed)).type == 6
    await fake.wait_until(lambda: "passed" in panel.text, 2, "the webhook edit of the panel")
    assert panel.find_component("pass")["disabled"] and len(panel.edits) == 2  # type: ignore[index]

    status, body = await raw_request(
        fake,
        "PATCH",
        f"/webhooks/{fake.application_id}/{passed.token}/messages/@original",
        {"flags": 0, "components": panel.components},
        auth=False,
    )
    assert (status, body["code"], list(body["errors"])) == (400, 50035, ["flags"])  # V2 cannot be removed
    bad_section = [{"type": 9, "components": [{"type": 10, "content": "no accessory"}]}]
    status, body = await raw_request(
        fake,
        "PATCH",
        f"/webhooks/{fake.application_id}/{passed.token}/messages/@original",
        {"flags": V2, "components": bad_section},
        auth=False,
    )
    assert (status, body["code"]) == (400, 50035) and "accessory" in body["errors"]["components"]["0"]
    assert len(fake.take_errors(50035)) == 2 and "passed" in panel.text


async def test_token_lifetime_is_configurable() -> None:
    async with started_fake_discord(token_lifetime=0) as fake:
        bot = PanelBot()
        table = Table(fake, bot)
        async with running(fake, bot):
            inter, _ = await open_panel(table, table.alice)  # the initial response only needs the 3 s window
            with pytest.raises(discord.HTTPException) as info:
                await bot.seen[inter.id].edit_original_response(view=HandPanel(("AS",)))
            assert info.value.code == 50027
            assert len(fake.take_errors(50027)) == 1


# ------------------------------------------------------------------------- what a person sees


async def test_what_each_person_sees(table: Table) -> None:
    fake, channel = table.fake, table.text_channel()
    start = fake.checkpoint()
    secret = fake.create_channel(table.guild, "secret")
    fake.set_channel_overwrite(secret, table.alice, deny=m.VIEW_CHANNEL)
    await fake.wait_until(lambda: table.bot.get_channel(secret.id), 2, "the secret channel")
    welcome = await channel.send(f"Welcome {table.alice.mention} and {table.bob.mention} to {channel.mention}")
    _, alice_panel = await open_panel(table, table.alice)
    _, bob_panel = await open_panel(table, table.bob)
    click = await fake.click_button(table.alice, alice_panel, "card:AS")
    await fake.wait_for_response(click)
    member = channel.guild.get_member(table.alice.id) or await channel.guild.fetch_member(table.alice.id)
    await member.send("Your turn at #table")
    await table.text_channel(secret).send("hidden from Alice")
    gone = await channel.send("soon deleted")
    fake.delete_message(fake.messages[gone.id])
    middle = fake.checkpoint()
    embed = discord.Embed(title="Scores", description="Hand 1").add_field(name="Alice", value="52")
    await channel.send(embed=embed, file=discord.File(io.BytesIO(b'{"hands": []}'), "record.json"))

    seen = fake.visible_messages(table.alice, table.channel)
    assert [x.id for x in seen[:2]] == [welcome.id, alice_panel.id] and len(seen) == 3
    assert [x.id for x in fake.visible_messages(table.bob, table.channel)][:2] == [welcome.id, bob_panel.id]
    assert fake.visible_messages(table.alice, secret) == []
    assert fake.new_messages_for(table.alice, start) == 4  # welcome, panel, DM, scores
    assert fake.new_messages_for(table.alice, start, include_deleted=True) == 5
    assert fake.new_messages_for(table.bob, start) == 4  # welcome, panel, hidden, scores
    assert fake.new_messages_for(table.alice, middle) == 1

    def masked(text: str) -> str:
        return re.sub(r"\+0:\d\d\.\d\d\d", "+0:00.000", text)

    assert masked(fake.transcript(table.alice, width=72)) == ALICE_SEES
    assert masked(fake.transcript(table.bob, table.channel, since=middle)) == BOB_SEES_LATELY
    assert fake.transcript(table.alice, secret).endswith("(nothing)")


ALICE_SEES = """\
=== What Alice sees: all channels and DMs ===
── #table (Spades Club) ────────────────────────────────────────────────
+0:00.000  Spades Bot [APP]
           Welcome @Alice and @Bob to #table
+0:00.000  » Alice used /panel
+0:00.000  Spades Bot [APP]  ↳ Alice used /panel  (edited)  · only you can see this
           ┌────────────────────────────────────────
           │ ## Your hand
           │ Played: AS  [Pass]
           │ ────────────────────────────────────────
           │ (AS) [KS]
           └────────────────────────────────────────
+0:00.000  » Alice clicked [AS]
── DM with Spades Bot ──────────────────────────────────────────────────
+0:00.000  Spades Bot [APP]
           Your turn at #table
── #table (Spades Club) ────────────────────────────────────────────────
+0:00.000  Spades Bot [APP]
           ┃ **Scores**
           ┃ Hand 1
           ┃ Alice: 52
           [attachment: record.json, 13 bytes]"""

BOB_SEES_LATELY = """\
=== What Bob sees: #table (Spades Club) ===
+0:00.000  Spades Bot [APP]
           ┃ **Scores**
           ┃ Hand 1
           ┃ Alice: 52
           [attachment: record.json, 13 bytes]"""


async def test_transcript_renders_every_kind_of_component(table: Table) -> None:
    fake = table.fake
    start = fake.checkpoint()
    path = f"/channels/{table.channel.id}/messages"
    role = fake.create_role(table.guild, "Players")
    classic = {
        "content": f"{role.mention}: the table opens <t:0:f>. " + "Long words wrap at the width. " * 3,
        "components": [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 1, "label": "Play", "custom_id": "play", "emoji": {"name": "🂡"}},
                    {"type": 2, "style": 2, "label": "Undo", "custom_id": "undo", "disabled": True},
                    {"type": 2, "style": 5, "label": "Rules", "url": "https://example.invalid/rules"},
                ],
            },
            {
                "type": 1,
                "components": [
                    {
                        "type": 3,
                        "custom_id": "seat",
                        "placeholder": "Pick a seat",
                        "options": [{"label": "North", "value": "n"}, {"label": "East", "value": "e"}],
                    }
                ],
            },
        ],
    }
    layout = {
        "flags": V2,
        "components": [
            {
                "type": 17,
                "spoiler": True,
                "components": [
                    {
                        "type": 9,
                        "components": [{"type": 10, "content": "Trick 3"}],
                        "accessory": {"type": 11, "media": {"url": "https://cdn.invalid/a/trick.png"}},
                    },
                    {"type": 14, "divider": False},
                    {
                        "type": 12,
                        "items": [
                            {"media": {"url": "attachment://north.png"}, "description": "North's card"},
                            {"media": {"url": "https://cdn.invalid/east.png"}},
                        ],
                    },
                ],
            },
            {"type": 13, "file": {"url": "attachment://record.json"}},
        ],
    }
    for body in (classic, layout):
        status, _ = await raw_request(fake, "POST", path, body)
        assert status == 200
    await fake.send_user_message(table.alice, table.channel, f"gg {fake.bot_user.mention}")
    picker = fake.visible_messages(table.alice, table.channel)[0]
    await fake.select_option(table.alice, picker, "seat", ["e"])

    async def answer(inter: Any, body: dict[str, Any]) -> None:  # the test answers as the app would
        url = f"/interactions/{inter.id}/{inter.token}/callback?with_response=1"
        assert (await raw_request(fake, "POST", url, body, auth=False))[0] == 200

    thinking = await fake.send_slash_command(table.alice, table.channel, "think", strict=False)
    await answer(thinking, {"type": 5})
    bid = await fake.send_slash_command(table.alice, table.channel, "bid", strict=False)
    text_input = {"type": 4, "custom_id": "bid", "style": 1, "label": "Bid"}
    await answer(bid, {"type": 9, "data": {"custom_id": "bid", "title": "Your bid", "components": [row(text_input)]}})
    await fake.submit_modal(table.alice, bid, {"bid": "4"})
    lost = await fake.send_slash_command(table.alice, table.channel, "nothing", strict=False)
    fake.ack_window = 0  # nobody answered it in time: the client shows "This interaction failed"
    assert lost.response is None

    text = re.sub(r"\+0:\d\d\.\d\d\d", "+0:00.000", fake.transcript(table.alice, table.channel, since=start, width=60))
    assert text == RENDERED


RENDERED = """\
=== What Alice sees: #table (Spades Club) ===
+0:00.000  Spades Bot [APP]
           @Players: the table opens 1970-01-01 00:00:00
           UTC. Long words wrap at the width. Long words
           wrap at the width. Long words wrap at the width.
           [🂡 Play] (Undo) [Rules ↗]
           [▾ Pick a seat: North | East]
+0:00.000  Spades Bot [APP]
           ┌──────────────────────────────────────── (spoiler)
           │ Trick 3  [image: trick.png]
           │
           │ [image: North's card]
           │ [image: east.png]
           └────────────────────────────────────────
           [file: record.json]
+0:00.000  Alice
           gg @Spades Bot
+0:00.000  » Alice chose East in “Pick a seat”  ⚠ This interaction failed
+0:00.000  » Alice used /think
+0:00.000  Spades Bot [APP]  ↳ Alice used /think
           Spades Bot is thinking…
+0:00.000  » Alice used /bid
+0:00.000  » Alice submitted “Your bid”: bid='4'  ⚠ This interaction failed
+0:00.000  » Alice used /nothing  ⚠ This interaction failed"""
