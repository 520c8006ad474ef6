"""The webhooks interactions lend the bot: what it may post and edit outside the global rate limit.

Every click or command in a server channel comes with a token that, for 15 minutes, lets the bot
post follow-up messages in that channel and edit or delete them, none of it counted against the
token's global limit. The publisher posts tables and turn mentions through the newest one.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import discord

from bot.discord_ui.transport import RateLimits

FOLLOW_UP_FRESH = 10 * 60  # an interaction younger than this may carry a new message (edited for 15 min)
WEBHOOK_LIFE = 14 * 60  # edit through an interaction's webhook up to here, then through the channel
CHANNELS_KEPT = 10_000  # channels whose newest interaction is remembered
ANSWER_WITHIN = 3.0  # Discord's deadline for answering an interaction
_LENDING = (discord.InteractionType.application_command, discord.InteractionType.component)


@dataclass
class Via:
    """An interaction whose webhook made a message and can edit it outside the global rate limit."""

    interaction: discord.Interaction[Any]
    issued: float  # monotonic time of the interaction

    def alive(self, now: float) -> bool:
        return now - self.issued < WEBHOOK_LIFE


class FreshWebhooks:
    """The newest interaction of each channel (autocomplete lends nothing: it can't be followed up)."""

    def __init__(self) -> None:
        self._newest: OrderedDict[int, Via] = OrderedDict()

    def note(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id is None or interaction.channel_id is None or interaction.type not in _LENDING:
            return
        self._newest[interaction.channel_id] = Via(interaction, time.monotonic())
        self._newest.move_to_end(interaction.channel_id)
        if len(self._newest) > CHANNELS_KEPT:
            self._newest.popitem(last=False)

    def fresh(self, channel_id: int) -> Via | None:
        """An interaction of the channel recent enough to carry a new message, and answered (a
        follow-up before the answer is refused)."""
        via = self.recent(channel_id)
        return via if via is not None and via.interaction.response.is_done() and _lends(via) else None

    def recent(self, channel_id: int) -> Via | None:
        """The channel's newest interaction if it is recent enough to carry a new message, answered
        or not yet."""
        via = self._newest.get(channel_id)
        return via if via is not None and time.monotonic() - via.issued < FOLLOW_UP_FRESH else None

    async def answered(self, channel_id: int, patience: float = ANSWER_WITHIN) -> Via | None:
        """The channel's newest interaction once it is answered: a click or command that started the
        game is answered within Discord's 3 seconds, a moment after its change is published."""
        deadline = time.monotonic() + patience
        while (via := self.recent(channel_id)) is not None and not via.interaction.response.is_done():
            if time.monotonic() >= deadline:
                return None
            await asyncio.sleep(0.02)
        return via if via is None or _lends(via) else None


def _lends(via: Via) -> bool:
    """False for an interaction answered "thinking…" (a Hint, privately): Discord makes its first
    follow-up the answer, in its place and only for its user, so a table or a turn mention posted
    through it would vanish from the channel."""
    return via.interaction.response.type is not discord.InteractionResponseType.deferred_channel_message


class WebhookPace:
    """When an edit through an interaction's webhook keeps within the bucket Discord announced for
    it (its `X-RateLimit-*` headers, learnt by the transport). A panel and the table may ride on the
    same webhook; an edit that would exhaust its bucket is put off (the caller tries again once
    `ready_in` has passed) rather than waited for, which would hold up every other panel of the game."""

    def __init__(self, limits: RateLimits) -> None:
        self._limits = limits

    def ready_in(self, interaction: discord.Interaction[Any]) -> float:
        """Seconds until an edit through this interaction's webhook keeps within its bucket."""
        return self._limits.ready_in(f"PATCH /webhooks/{interaction.application_id}/{interaction.token}"
                                     "/messages/{id}")
