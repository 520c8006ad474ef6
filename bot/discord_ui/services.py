"""What a command or a button works with: the services the composition root built (`Services`,
reached through `services(interaction)`, the one way from an interaction to them), and who asked
where. The Discord parts appear here as the few methods the commands and buttons call, so this
module imports none of them and every feature package can depend on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, cast

import discord

from bot.discord_ui.transport.fastpath import FastEdits
from bot.engine import Card
from bot.service import GameService, LiveGame, Refusal
from bot.service.coach import CoachService
from bot.service.seasons import SeasonService
from bot.service.tournaments import TournamentService

Asked = discord.Interaction[Any]  # a slash command, a click or an autocomplete


class TableClicks(Protocol):
    """What the game's buttons ask for (`bot.discord_ui.table.handlers.Handlers`)."""

    async def lobby(self, interaction: Asked, game_id: str, action: str) -> None: ...

    async def open_panel(self, interaction: Asked, game_id: str | None = None, notice: str | None = None) -> None: ...

    async def panel_action(self, interaction: Asked, game_id: str, kind: str, value: str | Card | None) -> None: ...

    async def rematch(self, interaction: Asked, game_id: str) -> None: ...

    async def agree_to_cancel(self, interaction: Asked, game_id: str) -> None: ...


class TableShowing(Protocol):
    """What the commands ask of the publisher (`bot.discord_ui.table.publisher.Publisher`)."""

    edits: FastEdits

    def repost(self, live: LiveGame) -> None: ...

    def lobby_shown(self, live: LiveGame, interaction: Asked) -> None: ...


class TournamentClicks(Protocol):
    """What a tournament's Join and Leave buttons ask for (`bot.discord_ui.tournaments.poster`)."""

    async def click(self, interaction: Asked, tournament_id: str, action: str) -> None: ...


@dataclass(frozen=True)
class Services:
    games: GameService
    seasons: SeasonService
    coaching: CoachService
    tournaments: TournamentService
    table: TableClicks
    publisher: TableShowing
    tournament_clicks: TournamentClicks


class _Carrier(Protocol):
    services: Services


def services(interaction: Asked) -> Services:
    """The services of the client that received `interaction`."""
    return cast(_Carrier, interaction.client).services


def guild_of(interaction: Asked) -> int:
    if interaction.guild_id is None:
        raise Refusal("Spades commands work in server channels.")
    return interaction.guild_id


def channel_of(interaction: Asked) -> int:
    if interaction.channel_id is None:
        raise Refusal("Spades commands work in server channels.")
    return interaction.channel_id


def is_server_manager(interaction: Asked) -> bool:
    permissions = interaction.permissions
    return bool(permissions.manage_guild or permissions.administrator)


def display_name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name
