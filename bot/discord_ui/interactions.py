"""Button handlers and the one place where refusals and failures become ephemeral replies.

Each handler answers inside Discord's 3-second window: the service call is quick (engine plus one
SQLite write); anything slow (direct messages, table edits) happens later in the publisher.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.discord_ui.render import lobby_text, private_hand_text
from bot.discord_ui.views import bid_view, hand_view, lobby_view, parse_button
from bot.service import GameService, LiveGame, Refusal

if TYPE_CHECKING:
    from bot.discord_ui.app import SpadesBot

log = logging.getLogger(__name__)

GENERIC_FAILURE = "Something went wrong on my side; nothing changed. Please try again."
UNKNOWN_BUTTON = "That button isn't one I know any more; use /spades hand or /spades table for fresh ones."


async def reply_privately(interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
    """An ephemeral answer, whether or not the interaction was already acknowledged."""
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(text, ephemeral=True, **kwargs)


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Refusals are told to the user as they are; anything else is logged and told generically."""
    if isinstance(error, Refusal):
        message = str(error)
    else:
        log.error("interaction %s failed", interaction.data, exc_info=error)
        message = GENERIC_FAILURE
    try:
        await reply_privately(interaction, message)
    except discord.HTTPException:
        log.warning("could not tell the user about a failure: %s", message)


def is_server_manager(interaction: discord.Interaction[Any]) -> bool:
    permissions = interaction.permissions
    return bool(permissions.manage_guild or permissions.administrator)


def display_name(user: discord.abc.User) -> str:
    return getattr(user, "display_name", None) or user.name


class Interactions:
    """What each button does: a service call, then an immediate answer to the clicker."""

    def __init__(self, client: SpadesBot) -> None:
        self.client = client

    @property
    def service(self) -> GameService:
        return self.client.service

    def _game(self, game_id: str) -> LiveGame:
        return self.service.require_game(game_id)

    async def on_button(self, interaction: discord.Interaction[Any]) -> None:
        """Every click on one of this bot's buttons, on whatever message and however old."""
        data: dict[str, Any] = dict(interaction.data or {})
        click = parse_button(str(data.get("custom_id", "")))
        if click is None:
            await report_error(interaction, Refusal(UNKNOWN_BUTTON))
        elif click.kind == "lobby":
            await self.lobby_button(interaction, click.game_id, click.action)
        elif click.kind == "table":
            await self.table_button(interaction, click.game_id, click.action)
        elif click.kind == "bid":
            await self.bid_button(interaction, click.game_id, "blind nil" if click.action == "blind" else click.action)
        elif click.kind == "card":
            await self.card_button(interaction, click.game_id, int(click.action))
        else:
            await self.reveal_button(interaction, click.game_id)

    async def guarded(self, interaction: discord.Interaction[Any], action: Any) -> None:
        try:
            await action
        except Exception as error:
            await report_error(interaction, error)

    async def lobby_button(self, interaction: discord.Interaction[Any], game_id: str, action: str) -> None:
        async def run() -> None:
            live = self._game(game_id)
            user = interaction.user
            if action == "join":
                await self.service.join(live, user.id, display_name(user))
            elif action == "leave":
                await self.service.leave(live, user.id)
            elif action == "addbot":
                await self.service.add_bot(live, user.id, "normal")
            elif action == "start":
                await self.service.start(live, user.id)
            else:
                await self.service.cancel(live, user.id, is_server_manager(interaction))
            await interaction.response.edit_message(content=lobby_text(live), view=lobby_view(live))

        await self.guarded(interaction, run())

    async def table_button(self, interaction: discord.Interaction[Any], game_id: str, action: str) -> None:
        async def run() -> None:
            live = self._game(game_id)
            await self.send_hand(interaction, live, action == "act")

        await self.guarded(interaction, run())

    async def send_hand(self, interaction: discord.Interaction[Any], live: LiveGame, act: bool) -> None:
        """The clicker's own cards, ephemeral: with bid buttons or card buttons when it's their turn."""
        view = self.service.view_for(live, interaction.user.id)
        if act and not view.my_turn:
            assert live.game is not None and live.game.turn is not None
            raise Refusal(f"It's {live.seats[live.game.turn].name}'s turn.")
        text = private_hand_text(live, view)
        if act and view.legal_bids and not view.cards_hidden:
            await interaction.response.send_message(f"{text}\nChoose your bid:", view=bid_view(live.game_id, view),
                                                    ephemeral=True)
            return
        await interaction.response.send_message(text, view=hand_view(live.game_id, view) or discord.utils.MISSING,
                                                ephemeral=True)

    async def bid_button(self, interaction: discord.Interaction[Any], game_id: str, text: str) -> None:
        async def run() -> None:
            live = self._game(game_id)
            await self.service.bid(live, interaction.user.id, text)
            view = self.service.view_for(live, interaction.user.id)
            said = "blind nil" if text == "blind nil" else "nil" if text == "0" else text
            await interaction.response.edit_message(
                content=f"You bid **{said}**.\n{private_hand_text(live, view)}", view=hand_view(game_id, view))

        await self.guarded(interaction, run())

    async def card_button(self, interaction: discord.Interaction[Any], game_id: str, card: int) -> None:
        async def run() -> None:
            live = self._game(game_id)
            await self.service.play(live, interaction.user.id, card)
            view = self.service.view_for(live, interaction.user.id)
            await interaction.response.edit_message(content=private_hand_text(live, view),
                                                    view=hand_view(game_id, view))

        await self.guarded(interaction, run())

    async def reveal_button(self, interaction: discord.Interaction[Any], game_id: str) -> None:
        async def run() -> None:
            live = self._game(game_id)
            await self.service.reveal(live, interaction.user.id)
            view = self.service.view_for(live, interaction.user.id)
            await interaction.response.edit_message(content=private_hand_text(live, view),
                                                    view=hand_view(game_id, view))

        await self.guarded(interaction, run())
