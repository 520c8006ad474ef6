"""The one place where refusals and failures become what the person sees."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.discord_ui.safe_text import quoted_parts
from bot.ops.metrics import interaction_refused
from bot.service import Refusal

log = logging.getLogger(__name__)

GENERIC_FAILURE = "Something went wrong on my side; nothing changed. Please try again."
DISCORD_LIMIT = 2000


async def reply_privately(interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
    """An ephemeral answer, whether or not the interaction was already acknowledged: a "thinking…"
    answer is edited into it (a first follow-up taking its place is deprecated)."""
    text = text if len(text) <= DISCORD_LIMIT else text[: DISCORD_LIMIT - 1] + "…"
    if interaction.response.type is discord.InteractionResponseType.deferred_channel_message:
        await interaction.edit_original_response(content=text, **kwargs)
    elif interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(text, ephemeral=True, **kwargs)


async def report_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """Refusals are told to the user as they are; anything else is logged and told generically."""
    interaction_refused(interaction, isinstance(error, Refusal))
    if isinstance(error, Refusal):
        message = quoted_parts(str(error))
    else:
        log.error("interaction %s failed", interaction.data, exc_info=error)
        message = GENERIC_FAILURE
    try:
        await reply_privately(interaction, message)
    except discord.HTTPException:
        log.warning("could not tell the user about a failure: %s", message)
