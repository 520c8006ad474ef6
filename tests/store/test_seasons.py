"""Seasons: a running season rates its games again from fresh ratings beside all time, keeps its
board once ended, owes its podium through the outbox, and servers on a rhythm are found when due."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import asyncpg
import pytest

from bot.store import Post, SeasonConflictError, ShardSet, Store, open_store
from bot.store.postgresql import connection as pg_connection
from bot.store.ratings import rate_game
from tests.store.helpers import GUILD, finished_game, result, run_sql
from tests.store.old_schemas import build_version
from tests.store.two_processes import started_game, wait_for_waiters

CHANNEL = 77
ONE = [result(0, "1", 510, 1), result(1, "2", 300, 2), result(2, "3", 90, 3)]
TWO = [result(0, "3", 505, 1), result(1, "1", 200, 2), result(2, "4", -40, 3)]


async def _season(store: Store, name: str = "Spring", guild_id: int = GUILD, **kwargs: float) -> int:
    started = await store.start_season(guild_id, name, channel_id=CHANNEL, started_at=kwargs.get("at", time.time()),
                                       ends_at=kwargs.get("ends_at"), started_by=5)  # fmt: skip
    return started.season_id


async def test_a_season_rates_its_games_from_fresh_ratings_beside_all_time(store: Store) -> None:
    await finished_game(store, "before", "cutthroat", ONE)  # all time only: no season yet
    spring = await _season(store)
    await finished_game(store, "during", "cutthroat", TWO)

    all_time = {e.user_id: e for e in await store.leaderboard(GUILD, "cutthroat")}
    season = {e.user_id: e for e in await store.leaderboard(GUILD, "cutthroat", season_id=spring)}
    assert {k: e.games for k, e in all_time.items()} == {1: 2, 2: 1, 3: 2, 4: 1}
    assert {k: (e.games, e.wins, e.points) for k, e in season.items()} == {1: (1, 0, 200), 3: (1, 1, 505),
                                                                           4: (1, 0, -40)}  # fmt: skip
    fresh = rate_game("cutthroat", TWO, {})  # as if nobody had played before
    for key, rating in fresh.items():
        assert (season[int(key)].mu, season[int(key)].sigma) == pytest.approx((rating.mu, rating.sigma))
    assert all_time[1].mu != pytest.approx(season[1].mu)  # the season did not start from all time
    assert [e.user_id for e in await store.leaderboard(GUILD, "cutthroat", "points", season_id=spring)] == [3, 1, 4]

    # stats of the season, and each game's ratings for the stats card's chart
    stats = await store.player_stats(GUILD, 1, season_id=spring)
    assert (stats.games, stats.wins, [r.games for r in stats.ratings]) == (1, 0, [1])
    assert stats.ratings[0].rating == pytest.approx(fresh["1"].ordinal)
    assert (await store.player_stats(GUILD, 1)).games == 2
    history = await store.rating_history(GUILD, 1)
    assert [(p.game_id, p.season_id) for p in history] == [("before", None), ("during", spring)]
    assert history[0].season_rating is None and history[1].season_rating == pytest.approx(fresh["1"].ordinal)
    assert history[1].rating == pytest.approx(all_time[1].rating)
    assert await store.rating_history(GUILD, 1, "solo") == []


async def test_one_season_runs_at_a_time_and_names_are_never_reused(store: Store) -> None:
    spring = await _season(store)
    with pytest.raises(SeasonConflictError, match="'Spring' is running"):
        await _season(store, "Summer")
    assert await store.end_season(spring, time.time()) is not None
    with pytest.raises(SeasonConflictError, match="already had a season named 'spring'"):
        await _season(store, "spring")  # case aside, the same name: which board would it mean?
    await _season(store, "Spring", guild_id=GUILD + 1)  # another server's names are its own
    summer = await _season(store, "Summer")
    assert [(s.name, s.running) for s in await store.seasons(GUILD)] == [("Summer", True), ("Spring", False)]
    assert (await store.seasons(GUILD))[0].season_id == summer
    with pytest.raises(ValueError, match="end after it starts"):
        await store.start_season(GUILD + 2, "Odd", channel_id=1, started_at=100.0, ends_at=100.0)


async def test_ending_keeps_the_board_and_owes_the_podium_once(db_url: str) -> None:
    store = await open_store(db_url)
    spring = await _season(store)
    await finished_game(store, "g1", "cutthroat", ONE)
    podium = [Post("season_podium", {"season": "Spring"})]
    ended = await store.end_season(spring, 12345.0, podium)
    assert ended is not None and ended.ended_at == 12345.0 and not ended.running
    assert await store.end_season(spring, 99999.0, podium) is None  # a second end changes nothing
    await finished_game(store, "g2", "cutthroat", TWO)  # after the end: all time only
    assert [e.games for e in await store.leaderboard(GUILD, "cutthroat", season_id=spring)] == [1, 1, 1]
    assert (await store.rating_history(GUILD, 4))[0].season_id is None
    await store.close()

    store = await open_store(db_url)  # a restart: the podium is still owed, and no game post is
    try:
        [owed] = await store.pending_season_posts()
        assert (owed.kind, owed.payload, owed.season.name, owed.season.ended_at) == (
            "season_podium", {"season": "Spring"}, "Spring", 12345.0)
        assert owed.season.channel_id == CHANNEL and owed.season.guild_id == GUILD
        assert await store.pending_posts() == []
        await store.posts_delivered([owed.post_id])
        assert await store.pending_season_posts() == []
    finally:
        await store.close()


async def test_a_game_after_the_planned_end_is_not_in_the_season_though_it_still_runs(store: Store) -> None:
    now = time.time()
    spring = await _season(store, at=now - 100, ends_at=now - 1)
    await _season(store, "Other", guild_id=GUILD + 1, at=now - 100, ends_at=now + 3600)
    await finished_game(store, "late", "cutthroat", ONE)
    assert await store.leaderboard(GUILD, "cutthroat", season_id=spring) == []
    assert [s.season_id for s in await store.due_seasons(now)] == [spring]
    assert await store.due_seasons(now - 2) == []
    assert await store.next_season_end() == pytest.approx(now - 1)


async def test_shards_pick_their_servers_seasons(store: Store) -> None:
    """A server on shard 1 of 2 (bit 22 of its id), and one on shard 0."""
    on_one, on_zero = 1 << 22, 2 << 22
    now = time.time()
    first = await _season(store, guild_id=on_one, at=now - 10, ends_at=now - 5)
    second = await _season(store, guild_id=on_zero, at=now - 10, ends_at=now - 1)
    await store.end_season(first, now, [Post("season_podium", {})])
    one, zero = ShardSet(2, frozenset({1})), ShardSet(2, frozenset({0}))
    assert [p.season.guild_id for p in await store.pending_season_posts(one)] == [on_one]
    assert await store.pending_season_posts(zero) == []
    assert [s.season_id for s in await store.due_seasons(now, zero)] == [second]
    assert await store.due_seasons(now, one) == []
    assert await store.next_season_end(zero) == pytest.approx(now - 1)
    assert await store.next_season_end(one) is None
    await store.set_season_rhythm(on_one, "monthly", CHANNEL)
    assert [d.guild_id for d in await store.rhythms_due("2026-11", one)] == [on_one]
    assert await store.rhythms_due("2026-11", zero) == []


async def test_a_rhythm_is_due_without_a_running_season_or_one_of_the_months_name(store: Store) -> None:
    assert await store.season_rhythm(GUILD) is None
    await store.set_season_rhythm(GUILD, "monthly", CHANNEL)
    assert await store.season_rhythm(GUILD) == "monthly"
    [due] = await store.rhythms_due("2026-11")
    assert (due.guild_id, due.rhythm, due.channel_id) == (GUILD, "monthly", CHANNEL)
    november = await store.start_season(GUILD, "2026-11", channel_id=CHANNEL, started_at=1.0, ends_at=2.0,
                                        rhythm="monthly")  # fmt: skip
    assert november.rhythm == "monthly" and november.started_by is None
    assert await store.rhythms_due("2026-11") == []  # running
    await store.end_season(november.season_id, 1.5)
    assert await store.rhythms_due("2026-11") == []  # ended early: the month had its season
    assert [d.guild_id for d in await store.rhythms_due("2026-12")] == [GUILD]
    await store.set_season_rhythm(GUILD, None, None)
    assert await store.rhythms_due("2026-12") == [] and await store.season_rhythm(GUILD) is None
    with pytest.raises(ValueError, match="channel"):
        await store.set_season_rhythm(GUILD, "monthly", None)


async def test_upgrading_keeps_owed_posts_and_never_reuses_their_ids(tmp_path: Path, backend: str,
                                                                     request: pytest.FixtureRequest) -> None:
    """V006 rebuilds SQLite's outbox so a post may belong to a season: the id counter goes with it."""
    url = f"sqlite:///{tmp_path / 'spades.db'}" if backend == "sqlite" else str(request.getfixturevalue("pg_empty_url"))
    build_version(url, 5)
    run_sql(url, *(f"INSERT INTO outbox (game_id, kind, payload_json, created_at) VALUES ('old', 'k{n}', '{{}}', 1)"
                   for n in range(3)))  # fmt: skip
    run_sql(url, "DELETE FROM outbox WHERE kind = 'k2'")  # the newest was delivered
    [[(newest,)]] = run_sql(url, "SELECT max(post_id) FROM outbox")
    store = await open_store(url)
    try:
        assert [p.kind for p in await store.pending_posts()] == ["k0", "k1"]
        [new_id] = await store.add_posts("old", [Post("table", {})])
        assert new_id > newest + 1  # not the id the delivered post had
        spring = await _season(store)
        await store.end_season(spring, time.time(), [Post("season_podium", {})])
        assert [p.post_id > new_id for p in await store.pending_season_posts()] == [True]
    finally:
        await store.close()


async def test_a_game_finishing_as_the_season_ends_is_in_it_and_on_its_final_board(pg_url: str,
                                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                                    ) -> None:
    """The finish locks the season's row first (it is held before saving its results): the end waits
    for it, and the final board has the game. (Two stores: each has its connection open already.)"""
    monkeypatch.setattr(pg_connection, "LOCK_TIMEOUT_MS", 60_000)
    store, other, holder = await open_store(pg_url), await open_store(pg_url), await asyncpg.connect(pg_url)
    try:
        spring = await _season(store)
        await started_game(store, "g")
        held = holder.transaction()
        await held.start()
        await holder.execute("LOCK TABLE results IN SHARE MODE")
        finishing = asyncio.create_task(store.finish_game("g", ONE))
        await wait_for_waiters(holder, 1)
        ending = asyncio.create_task(other.end_season(spring, time.time()))
        await wait_for_waiters(holder, 2)
        await held.rollback()
        await asyncio.gather(finishing, ending)
        assert [e.games for e in await store.leaderboard(GUILD, "cutthroat", season_id=spring)] == [1, 1, 1]
    finally:
        await holder.close()
        await store.close()
        await other.close()


async def test_a_game_finishing_once_the_season_has_ended_is_not_in_it(pg_url: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The end locks the season's row first (it is held before saving its podium): the finish waits
    for it, then finds no season running, and the final board never moves."""
    monkeypatch.setattr(pg_connection, "LOCK_TIMEOUT_MS", 60_000)
    store, other, holder = await open_store(pg_url), await open_store(pg_url), await asyncpg.connect(pg_url)
    try:
        spring = await _season(store)
        await started_game(store, "g")
        held = holder.transaction()
        await held.start()
        await holder.execute("LOCK TABLE outbox IN SHARE MODE")
        ending = asyncio.create_task(other.end_season(spring, time.time(), [Post("season_podium", {})]))
        await wait_for_waiters(holder, 1)
        finishing = asyncio.create_task(store.finish_game("g", ONE))
        await wait_for_waiters(holder, 2)
        await held.rollback()
        await asyncio.gather(finishing, ending)
        assert await store.leaderboard(GUILD, "cutthroat", season_id=spring) == []
        assert [p.season_id for p in await store.rating_history(GUILD, 1)] == [None]
        assert (await store.player_stats(GUILD, 1)).games == 1
    finally:
        await holder.close()
        await store.close()
        await other.close()

