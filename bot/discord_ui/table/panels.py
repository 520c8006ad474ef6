"""A game's open private panels, each kept current through the webhook of its player's last click.

An interaction's token lets the bot edit the panel for 15 minutes, outside the global rate limit:
before it runs out the panel says it has gone to sleep, with nothing left to press, rather than go
on looking live. An edit Discord refuses for a moment (a 429, a 5xx) keeps the panel and is tried
again with backoff, latest state first; a panel whose message or token is gone is let go.
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass
from typing import Any

import discord

from bot.discord_ui import layout
from bot.discord_ui.table import faces
from bot.discord_ui.table.webhooks import WebhookPace
from bot.discord_ui.transport import CALL_FAILED, Backoff, TooManyRequests, describe, passing
from bot.discord_ui.transport.fastpath import FastEdits
from bot.service import LiveGame, Refusal

log = logging.getLogger(__name__)

PANEL_LIFE = 14 * 60  # an interaction token works 15 minutes; stop a little before
PANEL_ASLEEP = ("This panel has gone to sleep (Discord lets a panel be updated for 15 minutes). "
                "Press **My hand** on the table for a fresh one.")

@dataclass
class Panel:
    """A player's private panel, edited through the interaction that last showed it."""

    interaction: discord.Interaction[Any]
    opened: float  # monotonic time its token was issued
    shown_token: int  # the game's event count it shows
    shown: layout.Face | None = None  # what it shows (None: not known)
    answering: bool = False  # a click on it is being answered, with the panel as it will be


class PanelSet:
    """The open panels of one game, by user id."""

    def __init__(self, pace: WebhookPace, edits: FastEdits, life: float = PANEL_LIFE, retry_first: float = 1.0) -> None:
        self.pace, self.edits = pace, edits
        self.life = life
        self.open: dict[int, Panel] = {}
        self.retry_at: float | None = None  # an edit failed for a moment: refresh again then
        self._backoff = Backoff(first=retry_first)

    def show(self, user_id: int, interaction: discord.Interaction[Any], token: int,
             face: layout.Face | None = None) -> Panel | None:
        """A click showed `user_id` their panel (`face`) as of the game's `token`: keep it current
        from now on. Returns the panel kept current until now, if any: when the new one is a fresh
        message (My hand), the old one is to be removed."""
        old = self.open.get(user_id)
        self.open[user_id] = Panel(interaction, time.monotonic(), token, face)
        return old

    async def refresh(self, live: LiveGame) -> None:
        """Bring every panel to the game's saved state (`live.shown`); one that would look the same (a player waiting
        while others play) is left alone. One whose webhook has had its share of edits lately
        waits its turn (a player who types commands never renews it) without holding up the others."""
        now = time.monotonic()
        failed: BaseException | None = None
        later, told = None, 0.0  # told: the longest wait a 429 asked for
        shown = live.shown
        for user_id, panel in list(self.open.items()):
            if panel.answering or (panel.shown_token == shown.token and live.active):
                continue
            if now - panel.opened >= self.life:
                continue  # about to sleep: left to put_to_sleep
            try:
                face, seated = faces.panel(live, shown.view(user_id)), True
            except Refusal as refusal:  # no longer in the game (left it): the panel says so, once
                face, seated = faces.closed_panel(str(refusal)), False
            if face == panel.shown:
                panel.shown_token = shown.token
                continue
            wait = self.pace.ready_in(panel.interaction)
            if wait > 0:
                log.debug("game %s: a panel's webhook has had its edits; %.2f s to wait", live.game_id, wait)
                later = wait if later is None else min(later, wait)
                continue
            token = shown.token  # what the panel shows: the game may move on while it is sent
            try:
                await self.edits.edit(panel.interaction, "@original", face)
                panel.shown_token, panel.shown = token, face
                if not seated:
                    self._forget(user_id, panel)
            except CALL_FAILED as error:
                if isinstance(error, TooManyRequests):
                    told = max(told, error.retry_after)
                elif passing(error):
                    failed = error
                    log.info("game %s: a panel update failed (%s); trying again", live.game_id, describe(error))
                else:  # its message or token is gone: nothing more to show there
                    log.info("game %s: a panel can't be updated any more (%s)", live.game_id, describe(error))
                    self._forget(user_id, panel)
        # A fault is tried again with backoff; a 429 exactly when Discord said (never before, and no
        # later: a panel must be current soon after a storm ends).
        if failed is not None:
            later = max(self._backoff.delay(failed), told)
        else:
            self._backoff.reset()
            if told:
                later = told if later is None else min(later, told)
        self.retry_at = None if later is None else time.monotonic() + later

    def answering(self, user_id: int, clicked: bool) -> None:
        """A click on this user's panel is being answered (True), or its answer failed (False; one
        that got through ends it by `show`): meanwhile the answer itself brings the panel up to
        date, so it isn't edited twice."""
        panel = self.open.get(user_id)
        if panel is not None:
            panel.answering = clicked

    def _forget(self, user_id: int, panel: Panel) -> None:
        """Stop keeping this panel current, unless a newer one has replaced it meanwhile (a refresh
        may still be working through the panels as they were when it began)."""
        if self.open.get(user_id) is panel:
            del self.open[user_id]

    def retry_due(self) -> bool:
        return self.retry_at is not None and self.retry_at <= time.monotonic()

    def next_timer(self) -> float | None:
        """Seconds until a panel must go to sleep or a failed edit is due again (None: neither)."""
        timers = [t - time.monotonic() for t in (self._first_to_sleep(), self.retry_at) if t is not None]
        return max(0.0, min(timers)) if timers else None

    def _first_to_sleep(self) -> float | None:
        return min(p.opened for p in self.open.values()) + self.life if self.open else None

    async def put_to_sleep(self) -> None:
        """Panels whose token is about to run out say so, with nothing left to press; My hand brings
        a fresh one."""
        now = time.monotonic()
        for user_id, panel in list(self.open.items()):
            if now - panel.opened >= self.life and self.open.get(user_id) is panel:
                self._forget(user_id, panel)
                with contextlib.suppress(*CALL_FAILED):
                    await self.edits.edit(panel.interaction, "@original", faces.closed_panel(PANEL_ASLEEP))
