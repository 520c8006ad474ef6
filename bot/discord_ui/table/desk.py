"""One game's publishing state (its `Desk`) and what its workers are handed: the changes to show,
and the direct messages that run behind them (`Jobs`); how a call to its channel is retried
(`guard`); and how its workers are handed their next item (`Mailbox`)."""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, TypeVar

import discord

from bot.discord_ui.table.panels import PanelSet
from bot.discord_ui.table.webhooks import Via
from bot.discord_ui.transport import CALL_FAILED, UNKNOWN_CHANNEL, Backoff, Fault, RateLimits, describe, fault
from bot.service import Change, LiveGame

log = logging.getLogger(__name__)



class Repost:
    """`/spades table`: show the table (or a lobby) again at the bottom of the channel."""


@dataclass(frozen=True)
class Wake:
    """Nothing to publish: a new panel to watch, so the worker reckons its sleep time again; with
    `panels`, the panels are brought up to date too (the game moved on while a click was answered)."""

    panels: bool = False


class TableDue:
    """For the lane: the game changed, so the table is to be brought up to date at its pace."""


TABLE_DUE = TableDue()


class Jobs:
    """Calls made one after another in the background, in the order given (a game's direct
    messages: they wait for the budget behind everything else, and nothing waits for them)."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Callable[[], Awaitable[object]]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._busy = False

    @property
    def idle(self) -> bool:
        return not self._busy and self._queue.empty()

    def add(self, job: Callable[[], Awaitable[object]]) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run())
        self._queue.put_nowait(job)

    async def _run(self) -> None:
        while True:
            job = await self._queue.get()
            self._busy = True
            try:
                await job()
            except Exception:  # one message that can't be sent must not stop the next
                log.exception("a direct message failed")
            finally:
                self._busy = False

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()


Item = TypeVar("Item")


SAME_DEADLINE = 0.05  # seconds: a wait's deadline this close to the timer's keeps the timer


class Mailbox(Generic[Item]):
    """What a worker is handed, in order, for the one worker that takes it.

    Why not `asyncio.Queue` and `asyncio.timeout`: a worker waits for its game's next change twice a
    move, nearly always with a time limit (the next panel to put to sleep, the table's pace). The
    queue's getter list, wake-up bookkeeping and loop checks, and the timeout's scope (a task
    lookup, a rescheduled timer, an uncancel count), were several microseconds a wait, in Python.
    Here a wait is one future, and the loop timer of the wait before when its deadline is the same
    (the next panel to put to sleep is, move after move): a timer is the loop's costliest handle."""

    def __init__(self) -> None:
        self._items: deque[Item] = deque()
        self._waiter: asyncio.Future[None] | None = None  # set while the worker waits
        self._until = math.inf  # the deadline of the wait under way
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = -math.inf

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: Item) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def get_nowait(self) -> Item:
        return self._items.popleft()

    async def next(self, timeout: float | None) -> Item:
        """The next item, or TimeoutError past `timeout`; an item already waiting is taken even with
        a timeout of 0, and one put as the time runs out is taken too. A worker cancelled while it
        waits leaves the items where they are."""
        if not self._items:
            loop = asyncio.get_running_loop()
            waiter = self._waiter = loop.create_future()
            self._until = math.inf if timeout is None else loop.time() + timeout
            if timeout is not None and abs(self._timer_at - self._until) > SAME_DEADLINE:
                self._arm(loop, self._until)
            try:
                await waiter
            finally:
                self._waiter = None
            if not self._items:
                raise TimeoutError
        return self._items.popleft()

    def _arm(self, loop: asyncio.AbstractEventLoop, at: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_at = loop.call_at(at, self._ring), at

    def _ring(self) -> None:
        """The timer's time: it ends the wait under way if that wait's deadline has come (a wait
        without one, or a later one, goes on, the latter under a timer of its own)."""
        self._timer, self._timer_at = None, -math.inf
        waiter = self._waiter
        if waiter is None or waiter.done():
            return
        loop = asyncio.get_running_loop()
        if loop.time() >= self._until - SAME_DEADLINE:
            waiter.set_result(None)
        elif self._until != math.inf:
            self._arm(loop, self._until)


@dataclass
class Desk:
    """One game's publishing state."""

    panels: PanelSet
    queue: Mailbox[tuple[LiveGame, Change | Repost | Wake]] = field(default_factory=Mailbox)
    task: asyncio.Task[None] | None = None
    last_table: float = 0.0  # when the table was last brought up to date
    table_stale: bool = False  # it was left behind to keep its pace: an edit is due at last_table + gap
    table_id: int | None = None  # the table message this worker last knew of
    table_via: Via | None = None  # the webhook that posted it, while it can edit it
    below_table: int = 0  # messages posted under the table since it was posted
    table_hand: int = 0  # the hand the table was posted for
    ping: tuple[int, int, Via | None] | None = None  # (message id, game token, webhook) of the turn mention
    dms_owed: dict[int, int] = field(default_factory=dict)  # user id -> hand whose DM waits for a blind-nil choice
    dm_failed: set[int] = field(default_factory=set)
    access_lost_since: float | None = None
    channel_gone: bool = False
    busy: bool = False
    live: LiveGame | None = None  # the game as last published, for refreshes no change asked for
    lane: Mailbox[tuple[LiveGame, Change | TableDue]] = field(default_factory=Mailbox)
    lane_task: asyncio.Task[None] | None = None
    lane_busy: bool = False
    repost: bool = False  # the table is to be posted anew at the bottom (`/spades table`)
    dms: Jobs = field(default_factory=Jobs)
    dms_checked: bool = False  # a look at the held-back direct messages is queued
    lobby_via: Via | None = None  # the interaction whose answer is the lobby message
    lobby_shown: tuple[str, str] | None = None  # what the lobby message shows: text and status


class Outcome(Enum):
    """How a guarded call to a game's channel ended."""

    DONE = "done"
    GIVEN_UP = "given up"  # it can never go: the channel is gone, or closed to the bot for good
    REFUSED = "refused"  # Discord refused it, and trying again now won't help: what it owes stays owed


def working(desk: Desk) -> bool:
    return desk.busy or desk.lane_busy or not desk.queue.empty() or not desk.lane.empty() or not desk.dms.idle


def nonce(live: LiveGame, post_id: int | None, suffix: str = "") -> dict[str, Any]:
    """The same nonce for the same owed post however often it is sent: Discord then shows it once."""
    return {} if post_id is None else {"nonce": f"{live.game_id}p{post_id}{suffix}"[:25]}


async def guard(desk: Desk, live: LiveGame, work: Callable[[], Awaitable[object]], lost_after: float,
                give_up: Callable[[LiveGame, str], Awaitable[object]], limits: RateLimits) -> Outcome:
    """Run `work` on the game's channel, retrying passing faults by the one policy (`Backoff`; the
    panels and direct messages have their own workers, so the game stays playable meanwhile). A
    deleted channel, or access lost for `lost_after` seconds (at once while the invalid-request
    breaker is open), marks the channel gone and calls `give_up` with the reason."""
    backoff = Backoff()
    while not desk.channel_gone:
        try:
            await work()
            desk.access_lost_since = None
            return Outcome.DONE
        except CALL_FAILED as error:
            kind = fault(error)
            if kind is Fault.GONE:
                if isinstance(error, discord.NotFound) and error.code == UNKNOWN_CHANNEL:
                    desk.channel_gone = True
                    await give_up(live, "its channel was deleted")
                else:
                    log.warning("game %s: not found: %s", live.game_id, describe(error))
                return Outcome.GIVEN_UP
            if kind is Fault.NO_ACCESS:
                now = time.monotonic()
                desk.access_lost_since = desk.access_lost_since or now
                if now - desk.access_lost_since >= lost_after or limits.breaker_open:
                    desk.channel_gone = True
                    await give_up(live, "I lost access to its channel")
                    return Outcome.GIVEN_UP
                log.info("game %s: no access to channel %s for now; retrying", live.game_id, live.channel_id)
            elif kind is Fault.REFUSED:
                log.error("game %s: Discord refused an update (%s)", live.game_id, describe(error))
                return Outcome.REFUSED
            elif kind is Fault.PASSING:
                log.warning("game %s: Discord failed (%s); retrying", live.game_id, describe(error))
            await asyncio.sleep(backoff.delay(error))  # a 429: exactly as long as Discord said
    return Outcome.GIVEN_UP
