"""A tournament's rounds: seating each (saved first), hearing its tables' games end, deciding the
rest by the score at the round's time limit, and the one timer that moves it on when something
is due (sign-up closing, the time limit, the next round's seating). The engine decides who sits
where and who ranks where; this saves each of its events before acting on it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from bot.engine import Game
from bot.engine.tournaments.swiss import TableResult, units_per_table
from bot.engine.tournaments.tournament import MIN_TO_START, Stage
from bot.service.changes import Change, GameCancelled, GameOver
from bot.service.errors import Refusal, SaveFailed
from bot.service.live import LiveGame
from bot.service.tournaments.context import CANCELLED, PODIUM, RETRY, STANDINGS, Context, ThreadRefused
from bot.service.tournaments.live import LiveTournament, result_of, rotation
from bot.service.tournaments.outbox import Outbox
from bot.service.tournaments.tables import Tables
from bot.store import UNCHANGED, Post, StoreError, TournamentStatus, Unchanged

log = logging.getLogger(__name__)

TIME_UP = "the round's time is up"


class Rounds:
    def __init__(self, context: Context, outbox: Outbox, tables: Tables) -> None:
        self._context = context
        self._clock = context.clock
        self._outbox = outbox
        self._tables = tables

    # ------------------------------------------------------------------ the games' ends
    def publish(self, live_game: LiveGame, changes: Sequence[Change]) -> None:
        """Called with every change the game service publishes (under its game's lock: no waiting):
        a table's game that ended is recorded in its tournament."""
        if not any(isinstance(c, GameOver | GameCancelled) for c in changes):
            return
        live = self._context.by_game.get(live_game.game_id)
        if live is None or live_game.game is None:
            return
        for change in changes:
            if isinstance(change, GameCancelled) and change.reason != TIME_UP:
                live.stopped[live_game.game_id] = change.reason
        task = asyncio.create_task(self._game_ended(live, live_game.game_id, live_game.game))
        self._context.tasks.add(task)
        task.add_done_callback(self._context.tasks.discard)

    async def _game_ended(self, live: LiveTournament, game_id: str, game: Game) -> None:
        async with live.lock:
            where = live.table_of_game(game_id)
            if (where is None or live.engine.stage is not Stage.PLAYING or where[0] != live.round_number
                    or live.engine.played[-1].results[where[1]] is not None):
                return  # another round's, or already decided (the time limit cancels the games it decided)
            try:
                await self._record(live, where[1], game)
                await self.advance(live)
            except (StoreError, SaveFailed):
                log.warning("tournament %s: a table's result wasn't saved; retrying", live.tournament_id,
                            exc_info=True)
                self.arm(live, self._clock.now() + RETRY)

    # ------------------------------------------------------------------ moving on
    async def advance(self, live: LiveTournament) -> None:
        """Lock held. Do whatever is due, and set the timer for what comes next."""
        stage, now = live.engine.stage, self._clock.now()
        due = live.deadline is not None and now >= live.deadline
        if stage is Stage.SIGNUP:
            if due:
                if live.engine.can_seat():
                    await self.seat(live)
                else:
                    await self._close_unplayed(live)
                return
            self.arm(live, live.deadline)
        elif stage is Stage.BETWEEN:
            if due:
                if live.engine.can_seat():
                    await self.seat(live)
                else:  # fewer than two still in: the standings now are final
                    await self._outbox.act(live, live.engine.finish, posts=[Post(PODIUM, {})], status="over",
                                           deadline=None)
                    await self._ended(live)
                return
            self.arm(live, live.deadline)
        elif stage is Stage.PLAYING:
            await self._play_round(live, time_up=due)
        else:
            await self._ended(live)

    async def seat(self, live: LiveTournament) -> None:
        """Seat the next round (saved first), then open its tables."""
        minutes = live.round_minutes
        deadline = self._clock.now() + minutes * 60 if minutes else None
        await self._outbox.act(live, live.engine.seat, deadline=deadline)
        self._context.host.signup_changed(live)
        self._tables.archive_round(live, live.round_number - 1)
        await self._play_round(live, time_up=False)

    async def _play_round(self, live: LiveTournament, time_up: bool) -> None:
        """Lock held. Open what isn't open yet, record games that ended (while the bot was down too),
        and at the time limit decide the rest by their scores."""
        number = live.round_number
        current = live.engine.played[-1]
        refused: str | None = None
        for table, result in enumerate(current.results):
            if result is not None:
                continue
            try:
                game = await self._tables.ensure(live, number, table)
            except ThreadRefused as error:
                refused = refused or str(error)
                continue
            if game is not None and (game.is_over or time_up):
                await self._record(live, table, game)
        if live.engine.stage is Stage.PLAYING and time_up:  # tables that never got a game: all even
            size = units_per_table(live.mode)
            for table, result in enumerate(live.engine.played[-1].results):
                if result is None:
                    await self._record_result(live, table, TableResult((0,) * size, (1,) * size, unfinished=True))
        if time_up:  # decided by the score: stopped before anyone is seated again
            for key in list(live.tables):
                running = self._tables.running_game(live, key)
                if running is not None and key[0] == number:
                    await self._context.games.cancel_for(running, TIME_UP)
        if live.engine.stage is not Stage.PLAYING:
            await self._after_round(live)
            return
        if refused is not None:
            self._context.host.notify(live, refused)
            self.arm(live, min(self._clock.now() + RETRY, live.deadline or float("inf")))
        else:
            self.arm(live, live.deadline)

    async def _after_round(self, live: LiveTournament) -> None:
        if live.engine.stage is Stage.OVER:
            await self._ended(live)
        else:
            await self.advance(live)

    async def _ended(self, live: LiveTournament) -> None:
        self._tables.archive_round(live, live.round_number)
        self._context.forget(live)
        self._context.host.signup_changed(live)

    async def _record(self, live: LiveTournament, table: int, game: Game) -> None:
        """A table's result (by the score now if its game isn't over), saved with what it leads to:
        the round's standings and the next round's seating time, or the podium."""
        turned = rotation(live.table_seats(live.round_number, table))
        row = live.tables.get((live.round_number, table))
        info = await self._context.store.get_game(row.game_id) if row is not None and row.game_id else None
        forfeited = [seat.seat for seat in info.seats if seat.left_user_id is not None] if info is not None else []
        await self._record_result(live, table, result_of(game, turned, forfeited))

    async def _record_result(self, live: LiveTournament, table: int, result: TableResult) -> None:
        engine = live.engine
        closes = sum(1 for r in engine.played[-1].results if r is None) == 1
        last = closes and live.round_number == engine.rounds
        posts: list[Post] = []
        deadline: float | Unchanged | None = UNCHANGED
        status: TournamentStatus | None = None
        if closes:
            stopped = self._stopped_notes(live)
            posts = ([Post(PODIUM, {"stopped": stopped})] if last
                     else [Post(STANDINGS, {"round": live.round_number, "stopped": stopped})])
            deadline = None if last else self._clock.now() + self._context.round_pause
            status = "over" if last else None
        await self._outbox.act(live, lambda: engine.record(table, result), posts=posts, status=status,
                               deadline=deadline)

    @staticmethod
    def _stopped_notes(live: LiveTournament) -> list[str]:
        """Which of this round's tables were stopped before their end, and by whom (for the standings)."""
        notes = []
        for (number, table), row in sorted(live.tables.items()):
            reason = live.stopped.pop(row.game_id, None) if row.game_id is not None else None
            if number == live.round_number and reason is not None:
                notes.append(f"Table {table + 1}: {reason}.")
        return notes

    async def _close_unplayed(self, live: LiveTournament) -> None:
        needed = MIN_TO_START[live.mode]
        reason = f"sign-up closed with fewer than {needed} entries"
        await self._outbox.act(live, live.engine.cancel, posts=[Post(CANCELLED, {"reason": reason})],
                               status="cancelled", deadline=None)
        await self._ended(live)

    # ------------------------------------------------------------------ the timer
    def arm(self, live: LiveTournament, at: float | None) -> None:
        if live.timer is not None and live.timer is not asyncio.current_task():
            live.timer.cancel()
        live.timer = None
        if at is not None:
            live.timer = asyncio.create_task(self._wake_at(live, at))

    async def _wake_at(self, live: LiveTournament, at: float) -> None:
        await self._clock.sleep_until(at)
        async with live.lock:
            live.timer = None
            if self._context.channels.get(live.channel_id) is not live:
                return
            try:
                await self.advance(live)
            except (StoreError, SaveFailed, Refusal):
                log.warning("tournament %s: couldn't move on; retrying", live.tournament_id, exc_info=True)
                self.arm(live, self._clock.now() + RETRY)
            except Exception:
                log.exception("tournament %s: moving on failed", live.tournament_id)
                self.arm(live, self._clock.now() + RETRY)
