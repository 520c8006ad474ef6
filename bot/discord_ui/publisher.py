"""Turns the service's changes into Discord messages, one worker per game so order is kept.

Table edits are coalesced (at most one edit per ``TABLE_EDIT_INTERVAL`` per game) so a fast trick
never runs into rate limits; the table is posted anew when it was deleted or is too old to edit.
Failures never reach the game: a lost channel or lost permissions cancel it with a log line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.discord_ui.render import (
    age_seconds,
    game_over_text,
    hand_summary,
    lobby_text,
    private_hand_text,
    table_text,
)
from bot.discord_ui.views import dm_view, lobby_view, table_view
from bot.engine import Phase, seat_view
from bot.service import (
    ActedForPlayer,
    Change,
    GameCancelled,
    GameOver,
    GameStarted,
    HandDealt,
    HandScored,
    LiveGame,
    LobbyChanged,
    SeatTakenOver,
    TableChanged,
    TurnReminder,
)

if TYPE_CHECKING:
    from bot.discord_ui.app import SpadesBot

log = logging.getLogger(__name__)

TABLE_EDIT_INTERVAL = 1.0
TABLE_MAX_AGE = 55 * 60  # Discord refuses edits to messages older than an hour
DM_CLOSED = 50007
NO_ACCESS = (50001, 50013)  # missing access, missing permissions
UNKNOWN_CHANNEL = 10003
DM_CHANNELS_KEPT = 10_000  # users whose DM channel id is remembered (an int pair each)


class Publisher:
    def __init__(self, client: SpadesBot) -> None:
        self.client = client
        self._queues: dict[str, asyncio.Queue[tuple[LiveGame, Change | None]]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._last_table_edit: dict[str, float] = {}
        self._dm_failed: set[tuple[str, int]] = set()
        self._dm_channels: OrderedDict[int, int] = OrderedDict()  # user id -> DM channel id, least recent first

    # The service calls this with the game's lock held: only enqueue, never wait.
    def publish(self, live: LiveGame, changes: Sequence[Change]) -> None:
        queue = self._queues.get(live.game_id)
        if queue is None:
            queue = self._queues[live.game_id] = asyncio.Queue()
            self._workers[live.game_id] = asyncio.create_task(self._work(live.game_id, queue))
        for change in changes:
            queue.put_nowait((live, change))

    def repost_table(self, live: LiveGame) -> None:
        """`/spades table`: post the table again at the bottom of the channel."""
        self.publish(live, [])
        self._queues[live.game_id].put_nowait((live, None))

    async def close(self) -> None:
        for task in self._workers.values():
            task.cancel()
        for task in self._workers.values():
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _work(self, game_id: str, queue: asyncio.Queue[tuple[LiveGame, Change | None]]) -> None:
        while True:
            live, change = await queue.get()
            table_due = False
            repost = False
            while True:
                if change is None:
                    repost = table_due = True
                elif isinstance(change, TableChanged):
                    table_due = True
                else:
                    await self._safely(live, self._handle(live, change))
                if queue.empty() and table_due:
                    # Wait out the edit interval, taking in whatever else arrives meanwhile.
                    wait = self._last_table_edit.get(game_id, 0.0) + TABLE_EDIT_INTERVAL - time.monotonic()
                    if wait > 0:
                        await asyncio.sleep(wait)
                if queue.empty():
                    break
                live, change = queue.get_nowait()
            if table_due:
                await self._safely(live, self._render_table(live, repost))
                self._last_table_edit[game_id] = time.monotonic()
            if not live.active and queue.empty():
                self._queues.pop(game_id, None)
                self._workers.pop(game_id, None)
                self._last_table_edit.pop(game_id, None)  # nothing per game outlives the game
                self._dm_failed -= {(g, user) for g, user in self._dm_failed if g == game_id}
                return

    async def _safely(self, live: LiveGame, work: Any) -> None:
        try:
            await work
        except discord.Forbidden as error:
            if error.code in NO_ACCESS:
                await self.client.service.cancel_for(live, f"I lost permission to post in channel {live.channel_id}")
            else:
                log.warning("game %s: forbidden: %s", live.game_id, error)
        except discord.NotFound as error:
            if error.code == UNKNOWN_CHANNEL:
                await self.client.service.cancel_for(live, f"channel {live.channel_id} was deleted")
            else:
                log.warning("game %s: not found: %s", live.game_id, error)
        except Exception:
            log.exception("game %s: couldn't update Discord", live.game_id)

    async def _channel(self, live: LiveGame) -> discord.abc.Messageable:
        channel = self.client.get_channel(live.channel_id)
        if channel is None:
            channel = await self.client.fetch_channel(live.channel_id)
        assert isinstance(channel, discord.abc.Messageable)
        return channel

    async def _say(self, live: LiveGame, text: str, **kwargs: Any) -> None:
        channel = await self._channel(live)
        await channel.send(text, allowed_mentions=discord.AllowedMentions(users=True, everyone=False,
                                                                          roles=False), **kwargs)

    async def _handle(self, live: LiveGame, change: Change) -> None:
        if isinstance(change, LobbyChanged | GameStarted):
            await self._render_lobby(live)
        elif isinstance(change, HandDealt):
            await self._send_hands(live, change)
        elif isinstance(change, HandScored):
            await self._say(live, hand_summary(live, change.hand))
        elif isinstance(change, GameOver):
            await self._say(live, game_over_text(live, change.outcome))
            await self._render_table(live, False)
        elif isinstance(change, GameCancelled):
            await self._render_lobby(live)
            if live.table_message_id is not None:
                await self._render_table(live, False)
            await self._say(live, f"Game `{live.game_id}` was cancelled ({change.reason}). "
                                  "Nothing counts toward the leaderboard.")
        elif isinstance(change, TurnReminder):
            seat = live.seats[change.seat]
            who = f"<@{seat.user_id}>" if seat.user_id else seat.name
            minutes = max(1, round(live.turn_timeout / 60))
            await self._say(live, f"{who}, it's your turn in game `{live.game_id}`. If you don't act within "
                                  f"about {minutes} min, a computer player will move for you.")
        elif isinstance(change, ActedForPlayer):
            await self._say(live, f"{live.seats[change.seat].name} ran out of time, so a computer player "
                                  "moved for them.")
        elif isinstance(change, SeatTakenOver):
            await self._say(live, f"{change.left} left the game; {live.seats[change.seat].name} "
                                  "plays their seat now.")

    async def _render_lobby(self, live: LiveGame) -> None:
        if live.lobby_message_id is None:
            return
        channel = await self._channel(live)
        message = channel.get_partial_message(live.lobby_message_id)  # type: ignore[attr-defined]
        with contextlib.suppress(discord.NotFound):
            await message.edit(content=lobby_text(live), view=lobby_view(live))

    async def _render_table(self, live: LiveGame, repost: bool) -> None:
        if live.game is None:
            return
        channel = await self._channel(live)
        content, view = table_text(live), table_view(live)
        old = live.table_message_id
        if old is not None and not repost and age_seconds(old) < TABLE_MAX_AGE:
            try:
                await channel.get_partial_message(old).edit(content=content, view=view)  # type: ignore[attr-defined]
                return
            except discord.NotFound:
                log.info("game %s: the table message was deleted; posting it again", live.game_id)
        message = await channel.send(content, view=view or discord.utils.MISSING)
        await self.client.service.set_table_message(live, message.id)
        if old is not None:
            with contextlib.suppress(discord.HTTPException):
                await channel.get_partial_message(old).edit(view=None)  # type: ignore[attr-defined]

    async def _dm_channel(self, user_id: int) -> discord.abc.Messageable:
        """A user's DM channel, opened once. discord.py remembers only the last 128 DM channels, so
        with more players than that every hand dealt cost a request to open each DM again; and with
        no member intent the user is rarely cached, so the channel is opened from the id alone."""
        channel_id = self._dm_channels.get(user_id)
        if channel_id is None:
            channel_id = (await self.client.create_dm(discord.Object(user_id))).id
            self._dm_channels[user_id] = channel_id
            if len(self._dm_channels) > DM_CHANNELS_KEPT:
                self._dm_channels.popitem(last=False)
        else:
            self._dm_channels.move_to_end(user_id)
        return self.client.get_partial_messageable(channel_id, type=discord.ChannelType.private)

    async def _send_hands(self, live: LiveGame, change: HandDealt) -> None:
        game = live.game
        if game is None or game.hand_number != change.hand_number or game.phase is Phase.DEALING:
            return
        for seat in live.seats:
            if seat.user_id is None:
                continue
            view = seat_view(game, seat.seat)
            try:
                channel = await self._dm_channel(seat.user_id)
                text = private_hand_text(live, view)
                if not view.cards_hidden:
                    text += "\nBid and play with the table's buttons, or `/spades bid` and `/spades play`."
                await channel.send(text, view=dm_view(live.game_id, view) or discord.utils.MISSING)
            except discord.Forbidden as error:
                if error.code != DM_CLOSED and error.code is not None:
                    raise
                if (live.game_id, seat.user_id) in self._dm_failed:
                    continue
                self._dm_failed.add((live.game_id, seat.user_id))
                await self._say(live, f"I can't send {seat.name} direct messages. {seat.name}, use **My hand** "
                                      "on the table or `/spades hand` to see your cards; the game goes on.")
            except discord.HTTPException:
                log.warning("game %s: couldn't DM seat %s", live.game_id, seat.seat, exc_info=True)
