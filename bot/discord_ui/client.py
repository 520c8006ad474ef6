"""The Discord client: commands, buttons and what it must notice in channels. Built by `bot.runtime`."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import discord
from discord import app_commands

from bot.discord_ui.coach import review_command
from bot.discord_ui.errors import report_error
from bot.discord_ui.fastgateway import FastClicks, count_messages
from bot.discord_ui.seasons.commands import SeasonCommands
from bot.discord_ui.seasons.poster import PodiumPoster
from bot.discord_ui.services import Services
from bot.discord_ui.table.commands import SpadesCommands
from bot.discord_ui.table.publisher import Publisher
from bot.discord_ui.table.views import BUTTON_KINDS, FAST_CLICKS, STRAY_CLICK, answers
from bot.discord_ui.tournaments.commands import TournamentCommands
from bot.discord_ui.tournaments.poster import TournamentButton, TournamentDesk
from bot.discord_ui.transport import discordpy
from bot.ops.metrics import gateway_event, interaction_received
from bot.service import Refusal

log = logging.getLogger("bot")
LOGIN_CALLS = 3  # GET /users/@me (the token check, then discord.py's login) and GET /oauth2/applications/@me


def spades_group() -> SpadesCommands:
    """/spades with every subcommand, the nested groups included."""
    group = SpadesCommands()
    group.add_command(SeasonCommands())
    group.add_command(review_command)
    group.add_command(TournamentCommands())
    return group


@dataclass(frozen=True)
class Parts:
    """What the client runs, built around it by the composition root (`bot.runtime`)."""

    services: Services
    publisher: Publisher
    podiums: PodiumPoster
    tournament_desk: TournamentDesk


class SpadesBot(discord.Client):
    """Only guild and guild-message events are needed (the latter to notice what buries a table);
    no privileged intent. Mentions are off everywhere unless a message pings a player on purpose.
    No message cache: nothing reads it, and every edit of a cached table cost a copy and a re-parse
    of the message when Discord echoed the edit (7% of the bot's CPU under load). `assemble` builds
    the parts on the client (the publisher and the posters reach Discord through it)."""

    button_kinds = (*BUTTON_KINDS, TournamentButton)  # every button the bot answers, restart-proof

    def __init__(self, assemble: Callable[[discord.Client], Parts], *, dev_guild_id: int | None = None,
                 sync_commands: bool = True, **options: Any) -> None:
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # a card game needs no voice
        intents = discord.Intents.none()
        intents.guilds = True
        intents.guild_messages = True
        super().__init__(intents=intents, guild_ready_timeout=0.5, max_messages=None,
                         allowed_mentions=discord.AllowedMentions.none(), **options)
        self.dev_guild_id = dev_guild_id
        self.sync_commands = sync_commands
        self.tree: app_commands.CommandTree[SpadesBot] = app_commands.CommandTree(self)
        self.tree.on_error = self._on_command_error  # type: ignore[method-assign]
        self.parts = assemble(self)
        self.services = self.parts.services  # what commands and buttons reach (`services(interaction)`)
        self.publisher = self.parts.publisher
        self.fast_clicks = FastClicks(self, FAST_CLICKS, self._note)

    async def login(self, token: str) -> None:
        """discord.py's own calls share the transport's state (and its idle expiry) from the first."""
        discordpy.attach(self.http, self.publisher.transport)
        await super().login(token)

    async def setup_hook(self) -> None:
        group = spades_group()
        self.tree.add_command(group)
        self.add_dynamic_items(*self.button_kinds)
        self.fast_clicks.route_commands(group.name, group.fast_routes(), report_error)
        self.fast_clicks.install()
        count_messages(self, self.publisher.note_message)
        if self.sync_commands:
            await self._sync_commands()
        # Checking the token, logging in (who the bot is, its application) and the sync, moments ago.
        self.publisher.budget.spent_elsewhere(LOGIN_CALLS + self.sync_commands)
        running = self.services
        recovery = await running.games.recover()
        log.info("resumed %d unfinished games (%d set aside as damaged)",
                 len(recovery.games), len(recovery.damaged))
        await running.seasons.recover()
        await running.tournaments.recover()  # after the games: its tables' games run again

    def _note(self, interaction: discord.Interaction[Any]) -> None:
        """Every interaction, however it is routed: its webhook may carry the channel's next post,
        and its outcome is counted."""
        self.publisher.webhooks.note(interaction)
        interaction_received(interaction)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """A click no button kind answers (a forged or outdated id) is refused in words: discord.py
        would leave it unanswered ("This interaction failed")."""
        self._note(interaction)
        custom_id = cast("dict[str, Any]", interaction.data or {}).get("custom_id")
        if interaction.type is discord.InteractionType.component and not (
                isinstance(custom_id, str) and answers(custom_id, self.button_kinds)):
            await report_error(interaction, Refusal(STRAY_CLICK))

    async def on_connect(self) -> None:
        gateway_event("connect")

    async def on_resumed(self) -> None:
        gateway_event("resumed")

    async def on_disconnect(self) -> None:
        gateway_event("disconnect")

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        self.publisher.note_message(payload.channel_id, payload.message_id, deleted=True)

    async def _sync_commands(self) -> None:
        """Sync only when the command tree (or its target) changed since the last sync."""
        guild = discord.Object(self.dev_guild_id) if self.dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        payload = [c.to_dict(self.tree) for c in self.tree.get_commands(guild=guild)]
        digest = hashlib.sha256(json.dumps([self.dev_guild_id, payload], sort_keys=True).encode()).hexdigest()
        if await self.services.games.synced_commands() == digest:
            log.info("slash commands unchanged; not syncing")
            return
        await self.tree.sync(guild=guild)
        await self.services.games.remember_synced_commands(digest)
        log.info("slash commands synced %s", f"to guild {self.dev_guild_id}" if guild else "globally")

    async def _on_command_error(self, interaction: discord.Interaction[Any],
                                error: app_commands.AppCommandError) -> None:
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        await report_error(interaction, original)

    async def close(self) -> None:
        running = self.services
        await running.tournaments.close()
        await self.parts.tournament_desk.close()
        await running.seasons.close()
        await self.parts.podiums.close()
        await running.games.close()
        if await self.publisher.close():
            await running.games.record_clean_stop()
        await super().close()


class ShardedSpadesBot(SpadesBot, discord.AutoShardedClient):
    """One process serving some shards (`SHARD_IDS` of `SHARD_COUNT`); its games are those guilds'."""
