"""Posts a season's podium where its admin asked, then tells the season service it is out.

A podium is owed (saved in the outbox with the season's end) until it is confirmed here, so a
crash before that posts it again at start-up; the nonce lets Discord show a repeat once. A passing
fault is retried with backoff; a channel that is gone, or closed to the bot for longer than
`channel_lost_timeout`, gets nothing: the podium stays readable with `/spades leaderboard season:`.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections.abc import Awaitable, Callable

import discord

from bot.discord_ui.seasons.render import podium_picture, podium_text
from bot.discord_ui.transport import CALL_FAILED, Backoff, Fault, RateLimits, describe, fault
from bot.discord_ui.transport.budget import Priority, RestBudget
from bot.service.seasons import Podium

log = logging.getLogger(__name__)


class PodiumPoster:
    """The season service's listener: one task per podium, so a slow channel holds up nothing else."""

    def __init__(self, client: discord.Client, budget: RestBudget, limits: RateLimits,
                 delivered: Callable[[int], Awaitable[None]], *, channel_lost_timeout: float = 600.0) -> None:
        self.client = client
        self.budget = budget  # the publisher's: every call counts against the token's global limit
        self.limits = limits
        self._delivered = delivered  # the season service's: a podium out is confirmed there
        self.channel_lost_timeout = channel_lost_timeout
        self._tasks: set[asyncio.Task[None]] = set()

    def season_ended(self, podium: Podium) -> None:
        task = asyncio.create_task(self._post(podium))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self, timeout: float = 5.0) -> None:
        """Let podiums on their way finish (up to `timeout`), then stop; one not yet out stays owed
        and is posted at the next start."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _post(self, podium: Podium) -> None:
        try:
            await self._send(podium)
        except Exception:  # a bug: the podium stays owed, and is tried again at the next start
            log.exception("season %r: couldn't post its podium", podium.season.name)
            return
        await self._delivered(podium.post_id)

    async def _send(self, podium: Podium) -> None:
        """Post it, retrying what passes; give up (it can't ever be posted) on a channel gone or
        closed to the bot for too long."""
        season = podium.season
        text = podium_text(podium)
        png = await asyncio.to_thread(podium_picture, podium)
        channel = self.client.get_partial_messageable(season.channel_id, guild_id=season.guild_id,
                                                      type=discord.ChannelType.text)
        backoff, lost_since = Backoff(), None
        while True:
            try:
                files = [discord.File(io.BytesIO(png), filename="podium.png")] if png is not None else []
                await self.budget.take(Priority.OWED)
                await channel.send(text, files=files, nonce=f"s{season.season_id}p{podium.post_id}"[:25],
                                   allowed_mentions=discord.AllowedMentions.none())
                return
            except CALL_FAILED as error:
                kind = fault(error)
                if kind is Fault.GONE:
                    log.warning("season %r: its podium channel %s is gone; the podium isn't posted", season.name,
                                season.channel_id)
                    return
                if kind is Fault.NO_ACCESS or isinstance(error, discord.Forbidden):
                    lost_since = lost_since or time.monotonic()
                    if time.monotonic() - lost_since >= self.channel_lost_timeout or self.limits.breaker_open:
                        log.warning("season %r: no access to channel %s; the podium isn't posted", season.name,
                                    season.channel_id)
                        return
                elif kind is Fault.REFUSED:
                    raise
                else:
                    log.warning("season %r: Discord failed (%s); retrying the podium", season.name, describe(error))
                await asyncio.sleep(backoff.delay(error))
