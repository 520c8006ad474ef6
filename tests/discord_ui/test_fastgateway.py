"""The fast click route leans on two private parts of discord.py (the gateway's parser table and the
response's answered mark): a real discord.py client against the fake Discord shows both still work,
so a discord.py release that changes either fails here rather than leaving panels unanswered."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import re
import weakref
from collections.abc import AsyncIterator
from typing import Any, ClassVar

import discord
import discord.gateway
import discord.http
import pytest

from bot.discord_ui.fastgateway import FastClicks, count_messages
from bot.discord_ui.table import faces
from bot.discord_ui.transport.fastpath import FastEdits
from devkit.fake_discord import FakeChannel, FakeDiscord, FakeUser, point_discord_py_at
from devkit.fake_discord.pytest_plugin import started_fake_discord

edits = FastEdits()


class Pick:
    """A button kind for the fast route: it answers by showing what was picked, then follows up."""

    answered: ClassVar[list[tuple[str, bool]]] = []
    clicks: ClassVar[list[weakref.ref[discord.Interaction[Any]]]] = []

    @classmethod
    async def clicked(cls, interaction: discord.Interaction[Any], match: re.Match[str]) -> None:
        number = match["number"]
        Pick.clicks.append(weakref.ref(interaction))
        await edits.update(interaction, faces.closed_panel(f"picked {number}"))
        Pick.answered.append((number, interaction.response.is_done()))
        await interaction.followup.send(f"follow-up of {number}", ephemeral=True)


class Other(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"other:(?P<number>\d+)"):
    """A button left to discord.py's own dispatch."""

    def __init__(self, number: str) -> None:
        super().__init__(discord.ui.Button(label="Other", custom_id=f"other:{number}"))
        self.number = number

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str]) -> Other:
        return cls(match["number"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"other {self.number}", ephemeral=True)


class Client(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents(guilds=True, guild_messages=True),
                         allowed_mentions=discord.AllowedMentions.none())
        self.noted: list[int] = []
        self.counted: list[tuple[int, int]] = []
        self.dispatched: list[str] = []  # message events that reached discord.py's own handlers
        self.fast = FastClicks(self, [(r"pick:(?P<number>\d+)", Pick)], lambda i: self.noted.append(i.id))
        self.ready = asyncio.Event()

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Other)
        self.fast.install()
        count_messages(self, lambda channel_id, message_id: self.counted.append((channel_id, message_id)))

    async def on_message(self, message: discord.Message) -> None:
        self.dispatched.append("message")

    async def on_raw_message_edit(self, payload: discord.RawMessageUpdateEvent) -> None:
        self.dispatched.append("edit")

    async def on_ready(self) -> None:
        self.ready.set()


@contextlib.asynccontextmanager
async def running(fake: FakeDiscord) -> AsyncIterator[Client]:
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    point_discord_py_at(fake.api_base, fake.gateway_url)
    client = Client()
    runner = asyncio.create_task(client.start(fake.token))
    try:
        await asyncio.wait_for(client.ready.wait(), 5)
        yield client
    finally:
        await client.close()
        await edits.close()
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await asyncio.wait_for(runner, 2)
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved


@contextlib.asynccontextmanager
async def a_club(compress: bool = False) -> AsyncIterator[tuple[FakeDiscord, FakeUser, FakeChannel, Client]]:
    """Alice in a server's #spades, and the client connected (its gateway compressed or not)."""
    async with started_fake_discord(compress_gateway=compress) as fake:
        owner, alice = fake.create_user("Owner"), fake.create_user("Alice")
        guild = fake.create_guild("Club", owner)
        fake.add_member(guild, alice)
        channel = fake.create_channel(guild, "spades")
        async with running(fake) as client:
            yield fake, alice, channel, client


def frames_parsed_by_discord_py(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The gateway frames discord.py itself turned into objects, by event, from now on."""
    parsed: list[str | None] = []
    parse = discord.utils._from_json

    def spy(text: str) -> Any:
        frame = parse(text)
        if isinstance(frame, dict) and "op" in frame:
            parsed.append(frame.get("t"))
        return frame

    monkeypatch.setattr(discord.utils, "_from_json", spy)
    return parsed


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "zlib-stream"])
async def test_a_fast_click_is_answered_and_counts_as_answered_and_others_go_through_discord_py(
        monkeypatch: pytest.MonkeyPatch, compress: bool) -> None:
    Pick.answered.clear()
    Pick.clicks.clear()
    parsed = frames_parsed_by_discord_py(monkeypatch)
    async with a_club(compress) as (fake, alice, channel, client):
        view = discord.ui.LayoutView(timeout=None)  # a panel's layout: text and a row of buttons
        view.add_item(discord.ui.TextDisplay("choose"))
        view.add_item(discord.ui.ActionRow(discord.ui.Button(label="Pick", custom_id="pick:3"), Other("5")))
        sent = await client.get_partial_messageable(channel.id).send(view=view)
        message = channel.messages[sent.id]

        click = await fake.click_button(alice, message, "pick:3")
        answer = await fake.wait_for_response(click)
        assert answer.type == 7 and "picked 3" in message.text  # the clicked message shows the answer
        for _ in range(100):  # the follow-up comes after the answer
            if any("follow-up of 3" in m.text for m in channel.messages.values()):
                break
            await asyncio.sleep(0.02)
        else:
            pytest.fail("the follow-up of a fast-answered click was not sent")
        assert Pick.answered == [("3", True)]  # discord.py counts the raw answer as the answer
        assert client.fast.taken == 1 and client.noted == [click.id]
        gc.disable()
        try:  # answered and let go, the click is freed at once, not left for a garbage collection
            for _ in range(50):
                if Pick.clicks[-1]() is None:
                    break
                await asyncio.sleep(0.01)
            assert Pick.clicks[-1]() is None
        finally:
            gc.enable()

        again = await client.get_partial_messageable(channel.id).send(view=view)
        other = await fake.click_button(alice, channel.messages[again.id], "other:5")
        reply = await fake.wait_for_response(other)
        assert reply.message is not None and reply.message.content == "other 5"
        assert client.fast.taken == 1  # left to discord.py, which found its dynamic item
        # Both clicks' frames were read past discord.py's frame handling, their numbers kept (the
        # client heartbeats and resumes from the last event Discord sent).
        assert "READY" in parsed and "INTERACTION_CREATE" not in parsed
        assert client.ws.sequence == fake.gateway.target().seq


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "zlib-stream"])
async def test_messages_in_a_channel_are_counted_by_id_and_edits_are_not_read(
        monkeypatch: pytest.MonkeyPatch, compress: bool) -> None:
    parsed = frames_parsed_by_discord_py(monkeypatch)
    async with a_club(compress) as (fake, alice, channel, client):
        chat = await fake.send_user_message(alice, channel, "nice hand")
        posted = await client.get_partial_messageable(channel.id).send("the table")
        await posted.edit(content="the table, a move later")
        await posted.edit(content="the table, two moves later")
        session = fake.gateway.target()
        for _ in range(100):
            if len(client.counted) == 2 and client.ws.sequence == session.seq:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)  # time for an edit's event, were it read
        assert client.counted == [(channel.id, chat.id), (channel.id, posted.id)]
        assert client.dispatched == []  # no Message built, no event task: the ids were enough
        # The edits' frames were never parsed, yet their numbers were kept: the client heartbeats
        # and resumes from the last event Discord sent, not from one before the edits.
        assert session.log[-1][1] == "MESSAGE_UPDATE"
        assert "MESSAGE_CREATE" in parsed and "MESSAGE_UPDATE" not in parsed
        assert client.ws.sequence == session.seq
        await fake.gateway.drop()
        for _ in range(100):
            if fake.gateway.resume_count == 1 and client.ws is not None and client.ws.sequence == session.seq:
                break
            await asyncio.sleep(0.02)
        assert fake.gateway.resume_count == 1 and fake.gateway.target() is session
        assert session.log[-1][1] == "RESUMED" and client.ws.sequence == session.seq
        assert "MESSAGE_UPDATE" not in parsed and client.counted == [(channel.id, chat.id), (channel.id, posted.id)]


class Commands(discord.app_commands.Group, name="g", description="a group"):
    """Two subcommands the tree answers itself, unless the fast route takes them first."""

    @discord.app_commands.command(description="echo")
    async def echo(self, interaction: discord.Interaction[Any], text: str) -> None:
        await edits.say(interaction, f"tree: {text}")

    @discord.app_commands.command(description="refused")
    async def refused(self, interaction: discord.Interaction[Any]) -> None:
        raise ValueError("refused by the tree")


async def test_a_routed_slash_command_skips_the_tree_and_anything_else_goes_through_it() -> None:
    failures: list[str] = []

    async def echo(interaction: discord.Interaction[Any], text: str) -> None:
        await edits.say(interaction, f"fast: {text}")

    async def refused(interaction: discord.Interaction[Any]) -> None:
        raise ValueError("refused by the fast route")

    async def failed(interaction: discord.Interaction[Any], error: Exception) -> None:
        failures.append(str(error))
        await edits.say(interaction, f"error: {error}")

    async with a_club() as (fake, alice, channel, client):
        tree = discord.app_commands.CommandTree(client)
        tree.add_command(Commands())
        client.fast.route_commands("g", {"echo": (("text",), echo), "refused": ((), refused)}, failed)

        async def said(options: dict[str, Any], subcommand: str = "echo") -> str:
            command = await fake.send_slash_command(alice, channel, "g", subcommand, options, strict=False)
            answer = await fake.wait_for_response(command)
            assert answer.message is not None
            return answer.message.content

        assert await said({"text": "hi"}) == "fast: hi"
        assert client.fast.taken == 1 and len(client.noted) == 1  # counted like any interaction
        assert await said({}, "refused") == "error: refused by the fast route"
        assert failures == ["refused by the fast route"] and client.fast.taken == 2
        # Not the shape routed (an option more, or a number where text is expected): the tree's.
        assert await said({"text": "hi", "more": "x"}) == "tree: hi"
        assert await said({"text": 5}) == "tree: 5"
        assert client.fast.taken == 2
