"""Turn timers: each game's next timer, the ping when a person's turn begins, reminders, and
computer players moving (for their own seats, or for a person whose time ran out).

A timer is armed as an alarm on the clock (a loop handle, a task only once due) that then, holding
the game's lock, checks that nothing happened meanwhile (the game's token moved on, another timer
replaced it) before acting.
What a due lobby expiry, deal or retry does belongs to other parts; they are reached through the
`on_due` callback the service hands in when it composes them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from bot.ai import Move, make_player
from bot.engine import SeatView, seat_view
from bot.service.changes import TurnReminder, TurnStarted
from bot.service.context import Context, saving
from bot.service.deadlines import LobbyExpiry, NextDeal, Remind, Retry, Takeover, Timer, to_stored
from bot.service.errors import Refusal, SaveFailed
from bot.service.live import LiveGame
from bot.service.steps import next_timer
from bot.store import StoreError

log = logging.getLogger(__name__)

SAVE_RETRY_DELAYS = (1.0, 3.0, 10.0, 30.0, 60.0)  # after the first, second… failure in a row


class Decider(Protocol):
    """Chooses a computer player's move from a seat's view (the AI runner, or in-process)."""

    async def decide(self, level: str, view: SeatView, seed: int) -> Move: ...


class InlineDecider:
    """Decides in-process: fine for the fast levels and for tests."""

    async def decide(self, level: str, view: SeatView, seed: int) -> Move:
        return make_player(level, seed).choose(view)


@dataclass(frozen=True, slots=True)
class Chosen:
    """A computer player's move for `seat`: its own, or made for the person there (`for_person`)."""

    seat: int
    move: Move
    for_person: bool


Due = LobbyExpiry | NextDeal | Retry | Chosen
OnDue = Callable[[LiveGame, Due], Awaitable[None]]  # called with the game's lock held


class Timers:
    def __init__(self, context: Context, on_due: OnDue, decider: Decider | None = None) -> None:
        self._context = context
        self._on_due = on_due
        self._decider = decider or InlineDecider()

    def next_timer(self, live: LiveGame, keep: Timer | None = None) -> Timer | None:
        return next_timer(live, self._context.clock.now(), self._context.pace, keep)

    def arm(self, live: LiveGame, timer: Timer | None) -> None:
        if live.timer is not None:
            live.timer.cancel()
        live.timer = None
        live.deadline = timer
        if timer is not None:
            live.timer = self._context.clock.alarm(timer.at, functools.partial(self._run, live, live.token, timer))

    def retry(self, live: LiveGame) -> None:
        """Try again a little later what a failed save left undone, waiting longer after each failure."""
        live.save_failures += 1
        delay = SAVE_RETRY_DELAYS[min(live.save_failures, len(SAVE_RETRY_DELAYS)) - 1]
        self.arm(live, Retry(self._context.clock.now() + delay))

    def arm_ping(self, live: LiveGame) -> None:
        """A person whose turn has begun hears about it if they haven't acted a few seconds later."""
        if live.ping_timer is not None:
            live.ping_timer.cancel()
        live.ping_timer = None
        seat = live.human_turn()
        if seat is not None and live.turn_ping_delay > 0:
            at = self._context.clock.now() + live.turn_ping_delay
            live.ping_timer = self._context.clock.alarm(at, functools.partial(self._run_ping, live, seat, live.token))

    async def _run_ping(self, live: LiveGame, seat: int, token: int) -> None:
        async with live.lock:
            if live.token == token and live.human_turn() == seat:
                self._context.publish(live, [TurnStarted(seat, token)])

    async def schedule(self, live: LiveGame, keep: Timer | None = None) -> None:
        """Re-arm outside an action (recovery, a seat changing hands), saving the deadline if it changed."""
        timer = self.next_timer(live, keep)
        if to_stored(timer) != to_stored(live.deadline):
            await self._context.store.set_deadline(live.game_id, to_stored(timer))
        self.arm(live, timer)

    async def keep_lobby_open(self, live: LiveGame, keep: Timer | None = None) -> None:
        """An idle lobby closes by itself: each change in it restarts the clock."""
        if not isinstance(keep, LobbyExpiry):
            keep = LobbyExpiry(self._context.clock.now() + self._context.pace.lobby_timeout)
            with saving("nothing changed"):
                await self._context.store.set_deadline(live.game_id, to_stored(keep))
        self.arm(live, keep)

    async def close(self) -> None:
        alarms = [a for live in self._context.games.values() for a in (live.timer, live.ping_timer) if a is not None]
        for alarm in alarms:
            alarm.cancel()
        for alarm in alarms:
            await alarm.stopped()

    async def _run(self, live: LiveGame, token: int, timer: Timer) -> None:
        try:
            async with live.lock:
                if live.token != token or live.deadline is not timer or not live.active:
                    return
                if isinstance(timer, LobbyExpiry | NextDeal | Retry):
                    await self._on_due(live, timer)
                    return
                game = live.game
                assert game is not None and game.turn is not None
                seat = game.turn
                if isinstance(timer, Remind):
                    following = Takeover(timer.at + live.turn_timeout)
                    await self._context.store.set_deadline(live.game_id, to_stored(following))
                    self._context.publish(live, [TurnReminder(seat)])
                    self.arm(live, following)
                    return
                occupant = live.seats[seat]
                level = occupant.bot_level or self._context.takeover_level
                view = seat_view(game, seat)
            # Think outside the lock so people's clicks in this game are never held up by search.
            seed = zlib.crc32(f"{live.game_id}/{token}".encode())
            move = await self._decider.decide(level, view, seed)
            async with live.lock:
                if live.game is None or live.token != token or not live.active:
                    return
                await self._on_due(live, Chosen(seat, move, for_person=not occupant.is_bot))
        except asyncio.CancelledError:
            raise
        except SaveFailed as failure:  # nobody waits for an answer: try again a little later
            log.warning("game %s: a timed action wasn't saved (%s); retrying", live.game_id, failure)
            self.retry(live)
        except Refusal as refusal:
            log.error("game %s: a computer move was refused: %s", live.game_id, refusal)
        except StoreError:
            log.warning("game %s: a timer's save failed; retrying", live.game_id, exc_info=True)
            self.retry(live)
        except Exception:
            log.exception("game %s: timer failed", live.game_id)
