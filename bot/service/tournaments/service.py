"""The tournament service's one face: the Discord layer and the composition root call these
methods, each handed to the part whose job it is."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bot.service.changes import Change
from bot.service.clock import Clock, SystemClock
from bot.service.context import Listener
from bot.service.games import GameService
from bot.service.live import LiveGame
from bot.service.tournaments import recovery
from bot.service.tournaments.context import Context, TournamentHost
from bot.service.tournaments.live import LiveTournament
from bot.service.tournaments.outbox import Outbox
from bot.service.tournaments.roster import Roster
from bot.service.tournaments.rounds import Rounds
from bot.service.tournaments.tables import Tables
from bot.store import ShardSet, Store


class Listeners:
    """Hands the game service's changes to several listeners in turn: the publisher, and the
    tournament service, which hears from it when a table's game ends."""

    def __init__(self, *listeners: Listener) -> None:
        self.listeners = list(listeners)

    def publish(self, live: LiveGame, changes: Sequence[Change]) -> None:
        for listener in self.listeners:
            listener.publish(live, changes)


class TournamentService:
    def __init__(self, store: Store, games: GameService, host: TournamentHost, *, clock: Clock | None = None,
                 shards: ShardSet | None = None, round_pause: float = 60.0, rng: random.Random | None = None) -> None:
        self._context = Context(store, games, host, clock or SystemClock(), round_pause, rng=rng, shards=shards)
        self._outbox = Outbox(self._context)
        self._tables = Tables(self._context)
        self._rounds = Rounds(self._context, self._outbox, self._tables)
        self._roster = Roster(self._context, self._outbox, self._tables, self._rounds)

    @property
    def round_pause(self) -> float:
        """Seconds between a round's end and the next one's seating."""
        return self._context.round_pause

    # ------------------------------------------------------------------ start-up and shutdown
    async def recover(self) -> None:
        """Run after the game service recovered its games, so the tables' games are running again."""
        await recovery.recover(self._context, self._outbox, self._rounds, self._tables)

    async def close(self) -> None:
        await self._context.close()

    async def delivered(self, post_id: int) -> None:
        await self._outbox.delivered(post_id)

    # ------------------------------------------------------------------ lookups
    def in_channel(self, channel_id: int) -> LiveTournament | None:
        return self._context.in_channel(channel_id)

    def require(self, guild_id: int, channel_id: int) -> LiveTournament:
        return self._context.require(guild_id, channel_id)

    def require_id(self, tournament_id: str, guild_id: int | None, channel_id: int | None) -> LiveTournament:
        return self._context.require_id(tournament_id, guild_id, channel_id)

    async def latest(self, guild_id: int, channel_id: int) -> LiveTournament:
        return await self._context.latest(guild_id, channel_id)

    # ------------------------------------------------------------------ the organiser's and players' actions
    async def new(self, guild_id: int, channel_id: int, organiser_id: int, *, mode: str | None = None,
                  options: dict[str, object] | None = None, rounds: int = 3, level: str = "normal",
                  signup_minutes: int | None = None, round_minutes: int | None = None) -> LiveTournament:
        return await self._roster.new(guild_id, channel_id, organiser_id, mode=mode, options=options, rounds=rounds,
                                      level=level, signup_minutes=signup_minutes, round_minutes=round_minutes)

    async def set_organiser_role(self, guild_id: int, role_id: int) -> dict[str, Any]:
        return await self._roster.set_organiser_role(guild_id, role_id)

    async def set_message(self, live: LiveTournament, message_id: int) -> None:
        await self._roster.set_message(live, message_id)

    async def join(self, live: LiveTournament, user_id: int, name: str,
                   partner: tuple[int, str] | None = None) -> None:
        await self._roster.join(live, user_id, name, partner)

    async def leave(self, live: LiveTournament, user_id: int, player: int | None = None,
                    is_organiser: bool = False) -> str:
        return await self._roster.leave(live, user_id, player, is_organiser)

    async def replace(self, live: LiveTournament, out: int, new: int, new_name: str) -> str:
        return await self._roster.replace(live, out, new, new_name)

    async def start(self, live: LiveTournament) -> int:
        return await self._roster.start(live)

    async def cancel(self, live: LiveTournament, reason: str = "cancelled by its organiser") -> None:
        await self._roster.cancel(live, reason)

    # ------------------------------------------------------------------ the games' ends
    def publish(self, live_game: LiveGame, changes: Sequence[Change]) -> None:
        self._rounds.publish(live_game, changes)
