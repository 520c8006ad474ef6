"""Self-test of the fake Discord: a real discord.py bot, in-process, talks to it.

If these pass, end-to-end tests of the real bot can trust that what works against the fake
is what discord.py does against Discord (same routes, payloads, acks, errors and retries).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import discord
import discord.gateway
import discord.http
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands

from devkit.fake_discord import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    point_discord_py_at,
    run_bot_subprocess,
)
from devkit.fake_discord.pytest_plugin import started_fake_discord

pytestmark = pytest.mark.asyncio

CARDS = ["AS", "AH", "AD", "AC", "KS", "QS"]


@dataclass
class Events:
    """What the in-process bot observed, for assertions."""

    ready: asyncio.Event = field(default_factory=asyncio.Event)
    resumed: asyncio.Event = field(default_factory=asyncio.Event)
    app_errors: list[BaseException] = field(default_factory=list)
    forbidden_codes: list[int] = field(default_factory=list)
    not_found_codes: list[int] = field(default_factory=list)
    joined: list[int] = field(default_factory=list)


class JoinButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"join:(?P<table>\d+)"):
    """Persistent button: survives restarts because it is rebuilt from its custom_id."""

    def __init__(self, table: int) -> None:
        super().__init__(discord.ui.Button(label="Join", custom_id=f"join:{table}"))
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> JoinButton:
        return cls(int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        events: Events = interaction.client.events  # type: ignore[attr-defined]
        events.joined.append(self.table)
        view = discord.ui.View(timeout=None)
        view.add_item(LeaveButton(self.table))
        await interaction.response.send_message(f"joined {self.table}", ephemeral=True, view=view)


class LeaveButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"leave:(?P<table>\d+)"):
    def __init__(self, table: int) -> None:
        super().__init__(discord.ui.Button(label="Leave", custom_id=f"leave:{table}"))
        self.table = table

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LeaveButton:
        return cls(int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.edit_message(content=f"left {self.table}", view=None)


class TableLayout(discord.ui.LayoutView):
    """Components V2 message: a container with text and a nested dynamic button."""

    def __init__(self, table: int) -> None:
        super().__init__(timeout=None)
        row: discord.ui.ActionRow[Any] = discord.ui.ActionRow(JoinButton(table))
        self.add_item(discord.ui.Container(discord.ui.TextDisplay(f"## Table {table}"), row))


class SeatSelect(discord.ui.Select[discord.ui.View]):
    def __init__(self) -> None:
        super().__init__(custom_id="seat", options=[discord.SelectOption(label=s) for s in ("north", "east")])

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()  # type 6: deferred update of the select's message
        await interaction.edit_original_response(content=f"seat {self.values[0]}", view=None)


class BidModal(discord.ui.Modal, title="Your bid"):
    bid: discord.ui.TextInput[BidModal] = discord.ui.TextInput(label="Bid", custom_id="bid", max_length=2)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"bid {self.bid.value}")


class SpadesGroup(app_commands.Group, name="spades", description="Play spades"):
    def __init__(self, events: Events) -> None:
        super().__init__()
        self.events = events
        self.slow_delay = 0.0

    @app_commands.command(description="Play a card")
    async def play(self, interaction: discord.Interaction, card: str) -> None:
        await interaction.response.send_message(f"You played {card}", ephemeral=True)

    @play.autocomplete("card")
    async def card_autocomplete(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=c, value=c) for c in CARDS if c.startswith(current.upper())]

    @app_commands.command(description="Open a table")
    async def start(self, interaction: discord.Interaction, players: int, public: bool = False) -> None:
        await interaction.response.defer(thinking=True, ephemeral=not public)
        await interaction.followup.send(f"Table for {players}")
        await interaction.edit_original_response(content=f"Table for {players} (ready)")
        await interaction.followup.send("second follow-up", ephemeral=True)

    @app_commands.command(description="Invite a player by DM")
    async def invite(self, interaction: discord.Interaction, player: discord.User) -> None:
        try:
            await player.send(f"{interaction.user.name} invites you to a table")
        except discord.Forbidden as exc:
            self.events.forbidden_codes.append(exc.code)
            await interaction.response.send_message("their DMs are closed", ephemeral=True)
        else:
            await interaction.response.send_message(f"invited {player.name}")

    @app_commands.command(description="Show a table with a join button")
    async def table(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(JoinButton(7))
        await interaction.response.send_message("Table 7", view=view)

    @app_commands.command(description="Answer too late")
    async def slow(self, interaction: discord.Interaction) -> None:
        await asyncio.sleep(self.slow_delay)
        try:
            await interaction.response.send_message("late")
        except discord.NotFound as exc:
            self.events.not_found_codes.append(exc.code)

    @app_commands.command(description="Announce in the channel")
    async def announce(self, interaction: discord.Interaction, text: str) -> None:
        await interaction.response.defer(ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        await interaction.channel.send(text, file=discord.File(io.BytesIO(b"scores"), "scores.txt"))
        await interaction.followup.send("announced", ephemeral=True)

    @app_commands.command(description="Answer with a file")
    async def upload(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("your hand", file=discord.File(io.BytesIO(b"AS KS"), "hand.txt"))

    @app_commands.command(description="Pick a seat")
    async def seat(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=30)
        view.add_item(SeatSelect())
        await interaction.response.send_message("Pick a seat", view=view)

    @app_commands.command(description="Show a table with components V2")
    async def layout(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(view=TableLayout(9))

    @app_commands.command(description="Bid through a modal")
    async def bid(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(BidModal())


@app_commands.command(description="Reset the leaderboard (managers only)")
@app_commands.default_permissions(manage_guild=True)
@app_commands.guild_only()
async def reset(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("reset ok", ephemeral=True)


class SelfTestBot(commands.Bot):
    def __init__(self, events: Events, intents: discord.Intents) -> None:
        super().__init__(command_prefix="!", intents=intents, guild_ready_timeout=0.05)
        self.events = events
        self.spades = SpadesGroup(events)

    async def setup_hook(self) -> None:
        self.tree.add_command(self.spades)
        self.tree.add_command(reset)
        self.add_dynamic_items(JoinButton, LeaveButton)

        async def on_tree_error(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
            self.events.app_errors.append(error)

        self.tree.on_error = on_tree_error  # type: ignore[method-assign]

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py sleeps 5 s before every re-IDENTIFY (Discord's identify rate limit); skip it."""

    async def on_ready(self) -> None:
        self.events.ready.set()

    async def on_resumed(self) -> None:
        self.events.resumed.set()


@dataclass
class Env:
    fake: FakeDiscord
    bot: SelfTestBot
    events: Events
    guild: FakeGuild
    channel: FakeChannel
    owner: FakeUser
    alice: FakeUser
    bob: FakeUser


@contextlib.contextmanager
def pointed_at(fake: FakeDiscord) -> Any:
    """Point discord.py at the fake for one test, then restore discord.com."""
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    point_discord_py_at(fake.api_base, fake.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved


@contextlib.asynccontextmanager
async def running_bot(fake: FakeDiscord, intents: discord.Intents | None = None) -> AsyncIterator[SelfTestBot]:
    """Start SelfTestBot in-process against `fake`, wait for on_ready, sync; close on exit."""
    events = Events()
    with pointed_at(fake):
        bot = SelfTestBot(events, intents or discord.Intents.default())
        runner = asyncio.create_task(bot.start(fake.token))
        ready = asyncio.create_task(events.ready.wait())
        try:
            done, _ = await asyncio.wait({runner, ready}, timeout=5, return_when=asyncio.FIRST_COMPLETED)
            if runner in done:
                runner.result()
            assert ready in done, "the bot did not become ready"
            await bot.tree.sync()
            yield bot
            assert not events.app_errors, events.app_errors
        finally:
            ready.cancel()
            await bot.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(runner, 2)


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


async def raw_request(
    fake: FakeDiscord, method: str, path: str, body: Any = None, *, auth: bool = True
) -> tuple[int, Any]:
    """Talk to the fake without discord.py (to send what discord.py itself would refuse)."""
    headers = {"Authorization": f"Bot {fake.token}"} if auth else {}
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, fake.api_base + path, json=body, headers=headers) as resp,
    ):
        assert resp.headers.get("Content-Type") == "application/json"
        return resp.status, await resp.json()


async def test_login_ready_guild_and_command_sync(env: Env) -> None:
    fake, bot = env.fake, env.bot
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    assert bot.application_id == fake.application_id
    guild = bot.get_guild(env.guild.id)
    assert guild is not None and not guild.unavailable
    assert guild.me is not None and guild.me.guild_permissions.send_messages
    assert guild.get_channel(env.channel.id) is not None
    assert fake.gateway.identify_count == 1

    spades, reset_cmd = fake.registered_commands()
    assert spades["name"] == "spades"
    assert reset_cmd["default_member_permissions"] == str(discord.Permissions(manage_guild=True).value)
    assert reset_cmd["contexts"] == [0]
    subs = {o["name"]: o for o in spades["options"]}
    assert subs["play"]["type"] == 1
    assert subs["play"]["options"][0] == {**subs["play"]["options"][0], "type": 3, "autocomplete": True}
    assert [o["type"] for o in subs["start"]["options"]] == [4, 5]
    assert spades["default_member_permissions"] is None

    bot.tree.copy_global_to(guild=discord.Object(env.guild.id))
    synced = await bot.tree.sync(guild=discord.Object(env.guild.id))
    assert [c.name for c in synced] == ["spades", "reset"]
    assert fake.registered_commands(env.guild)[0]["guild_id"] == str(env.guild.id)


async def test_wrong_token_is_rejected(env: Env) -> None:
    client = discord.Client(intents=discord.Intents.none())
    with pytest.raises(discord.LoginFailure):
        await client.login("not-the-token")
    await client.close()


async def test_slash_command_ephemeral_reply_and_ack_latency(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="play", options={"card": "AS"})
    assert inter.data["options"][0] == {
        "name": "play",
        "type": 1,
        "options": [{"name": "card", "type": 3, "value": "AS"}],
    }
    response = await fake.wait_for_response(inter)
    assert response.type == 4 and response.ephemeral
    assert response.message is not None and response.message.content == "You played AS"
    assert response.message.visible_to is env.alice and response.message.ephemeral
    assert inter.ack_latency is not None and 0 <= inter.ack_latency < 1
    assert fake.ack_latencies == [inter.ack_latency]
    status, history = await raw_request(fake, "GET", f"/channels/{env.channel.id}/messages")
    assert status == 200 and history == []  # ephemeral messages are not in the channel


async def test_defer_followups_and_edit_original(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(
        env.alice, env.channel, "spades", subcommand="start", options={"players": 4, "public": True}
    )
    response = await fake.wait_for_response(inter)
    assert response.type == 5 and not response.ephemeral
    original = await fake.wait_for_original(inter, lambda m: m.content.endswith("(ready)"))
    assert original.content == "Table for 4 (ready)" and not original.ephemeral
    assert [v["content"] for v in original.history] == ["", "Table for 4", "Table for 4 (ready)"]
    second = await fake.wait_for_followup(inter, lambda m: m.content == "second follow-up")
    assert second.ephemeral and second.visible_to is env.alice
    assert inter.followups == [original, second]  # the first follow-up replaced the placeholder
    public = await fake.wait_for_message(env.channel, lambda m: "Table for 4" in m.content)
    assert public is original

    private = await fake.send_slash_command(env.bob, env.channel, "spades", subcommand="start", options={"players": 3})
    msg = await fake.wait_for_original(private, lambda m: m.content.endswith("(ready)"))
    assert msg.ephemeral and msg.visible_to is env.bob


async def test_autocomplete(env: Env) -> None:
    inter = await env.fake.send_autocomplete(
        env.alice, env.channel, "spades", subcommand="play", options={"card": "a"}, focused="card"
    )
    assert inter.data["options"][0]["options"][0] == {
        "name": "card",
        "type": 3,
        "value": "a",
        "focused": True,
    }
    response = await env.fake.wait_for_response(inter)
    assert response.type == 8
    assert [c["value"] for c in response.choices] == ["AS", "AH", "AD", "AC"]


async def test_dynamic_button_and_ephemeral_button(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="table")
    table_msg = (await fake.wait_for_response(inter)).message
    assert table_msg is not None and table_msg.custom_ids() == ["join:7"]

    click = await fake.click_button(env.bob, table_msg, "join:7")
    assert click.payload["data"] == {"custom_id": "join:7", "component_type": 2}
    joined = await fake.wait_for_response(click)
    assert joined.type == 4 and joined.message is not None and joined.message.ephemeral
    assert joined.message.content == "joined 7" and env.events.joined == [7]

    with pytest.raises(PermissionError):
        await fake.click_button(env.alice, joined.message, "leave:7")  # not alice's ephemeral
    leave = await fake.click_button(env.bob, joined.message, "leave:7")
    assert leave.payload["message"]["flags"] & 64
    update = await fake.wait_for_response(leave)
    assert update.type == 7 and update.message is joined.message
    assert joined.message.content == "left 7" and joined.message.components == []


async def test_components_v2_layout(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="layout")
    msg = (await fake.wait_for_response(inter)).message
    assert msg is not None and msg.flags & (1 << 15) and msg.content == ""
    assert "## Table 9" in msg.text and msg.custom_ids() == ["join:9"]
    click = await fake.click_button(env.bob, msg, "join:9")
    assert (await fake.wait_for_response(click)).message.content == "joined 9"  # type: ignore[union-attr]


async def test_modal_roundtrip(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="bid")
    response = await fake.wait_for_response(inter)
    assert response.type == 9 and response.modal is not None and response.modal["title"] == "Your bid"
    with pytest.raises(ValueError):
        await fake.submit_modal(env.alice, inter, {})  # the bid is required
    submit = await fake.submit_modal(env.alice, inter, {"bid": "4"})
    answer = await fake.wait_for_response(submit)
    assert answer.message is not None and answer.message.content == "bid 4"


async def test_dm_and_closed_dms(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(
        env.alice, env.channel, "spades", subcommand="invite", options={"player": env.bob}
    )
    assert str(env.bob.id) in inter.data["resolved"]["users"]
    dm = await fake.wait_for_dm(env.bob, lambda m: "invites you" in m.content)
    assert dm.author is fake.bot_user and dm.channel.recipient is env.bob
    assert (await fake.wait_for_response(inter)).message.content == "invited bob"  # type: ignore[union-attr]

    dm_inter = await fake.send_slash_command(
        env.bob, fake.dm_channel(env.bob), "spades", subcommand="play", options={"card": "AD"}
    )
    assert "user" in dm_inter.payload and "member" not in dm_inter.payload
    assert (await fake.wait_for_response(dm_inter)).message.channel.is_dm  # type: ignore[union-attr]

    fake.fail_dms_for(env.alice)
    inter = await fake.send_slash_command(
        env.bob, env.channel, "spades", subcommand="invite", options={"player": env.alice}
    )
    response = await fake.wait_for_response(inter)
    assert response.ephemeral and env.events.forbidden_codes == [50007]


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


async def test_files_in_interaction_response(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="upload")
    msg = (await fake.wait_for_response(inter)).message
    assert msg is not None and msg.content == "your hand"
    [attachment] = msg.attachments
    assert (attachment.filename, attachment.data) == ("hand.txt", b"AS KS")
    async with (
        aiohttp.ClientSession() as session,
        session.get(attachment.to_payload(fake.base_url, env.channel.id)["url"]) as resp,
    ):
        assert await resp.read() == b"AS KS"


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


async def test_select_with_deferred_update(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="seat")
    msg = (await fake.wait_for_response(inter)).message
    assert msg is not None
    with pytest.raises(ValueError):
        await fake.select_option(env.alice, msg, "seat", ["south"])
    pick = await fake.select_option(env.alice, msg, "seat", ["east"])
    assert (await fake.wait_for_response(pick)).type == 6
    await fake.wait_until(lambda: msg.content == "seat east", 2, "the select message to be updated")
    assert msg.components == [] and len(msg.edits) == 1


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


async def test_late_and_double_acks_are_flagged(env: Env) -> None:
    fake = env.fake
    fake.ack_window = 0.2
    env.bot.spades.slow_delay = 0.35
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="slow")
    await fake.wait_until(lambda: env.events.not_found_codes, 3, "the late ack to fail")
    assert env.events.not_found_codes == [10062] and inter.response is None
    assert len(fake.take_errors(10062)) == 1

    fake.ack_window = 3.0
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="play", options={"card": "AS"})
    await fake.wait_for_response(inter)
    status, body = await raw_request(
        fake,
        "POST",
        f"/interactions/{inter.id}/{inter.token}/callback?with_response=1",
        {"type": 6},
        auth=False,
    )
    assert (status, body["code"]) == (400, 40060)
    [error] = fake.take_errors(40060)
    assert error.kind == "interaction"
    assert fake.errors == []


async def test_unknown_route_and_invalid_payloads_are_flagged(env: Env) -> None:
    fake, bot = env.fake, env.bot
    with pytest.raises(discord.NotFound):
        await bot.http.request(discord.http.Route("GET", "/definitely/not/{x}", x=1))
    assert len(fake.take_errors(kind="route")) == 1

    channel = bot.get_channel(env.channel.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as info:
        await channel.send("x" * 2001)
    assert info.value.code == 50035 and "content" in info.value.text
    rows = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "b", "custom_id": f"c{i}"}]} for i in range(6)]
    dupes = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "b", "custom_id": "same"}] * 2}]
    long_embed = [{"title": "t" * 257, "fields": [{"name": "n", "value": "v" * 1025}]}]
    for payload in ({"components": rows}, {"components": dupes}, {"embeds": long_embed}, {}):
        status, body = await raw_request(fake, "POST", f"/channels/{env.channel.id}/messages", payload)
        assert (status, body["code"]) == (400, 50035), payload
    assert len(fake.take_errors(50035)) == 5
    assert fake.errors == []


async def test_deleted_message_and_permission_checks(env: Env) -> None:
    fake, bot = env.fake, env.bot
    channel = bot.get_channel(env.channel.id)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("temporary")
    fake.delete_message(fake.messages[sent.id])
    with pytest.raises(discord.NotFound) as info:
        await sent.edit(content="edited")
    assert info.value.code == 10008

    with pytest.raises(PermissionError):
        await fake.send_slash_command(env.alice, env.channel, "reset")
    with pytest.raises(PermissionError):
        await fake.send_slash_command(env.alice, fake.dm_channel(env.alice), "reset")
    fake.grant_manage_guild(env.guild, env.alice)
    inter = await fake.send_slash_command(env.alice, env.channel, "reset")
    assert (await fake.wait_for_response(inter)).message.content == "reset ok"  # type: ignore[union-attr]
    owner_inter = await fake.send_slash_command(env.owner, env.channel, "reset")  # owners have every permission
    await fake.wait_for_response(owner_inter)


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
