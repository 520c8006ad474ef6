"""The **Hint** button, `/spades review` and the **Review** button: translation to `CoachService`.

Both answers are private and may take a moment (a hint searches like a computer player's move, a
review for seconds), so each click or command is acknowledged at once and answered when ready.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord import app_commands

from bot.discord_ui.errors import DISCORD_LIMIT, report_error
from bot.discord_ui.safe_text import quoted_parts
from bot.discord_ui.services import Asked, services
from bot.service import Refusal
from bot.service.coach import ReviewAnswer


def _cut(text: str) -> str:
    """A hint or review as shown: the players it names as written, within one message."""
    text = quoted_parts(text)
    return text if len(text) <= DISCORD_LIMIT else text[: DISCORD_LIMIT - 1] + "…"


async def hint(interaction: Asked, game_id: str) -> None:
    """**Hint** on the panel: the hard player's move for the clicker's turn, privately."""
    try:
        running = services(interaction)
        live = running.games.require_game(game_id, interaction.guild_id, interaction.channel_id)
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = await running.coaching.hint(live, interaction.user.id)
        await interaction.edit_original_response(content=_cut(text))  # the "thinking…" answer becomes the hint
    except Exception as error:
        await report_error(interaction, error)


def reviewing_text(game_id: str, waiting: bool) -> str:
    """The note a review replaces when it's ready. It says itself what to do if the review never
    comes: a bot restarted meanwhile can't answer here any more (this answer's token died with it)."""
    queue = " It's next, after a review already under way." if waiting else ""
    return (f"🔎 Reviewing your game `{game_id}` with the hard computer player: a few seconds.{queue} The review "
            "will appear here. If it hasn't in a minute (I may have restarted), ask again with `/spades review`.")


async def review(interaction: Asked, game_id: str | None) -> None:
    """`/spades review` or **Review**: a kept review at once; otherwise a note that it is being
    worked out (or waits for another), replaced by the review when it is ready."""
    try:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise Refusal("Reviews work in server channels.")
        answer: ReviewAnswer = await services(interaction).coaching.review(
            interaction.guild_id, interaction.channel_id, interaction.user.id, game_id)
        if answer.text is not None:
            await interaction.response.send_message(_cut(answer.text), ephemeral=True)
            return
        assert answer.pending is not None
        await interaction.response.send_message(reviewing_text(answer.game_id, answer.waiting), ephemeral=True)
        text = await asyncio.shield(answer.pending)  # another asker may be waiting on the same review
        await interaction.edit_original_response(content=_cut(text))
    except Exception as error:
        await report_error(interaction, error)


@app_commands.command(name="review", description="Your game reviewed by the hard computer player, privately")
@app_commands.describe(game="a game id (in the table's footer); default: your last game in this channel")
async def review_command(interaction: discord.Interaction[Any], game: str | None = None) -> None:
    await review(interaction, game.strip().lower() if game else None)
