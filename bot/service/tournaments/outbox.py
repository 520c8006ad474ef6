"""Saving with the outbox: an engine action's events, with the posts it owes (a round's
standings, the podium, a cancellation), the status and the next deadline, in one write.

Memory never runs ahead of the store: if a save fails the tournament is put back as stored. A post
is handed to the host once saved and marked delivered when the host confirms; one still owed after
a restart is published again from the tournament as stored, never twice at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from bot.engine import EngineError
from bot.engine.tournaments.events import tournament_event_from_json, tournament_event_to_json
from bot.engine.tournaments.tournament import Tournament
from bot.service.errors import Refusal, SaveFailed
from bot.service.tournaments.context import Context
from bot.service.tournaments.live import LiveTournament
from bot.store import UNCHANGED, GameStateError, Post, StoreError, TournamentStatus, Unchanged

log = logging.getLogger(__name__)


class Outbox:
    def __init__(self, context: Context) -> None:
        self._context = context
        self._store = context.store
        self._in_flight: set[int] = set()  # posts handed to the host, not yet confirmed

    async def act(self, live: LiveTournament, action: Callable[[], object], *, posts: Sequence[Post] = (),
                  status: TournamentStatus | None = None, deadline: float | Unchanged | None = UNCHANGED) -> None:
        """Try an engine action, save its events (with the posts, status and deadline it leads to),
        and only then let it count; if the save fails the tournament is put back as stored."""
        before = len(live.engine.events)
        try:
            action()
        except EngineError as error:
            raise Refusal(str(error)) from None
        events = [tournament_event_to_json(e) for e in live.engine.events[before:]]
        try:
            ids = await self._store.append_tournament_events(live.tournament_id, before + 1, events, posts=posts,
                                                             status=status, deadline=deadline)
        except (StoreError, asyncio.CancelledError) as error:
            await self._rewind(live)
            if isinstance(error, GameStateError):
                raise Refusal("This tournament is over.") from None
            if isinstance(error, StoreError):
                raise SaveFailed("I couldn't save that just now, so it didn't count. Please try again.") from error
            raise
        if not isinstance(deadline, Unchanged):
            live.deadline = deadline
        for post, post_id in zip(posts, ids, strict=True):
            self._in_flight.add(post_id)
            self._context.host.post(live, post.kind, post.payload, post_id)

    async def _rewind(self, live: LiveTournament) -> None:
        """Memory never runs ahead of the store: replay what is stored."""
        try:
            stored = await self._store.load_tournament(live.tournament_id)
        except StoreError:
            stored = None
        if stored is not None:
            rebuilt = LiveTournament.from_stored(stored)
            live.engine, live.deadline = rebuilt.engine, rebuilt.deadline
        else:
            engine = Tournament(live.tournament_id, live.engine.mode, live.engine.rules, live.engine.rounds,
                                live.engine.seed)
            engine.replay([tournament_event_from_json(tournament_event_to_json(e)) for e in live.engine.events[:-1]])
            live.engine = engine

    async def publish_owed(self) -> None:
        for owed in await self._store.pending_tournament_posts(self._context.shards):
            if owed.post_id in self._in_flight:
                continue
            stored = await self._store.load_tournament(owed.info.tournament_id)
            if stored is None:
                continue
            self._in_flight.add(owed.post_id)
            self._context.host.post(LiveTournament.from_stored(stored), owed.kind, owed.payload, owed.post_id)

    async def delivered(self, post_id: int) -> None:
        try:
            await self._store.tournament_posts_delivered([post_id])
        except StoreError:
            log.warning("tournament post %s went out but couldn't be marked", post_id, exc_info=True)
        self._in_flight.discard(post_id)
