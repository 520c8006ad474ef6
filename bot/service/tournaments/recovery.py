"""Carrying on after a restart. Everything a tournament needs is in the store: its events, each
table's thread and game (saved as soon as each exists), the one deadline that is due next and the
posts it owes. So the owed posts go out again, unfinished games go on (the game service recovered
them first), results of games that ended while the bot was down are recorded and the round is
advanced, never seated twice."""

from __future__ import annotations

import logging

from bot.engine import EngineError
from bot.service.tournaments.context import Context
from bot.service.tournaments.live import LiveTournament
from bot.service.tournaments.outbox import Outbox
from bot.service.tournaments.rounds import Rounds
from bot.service.tournaments.tables import Tables

log = logging.getLogger(__name__)


async def recover(context: Context, outbox: Outbox, rounds: Rounds, tables: Tables) -> None:
    """Publish owed posts, then take up every open tournament where it stopped."""
    await outbox.publish_owed()
    for stored in await context.store.open_tournaments(context.shards):
        try:
            live = LiveTournament.from_stored(stored)
        except EngineError as error:
            log.error("tournament %s can't be replayed and is left alone: %s", stored.info.tournament_id, error)
            continue
        context.register(live)
        tables.mark_running_games(live)
        async with live.lock:
            await rounds.advance(live)
