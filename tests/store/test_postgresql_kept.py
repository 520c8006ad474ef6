"""The saves of moves on PostgreSQL run on a few connections kept out of the pool
(`bot.store.postgresql.kept`): many games saving at once all get their moves saved, in order, a
refused save leaves the next one working, and closing the store never waits for a kept connection."""

from __future__ import annotations

import asyncio

import pytest

from bot.engine import event_to_json
from bot.store import EventSequenceError, open_store
from bot.store.postgresql import store as pg_store
from bot.store.postgresql.connection import POOL_SIZE
from tests.store.helpers import random_game, store_game


async def test_many_games_saving_at_once_all_save_and_the_store_closes_at_once(
    pg_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pg_store, "CLOSE_TIMEOUT_S", 60.0)  # a connection never given back would hold close
    store = await open_store(pg_url)
    games = [random_game(f"g{n}", actions=12, seed=n) for n in range(3 * POOL_SIZE)]
    try:
        for game in games:
            await store_game(store, random_game(game.game_id, actions=2, seed=int(game.game_id[1:])))

        async def play_on(game_id: str, events: list[dict[str, object]]) -> None:
            for seq, event in enumerate(events, start=3):
                await store.append_events(game_id, seq, [event])

        await asyncio.gather(*(play_on(g.game_id, [event_to_json(e) for e in g.events[2:]]) for g in games))
        for game in games:
            stored = await store.load_game(game.game_id)
            assert stored is not None and stored.game is not None and stored.game.to_json() == game.to_json()
    finally:
        await asyncio.wait_for(store.close(), 10.0)


async def test_a_refused_save_leaves_the_next_one_working(pg_url: str) -> None:
    store = await open_store(pg_url)
    game = random_game("g", actions=6, seed=4)
    try:
        await store_game(store, random_game("g", actions=4, seed=4))
        events = [event_to_json(e) for e in game.events]
        with pytest.raises(EventSequenceError):
            await store.append_events("g", 7, events[4:5])  # a gap: refused, nothing saved
        await store.append_events("g", 5, events[4:6])
        stored = await store.load_game("g")
        assert stored is not None and stored.game is not None and stored.game.to_json() == game.to_json()
    finally:
        await asyncio.wait_for(store.close(), 10.0)
