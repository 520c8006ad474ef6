"""Turns the service's changes into Discord messages, one worker per game so their order is kept.

What a player sees is refreshed together, at most once per `refresh_interval` per game: every
player's private panel (edited through the webhook of the player's last click, good for 15
minutes), then the table message. Discord counts most calls against the token's global limit, but
not those through an interaction's webhook: the table and turn mentions are posted and edited
through the channel's newest interaction, and what must go through the channel (owed posts, a
table nobody has clicked near lately) waits for a slot of the one REST budget. Panels carry play;
the direct message carries the deal: one post per hand, never edited. The table is posted anew,
the old one deleted, when other messages have buried it. Owed posts (summaries, new hands, game
over) carry a nonce so a post repeated after a crash is not shown twice, and are confirmed to the
service once out.

A failed call never reaches the game. A passing fault (a 429, a 5xx, a network error, a permission
lost for a moment) is retried with backoff, latest state first; only a deleted channel, or access
lost for longer than `channel_lost_timeout`, gives the game up, with a notice by direct message.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import discord

from bot.config import TOKEN_GLOBAL_RATE
from bot.discord_ui.layout import Face
from bot.discord_ui.pictures.chart import score_chart_png
from bot.discord_ui.safe_text import quoted_parts, shown
from bot.discord_ui.table import faces, render, results_text
from bot.discord_ui.table.channel import TABLE_MAX_AGE, GameChannel, public
from bot.discord_ui.table.desk import TABLE_DUE, Desk, Outcome, Repost, TableDue, Wake, guard, nonce, working
from bot.discord_ui.table.hand_dms import HandDMs
from bot.discord_ui.table.panels import PANEL_LIFE, Panel, PanelSet
from bot.discord_ui.table.views import draw, hand_button_view, lobby_rows, lobby_view, rematch_view
from bot.discord_ui.table.webhooks import FreshWebhooks, Via, WebhookPace
from bot.discord_ui.text import MODE_TITLES
from bot.discord_ui.transport import CALL_FAILED, THREAD_ARCHIVED, RateLimits, Transport
from bot.discord_ui.transport.budget import Priority, RestBudget
from bot.discord_ui.transport.fastpath import FastEdits, button_row
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
    PublisherPort,
    SeatTakenOver,
    TableChanged,
    TurnReminder,
    TurnStarted,
)

log = logging.getLogger(__name__)


class Publisher:
    """`games` is what it may ask of the game service (its listener, whose changes it publishes)."""

    def __init__(self, client: discord.Client, games: PublisherPort, *, refresh_interval: float = 1.0,
                 channel_lost_timeout: float = 600.0, panel_life: float = PANEL_LIFE,
                 global_rate: float = TOKEN_GLOBAL_RATE, transport: Transport | None = None,
                 edits: FastEdits | None = None) -> None:
        self.client = client
        self.games = games
        self.budget = RestBudget(global_rate)  # every call below that counts against the token's limit
        self.panel_life = panel_life
        self.refresh_interval = refresh_interval
        self.channel_lost_timeout = channel_lost_timeout
        self._desks: dict[str, Desk] = {}
        self._channels: dict[int, str] = {}  # channel id -> game id, for counting what buries a table
        self.webhooks = FreshWebhooks()  # the channels' newest interactions, for what they may carry
        self.transport = transport or Transport(RateLimits())
        self.limits = self.transport.limits  # the token's one rate-limit state
        self.pace = WebhookPace(self.limits)  # edits through each interaction's webhook, by its bucket
        self.edits = edits or FastEdits(self.transport, lambda: client.http.token)  # without discord.py
        self.channel = GameChannel(client, games, self.budget, self.edits, self.pace, self.webhooks, refresh_interval)
        self.dms = HandDMs(client, self.budget, self.edits, self.channel.say)

    # The service calls this with the game's lock held: only enqueue, never wait.
    def publish(self, live: LiveGame, changes: Sequence[Change | Repost | Wake]) -> None:
        desk = self._desks.get(live.game_id)
        if desk is None:
            desk = self._desks[live.game_id] = Desk(panels=PanelSet(self.pace, self.edits, self.panel_life,
                                                                    self.refresh_interval))
            desk.task = asyncio.create_task(self._work(live.game_id, desk))
        if desk.table_id is None:
            desk.table_id = live.table_message_id
        self._channels[live.channel_id] = live.game_id
        for change in changes:
            desk.queue.put_nowait((live, change))

    def repost(self, live: LiveGame) -> None:
        self.publish(live, [Repost()])

    def panel_shown(self, live: LiveGame, user_id: int, interaction: discord.Interaction[Any],
                    token: int, face: Face | None = None) -> Panel | None:
        """A click showed `user_id` their panel (`face`) as of the game's `token`: keep it current
        from now on. Returns the panel kept current until now, if any (see `PanelSet.show`)."""
        desk = self._desks.get(live.game_id)
        if desk is None:
            self.publish(live, [])
            desk = self._desks[live.game_id]
        replaced = desk.panels.show(user_id, interaction, token, face)
        moved_on = live.shown.token != token
        if moved_on or replaced is None:  # behind already, or a first panel: its sleep is a new timer
            desk.queue.put_nowait((live, Wake(panels=moved_on)))
        return replaced

    def lobby_shown(self, live: LiveGame, interaction: discord.Interaction[Any]) -> None:
        """An interaction's answer is (or now shows) the lobby as it is: it needn't be edited for
        that, and later edits go through that interaction's webhook, outside the global limit."""
        desk = self._desks.get(live.game_id)
        if desk is None:
            self.publish(live, [])
            desk = self._desks[live.game_id]
        desk.lobby_via = Via(interaction, time.monotonic())
        desk.lobby_shown = (render.lobby_text(live), live.status)

    def answering(self, live: LiveGame, user_id: int, clicked: bool) -> None:
        """See `PanelSet.answering`."""
        desk = self._desks.get(live.game_id)
        if desk is not None:
            desk.panels.answering(user_id, clicked)
            if not clicked:  # what the refreshes skipped meanwhile is shown now
                desk.queue.put_nowait((live, Wake(panels=True)))

    def note_message(self, channel_id: int, message_id: int, deleted: bool = False) -> None:
        """A message appeared (or went) in a channel: count what lies below the game's table."""
        desk = self._desks.get(self._channels.get(channel_id, ""))
        if desk is None or desk.table_id is None or message_id <= desk.table_id:
            return
        desk.below_table = max(0, desk.below_table + (-1 if deleted else 1))

    async def close(self, timeout: float = 5.0) -> bool:
        """Finish what is queued (up to `timeout`), then stop. True if nothing was left undone."""
        deadline = time.monotonic() + timeout
        while any(working(d) for d in self._desks.values()) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        drained = not any(working(d) for d in self._desks.values())
        tasks = [t for d in self._desks.values() for t in (d.task, d.lane_task) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.edits.close()
        return drained

    # ------------------------------------------------------------------------- the workers
    # Each game has two: one keeps the players' panels current (calls that never wait for the
    # budget), the other, the desk's lane, does what goes through the channel or by direct message
    # in order (owed posts, then the table at its pace), waiting for the budget as it must. A
    # backlog of counted calls then delays tables and posts, never a player's turn on their panel.
    async def _work(self, game_id: str, desk: Desk) -> None:
        try:
            await self._serve(game_id, desk)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug here must not silence the game: its next change starts a new worker
            log.exception("game %s: publishing failed", game_id)
            self._drop(game_id, desk)

    async def _serve(self, game_id: str, desk: Desk) -> None:
        while True:
            try:
                live, item = await desk.queue.next(desk.panels.next_timer())
            except TimeoutError:
                await desk.panels.put_to_sleep()
                if desk.live is not None:
                    if desk.panels.retry_due():
                        await self._refresh_panels(desk, desk.live)
                    if self._done_with(game_id, desk, desk.live):
                        return
                continue
            desk.busy, desk.live = True, live
            refresh = panels = False
            while True:
                if isinstance(item, Repost | TableChanged):
                    refresh = True
                    desk.repost = desk.repost or isinstance(item, Repost)
                elif isinstance(item, Wake):
                    panels = panels or item.panels
                else:
                    self._to_lane(desk, live, item)
                if desk.queue.empty():
                    break
                live, item = desk.queue.get_nowait()
            if (refresh or panels) and live.started:
                await self._refresh_panels(desk, live)
            if refresh:
                self._to_lane(desk, live, TABLE_DUE)
            desk.busy = False
            if self._done_with(game_id, desk, live):
                return

    def _to_lane(self, desk: Desk, live: LiveGame, item: Change | TableDue) -> None:
        if desk.lane_task is None or desk.lane_task.done():
            desk.lane_task = asyncio.create_task(self._lane_work(live.game_id, desk))
        desk.lane.put_nowait((live, item))

    async def _lane_work(self, game_id: str, desk: Desk) -> None:
        try:
            await self._lane(desk)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("game %s: publishing failed", game_id)
            self._drop(game_id, desk)

    async def _lane(self, desk: Desk) -> None:
        """Owed posts in order, then the table: brought up to date once what came before it is out,
        at most once per refresh interval (a burst of moves is one edit), at once when it must be
        posted or shows the end of the game."""
        while True:
            wait = self.channel.table_due_in(desk) if desk.table_stale else None
            try:
                live, item = await desk.lane.next(wait)
            except TimeoutError:
                latest = desk.live
                if latest is None:
                    desk.table_stale = False
                    continue
                live, item = latest, None
            desk.lane_busy = True
            if isinstance(item, TableDue):
                desk.table_stale = True
            elif item is not None:
                await self._deliver(desk, live, item)
            if desk.lane.empty():
                if desk.table_stale:
                    await self._table_if_due(desk, live)
                if live.started and desk.dms_owed and not desk.dms_checked:
                    desk.dms_checked = True
                    desk.dms.add(functools.partial(self.dms.send_owed, desk, live))
                if desk.ping is not None and (desk.ping[1] != live.shown.token or not live.active):
                    (ping_id, _, via), desk.ping = desk.ping, None
                    await self.channel.delete(live.channel_id, ping_id, via)
            desk.lane_busy = False
            if self._done_with(live.game_id, desk, live):
                return

    async def _table_if_due(self, desk: Desk, live: LiveGame) -> None:
        if not live.started:
            desk.table_stale = False
            if desk.repost and live.status == "lobby":
                desk.repost = False
                await self._guard(desk, live, lambda: self._post_lobby(live))
            return
        if desk.repost or desk.table_id is None or not live.active or self.channel.table_due_in(desk) == 0:
            repost, desk.repost = desk.repost, False
            await self._refresh_table(desk, live, repost)

    def _done_with(self, game_id: str, desk: Desk, live: LiveGame) -> bool:
        """A game that has ended and shows its end everywhere (no panel, post or table put off for
        later): nothing per game outlives it."""
        if (live.active or working(desk) or desk.panels.retry_at is not None or desk.table_stale):
            return False
        self._drop(game_id, desk)
        return True

    def _drop(self, game_id: str, desk: Desk) -> None:
        """Forget a game's desk; its other worker stops too (the next change starts new ones)."""
        if self._desks.get(game_id) is desk:
            del self._desks[game_id]
            if desk.live is not None and self._channels.get(desk.live.channel_id) == game_id:
                del self._channels[desk.live.channel_id]
        current = asyncio.current_task()
        for task in (desk.task, desk.lane_task):
            if task is not None and task is not current:
                task.cancel()
        if desk.dms.idle:
            desk.dms.cancel()

    async def _guard(self, desk: Desk, live: LiveGame, work: Callable[[], Awaitable[object]]) -> Outcome:
        """See `desk.guard`: a game whose channel is lost for good is given up."""
        return await guard(desk, live, work, self.channel_lost_timeout, self.games.cancel_for, self.limits)

    # ------------------------------------------------------------------------- deliveries
    async def _deliver(self, desk: Desk, live: LiveGame, change: Change) -> None:
        """Publish a change; an owed post is confirmed once out (or once it can never go out: its
        channel is gone), never when Discord refused it: it stays owed, and goes again at the next start."""
        outcome = Outcome.DONE
        if isinstance(change, LobbyChanged | GameStarted):
            outcome = await self._guard(desk, live, lambda: self._render_lobby(desk, live))
        elif isinstance(change, HandDealt):
            desk.dms.add(lambda: self._deal_by_dm(desk, live, change))
            return
        elif isinstance(change, HandScored):
            outcome = await self._guard(desk, live, lambda: self._hand_over(desk, live, change))
        elif isinstance(change, GameOver):
            outcome = await self._guard(desk, live, lambda: self._game_over(live, change))
        elif isinstance(change, GameCancelled):
            outcome = await self._cancelled(desk, live, change)
        elif isinstance(change, TurnStarted):
            outcome = await self._guard(desk, live, lambda: self._ping(desk, live, change))
        elif isinstance(change, TurnReminder):
            user_id = live.seats[change.seat].user_id
            minutes = max(1, round(live.turn_timeout / 60))
            text = (f"<@{user_id}>, it's still your turn. If you don't act within about {minutes} min, "
                    "a computer player will move for you.")
            outcome = await self._guard(desk, live, lambda: self.channel.say(live, text, mention=user_id))
        elif isinstance(change, ActedForPlayer):
            text = f"{render.seat_name(live, change.seat)} ran out of time, so a computer player moved for them."
            outcome = await self._guard(desk, live, lambda: self.channel.say(live, text))
        elif isinstance(change, SeatTakenOver):
            text = f"{shown(change.left)} left the game; {render.seat_name(live, change.seat)} plays their seat now."
            outcome = await self._guard(desk, live, lambda: self.channel.say(live, text))
        post_id = getattr(change, "post_id", None)
        if post_id is not None and outcome is not Outcome.REFUSED:
            await self.games.delivered(post_id)

    async def _render_lobby(self, desk: Desk, live: LiveGame) -> None:
        """Bring the lobby message up to date, unless a click's answer already did; through the
        webhook of the interaction that answered with it while it can (not counted)."""
        shown = (render.lobby_text(live), live.status)
        if live.lobby_message_id is None or shown == desk.lobby_shown:
            return
        via = desk.lobby_via
        with contextlib.suppress(discord.NotFound):  # deleted by someone: /spades table shows it again
            if via is not None and via.alive(time.monotonic()):
                await self.channel.webhook_turn(via)
                await self.edits.edit_text(via.interaction, "@original", shown[0], lobby_rows(live))
            else:
                await self.budget.take(Priority.TABLE)
                await self.channel.channel(live).get_partial_message(live.lobby_message_id).edit(
                    content=shown[0], view=lobby_view(live))
            desk.lobby_shown = shown

    async def _post_lobby(self, live: LiveGame) -> None:
        """A lobby whose message was lost (deleted, or never posted after a failure) is posted again."""
        old = live.lobby_message_id
        message = await self.channel.say(live, render.lobby_text(live), view=lobby_view(live) or discord.utils.MISSING)
        await self.games.set_lobby_message(live, message.id)
        desk = self._desks.get(live.game_id)
        if desk is not None:
            desk.lobby_via, desk.lobby_shown = None, (render.lobby_text(live), live.status)
        if old is not None:
            await self.channel.delete(live.channel_id, old)

    async def _hand_over(self, desk: Desk, live: LiveGame, change: HandScored) -> None:
        """The table that showed the hand becomes its summary, last trick included; the next hand
        gets a new table below it. No table to turn (deleted, too old): the summary is posted."""
        face = faces.summary(public(live), change.hand_number)
        table, via = change.table_message_id, None
        if desk.table_id == table:
            via = desk.table_via
            desk.table_id, desk.table_via = None, None  # the next refresh posts a new table
            await self.games.set_table_message(live, None)  # a restart must not reuse this one
        if table is not None and render.age_seconds(table) < TABLE_MAX_AGE:
            try:
                if via is not None and via.alive(time.monotonic()):  # the webhook that posted it (not counted)
                    await self.channel.webhook_turn(via)
                    await self.edits.edit(via.interaction, table, face)
                else:
                    await self.budget.take(Priority.OWED)
                    await self.channel.channel(live).get_partial_message(table).edit(view=draw(face))
                return
            except discord.HTTPException as error:  # gone, or in a thread archived since: a new post reopens it
                if not isinstance(error, discord.NotFound) and error.code != THREAD_ARCHIVED:
                    raise
        # Posted through the channel: a nonce keeps a post repeated after a crash from showing twice.
        await self.budget.take(Priority.OWED)
        await self.channel.channel(live).send(view=draw(face), **nonce(live, change.post_id))

    async def _game_over(self, live: LiveGame, change: GameOver) -> None:
        table = public(live)
        names, scores = results_text.chart_series(table)
        png = await asyncio.to_thread(score_chart_png, names, scores, table.rules.target,
                                      title=f"{MODE_TITLES[table.mode]} Spades",
                                      winners=[table.side_of(s) for s in table.winners], mercy=table.rules.mercy)
        text = results_text.game_over_text(table, change.outcome)
        chart = discord.File(io.BytesIO(png), filename="scores.png")
        via = self.webhooks.fresh(live.channel_id)
        if via is not None:  # as a follow-up of the last move's interaction: not counted
            await via.interaction.followup.send(text, view=rematch_view(live.game_id), file=chart, wait=True,
                                                allowed_mentions=discord.AllowedMentions.none())
            return
        await self.channel.say(live, text, view=rematch_view(live.game_id), file=chart, **nonce(live, change.post_id))

    async def _cancelled(self, desk: Desk, live: LiveGame, change: GameCancelled) -> Outcome:
        text = results_text.cancelled_text(change.reason)
        if desk.channel_gone:  # tell the players where it can still be said
            for seat in live.seats:
                if seat.user_id is not None:
                    with contextlib.suppress(*CALL_FAILED):
                        await self.dms.post(seat.user_id, f"Your Spades game in <#{live.channel_id}> was cancelled "
                                            f"({quoted_parts(change.reason)}). Nothing counts toward the leaderboard.",
                                            priority=Priority.OWED)
            return Outcome.GIVEN_UP
        await self._guard(desk, live, lambda: self._render_lobby(desk, live))
        return await self._guard(desk, live, lambda: self.channel.say(live, text, **nonce(live, change.post_id)))

    async def _ping(self, desk: Desk, live: LiveGame, change: TurnStarted) -> None:
        """One mention for a person whose turn began a few seconds ago, with a way to their cards."""
        if live.shown.token != change.token or live.shown.turn != change.seat or desk.ping is not None:
            return
        user_id = live.seats[change.seat].user_id
        text = render.ping_text(public(live), user_id)
        via = self.webhooks.fresh(live.channel_id)
        if via is not None and user_id is not None:
            rows = [button_row([faces.hand_button(live.game_id)])]
            desk.ping = (await self.edits.mention(via.interaction, text, user_id, rows), change.token, via)
            return
        message = await self.channel.say(live, text, mention=user_id, view=hand_button_view(live.game_id),
                                         priority=Priority.TABLE)
        desk.ping = (message.id, change.token, None)

    async def _deal_by_dm(self, desk: Desk, live: LiveGame, change: HandDealt) -> None:
        outcome = await self._guard(desk, live, lambda: self.dms.deal(desk, live, change))
        if change.post_id is not None and outcome is not Outcome.REFUSED:
            await self.games.delivered(change.post_id)

    # ------------------------------------------------------------------------- refreshing
    async def _refresh_table(self, desk: Desk, live: LiveGame, repost: bool) -> None:
        desk.table_stale = False
        await self._guard(desk, live, lambda: self.channel.render_table(desk, live, repost))
        desk.last_table = time.monotonic()

    async def _refresh_panels(self, desk: Desk, live: LiveGame) -> None:
        await desk.panels.refresh(live)
