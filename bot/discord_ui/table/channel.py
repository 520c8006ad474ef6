"""A game's channel as the publisher writes to it: posts and deletions, and the table message.

Posts and edits go through the webhook of a recent interaction in the channel while one is live
(not counted against the token's global limit), else through the channel itself, after a slot of
the one REST budget. The table is edited in place at its pace, or posted anew at the bottom when
it is buried, a new hand begins, it is too old to edit, or its webhook is about to expire.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import discord

from bot.discord_ui.layout import Face
from bot.discord_ui.table import faces, render
from bot.discord_ui.table.desk import Desk
from bot.discord_ui.table.views import draw
from bot.discord_ui.table.webhooks import FreshWebhooks, Via, WebhookPace
from bot.discord_ui.transport import CALL_FAILED
from bot.discord_ui.transport.budget import Priority, RestBudget
from bot.discord_ui.transport.fastpath import FastEdits
from bot.engine import Phase, TableView
from bot.service import LiveGame, PublisherPort

log = logging.getLogger(__name__)

TABLE_MAX_AGE = 55 * 60  # Discord refuses edits to messages older than an hour
# Discord takes 5 message edits per 5 s per channel. A table edited through the channel at most
# every 1.25 s uses 4: discord.py never has to hold an edit (and the lane with it) for the bucket,
# and a process started again at once, which can't know what the killed one spent, has the fifth.
CHANNEL_EDIT_GAP = 1.25
BURIED_AFTER = 4  # messages below the table that make it worth posting again at the bottom


class GameChannel:
    """Writes to games' channels for the publisher; `games` is told where the table now is."""

    def __init__(self, client: discord.Client, games: PublisherPort, budget: RestBudget, edits: FastEdits,
                 pace: WebhookPace, webhooks: FreshWebhooks, refresh_interval: float) -> None:
        self.client, self.games, self.budget, self.edits = client, games, budget, edits
        self.pace, self.webhooks, self.refresh_interval = pace, webhooks, refresh_interval

    def channel(self, live: LiveGame) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(live.channel_id, guild_id=live.guild_id,
                                                   type=discord.ChannelType.text)

    async def say(self, live: LiveGame, text: str, *, mention: int | None = None,
                  priority: Priority = Priority.OWED, **kwargs: Any) -> discord.Message:
        mentions = (discord.AllowedMentions(users=[discord.Object(mention)]) if mention is not None
                    else discord.AllowedMentions.none())
        await self.budget.take(priority)
        return await self.channel(live).send(text, allowed_mentions=mentions, **kwargs)

    async def delete(self, channel_id: int, message_id: int, via: Via | None = None) -> None:
        """Remove a message of ours (a replaced table, a turn mention), if it is still there:
        through the webhook that made it while it can, else through the channel (counted)."""
        with contextlib.suppress(*CALL_FAILED):
            if via is not None and via.alive(time.monotonic()):
                await self.edits.delete(via.interaction, message_id)
                return
            await self.budget.take(Priority.CLEANUP)
            await self.client.get_partial_messageable(channel_id).get_partial_message(message_id).delete()

    # ------------------------------------------------------------------------- the table message
    def table_due_in(self, desk: Desk) -> float:
        """Seconds until the table may be edited again: its pace, and its webhook's share of edits;
        through the channel, no more often than the channel's edits allow (CHANNEL_EDIT_GAP)."""
        via, now = desk.table_via, time.monotonic()
        if via is not None and via.alive(now):
            gap, webhook = self.refresh_interval, self.pace.ready_in(via.interaction)
        else:
            gap, webhook = max(self.refresh_interval, CHANNEL_EDIT_GAP), 0.0
        return max(0.0, desk.last_table + gap - now, webhook)

    async def render_table(self, desk: Desk, live: LiveGame, repost: bool) -> None:
        """Edit the table in place, or post it anew at the bottom (buried, a new hand, too old, or
        its webhook about to expire). Posts and edits go through a recent interaction's webhook,
        outside the global limit; the channel endpoints (counted) only when none is live."""
        table = public(live)
        old, old_via = desk.table_id, desk.table_via
        if old is None and table.phase in (Phase.DEALING, Phase.OVER):
            return  # the hand's summary says it all until the next deal (or the game-over post)
        now = time.monotonic()
        fresh = self.webhooks.fresh(live.channel_id)
        new_hand = table.hand_number != desk.table_hand
        buried = desk.below_table >= BURIED_AFTER or (new_hand and desk.below_table > 0)
        # A table whose webhook is about to expire moves to a fresh one. One edited through the
        # channel (the bot restarted, or nobody had clicked there lately) stays where people look
        # until its hand ends or it is buried: its buttons must not vanish under a player's click.
        expiring = old_via is not None and not old_via.alive(now + self.refresh_interval)
        if (old is not None and not repost and not (buried and live.active) and render.age_seconds(old) < TABLE_MAX_AGE
                and not (expiring and fresh is not None)):
            if await self.edit_table(live, old, old_via):
                return
            log.info("game %s: the table message was deleted; posting it again", live.game_id)
        if fresh is None:  # the click or command that moved the game may be a moment from its answer
            fresh = await self.webhooks.answered(live.channel_id)
        if fresh is not None:
            message_id, desk.table_via = await self.edits.follow_up(fresh.interaction, table_face(live)), fresh
        else:
            await self.budget.take(Priority.TABLE)
            message_id, desk.table_via = (await self.channel(live).send(view=draw(table_face(live)))).id, None
        desk.table_id, desk.below_table, desk.table_hand = message_id, 0, table.hand_number
        await self.games.set_table_message(live, message_id)
        if old is not None:
            await self.delete(live.channel_id, old, old_via)

    async def edit_table(self, live: LiveGame, table: int, via: Via | None) -> bool:
        """Bring the table message up to date; False if it is gone. Rendered once the call may go,
        so a refresh that waited for the budget shows what arrived meanwhile."""
        try:
            if via is not None and via.alive(time.monotonic()):
                await self.webhook_turn(via)
                await self.edits.edit(via.interaction, table, table_face(live))
            else:
                await self.budget.take(Priority.TABLE)
                await self.channel(live).get_partial_message(table).edit(view=draw(table_face(live)))
        except discord.NotFound:
            return False
        return True

    async def webhook_turn(self, via: Via) -> None:
        """Wait until an edit through `via`'s webhook keeps within its bucket. The panels riding on it
        share the bucket; a table edit that doesn't wait for its pace (the game ended, a summary)
        would otherwise be one too many. (No sleep at all when it may go now: a turn of the loop for
        nothing, on nearly every table edit.)"""
        wait = self.pace.ready_in(via.interaction)
        if wait > 0:
            await asyncio.sleep(wait)


def public(live: LiveGame) -> TableView:
    """What a started game shows in its channel: its public view as of its last save (taken by the
    service under the game's lock), never the game itself, which may hold a move being saved."""
    table = live.shown.table
    assert table is not None, "only a started game has a table"
    return table


def table_face(live: LiveGame) -> Face:
    """The table as last saved (drawn once the call may go, so it shows the latest save)."""
    return faces.table(public(live), live.shown.status == "playing")
