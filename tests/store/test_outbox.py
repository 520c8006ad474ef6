"""Posts owed to Discord are saved in the transaction of the write that owes them, survive a restart
until reported delivered, and a refused or repeated write leaves none behind."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from bot.engine import Game, event_to_json
from bot.store import (
    DuplicateEventError,
    EventGapError,
    GameNotFoundError,
    GameStateError,
    PendingPost,
    Post,
    SeatResult,
    Store,
    open_store,
)
from tests.store.helpers import CHANNEL, GUILD, random_game, result, seats_for, store_game


async def _started(store: Store, game_id: str, actions: int = 4, seed: int = 1, channel_id: int | None = None) -> Game:
    """A game `actions` events in; returns the same game played 4 events further, for the next saves."""
    await store_game(store, random_game(game_id, actions=actions, seed=seed), seats_for("cutthroat"),
                     channel_id=channel_id)  # fmt: skip
    return random_game(game_id, actions=actions + 4, seed=seed)


def _events(game: Game, first_seq: int, count: int = 1) -> list[dict[str, object]]:
    return [event_to_json(e) for e in game.events[first_seq - 1 : first_seq - 1 + count]]


def _cutthroat_results() -> list[SeatResult]:
    return [result(seat, str(seat + 1), 300 - 100 * seat, seat + 1) for seat in range(3)]


def _kinds(posts: list[PendingPost]) -> list[tuple[str, str]]:
    return [(p.game_id, p.kind) for p in posts]


async def test_posts_are_saved_with_the_action_and_survive_a_restart(db_url: str) -> None:
    store = await open_store(db_url)
    g1 = await _started(store, "g1", seed=1, channel_id=21)
    g2 = await _started(store, "g2", seed=2, channel_id=22)
    await store.append_events("g1", 5, _events(g1, 5, 2),
                              posts=[Post("hand_scored", {"hand": 1, "scores": [40, -20, 10]}),
                                     Post("hand_dealt", {"hand": 2, "name": "Zoë"})])  # fmt: skip
    await store.append_events("g2", 5, _events(g2, 5), posts=[Post("table", {})])
    await store.close()

    store = await open_store(db_url)  # a restart: the posts are still owed
    try:
        pending = await store.pending_posts()
        assert [(p.game_id, p.guild_id, p.channel_id, p.kind, p.payload) for p in pending] == [
            ("g1", GUILD, 21, "hand_scored", {"hand": 1, "scores": [40, -20, 10]}),
            ("g1", GUILD, 21, "hand_dealt", {"hand": 2, "name": "Zoë"}),
            ("g2", GUILD, 22, "table", {}),
        ]
        assert [p.post_id for p in pending] == sorted({p.post_id for p in pending})
        assert all(p.created_at > 0 for p in pending)
    finally:
        await store.close()


async def test_in_a_shared_commit_a_refused_action_keeps_none_of_its_posts(store: Store) -> None:
    later = {f"g{n}": await _started(store, f"g{n}", seed=n) for n in range(4)}

    def save(game_id: str, first_seq: int, kind: str) -> Coroutine[Any, Any, list[int]]:
        return store.append_events(game_id, first_seq, _events(later[game_id], first_seq), posts=[Post(kind, {})])

    outcomes = await asyncio.gather(
        save("g0", 5, "ok0"), save("g1", 4, "duplicate"), save("g2", 5, "ok2"), save("g3", 7, "gap"),
        return_exceptions=True,
    )  # fmt: skip
    assert [type(o) for o in outcomes] == [list, DuplicateEventError, list, EventGapError]
    pending = {p.game_id: p for p in await store.pending_posts()}
    assert {game_id: p.kind for game_id, p in pending.items()} == {"g0": "ok0", "g2": "ok2"}
    assert [outcomes[0], outcomes[2]] == [[pending["g0"].post_id], [pending["g2"].post_id]]  # each hears its ids

    # all accepted at once (on SQLite, the batched statement) keeps every post, each caller hearing its own
    ids = await asyncio.gather(save("g0", 6, "a"), save("g1", 5, "b"), save("g2", 6, "c"), save("g3", 5, "d"))
    new = [p for p in await store.pending_posts() if p.post_id not in {p.post_id for p in pending.values()}]
    assert sorted(_kinds(new)) == [("g0", "a"), ("g1", "b"), ("g2", "c"), ("g3", "d")]
    by_game = {p.game_id: p.post_id for p in new}
    assert ids == [[by_game[game_id]] for game_id in ("g0", "g1", "g2", "g3")]


async def test_a_games_posts_keep_the_order_its_actions_were_saved_in(store: Store) -> None:
    later = await _started(store, "g")
    saves = [
        store.append_events("g", 5, _events(later, 5), posts=[Post("a", {}), Post("b", {})]),
        store.append_events("g", 6, _events(later, 6), posts=[Post("c", {})]),
        store.append_events("g", 7, _events(later, 7, 2), posts=[Post("d", {}), Post("e", {})]),
    ]
    ids = await asyncio.gather(*saves)  # handed over together: saved in the order given
    pending = await store.pending_posts()
    assert [p.kind for p in pending] == ["a", "b", "c", "d", "e"]
    assert ids == [[pending[0].post_id, pending[1].post_id], [pending[2].post_id],
                   [pending[3].post_id, pending[4].post_id]]  # fmt: skip


async def test_a_payload_that_is_not_json_fails_its_caller_only(store: Store) -> None:
    later = {f"g{n}": await _started(store, f"g{n}", seed=n) for n in range(2)}
    bad = store.append_events("g0", 5, _events(later["g0"], 5), posts=[Post("table", {"when": object()})])
    good = store.append_events("g1", 5, _events(later["g1"], 5), posts=[Post("table", {"fine": True})])
    outcomes = await asyncio.gather(bad, good, return_exceptions=True)
    assert isinstance(outcomes[0], TypeError) and isinstance(outcomes[1], list)
    assert _kinds(await store.pending_posts()) == [("g1", "table")]
    stored = await store.load_game("g0")
    assert stored is not None and stored.game is not None and stored.game.event_count == 4
    with pytest.raises(ValueError, match="kind"):
        Post("", {})
    with pytest.raises(ValueError, match="JSON object"):
        Post("table", ["not", "an", "object"])  # type: ignore[arg-type]


async def test_finishing_keeps_its_posts_once(store: Store) -> None:
    await _started(store, "g")
    first = await store.finish_game("g", _cutthroat_results(), [Post("game_over", {"winner": "1"})])
    again = await store.finish_game("g", _cutthroat_results(), [Post("game_over", {"winner": "1"})])
    assert not first.already_finished and again.already_finished
    assert _kinds(await store.pending_posts()) == [("g", "game_over")]


async def test_a_refused_finish_keeps_no_posts(store: Store) -> None:
    await store.create_game("lobby", guild_id=GUILD, channel_id=CHANNEL, mode="cutthroat", rules={}, host_id=1)
    with pytest.raises(GameStateError):
        await store.finish_game("lobby", _cutthroat_results(), [Post("game_over", {})])
    await _started(store, "g")
    with pytest.raises(ValueError, match="one result per seat"):
        await store.finish_game("g", _cutthroat_results()[:2], [Post("game_over", {})])
    assert await store.pending_posts() == []


async def test_cancelling_keeps_its_posts_once(store: Store) -> None:
    await _started(store, "g")
    await store.cancel_game("g", [Post("cancelled", {"by": "host"})])
    await store.cancel_game("g", [Post("cancelled", {"by": "host"})])
    [post] = await store.pending_posts()
    assert (post.kind, post.payload) == ("cancelled", {"by": "host"})

    await _started(store, "done", seed=2)
    await store.finish_game("done", _cutthroat_results())
    with pytest.raises(GameStateError):
        await store.cancel_game("done", [Post("cancelled", {})])
    assert await store.pending_posts() == [post]


async def test_add_posts_for_a_game_in_any_status(store: Store) -> None:
    await _started(store, "g")
    await store.finish_game("g", _cutthroat_results())
    await store.add_posts("g", [Post("table", {"n": 1}), Post("table", {"n": 2})])
    assert [p.payload for p in await store.pending_posts()] == [{"n": 1}, {"n": 2}]
    with pytest.raises(GameNotFoundError):
        await store.add_posts("nope", [Post("table", {})])
    assert len(await store.pending_posts()) == 2


async def test_delivered_posts_are_forgotten_and_their_ids_never_come_back(store: Store) -> None:
    await _started(store, "g")
    await store.add_posts("g", [Post("a", {}), Post("b", {}), Post("c", {})])
    a, b, c = await store.pending_posts()
    await store.posts_delivered([c.post_id, a.post_id])
    await store.posts_delivered([c.post_id, a.post_id, 10_000])  # repeated and unknown ids are ignored
    assert await store.pending_posts() == [b]
    await store.posts_delivered([])
    await store.add_posts("g", [Post("d", {})])
    [_, d] = await store.pending_posts()
    assert d.kind == "d" and d.post_id > c.post_id  # the newest id is not reused once delivered
    await store.posts_delivered([c.post_id])  # a late repeat for c cannot take d with it
    assert _kinds(await store.pending_posts()) == [("g", "b"), ("g", "d")]
