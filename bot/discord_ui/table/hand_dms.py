"""Each player's hand by direct message: one post per deal, never edited (the panel follows the
cards), sent behind everything else in the token's budget. A seat deciding on blind nil gets its
hand once it has chosen; a player whose direct messages are closed is told once, on the table, to
use the panel. What a seat holds comes from that seat's own view, never from the game."""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.discord_ui.safe_text import shown
from bot.discord_ui.table import render
from bot.discord_ui.table.desk import Desk, nonce
from bot.discord_ui.transport import CALL_FAILED, Backoff, passing
from bot.discord_ui.transport.budget import Priority, RestBudget
from bot.discord_ui.transport.fastpath import FastEdits
from bot.engine import Phase, SeatView
from bot.service import HandDealt, LiveGame

DM_CLOSED = 50007
DM_TRIES = 5  # as discord.py tries a call before giving up
DM_CHANNELS_KEPT = 10_000  # users whose DM channel id is remembered (an int pair each)


def _not_yet(view: SeatView) -> bool:
    """The seat's hand is not to be sent yet: hidden for a blind nil choice, or still being drawn."""
    return view.cards_hidden or view.phase is Phase.DRAWING


class HandDMs:
    def __init__(self, client: discord.Client, budget: RestBudget, calls: FastEdits,
                 say: Callable[[LiveGame, str], Awaitable[object]]) -> None:
        self.client = client
        self.budget = budget
        self.calls = calls  # the post and the channel's opening, without discord.py (see fastpath)
        self._say = say  # a line on the game's table
        self._channels: OrderedDict[int, int] = OrderedDict()  # user id -> DM channel id

    async def deal(self, desk: Desk, live: LiveGame, change: HandDealt) -> None:
        """Each person's dealt hand by direct message; a seat deciding on blind nil gets it once it
        has chosen (its cards are shown nowhere before), and in duo every seat once the draw is over."""
        table = live.shown.table
        if table is None or table.hand_number != change.hand_number or table.is_over:
            return  # an old deal published again after a restart: the table shows what is current
        desk.dms_owed.clear()
        for user_id in [seat.user_id for seat in live.seats if seat.user_id is not None]:
            view = self._seated_view(live, user_id)
            if view is None:  # left while the others' went out
                continue
            if _not_yet(view):
                desk.dms_owed[user_id] = change.hand_number
                continue
            await self._send(desk, live, user_id, view, nonce(live, change.post_id, f"d{view.seat}"))

    async def send_owed(self, desk: Desk, live: LiveGame) -> None:
        """The direct messages held back for a blind-nil choice or the duo draw, once over. (Not kept across a
        restart: the panel shows the cards anyway.)"""
        desk.dms_checked = False
        if not live.started:
            return
        for user_id, hand in list(desk.dms_owed.items()):
            view = self._seated_view(live, user_id)
            if view is None or hand != view.hand_number or view.phase is Phase.OVER:
                del desk.dms_owed[user_id]
            elif not _not_yet(view):
                del desk.dms_owed[user_id]
                with contextlib.suppress(*CALL_FAILED):
                    await self._send(desk, live, user_id, view, {})

    def _seated_view(self, live: LiveGame, user_id: int) -> SeatView | None:
        """The view of the seat `user_id` holds now (None: none; seats change while DMs go out)."""
        return live.shown.views.get(user_id)

    async def _send(self, desk: Desk, live: LiveGame, user_id: int, view: SeatView, once: dict[str, Any]) -> None:
        text = render.dm_text(view, _table_link(live))
        try:
            await self.post(user_id, text, once.get("nonce"))
        except discord.Forbidden as error:
            if error.code not in (DM_CLOSED, None):
                raise
            if user_id in desk.dm_failed:
                return
            desk.dm_failed.add(user_id)
            name = shown(view.names[view.seat])
            await self._say(live, f"I can't send {name} direct messages. {name}, use **My hand** on "
                                  "the table or `/spades hand` to see your cards; the game goes on.")

    async def post(self, user_id: int, text: str, once: str | None = None, priority: Priority = Priority.DM) -> None:
        """Post in the user's DM, within the budget at `priority`; a passing fault (a 429 among them) is
        tried again by the one retry policy, up to `DM_TRIES` times. With a nonce (the deal's), Discord
        shows it once however often it is sent."""
        backoff = Backoff()
        for attempt in range(1, DM_TRIES + 1):
            try:
                channel_id = await self.channel_id(user_id)
                await self.budget.take(priority)
                await self.calls.post(self._token(), channel_id, text, once)
                return
            except CALL_FAILED as error:
                if attempt == DM_TRIES or not passing(error):
                    raise
                await asyncio.sleep(backoff.delay(error))

    async def channel_id(self, user_id: int) -> int:
        """A user's DM channel, opened once. discord.py remembers only the last 128 DM channels, so
        with more players than that every hand dealt cost a request to open each DM again; and with
        no member intent the user is rarely cached, so the channel is opened from the id alone."""
        channel_id = self._channels.get(user_id)
        if channel_id is None:
            await self.budget.take(Priority.DM)
            channel_id = await self.calls.open_dm(self._token(), user_id)
            self._channels[user_id] = channel_id
            if len(self._channels) > DM_CHANNELS_KEPT:
                self._channels.popitem(last=False)
        else:
            self._channels.move_to_end(user_id)
        return channel_id

    def _token(self) -> str:
        token = self.client.http.token
        assert token is not None, "the client has logged in before any game is published"
        return token


def _table_link(live: LiveGame) -> str:
    return f"https://discord.com/channels/{live.guild_id}/{live.channel_id}"
