"""Which interaction of a channel may carry the bot's next post there (a table, a turn mention, the
game-over post): answered, recent, and not one answered "thinking…", whose first follow-up Discord
turns into that answer, in its place and only for the one who asked."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord

from bot.discord_ui import fastgateway
from bot.discord_ui.table.webhooks import FreshWebhooks

CHANNEL = 20


def _click(answer: discord.InteractionResponseType | None) -> Any:
    """A click in a server channel, answered as `answer` says (None: not yet)."""
    click = SimpleNamespace(guild_id=10, channel_id=CHANNEL, type=discord.InteractionType.component)
    click.response = discord.InteractionResponse(click)  # type: ignore[arg-type]
    if answer is not None:
        fastgateway.mark_answered(click, answer)  # type: ignore[arg-type]
    return click


async def test_a_click_answered_on_its_panel_lends_its_webhook() -> None:
    webhooks = FreshWebhooks()
    card = _click(discord.InteractionResponseType.message_update)
    webhooks.note(card)
    via = webhooks.fresh(CHANNEL)
    assert via is not None and via.interaction is card
    answered = await webhooks.answered(CHANNEL)
    assert answered is not None and answered.interaction is card


async def test_a_hint_thinking_lends_nothing_so_the_table_stays_public() -> None:
    webhooks = FreshWebhooks()
    webhooks.note(_click(discord.InteractionResponseType.message_update))
    webhooks.note(_click(discord.InteractionResponseType.deferred_channel_message))  # Hint: "thinking…"
    assert webhooks.fresh(CHANNEL) is None  # the table goes through the channel meanwhile
    assert await webhooks.answered(CHANNEL, patience=0.05) is None


async def test_a_click_not_yet_answered_lends_nothing_yet() -> None:
    webhooks = FreshWebhooks()
    webhooks.note(_click(None))
    assert webhooks.fresh(CHANNEL) is None
    assert await webhooks.answered(CHANNEL, patience=0.05) is None
