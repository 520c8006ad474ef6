"""Shared by the store's tests: games played by random legal moves, seat results, and
SQL run straight on the database behind a store."""

from __future__ import annotations

import contextlib
import random
import sqlite3
import zlib
from collections.abc import Sequence
from typing import Any

import asyncpg

from bot.ai.drive import drive, random_moves
from bot.engine import Game, Mode, Rules, event_to_json
from bot.store import FinishOutcome, Seat, SeatResult, Store
from devkit.pg import run_elsewhere

GUILD = 1000
CHANNEL = 2000


def random_game(game_id: str, mode: str = "cutthroat", actions: int = 30, seed: int = 1, **rules: object) -> Game:
    """A game `actions` events in (or over sooner), reproducible from `seed`."""
    rng = random.Random(seed)
    names = [f"player{n + 1}" for n in range(Mode(mode).seats)]
    game = Game.new(game_id, mode, Rules.from_options(rules), seed=seed, names=names)
    return drive(game, random_moves(rng, blind_nil=0.3), until=lambda g: g.event_count >= actions)


def seats_for(mode: str, bots: Sequence[int] = ()) -> list[Seat]:
    """Humans 1, 2, 3… in seats 0, 1, 2…, except the seats listed in `bots` (hard computer players)."""
    return [
        Seat(n, f"bot{n}", bot_level="hard") if n in bots else Seat(n, f"player{n + 1}", user_id=n + 1)
        for n in range(Mode(mode).seats)
    ]


def channel_of(game_id: str) -> int:
    """A channel of the game's own: a channel holds one active game at a time."""
    return CHANNEL + 1 + zlib.crc32(game_id.encode())


async def store_game(
    store: Store,
    game: Game,
    seats: Sequence[Seat] | None = None,
    guild_id: int = GUILD,
    channel_id: int | None = None,
) -> None:
    """Create (in a channel of its own unless given one), start and append every event of `game`,
    as the service would."""
    await store.create_game(
        game.game_id,
        guild_id=guild_id,
        channel_id=channel_of(game.game_id) if channel_id is None else channel_id,
        mode=game.mode,
        rules=game.rules.to_dict(),
        host_id=1,
        seats=seats if seats is not None else seats_for(game.mode),
    )
    await store.start_game(game.game_id, game.setup_json())
    for seq, event in enumerate(game.events, start=1):
        await store.append_event(game.game_id, seq, event_to_json(event))


def result(
    seat: int,
    key: str,
    final_score: int,
    place: int,
    *,
    won: bool | None = None,
    name: str | None = None,
    hands: int = 10,
    bids_made: int = 0,
    bids_set: int = 0,
    nils_tried: int = 0,
    nils_made: int = 0,
    bags: int = 0,
) -> SeatResult:
    """A seat result with only the figures a test cares about spelled out."""
    return SeatResult(
        seat=seat, player_key=key, name=name or f"name-{key}", final_score=final_score, place=place,
        won=place == 1 if won is None else won, hands=hands, bids_made=bids_made, bids_set=bids_set,
        nils_tried=nils_tried, nils_made=nils_made, bags=bags,
    )  # fmt: skip


async def finished_game(
    store: Store, game_id: str, mode: str, results: Sequence[SeatResult], guild_id: int = GUILD
) -> FinishOutcome:
    """A game that went straight from start to `results`: enough for ratings and stats tests."""
    seats = [
        Seat(r.seat, r.name, bot_level=r.player_key.removeprefix("bot:"))
        if r.is_bot
        else Seat(r.seat, r.name, user_id=int(r.player_key))
        for r in results
    ]
    await store.create_game(
        game_id, guild_id=guild_id, channel_id=channel_of(game_id), mode=mode, rules={}, host_id=None, seats=seats
    )
    await store.start_game(game_id, Game.new(game_id, mode, seed=1).setup_json())
    return await store.finish_game(game_id, results)


def run_sql(url: str, *statements: str) -> list[list[tuple[Any, ...]]]:
    """Run statements straight on the database behind a store, each committed on its own, for tests
    that inspect or damage what the store wrote; the rows each returned."""
    if url.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)) as conn:
            return [conn.execute(statement).fetchall() for statement in statements]

    async def run() -> list[list[tuple[Any, ...]]]:
        conn = await asyncpg.connect(url)
        try:
            return [[tuple(row) for row in await conn.fetch(statement)] for statement in statements]
        finally:
            await conn.close()

    return run_elsewhere(run())
