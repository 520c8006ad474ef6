"""discord.py clients run in-process against the fake by its self-tests, and how they are pointed at it:
`SelfTestBot` uses every kind of interaction a bot uses; `running` starts any clients and waits until
they are ready; `raw_request` talks to the fake without discord.py."""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
import discord.gateway
import discord.http
from discord import app_commands
from discord.ext import commands

from devkit.fake_discord import (
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    point_discord_py_at,
)

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
