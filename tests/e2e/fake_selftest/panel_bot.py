"""A small world with PanelBot: a private components V2 panel two people use, for the self-tests of
nonces, injected faults, token lifetime and transcripts."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord import app_commands

from devkit.fake_discord import FakeChannel, FakeDiscord, FakeUser
from devkit.fake_discord import models as m

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


async def open_panel(table: Table, user: FakeUser) -> tuple[Any, m.FakeMessage]:
    inter = await table.fake.send_slash_command(user, table.channel, "panel")
    message = (await table.fake.wait_for_response(inter)).message
    assert message is not None
    return inter, message
