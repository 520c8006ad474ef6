"""A table's thread and game: the thread opened under the tournament's message, the game opened in
it through the game service's public methods, each saved as soon as it exists.

A table is noted before its thread is asked for, so a crash in between is followed by a search for
what that try posted, not a second post.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

from bot.engine import Game
from bot.service.errors import Refusal
from bot.service.live import LiveGame
from bot.service.tournaments.context import Context
from bot.service.tournaments.live import LiveTournament, TableSeat, rotation
from bot.store import TournamentTable

log = logging.getLogger(__name__)

ARCHIVE_WAIT = 120.0  # seconds a thread waits for its game's last posts before it is archived all the same


class Tables:
    def __init__(self, context: Context) -> None:
        self._context = context
        self._store = context.store
        self._games = context.games

    async def ensure(self, live: LiveTournament, number: int, table: int) -> Game | None:
        """The table's game, opened if need be: its thread first, then the game in it, each saved as
        soon as it exists. None while the game runs (its end is heard through `publish`)."""
        seats = live.table_seats(number, table)
        row = live.tables.get((number, table)) or TournamentTable(number, table, None, None)
        if row.game_id is not None:
            info = await self._store.get_game(row.game_id)
            if info is not None and info.status in ("finished", "cancelled"):
                stored = await self._store.load_game(row.game_id)
                return stored.game if stored is not None else None
            running = self._games.game_in_channel(info.channel_id) if info is not None else None
            if running is not None and running.status == "playing":
                return running.game
        if row.thread_id is None:
            again = (number, table) in live.tables
            if not again:  # the intent first: a crash while the thread opens leaves a trace to look for
                await self._store.set_tournament_table(live.tournament_id, number, table)
                live.tables[(number, table)] = row
            thread_id = await self._context.host.open_thread(live, number, table, seats, again=again)
            await self._store.set_tournament_table(live.tournament_id, number, table, thread_id=thread_id)
            row = TournamentTable(number, table, thread_id, None)
            live.tables[(number, table)] = row
        assert row.thread_id is not None
        game = await self._start_game(live, row, seats)
        return game.game

    async def _start_game(self, live: LiveTournament, row: TournamentTable, seats: Sequence[TableSeat]) -> LiveGame:
        """The table's game in its thread, seated as the engine says (turned so a person hosts it)."""
        assert row.thread_id is not None
        turn = rotation(seats)
        turned = [*seats[turn:], *seats[:turn]]
        host = turned[0]
        assert host.user_id is not None
        game = self._games.game_in_channel(row.thread_id)
        if game is None:
            game = await self._games.new_lobby(live.guild_id, row.thread_id, host.user_id, host.name, live.mode.value,
                                               live.engine.rules.to_dict())
        await self._store.set_tournament_table(live.tournament_id, row.round, row.table, game_id=game.game_id)
        live.tables[(row.round, row.table)] = TournamentTable(row.round, row.table, row.thread_id, game.game_id)
        self._context.by_game[game.game_id] = live
        game.organiser_id = live.organiser_id
        if game.status == "lobby":
            for seat in turned[len(game.seats):]:
                if seat.user_id is None:
                    await self._games.add_bot(game, host.user_id, live.level)
                else:
                    await self._games.join(game, seat.user_id, seat.name)
            await self._games.start(game, host.user_id)
        return game

    def running_game(self, live: LiveTournament, key: tuple[int, int]) -> LiveGame | None:
        row = live.tables.get(key)
        if row is None or row.thread_id is None:
            return None
        game = self._games.game_in_channel(row.thread_id)
        return game if game is not None and game.game_id == row.game_id else None

    def mark_running_games(self, live: LiveTournament) -> None:
        """After a restart: the tables' games running again are the tournament's (see `LiveGame.organiser_id`)."""
        for key in live.tables:
            game = self.running_game(live, key)
            if game is not None:
                game.organiser_id = live.organiser_id

    async def leave_running_game(self, live: LiveTournament, members: Sequence[str]) -> None:
        """A dropped entrant's seat in a game still running is played out by a computer."""
        for key in list(live.tables):
            game = self.running_game(live, key)
            for member in members:
                if game is not None and game.status == "playing" and game.seat_of(int(member)) is not None:
                    with contextlib.suppress(Refusal):
                        await self._games.leave(game, int(member))

    def archive_round(self, live: LiveTournament, number: int) -> None:
        """Archive a round's threads, each once everything its game owes Discord is out (Discord
        refuses to edit a message in an archived thread: the last hand's summary would be lost). In
        the background: the tournament's lock is held, and the last posts may take a while."""
        rows = [row for (round_number, _), row in live.tables.items()
                if round_number == number and row.thread_id is not None]
        if rows:
            task = asyncio.create_task(self._archive(live, rows))
            self._context.tasks.add(task)
            task.add_done_callback(self._context.tasks.discard)

    async def _archive(self, live: LiveTournament, rows: Sequence[TournamentTable]) -> None:
        for row in rows:
            assert row.thread_id is not None
            if row.game_id is not None and not await self._games.owes_nothing(row.game_id, ARCHIVE_WAIT):
                log.warning("tournament %s: game %s still owes posts after %.0f s; archiving its thread anyway",
                            live.tournament_id, row.game_id, ARCHIVE_WAIT)
            try:
                await self._context.host.archive_thread(live, row.thread_id)
            except Exception:
                log.warning("tournament %s: couldn't archive thread %s", live.tournament_id, row.thread_id,
                            exc_info=True)
