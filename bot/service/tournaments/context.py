"""What the parts of the tournament service share: the store, the game service, the Discord side
(the host), the clock, and the tournaments this process runs, found by channel and by a table's
game; with the lookups the Discord layer makes."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.service.clock import Clock
from bot.service.errors import Refusal
from bot.service.games import GameService
from bot.service.tournaments.live import LiveTournament, TableSeat
from bot.store import ShardSet, Store

RETRY = 30.0  # after a thread couldn't be opened, or the store failed
STANDINGS, PODIUM, CANCELLED = "standings", "podium", "cancelled"  # the kinds of post a tournament owes


class ThreadRefused(Exception):
    """Discord wouldn't open a table's thread; the message tells the organiser what to fix."""


class TournamentHost(Protocol):
    """The Discord side. The plain methods must not block; `open_thread` and `archive_thread` are
    awaited (the tournament waits for its threads)."""

    def signup_changed(self, live: LiveTournament) -> None: ...

    def post(self, live: LiveTournament, kind: str, payload: dict[str, Any], post_id: int) -> None:
        """Publish an owed post, then call `TournamentService.delivered(post_id)`."""

    def notify(self, live: LiveTournament, text: str) -> None:
        """Tell the organiser something they must act on (not owed: said again if still true)."""

    async def open_thread(self, live: LiveTournament, round_number: int, table: int,
                          seats: Sequence[TableSeat], *, again: bool) -> int:
        """Open the table's thread under the tournament's message, mention its players there, and
        return its id. `again`: this table was tried before (a refusal, or a crash before its thread
        was saved), so what that try left in the channel is found and used, not posted twice.
        Raises ThreadRefused when Discord won't."""

    async def archive_thread(self, live: LiveTournament, thread_id: int) -> None: ...


@dataclass(eq=False)
class Context:
    """The tournaments this process runs, and what every part of the service reaches them through."""

    store: Store
    games: GameService
    host: TournamentHost
    clock: Clock
    round_pause: float  # seconds between a round's end and the next one's seating
    rng: random.Random | None = None  # seeded: tournament ids and seatings follow from it (tests); None: unpredictable
    shards: ShardSet | None = None  # the servers this process serves (None: all)
    channels: dict[int, LiveTournament] = field(default_factory=dict)
    by_game: dict[str, LiveTournament] = field(default_factory=dict)  # a table's game id -> its tournament
    tasks: set[asyncio.Task[None]] = field(default_factory=set)  # games' ends being recorded, threads archived

    def register(self, live: LiveTournament) -> None:
        self.channels[live.channel_id] = live
        for row in live.tables.values():
            if row.game_id is not None:
                self.by_game[row.game_id] = live

    def forget(self, live: LiveTournament) -> None:
        """An ended tournament leaves its channel free for the next one; its timer stops."""
        if self.channels.get(live.channel_id) is live:
            del self.channels[live.channel_id]
        for game_id in [g for g, t in self.by_game.items() if t is live]:
            del self.by_game[game_id]
        if live.timer is not None and live.timer is not asyncio.current_task():
            live.timer.cancel()
        live.timer = None

    async def close(self) -> None:
        tasks = [t.timer for t in self.channels.values() if t.timer is not None] + list(self.tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def in_channel(self, channel_id: int) -> LiveTournament | None:
        return self.channels.get(channel_id)

    def require(self, guild_id: int, channel_id: int) -> LiveTournament:
        live = self.channels.get(channel_id)
        if live is None or live.guild_id != guild_id:
            raise Refusal("There's no tournament in this channel. Start one with /spades tournament new.")
        return live

    def require_id(self, tournament_id: str, guild_id: int | None, channel_id: int | None) -> LiveTournament:
        """The tournament a button names, checked against where the click came from."""
        live = self.channels.get(channel_id or 0)
        if live is None or live.tournament_id != tournament_id or live.guild_id != guild_id:
            raise Refusal("That tournament isn't taking sign-ups any more.")
        return live

    async def latest(self, guild_id: int, channel_id: int) -> LiveTournament:
        """This channel's open tournament, else its last one (for the final standings)."""
        live = self.channels.get(channel_id)
        if live is not None and live.guild_id == guild_id:
            return live
        stored = await self.store.latest_tournament(guild_id, channel_id)
        if stored is None:
            raise Refusal("No tournament has been played in this channel yet. Start one with /spades tournament new.")
        return LiveTournament.from_stored(stored)
