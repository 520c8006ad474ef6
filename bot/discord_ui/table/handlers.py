"""What each button does: check where the click came from, make one service call, answer at once.

Every answer fits Discord's 3-second window: the service call is quick (the engine and one save);
everything slow (direct messages, the table, other players' panels) is left to the publisher.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import discord

from bot.discord_ui.errors import report_error
from bot.discord_ui.services import Asked, display_name, is_server_manager
from bot.discord_ui.table import faces, render, results_text
from bot.discord_ui.table.panels import Panel
from bot.discord_ui.table.publisher import Publisher
from bot.discord_ui.table.views import lobby_rows
from bot.engine import Card, Phase
from bot.service import GameService, LiveGame, Refusal

log = logging.getLogger(__name__)


class Handlers:
    def __init__(self, service: GameService, publisher: Publisher) -> None:
        self.service = service
        self.publisher = publisher
        self._cleanups: set[asyncio.Task[None]] = set()

    def _game(self, interaction: Asked, game_id: str) -> LiveGame:
        """The running game a button names, if it belongs to this server and channel."""
        return self.service.require_game(game_id, interaction.guild_id, interaction.channel_id)

    async def lobby(self, interaction: Asked, game_id: str, action: str) -> None:
        try:
            live = self._game(interaction, game_id)
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
                await self.service.cancel(live, user.id, is_server_manager(interaction), display_name(user))
            await self.publisher.edits.update_text(interaction, render.lobby_text(live), lobby_rows(live))
            self.publisher.lobby_shown(live, interaction)
        except Exception as error:
            await report_error(interaction, error)

    async def open_panel(self, interaction: Asked, game_id: str | None = None, notice: str | None = None) -> None:
        """**My hand** (or `/spades hand`, or `/spades bid show my cards`): a fresh private panel at
        the bottom, with `notice` on it if given; the one it replaces is removed."""
        try:
            if game_id is None:
                if interaction.channel_id is None:
                    raise Refusal("Spades commands work in server channels.")
                live = self.service.require_channel_game(interaction.channel_id)
            else:
                live = self._game(interaction, game_id)
            shown = live.shown  # as saved: a move of another player being saved is not drawn
            face, token = faces.panel(live, shown.view(interaction.user.id), notice), shown.token
            await self.publisher.edits.show(interaction, face)
            replaced = self.publisher.panel_shown(live, interaction.user.id, interaction, token, face)
            if replaced is not None:  # the answer is a new message: the old panel goes
                self._remove_later(replaced)
        except Exception as error:
            await report_error(interaction, error)

    async def panel_action(self, interaction: Asked, game_id: str, kind: str, value: str | Card | None) -> None:
        """A bid, a card or "show my cards" from the panel: one click, answered by updating the
        panel itself (a refusal is shown on it, in words). A game the click can't reach (over, or
        another channel's: the id may be forged onto any message) is refused in a private reply."""
        try:
            live = self._game(interaction, game_id)
            user_id = interaction.user.id
            notice = None
            self.publisher.answering(live, user_id, True)  # this answer shows the move on the panel
            try:
                try:
                    if kind == "play" and live.game is not None and live.game.phase is Phase.PASSING:
                        assert isinstance(value, int)
                        await self.service.pass_cards(live, user_id, value)  # nil_pass: a click passes the card
                    elif kind == "play":
                        assert isinstance(value, int)
                        await self.service.play(live, user_id, value)
                    elif kind == "bid":
                        await self.service.bid(live, user_id, str(value))
                    elif kind == "draw":
                        await self.service.draw(live, user_id, value == "keep")
                    else:
                        await self.service.reveal(live, user_id)
                except Refusal as refusal:
                    notice = str(refusal)
                shown = live.shown  # as saved just now (or since)
                face, token = faces.panel(live, shown.view(user_id), notice), shown.token
                await self.publisher.edits.update(interaction, face)
            except BaseException:
                self.publisher.answering(live, user_id, False)
                raise
            # The same message, updated: kept current from here (which ends `answering`).
            self.publisher.panel_shown(live, user_id, interaction, token, face)
        except Exception as error:
            await report_error(interaction, error)

    async def rematch(self, interaction: Asked, game_id: str) -> None:
        """The first click opens the new lobby (posted right here); later clicks take a seat."""
        try:
            if interaction.guild_id is None or interaction.channel_id is None:
                raise Refusal("Rematches work in server channels.")
            user = interaction.user
            live, opened = await self.service.rematch(game_id, interaction.guild_id, interaction.channel_id,
                                                      user.id, display_name(user))
            if opened:
                message_id = await self.publisher.edits.announce(interaction, render.lobby_text(live), lobby_rows(live))
                await self.service.set_lobby_message(live, message_id)
                self.publisher.lobby_shown(live, interaction)
            else:
                started = "It has started!" if live.status == "playing" else "Waiting for the others."
                await self.publisher.edits.say(interaction, f"You're in the rematch. {started}")
        except Exception as error:
            await report_error(interaction, error)

    async def agree_to_cancel(self, interaction: Asked, game_id: str) -> None:
        """**Agree to cancel** under the host's request: the request shows who is still to agree."""
        try:
            live = self._game(interaction, game_id)
            request = await self.service.agree_to_cancel(live, interaction.user.id)
            if request is None:
                await interaction.response.edit_message(content="Everyone agreed: the game is cancelled.", view=None)
            else:
                await interaction.response.edit_message(content=results_text.cancel_request_text(request))
        except Exception as error:
            await report_error(interaction, error)

    def _remove_later(self, panel: Panel) -> None:
        """Delete a replaced panel in the background (its token may still be good)."""

        async def remove() -> None:
            with contextlib.suppress(discord.HTTPException):
                await panel.interaction.delete_original_response()

        task = asyncio.create_task(remove())
        self._cleanups.add(task)
        task.add_done_callback(self._cleanups.discard)
