"""Tournaments run by the service without Discord, for the tests of them: a fake host stands in for
the threads and posts, the clock is moved by hand, and the tables' games are played through the game
service. Tests take the `harness` fixture by importing it from here."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from bot.engine import Phase
from bot.service import GameService, LiveGame, ManualClock
from bot.service.tournaments import Listeners, LiveTournament, TableSeat, ThreadRefused, TournamentService
from bot.store import Store, open_store
from tests.service.conftest import GUILD, Recorder

CHANNEL = 77
ORGANISER = 100
PLAYERS = {101: "ann", 102: "ben", 103: "cat", 104: "dan", 105: "eve", 106: "fay"}
FAST_GAMES: dict[str, object] = {"target": "50", "mercy": "50"}
PAUSE = 60.0  # seconds between a round's end and the next one's seating


class Host:
    """The Discord side as the service sees it: threads are numbers, posts are remembered (and
    confirmed, as the poster does), and a thread can be refused on purpose."""

    def __init__(self) -> None:
        self.service: TournamentService | None = None
        self.posts: list[tuple[str, dict[str, Any]]] = []
        self.notices: list[str] = []
        self.opened: list[tuple[int, int, tuple[TableSeat, ...]]] = []
        self.tries: list[tuple[int, int, bool]] = []  # round, table, and whether it was tried before
        self.archived: list[int] = []
        self.refusals = 0  # refuse this many thread openings from now on
        self.hang: asyncio.Event | None = None  # set: opening a thread waits for it (a crash mid-way)
        self._next_thread = 5000
        self.tasks: set[asyncio.Task[None]] = set()

    def signup_changed(self, live: LiveTournament) -> None:
        pass

    def post(self, live: LiveTournament, kind: str, payload: dict[str, Any], post_id: int) -> None:
        self.posts.append((kind, payload))
        assert self.service is not None
        task = asyncio.create_task(self.service.delivered(post_id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def notify(self, live: LiveTournament, text: str) -> None:
        self.notices.append(text)

    async def open_thread(self, live: LiveTournament, round_number: int, table: int,
                          seats: Sequence[TableSeat], *, again: bool) -> int:
        self.tries.append((round_number, table, again))
        if self.hang is not None:
            await self.hang.wait()
        if self.refusals:
            self.refusals -= 1
            raise ThreadRefused("This server has as many active threads as Discord allows.")
        self._next_thread += 1
        self.opened.append((round_number, table, tuple(seats)))
        return self._next_thread

    async def archive_thread(self, live: LiveTournament, thread_id: int) -> None:
        self.archived.append(thread_id)

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.posts]


class Harness:
    """A game service and a tournament service on one SQLite file and one hand-moved clock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.clock = ManualClock()
        self.host = Host()
        self._store: Store | None = None
        self._games: GameService | None = None
        self._tournaments: TournamentService | None = None

    @property
    def store(self) -> Store:
        assert self._store is not None
        return self._store

    @property
    def games(self) -> GameService:
        assert self._games is not None
        return self._games

    @property
    def tournaments(self) -> TournamentService:
        assert self._tournaments is not None
        return self._tournaments

    async def boot(self, host: Host | None = None) -> TournamentService:
        self._store = await open_store(f"sqlite:///{self.path}")
        self.host = host or Host()
        recorder = Recorder()
        listeners = Listeners(recorder)
        self._games = GameService(self.store, listeners, clock=self.clock, bot_move_delay=1.0, turn_timeout=120.0,
                                  rng=random.Random(3))
        recorder.service = self._games
        self._tournaments = TournamentService(self.store, self._games, self.host, clock=self.clock,
                                              round_pause=PAUSE, rng=random.Random(5))
        self.host.service = self._tournaments
        listeners.listeners.append(self._tournaments)
        await self._games.recover()
        await self._tournaments.recover()
        return self._tournaments

    async def crash(self) -> None:
        """Stop as a killed process would: what is on disk stays, nothing more is done."""
        if self._tournaments is not None:
            await self._tournaments.close()
        if self._games is not None:
            await self._games.close()
        if self._store is not None:
            await self._store.close()
        self._store = self._games = self._tournaments = None

    async def settle(self) -> None:
        """Let what the last step set off (a game's end heard, a post confirmed) finish."""
        for _ in range(100):
            await asyncio.sleep(0)
            pending = [*self.host.tasks, *(self.tournaments._context.tasks if self._tournaments is not None else ())]
            if not pending:
                return
            await asyncio.gather(*pending)
        raise AssertionError("the services never settled")

    def round_games(self, live: LiveTournament) -> list[LiveGame]:
        """The games of the round being played that are still running."""
        found = []
        for (number, _), row in sorted(live.tables.items()):
            game = self.games.game_in_channel(row.thread_id) if row.thread_id is not None else None
            if number == live.round_number and game is not None and game.status == "playing":
                found.append(game)
        return found

    async def play(self, live: LiveTournament, moves: int | None = None) -> None:
        """People act at once on their turns (the first legal move); the clock moves on for the
        computers'. Until the round's games are over, or after `moves` moves by people."""
        made = 0
        for _ in range(50_000):
            games = self.round_games(live)
            if not games or (moves is not None and made >= moves):
                await self.settle()
                return
            acted = False
            for game in games:
                if await act_once(self.games, game):
                    made, acted = made + 1, True
            if not acted:
                await self.clock.advance(1.0)
        raise AssertionError("the round's games never ended")

    async def open(self, mode: str = "cutthroat", players: Sequence[int] = (101, 102, 103), rounds: int = 2,
                   **kwargs: Any) -> LiveTournament:
        live = await self.tournaments.new(GUILD, CHANNEL, ORGANISER, mode=mode, options=FAST_GAMES, rounds=rounds,
                                          **kwargs)
        if mode == "partners":
            for first, second in zip(players[::2], players[1::2], strict=True):
                await self.tournaments.join(live, first, PLAYERS[first], (second, PLAYERS[second]))
        else:
            for user in players:
                await self.tournaments.join(live, user, PLAYERS[user])
        return live


async def act_once(games: GameService, live: LiveGame) -> bool:
    """The person whose turn it is makes their first legal move; False on a computer's turn."""
    game = live.game
    assert game is not None
    if game.turn is None or live.seats[game.turn].is_bot:
        return False
    user = live.seats[game.turn].user_id
    assert user is not None
    if game.cards_hidden(game.turn):
        await games.reveal(live, user)
    elif game.phase is Phase.DRAWING:
        await games.draw(live, user, keep=True)
    elif game.phase is Phase.BIDDING:
        choices = games.bid_choices(live, user)
        await games.bid(live, user, "3" if "3" in choices else choices[-1])
    else:
        await games.play(live, user, games.card_choices(live, user)[0])
    return True


def points(live: LiveTournament) -> dict[str, Fraction]:
    """Each entry's tournament points so far, by name."""
    return {row.name: row.points for row in live.engine.standings()}


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    h = Harness(tmp_path / "spades.db")
    yield h
    await h.settle()
    await h.crash()
