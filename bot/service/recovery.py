"""Carrying on after a restart, or after a failed save: every unfinished game picks up where it
stopped, first publishing what it still owed Discord, then taking its next step (a deal, a
finish, a timer). Also what the bot keeps about itself between runs (a clean stop, the commands
last synced)."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence

from bot.engine import Phase
from bot.service.changes import TableChanged
from bot.service.context import BOT_WIDE, Context
from bot.service.errors import SaveFailed
from bot.service.live import LiveGame
from bot.service.outbox import Outbox
from bot.service.play import Play
from bot.service.timers import Timers
from bot.store import PendingPost, Recovery, StoreError

log = logging.getLogger(__name__)


class Restarts:
    def __init__(self, context: Context, outbox: Outbox, timers: Timers, play: Play) -> None:
        self._context = context
        self._store = context.store
        self._outbox = outbox
        self._timers = timers
        self._play = play

    async def recover(self) -> Recovery:
        """Load every unfinished game of this process's servers and carry on where each stopped:
        first what it still owed Discord, then its next step (a deal, a finish, a timer)."""
        recovery = await self._store.recover(self._context.shards)
        owed: dict[str, list[PendingPost]] = defaultdict(list)
        for post in await self._store.pending_posts(self._context.shards):
            owed[post.game_id].append(post)
        bot_wide = await self._store.get_settings(BOT_WIDE)
        refresh_tables = not bot_wide.get("clean_stop", False)
        if "clean_stop" in bot_wide:
            await self._store.update_settings(BOT_WIDE, {"clean_stop": None})
        for damaged in recovery.damaged:
            log.error("game %s can't be replayed and was set aside: %s", damaged.game_id, damaged.reason)
        for stored in recovery.games:
            live = self._context.revive(stored.info, stored.game)
            await self._context.apply_server_settings(live)
            self._context.register(live)
            async with live.lock:
                if live.status == "lobby":
                    await self._timers.keep_lobby_open(live, live.deadline)
                else:
                    await self._carry_on(live, owed.pop(live.game_id, []), refresh_table=refresh_tables)
        for game_id, posts in owed.items():  # games that ended before what they owed went out
            await self._deliver_ended(game_id, posts)
        return recovery

    async def retry(self, live: LiveGame) -> None:
        """A retry came due: only the game-over post can still be unpublished. Lock held."""
        owed = [p for p in await self._store.pending_posts()
                if p.game_id == live.game_id and p.kind == "game_over"]
        await self._carry_on(live, owed)

    async def _carry_on(self, live: LiveGame, owed: Sequence[PendingPost], refresh_table: bool = False) -> None:
        """Lock held. Finish a game that is over, publish what it still owes, deal a hand that is
        due, and set its timers. Used at start-up and to retry after a failed save."""
        game = live.game
        if game is None:  # stopped between leaving the lobby and saving the game's setup
            return
        try:
            outcome = await self._outbox.finish(live) if game.is_over else None
            changes = await self._outbox.changes_of(live, owed, outcome)
            if changes or refresh_table:
                self._context.publish(live, [*changes, TableChanged()])
            if not live.active:
                return
            if game.phase is Phase.DEALING:
                await self._play.deal_next(live)
            else:
                await self._timers.schedule(live, keep=live.deadline)
                self._timers.arm_ping(live)
        except (StoreError, SaveFailed):
            log.warning("game %s: couldn't carry on; retrying", live.game_id, exc_info=True)
            self._timers.retry(live)

    async def _deliver_ended(self, game_id: str, posts: Sequence[PendingPost]) -> None:
        try:
            stored = await self._store.load_game(game_id)
            if stored is None:
                await self._store.posts_delivered([p.post_id for p in posts])
                return
            live = self._context.revive(stored.info, stored.game)
            changes = await self._outbox.changes_of(live, posts, None)
        except StoreError:
            log.exception("game %s: what it still owed Discord couldn't be read; it stays owed", game_id)
            return
        self._context.publish(live, [*changes, TableChanged()] if live.game is not None else changes)

    async def synced_commands(self) -> str | None:
        """What the slash commands were when last synced (a digest), so an unchanged tree isn't synced."""
        value = (await self._store.get_settings(BOT_WIDE)).get("command_tree")
        return str(value) if value is not None else None

    async def remember_synced_commands(self, digest: str) -> None:
        await self._store.update_settings(BOT_WIDE, {"command_tree": digest})

    async def record_clean_stop(self) -> None:
        """Everything owed was published: the next start need not refresh every table."""
        await self._store.update_settings(BOT_WIDE, {"clean_stop": True})
