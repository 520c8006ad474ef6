"""Several bot processes on one database: each serves its own shards, and what SQLite's single writer
used to guarantee is now the database's job (one active game per channel, ratings that count every
game). PostgreSQL tests open two stores on one database, as two processes would: each has its own
connections, so their transactions really do run side by side on the server."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.engine import event_to_json
from bot.store import (
    ChannelBusyError,
    Deadline,
    DuplicateEventError,
    GameStateError,
    Post,
    ShardInUseError,
    ShardSet,
    Store,
    open_store,
)
from bot.store.postgresql import connection as pg_connection
from bot.store.ratings import rate_game
from tests.store.helpers import CHANNEL, GUILD, random_game, result, seats_for, store_game
from tests.store.two_processes import started_game, wait_for_waiters


@pytest.fixture
async def two_stores(pg_url: str) -> AsyncIterator[tuple[Store, Store]]:
    first, second = await open_store(pg_url), await open_store(pg_url)
    yield first, second
    await first.close()
    await second.close()


def test_a_shard_set_names_real_shards() -> None:
    assert ShardSet(4, frozenset({0, 3})).owns(7 << 22) and not ShardSet(4, frozenset({0, 3})).owns(6 << 22)
    for count, ids in ((0, {0}), (2, set()), (2, {2}), (2, {-1})):
        with pytest.raises(ValueError, match="shards"):
            ShardSet(count, frozenset(ids))


async def test_recovery_and_the_outbox_pick_the_games_of_a_processs_shards(store: Store) -> None:
    rng = random.Random(9)
    guilds = {f"g{n}": rng.randrange(1 << 40, 1 << 62) for n in range(24)}  # snowflake-sized
    for n, (game_id, guild_id) in enumerate(guilds.items()):
        await store_game(store, random_game(game_id, actions=4, seed=n), seats_for("cutthroat"), guild_id=guild_id)
        await store.add_posts(game_id, [Post("table", {"n": n})])
    await store.cancel_game("g0", [Post("cancelled", {})])  # ended, but still owes a post

    for shards in (ShardSet(1, frozenset({0})), ShardSet(3, frozenset({1})), ShardSet(4, frozenset({0, 3}))):
        mine = {game_id for game_id, guild_id in guilds.items() if shards.owns(guild_id)}
        recovery = await store.recover(shards)
        assert {s.info.game_id for s in recovery.games} == mine - {"g0"}
        pending = await store.pending_posts(shards)
        assert {p.game_id for p in pending} == mine and all(shards.owns(p.guild_id) for p in pending)
        assert [p.post_id for p in pending] == sorted(p.post_id for p in pending)
    assert len(await store.pending_posts()) == len(guilds) + 1


async def test_a_shard_is_served_by_one_process_at_a_time(pg_url: str) -> None:
    stores = [await open_store(pg_url) for _ in range(3)]
    first, second, third = stores
    try:
        await first.claim_shards(ShardSet(2, frozenset({1})))
        with pytest.raises(ShardInUseError, match=r"^shard 1 of 2 is already served by another bot process"):
            await second.claim_shards(ShardSet(2, frozenset({0, 1})))
        await third.claim_shards(ShardSet(2, frozenset({0})))  # the second took none of the two
        await first.close()  # the first process stops: its shard is free
        await second.claim_shards(ShardSet(2, frozenset({1})))
        with pytest.raises(ShardInUseError, match="shard 0 of 2"):  # the third still serves it
            await _claim_in_a_new_process(pg_url, ShardSet(2, frozenset({0})))
    finally:
        for store in stores[1:]:
            await store.close()


async def _claim_in_a_new_process(url: str, shards: ShardSet) -> None:
    store = await open_store(url)
    try:
        await store.claim_shards(shards)
    finally:
        await store.close()


async def test_two_processes_opening_a_lobby_in_one_channel_get_one(two_stores: tuple[Store, Store]) -> None:
    first, second = two_stores
    for n in range(10):
        outcomes = await asyncio.gather(
            *(store.create_game(f"c{n}-{side}", guild_id=GUILD, channel_id=CHANNEL + n, mode="solo", rules={},
                                host_id=side)
              for side, store in enumerate(two_stores)),
            return_exceptions=True,
        )  # fmt: skip
        assert sorted(type(o).__name__ for o in outcomes) == ["ChannelBusyError", "GameInfo"]
        assert len([g for g in await first.recent_games(GUILD, CHANNEL + n) if g.info.status == "lobby"]) == 1
    with pytest.raises(ChannelBusyError):
        await second.create_game("late", guild_id=GUILD, channel_id=CHANNEL, mode="solo", rules={}, host_id=1)


async def test_two_processes_finishing_games_with_the_same_players_both_count(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both finishes are held inside their transactions until each has gone as far as it can: without
    the leaderboard lock both would rate from the same old ratings, and one game would be lost."""
    monkeypatch.setattr(pg_connection, "LOCK_TIMEOUT_MS", 60_000)  # the held lock must not time out
    games = {
        "a": [result(0, "1", 510, 1), result(1, "2", 300, 2), result(2, "3", 90, 3)],
        "b": [result(0, "3", 505, 1), result(1, "1", 200, 2), result(2, "2", -40, 3)],
    }
    first, second = await open_store(pg_url), await open_store(pg_url)
    holder = await asyncpg.connect(pg_url)
    try:
        for game_id in games:
            await started_game(first, game_id)
        held = holder.transaction()
        await held.start()
        await holder.execute("LOCK TABLE results IN SHARE MODE")  # finishes can't insert their results yet
        finishing = [
            asyncio.create_task(store.finish_game(game_id, results))
            for store, (game_id, results) in zip((first, second), games.items(), strict=True)
        ]
        await wait_for_waiters(holder, 2)
        await held.rollback()
        outcomes = dict(zip(games, await asyncio.gather(*finishing), strict=True))

        # every game counts for everyone
        for user_id in (1, 2, 3):
            stats = await second.player_stats(GUILD, user_id, "cutthroat")
            played = [r for results in games.values() for r in results if r.player_key == str(user_id)]
            assert (stats.games, stats.wins) == (2, sum(r.won for r in played))
            assert stats.average_score == sum(r.final_score for r in played) / 2
        # the ratings are both games applied one after the other, in the order the changes report
        later = max(outcomes, key=lambda game_id: outcomes[game_id].changes[0].games)
        earlier = "a" if later == "b" else "b"
        assert {c.games for c in outcomes[earlier].changes} == {1} and {c.games for c in outcomes[later].changes} == {2}
        after_earlier = rate_game("cutthroat", games[earlier], {})
        expected = rate_game("cutthroat", games[later], after_earlier)
        board = {str(e.user_id): e for e in await first.leaderboard(GUILD, "cutthroat")}
        for key, rating in expected.items():
            assert (board[key].mu, board[key].sigma) == pytest.approx((rating.mu, rating.sigma))
        for change in outcomes[later].changes:
            assert change.rating_before == pytest.approx(after_earlier[change.player_key].ordinal)
            assert (change.rating_after, change.rank_after) == pytest.approx(
                (board[change.player_key].rating, board[change.player_key].rank)
            )
    finally:
        await holder.close()
        await first.close()
        await second.close()


async def test_two_processes_finishing_the_same_game_count_it_once(two_stores: tuple[Store, Store]) -> None:
    first, second = two_stores
    await started_game(first, "g")
    results = [result(0, "1", 510, 1), result(1, "2", 300, 2), result(2, "3", 90, 3)]
    outcomes = await asyncio.gather(*(store.finish_game("g", results, [Post("game_over", {})]) for store in two_stores))
    assert sorted(o.already_finished for o in outcomes) == [False, True]
    assert outcomes[0].changes == outcomes[1].changes
    assert (await first.player_stats(GUILD, 1)).games == 1
    assert [p.kind for p in await second.pending_posts()] == ["game_over"]
    with pytest.raises(GameStateError):
        await second.cancel_game("g")


async def test_two_processes_saving_the_same_actions_store_each_once(two_stores: tuple[Store, Store]) -> None:
    first, second = two_stores
    events = [event_to_json(e) for e in random_game("g", actions=40).events]
    await store_game(first, random_game("g", actions=0))  # started, no events yet
    actions = [(seq, events[seq - 1 : seq + 1]) for seq in range(1, 40, 2)]  # two events each

    async def save_all(store: Store, who: str) -> list[list[int] | None]:
        """Every action in turn, as a process would that missed the other's saves; None: a duplicate."""
        saved: list[list[int] | None] = []
        for seq, chunk in actions:
            try:
                posts = [Post(who, {"seq": seq})]
                saved.append(await store.append_events("g", seq, chunk, Deadline("remind", seq), posts))
            except DuplicateEventError:
                saved.append(None)
        return saved

    ours, theirs = await asyncio.gather(save_all(first, "first"), save_all(second, "second"))
    assert all((a is None) != (b is None) for a, b in zip(ours, theirs, strict=True))  # each saved by one
    stored = await second.load_game("g")
    assert stored is not None and stored.game is not None
    assert [event_to_json(e) for e in stored.game.events] == events[:40]
    assert stored.info.deadline == Deadline("remind", 39)
    pending = await first.pending_posts()  # the winner's post of each action, none of the losers'
    assert [p.payload["seq"] for p in pending] == [seq for seq, _ in actions]
    assert [[p.post_id] for p in pending] == [a if a is not None else b for a, b in zip(ours, theirs, strict=True)]


async def test_a_seq_another_process_stores_during_a_save_refuses_it_whole(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The save read the last seq before the other process's insert of the next one committed: it
    waits for that commit and is refused as a duplicate, keeping none of its events, deadline or posts."""
    monkeypatch.setattr(pg_connection, "LOCK_TIMEOUT_MS", 60_000)  # the held insert must not time out
    store = await open_store(pg_url)
    other, watcher = await asyncpg.connect(pg_url), await asyncpg.connect(pg_url)
    try:
        first = random_game("g", actions=4)
        n = first.event_count
        events = [event_to_json(e) for e in random_game("g", actions=n + 2).events]
        await store_game(store, first)
        held = other.transaction()
        await held.start()
        await other.execute("INSERT INTO events (game_id, seq, event_json, created_at) VALUES ('g', $1, $2, 0)",
                            n + 1, json.dumps(events[n]))  # fmt: skip
        saving = asyncio.create_task(
            store.append_events("g", n + 1, events[n : n + 2], Deadline("remind", 9.0), [Post("table", {})])
        )
        await wait_for_waiters(watcher, 1)
        await held.commit()
        with pytest.raises(DuplicateEventError, match=f"^game 'g': event {n + 1} is already stored$"):
            await saving
        stored = await store.load_game("g")
        assert stored is not None and stored.game is not None
        assert [event_to_json(e) for e in stored.game.events] == events[: n + 1]
        assert stored.info.deadline is None and await store.pending_posts() == []
    finally:
        await other.close()
        await watcher.close()
        await store.close()
