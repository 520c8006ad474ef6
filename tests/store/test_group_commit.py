"""One accepted action = its events and its turn deadline, all or nothing, whether it shares a commit
with whatever other games' actions arrived at the same moment (SQLite's group commit) or has a
transaction of its own (PostgreSQL)."""

from __future__ import annotations

import asyncio

import pytest

from bot.engine import Game, event_to_json
from bot.store import Deadline, DuplicateEventError, EventGapError, Store
from tests.store.helpers import random_game, seats_for, store_game


async def _started(store: Store, game_id: str, actions: int, seed: int) -> Game:
    game = random_game(game_id, actions=actions, seed=seed)
    await store_game(store, game, seats_for("cutthroat"))
    return game


async def test_an_action_and_its_deadline_are_written_together(store: Store, db_url: str) -> None:
    game = await _started(store, "g1", actions=5, seed=1)
    more = random_game("g1", actions=7, seed=1)
    events = [event_to_json(e) for e in more.events[5:7]]
    await store.append_events("g1", 6, events, Deadline("remind", 123.0))
    info = await store.get_game("g1")
    assert info is not None and info.deadline == Deadline("remind", 123.0)
    stored = await store.load_game("g1")
    assert stored is not None and stored.game is not None
    assert stored.game.to_json() == more.to_json() != game.to_json()
    await store.append_events("g1", 8, [event_to_json(more_event) for more_event in
                                        random_game("g1", actions=8, seed=1).events[7:8]], None)
    info = await store.get_game("g1")
    assert info is not None and info.deadline is None


async def test_a_refused_action_in_a_shared_commit_leaves_the_others_whole(store: Store) -> None:
    games = [await _started(store, f"g{n}", actions=4, seed=n) for n in range(6)]
    nexts = [random_game(f"g{n}", actions=6, seed=n) for n in range(6)]

    async def good(n: int) -> None:
        await store.append_events(f"g{n}", 5, [event_to_json(e) for e in nexts[n].events[4:6]],
                                  Deadline("remind", float(n)))

    async def duplicate() -> None:  # seq 4 of g0 is already stored: nothing of this action may land
        await store.append_events("g0", 4, [event_to_json(games[0].events[3])], Deadline("takeover", 9.0))

    async def gap() -> None:
        await store.append_events("g1", 9, [event_to_json(nexts[1].events[5])])

    results = await asyncio.gather(*(good(n) for n in range(6)), duplicate(), gap(), return_exceptions=True)
    assert results[:6] == [None] * 6
    assert isinstance(results[6], DuplicateEventError) and isinstance(results[7], EventGapError)
    for n in range(6):
        stored = await store.load_game(f"g{n}")
        assert stored is not None and stored.game is not None
        assert stored.game.to_json() == nexts[n].to_json()
        info = await store.get_game(f"g{n}")
        assert info is not None and info.deadline == Deadline("remind", float(n))


async def test_a_caller_that_gives_up_does_not_undo_a_shared_commit(store: Store) -> None:
    await _started(store, "g1", actions=4, seed=3)
    await _started(store, "g2", actions=4, seed=4)
    n1 = random_game("g1", actions=5, seed=3)
    n2 = random_game("g2", actions=5, seed=4)
    first = asyncio.create_task(store.append_events("g1", 5, [event_to_json(n1.events[4])]))
    second = asyncio.create_task(store.append_events("g2", 5, [event_to_json(n2.events[4])]))
    await asyncio.sleep(0)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    await second  # both were queued before the commit began, so they share it
    for game_id, expected in (("g1", n1), ("g2", n2)):
        stored = await store.load_game(game_id)
        assert stored is not None and stored.game is not None
        assert stored.game.event_count == expected.event_count


async def test_two_actions_of_one_game_in_one_commit_both_land_in_order(store: Store) -> None:
    """A batch is normally one statement checked against what was stored before it; a game's second
    action in the same batch must still land after its first, not be refused as a gap."""
    await _started(store, "g1", actions=3, seed=5)
    later = random_game("g1", actions=7, seed=5)
    first = store.append_events("g1", 4, [event_to_json(e) for e in later.events[3:5]])
    second = store.append_events("g1", 6, [event_to_json(later.events[5])], Deadline("remind", 1.0))
    third = store.append_events("g1", 7, [event_to_json(later.events[6])])
    assert await asyncio.gather(first, second, third) == [[], [], []]  # no posts owed, so no post ids
    stored = await store.load_game("g1")
    assert stored is not None and stored.game is not None
    assert stored.game.to_json() == later.to_json()
    assert stored.info.deadline == Deadline("remind", 1.0)
