"""`/spades season`: start, end and list the seasons of this server's leaderboard.

Starting and ending need Manage Server (a nested group can't carry Discord's own permission
default, so it is checked here); the list is for everyone, since its names are what
`/spades leaderboard season:` takes.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.discord_ui.seasons.render import ended_text, list_text, started_text
from bot.discord_ui.services import (
    Asked,
    channel_of,
    guild_of,
    is_server_manager,
    services,
)
from bot.service import Refusal
from bot.service.seasons import NAME_LIMIT

PODIUM_CHANNELS = (discord.ChannelType.text, discord.ChannelType.news)


def _require_manager(interaction: Asked, what: str) -> None:
    if not is_server_manager(interaction):
        raise Refusal(f"Only members with Manage Server can {what}.")


def _require_here(interaction: Asked, channel_id: int) -> None:
    """A channel option names a channel of the server the command came from. Discord's own `guild_id`
    on the option is the command's, whatever channel was sent: the bot's view of the channel decides."""
    found = interaction.client.get_channel(channel_id)
    if not isinstance(found, discord.abc.GuildChannel) or found.guild.id != interaction.guild_id:
        raise Refusal("The podium's channel must be one of this server's: pick one here, or leave `channel` out.")


class SeasonCommands(app_commands.Group, name="season", description="Seasons of this server's leaderboard"):
    @app_commands.command(description="Manage Server: start a season; everyone starts it with a fresh rating")
    @app_commands.describe(name="what to call it, e.g. Spring 2026",
                           end="when it ends, in UTC: 2026-12-31 (as that day ends) or 2026-12-31 18:00; "
                               "default: when you end it",
                           channel="where its podium is posted when it ends (default: this channel)")
    async def start(self, interaction: Asked, name: app_commands.Range[str, 1, NAME_LIMIT], end: str | None = None,
                    channel: app_commands.AppCommandChannel | None = None) -> None:
        _require_manager(interaction, "start a season")
        if channel is not None:
            _require_here(interaction, channel.id)
        if channel is not None and channel.type not in PODIUM_CHANNELS:
            raise Refusal("A podium needs a text channel: pick one, or leave `channel` out to use this one.")
        podium_channel = channel.id if channel is not None else channel_of(interaction)
        season = await services(interaction).seasons.start(guild_of(interaction), podium_channel, interaction.user.id,
                                                        name, end)
        await interaction.response.send_message(started_text(season))

    @app_commands.command(description="Manage Server: end the running season now and post its podium")
    async def end(self, interaction: Asked) -> None:
        _require_manager(interaction, "end a season")
        season = await services(interaction).seasons.end(guild_of(interaction))
        await interaction.response.send_message(ended_text(season))

    @app_commands.command(name="list", description="This server's seasons, the running one and past ones")
    async def list_seasons(self, interaction: Asked) -> None:
        seasons = services(interaction).seasons
        guild_id = guild_of(interaction)
        await interaction.response.send_message(list_text(await seasons.seasons(guild_id),
                                                          await seasons.rhythm(guild_id)), ephemeral=True)
