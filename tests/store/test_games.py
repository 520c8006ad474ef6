"""Games in the store: their life, the event log's guarantees, reading them back, and recovery."""

from __future__ import annotations

import asyncio
import itertools
import re
import sqlite3
from pathlib import Path

import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import event_to_json, export_record
from bot.store import (
    ChannelBusyError,
    DamagedGameError,
    Deadline,
    DuplicateEventError,
    EventGapError,
    EventSequenceError,
    GameNotFoundError,
    GameStateError,
    Post,
    Seat,
    Store,
    open_store,
)
from tests.store.helpers import CHANNEL, GUILD, channel_of, random_game, result, run_sql, seats_for, store_game


async def stored_events(store: Store, game_id: str) -> list[dict[str, object]]:
    loaded = await store.load_game(game_id)
    assert loaded is not None and loaded.game is not None
    return [event_to_json(e) for e in loaded.game.events]


@pytest.mark.parametrize("mode", ["cutthroat", "solo", "partners"])
async def test_append_and_reload_give_the_same_game(db_url: str, mode: str) -> None:
    game = random_game("g1", mode, actions=80, seed=3)
    store = await open_store(db_url)
    await store_game(store, game)
    await store.close()

    store = await open_store(db_url)  # a restart: nothing is cached
    try:
        loaded = await store.load_game("g1")
        assert loaded is not None and loaded.game is not None
        assert loaded.game.to_json() == game.to_json()
        assert loaded.game.turn == game.turn
        assert loaded.game.scores == game.scores
        assert loaded.info.status == "playing"
        assert loaded.info.mode == mode
        assert loaded.info.seats == tuple(seats_for(mode))
    finally:
        await store.close()


async def test_lobby_life_and_message_ids_survive_restart(db_url: str) -> None:
    store = await open_store(db_url)
    info = await store.create_game(
        "g1", guild_id=GUILD, channel_id=CHANNEL, mode="solo", rules={"target": 200}, host_id=7,
        seats=[Seat(0, "host", user_id=7)],
    )  # fmt: skip
    assert info.status == "lobby" and info.seats == (Seat(0, "host", user_id=7),) and info.rules == {"target": 200}
    await store.set_seats("g1", [Seat(0, "host", user_id=7), Seat(2, "bot", bot_level="easy")])
    await store.set_lobby_message("g1", 111)
    await store.set_table_message("g1", 222)
    await store.set_deadline("g1", Deadline("remind", 1234.5))
    await store.close()

    store = await open_store(db_url)
    try:
        recovery = await store.recover()
        assert recovery.damaged == ()
        [lobby] = recovery.games
        assert lobby.game is None
        assert lobby.info.seats == (Seat(0, "host", user_id=7), Seat(2, "bot", bot_level="easy"))
        assert (lobby.info.lobby_message_id, lobby.info.table_message_id) == (111, 222)
        assert lobby.info.deadline == Deadline("remind", 1234.5)
        assert lobby.info.host_id == 7 and lobby.info.started_at is None
        await store.set_deadline("g1", None)
        assert (await store.get_game("g1")).deadline is None  # type: ignore[union-attr]
        assert await store.game_record("g1") is None  # never started
    finally:
        await store.close()


async def test_refusals_name_the_problem_and_write_nothing(store: Store) -> None:
    with pytest.raises(GameNotFoundError):
        await store.append_event("nope", 1, {"type": "cancel"})
    with pytest.raises(GameNotFoundError):
        await store.set_deadline("nope", None)
    with pytest.raises(GameNotFoundError):
        await store.start_game("nope", {})
    assert await store.get_game("nope") is None
    assert await store.load_game("nope") is None

    game = random_game("g1", actions=5)
    await store.create_game("g1", guild_id=GUILD, channel_id=CHANNEL, mode="cutthroat", rules={}, host_id=None)
    with pytest.raises(GameStateError, match="already exists"):
        await store.create_game("g1", guild_id=GUILD, channel_id=CHANNEL, mode="solo", rules={}, host_id=None)
    with pytest.raises(GameStateError):  # the lobby takes no events
        await store.append_event("g1", 1, event_to_json(game.events[0]))
    with pytest.raises(ValueError):
        await store.set_seats("g1", [Seat(3, "x", user_id=1)])  # cutthroat has seats 0-2
    with pytest.raises(ValueError):
        await store.set_seats("g1", [Seat(0, "x", user_id=1), Seat(0, "y", user_id=2)])
    with pytest.raises(ValueError):
        Seat(0, "both", user_id=1, bot_level="easy")

    await store.start_game("g1", game.setup_json())
    with pytest.raises(GameStateError):
        await store.start_game("g1", game.setup_json())
    events = [event_to_json(e) for e in game.events]
    await store.append_event("g1", 1, events[0])
    await store.append_event("g1", 2, events[1])
    with pytest.raises(DuplicateEventError):
        await store.append_event("g1", 2, events[1])
    with pytest.raises(DuplicateEventError):
        await store.append_event("g1", 1, events[2])
    with pytest.raises(EventGapError):
        await store.append_event("g1", 4, events[3])
    with pytest.raises(EventSequenceError):
        await store.append_event("g1", 0, events[0])
    assert await stored_events(store, "g1") == events[:2]


async def test_an_action_of_several_events_saves_its_deadline_and_posts_with_it(store: Store) -> None:
    first = random_game("g1", actions=3)
    n = first.event_count
    events = [event_to_json(e) for e in random_game("g1", actions=n + 6).events]
    await store_game(store, first)
    posts = [Post("a", {"n": 1}), Post("b", {}), Post("c", {"n": 3})]
    ids = await store.append_events("g1", n + 1, events[n : n + 3], Deadline("remind", 50.0), posts)
    pending = await store.pending_posts()
    assert [(p.kind, p.payload) for p in pending] == [("a", {"n": 1}), ("b", {}), ("c", {"n": 3})]
    assert ids == [p.post_id for p in pending]
    assert await stored_events(store, "g1") == events[: n + 3]
    assert (await store.get_game("g1")).deadline == Deadline("remind", 50.0)  # type: ignore[union-attr]

    await store.append_events("g1", n + 4, events[n + 3 : n + 5])  # no deadline given: it stays
    assert (await store.get_game("g1")).deadline == Deadline("remind", 50.0)  # type: ignore[union-attr]
    assert await store.append_events("g1", n + 6, events[n + 5 : n + 6], None) == []  # None clears it
    assert (await store.get_game("g1")).deadline is None  # type: ignore[union-attr]
    assert await stored_events(store, "g1") == events[: n + 6]
    assert await store.pending_posts() == pending


async def test_a_refused_action_leaves_nothing_of_itself_behind(store: Store) -> None:
    first = random_game("g1", actions=4)
    n = first.event_count + 1
    events = [event_to_json(e) for e in random_game("g1", actions=n + 4).events]
    await store_game(store, first)
    await store.append_events("g1", n, events[n - 1 : n], Deadline("remind", 1.0), [Post("kept", {})])
    await store.create_game("lobby", guild_id=GUILD, channel_id=CHANNEL, mode="cutthroat", rules={}, host_id=None)
    await store_game(store, random_game("gone", actions=4))
    await store.cancel_game("gone")
    attempts = [
        ("g1", n, DuplicateEventError, f"game 'g1': event {n} is already stored (last is {n})"),
        ("g1", n - 2, DuplicateEventError, f"game 'g1': event {n - 2} is already stored (last is {n})"),
        ("g1", n + 2, EventGapError, f"game 'g1': event {n + 2} would leave a gap; next is {n + 1}"),
        ("lobby", 1, GameStateError, "game 'lobby' is lobby; it takes no more events"),
        ("gone", 5, GameStateError, "game 'gone' is cancelled; it takes no more events"),
        ("nope", 1, GameNotFoundError, "no game 'nope'"),
    ]
    for game_id, seq, refused, says in attempts:  # each of three events, with a deadline and posts
        with pytest.raises(refused, match=f"^{re.escape(says)}$"):
            await store.append_events(game_id, seq, events[seq - 1 : seq + 2], Deadline("takeover", 99.0),
                                      [Post("refused", {}), Post("refused", {})])  # fmt: skip
    assert await stored_events(store, "g1") == events[:n]
    assert [(p.game_id, p.kind) for p in await store.pending_posts()] == [("g1", "kept")]
    deadlines = {game_id: (await store.get_game(game_id)).deadline for game_id in ("g1", "lobby", "gone")}  # type: ignore[union-attr]
    assert deadlines == {"g1": Deadline("remind", 1.0), "lobby": None, "gone": None}


_examples = itertools.count()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(min_value=1, max_value=8), max_size=25))
def test_the_log_only_ever_takes_the_next_seq(db_url: str, seqs: list[int]) -> None:
    async def run(game_id: str) -> None:  # each example plays a game of its own in the one database
        game = random_game(game_id, actions=8)
        events = [event_to_json(e) for e in game.events]
        store = await open_store(db_url)
        try:
            await store.create_game(game_id, guild_id=1, channel_id=channel_of(game_id), mode="cutthroat", rules={},
                                    host_id=None)  # fmt: skip
            await store.start_game(game_id, game.setup_json())
            last = 0
            for seq in seqs:
                if seq == last + 1:
                    await store.append_event(game_id, seq, events[seq - 1])
                    last = seq
                else:
                    with pytest.raises(DuplicateEventError if seq <= last else EventGapError):
                        await store.append_event(game_id, seq, events[seq - 1])
            assert await stored_events(store, game_id) == events[:last]
        finally:
            await store.close()

    asyncio.run(run(f"g{next(_examples)}"))


async def test_events_cannot_be_rewritten(store: Store, db_url: str) -> None:
    await store_game(store, random_game("g1", actions=3))
    with pytest.raises((sqlite3.IntegrityError, asyncpg.RaiseError), match="append-only"):
        run_sql(db_url, "UPDATE events SET event_json = '{}' WHERE game_id = 'g1'")


async def test_many_games_writing_at_once(db_url: str) -> None:
    games = [random_game(f"g{n}", ("cutthroat", "solo", "partners")[n % 3], actions=40, seed=n) for n in range(30)]
    store = await open_store(db_url)
    try:
        # readers run alongside the writers and only ever see whole, replayable prefixes
        outcomes = await asyncio.gather(*(store_game(store, g) for g in games), *(store.recover() for _ in range(5)))
        assert all(o is None or o.damaged == () for o in outcomes)
        recovery = await store.recover()
    finally:
        await store.close()
    assert recovery.damaged == ()
    assert {s.info.game_id: s.game.to_json() for s in recovery.games if s.game} == {
        g.game_id: g.to_json() for g in games
    }


async def test_concurrent_appends_to_one_game_store_each_seq_once(store: Store) -> None:
    game = random_game("g1", actions=20)
    events = [event_to_json(e) for e in game.events]
    await store.create_game("g1", guild_id=GUILD, channel_id=CHANNEL, mode="cutthroat", rules={}, host_id=None)
    await store.start_game("g1", game.setup_json())
    # every event is sent three times at once: exactly one copy of each may be stored
    outcomes = await asyncio.gather(
        *(store.append_event("g1", seq, ev) for seq, ev in enumerate(events, start=1) for _ in range(3)),
        return_exceptions=True,
    )
    assert sum(o is None for o in outcomes) == len(events)
    assert all(o is None or isinstance(o, DuplicateEventError) for o in outcomes)
    assert await stored_events(store, "g1") == events


async def test_recovery_returns_unfinished_games_only(store: Store) -> None:
    playing = random_game("playing", actions=25)
    await store_game(store, playing)
    await store.set_deadline("playing", Deadline("bot_acts", 99.0))
    cancelled = random_game("cancelled", actions=10)
    await store_game(store, cancelled)
    await store.cancel_game("cancelled")
    await store.cancel_game("cancelled")  # twice is harmless
    finished = random_game("finished", actions=10)
    await store_game(store, finished)
    await store.finish_game("finished", [result(s, str(s + 1), 0, s + 1) for s in range(3)])
    with pytest.raises(GameStateError):
        await store.cancel_game("finished")
    with pytest.raises(GameStateError):
        await store.append_event("finished", 11, {"type": "cancel"})
    with pytest.raises(GameStateError):
        await store.set_seats("finished", seats_for("cutthroat"))
    await store.create_game("lobby", guild_id=GUILD, channel_id=CHANNEL, mode="solo", rules={}, host_id=None)

    recovery = await store.recover()
    assert recovery.damaged == ()
    by_id = {s.info.game_id: s for s in recovery.games}
    assert set(by_id) == {"playing", "lobby"}
    assert by_id["playing"].game is not None and by_id["playing"].game.to_json() == playing.to_json()
    assert by_id["playing"].info.deadline == Deadline("bot_acts", 99.0)
    assert by_id["lobby"].game is None
    assert (await store.get_game("finished")).deadline is None  # type: ignore[union-attr]


async def test_a_game_over_but_not_yet_finished_comes_back_for_the_caller_to_finish(store: Store) -> None:
    game = random_game("g1", actions=10_000, target=50)
    assert game.is_over
    await store_game(store, game)
    [stored] = (await store.recover()).games
    assert stored.game is not None and stored.game.is_over


async def test_a_computer_player_taking_over_keeps_its_name_after_restart(store: Store) -> None:
    game = random_game("g1", actions=10)
    await store_game(store, game)
    await store.set_seats("g1", [*seats_for("cutthroat")[:2], Seat(2, "Hard bot", bot_level="hard")])
    [stored] = (await store.recover()).games
    assert stored.game is not None and stored.game.names == ("player1", "player2", "Hard bot")


async def test_damaged_games_are_reported_and_set_aside(db_url: str) -> None:
    store = await open_store(db_url)
    for n in range(6):
        await store_game(store, random_game(f"g{n}", actions=20, seed=n))
    await store.close()
    run_sql(
        db_url,
        "INSERT INTO events VALUES ('g1', 21, '{\"type\": \"pla', 0)",  # torn JSON
        "DELETE FROM events WHERE game_id = 'g2' AND seq = 5",  # a hole in the log
        'INSERT INTO events VALUES (\'g3\', 21, \'{"type": "bid", "seat": 9, "bid": 3, "blind": false}\', 0)',
        "UPDATE games SET setup_json = '[1, 2]' WHERE game_id = 'g4'",  # not the engine's setup
        "UPDATE games SET setup_json = NULL WHERE game_id = 'g5'",  # playing without a setup
    )
    store = await open_store(db_url)
    try:
        recovery = await store.recover()
        assert [s.info.game_id for s in recovery.games] == ["g0"]
        reasons = {d.game_id: d.reason for d in recovery.damaged}
        assert set(reasons) == {"g1", "g2", "g3", "g4", "g5"}
        assert "JSONDecodeError" in reasons["g1"]
        assert "seq 6 where 5" in reasons["g2"]
        assert "BadRecord" in reasons["g3"]
        with pytest.raises(DamagedGameError):
            await store.load_game("g1")
        # set aside, not deleted: the rows stay for inspection
        assert (await store.get_game("g1")) is not None
    finally:
        await store.close()


async def test_unreadable_text_falls_back_to_loading_games_one_by_one(tmp_path: Path) -> None:
    """SQLite only: PostgreSQL never stores text that isn't valid in its encoding."""
    url = f"sqlite:///{tmp_path / 'spades.db'}"
    store = await open_store(url)
    for n in range(3):
        await store_game(store, random_game(f"g{n}", actions=10, seed=n))
    await store.close()
    run_sql(url, "UPDATE seats SET name = CAST(x'ff00fe' AS TEXT) WHERE game_id = 'g1' AND seat = 0")
    store = await open_store(url)
    try:
        recovery = await store.recover()
    finally:
        await store.close()
    assert sorted(s.info.game_id for s in recovery.games) == ["g0", "g2"]
    assert [d.game_id for d in recovery.damaged] == ["g1"]


async def test_game_record_is_the_engine_record_with_real_players(store: Store) -> None:
    game = random_game("g1", "partners", actions=70)
    seats = seats_for("partners", bots=[1])
    await store_game(store, game, seats)
    record = await store.game_record("g1")
    expected_players = [
        {"seat": 0, "name": "player1", "kind": "human", "id": "1"},
        {"seat": 1, "name": "bot1", "kind": "bot", "id": "bot:hard"},
        {"seat": 2, "name": "player3", "kind": "human", "id": "3"},
        {"seat": 3, "name": "player4", "kind": "human", "id": "4"},
    ]
    assert record is not None and record["format"] == "spades-record/1"
    assert record["players"] == expected_players
    game.rename(1, "bot1")
    assert record == export_record(game, expected_players)
    assert await store.game_record("nope") is None


async def test_recent_games_in_a_channel_newest_first(store: Store) -> None:
    for n in range(3):
        await store.create_game(f"g{n}", guild_id=GUILD, channel_id=CHANNEL, mode="cutthroat", rules={}, host_id=1)
        await store.cancel_game(f"g{n}")
    await store.create_game("elsewhere", guild_id=GUILD, channel_id=CHANNEL + 1, mode="solo", rules={}, host_id=1)
    await store.create_game("g3", guild_id=GUILD, channel_id=CHANNEL, mode="cutthroat", rules={}, host_id=1)
    await store.set_seats("g3", seats_for("cutthroat"))
    await store.start_game("g3", random_game("g3").setup_json())
    results = [result(0, "1", 510, 1), result(1, "2", 300, 2), result(2, "3", -20, 3)]
    await store.finish_game("g3", results)
    await store.create_game("g4", guild_id=GUILD, channel_id=CHANNEL, mode="solo", rules={}, host_id=1)

    recent = await store.recent_games(GUILD, CHANNEL, limit=3)
    assert [g.info.game_id for g in recent] == ["g4", "g3", "g2"]
    assert recent[0].results == () and recent[0].info.status == "lobby"
    assert recent[1].info.status == "finished" and recent[1].results == tuple(results)
    assert recent[2].results == () and recent[2].info.status == "cancelled"
    assert await store.recent_games(GUILD, 999) == []


@pytest.mark.parametrize("active", ["lobby", "playing"])
async def test_a_channel_holds_one_active_game(store: Store, active: str) -> None:
    await store.create_game("first", guild_id=GUILD, channel_id=CHANNEL, mode="cutthroat", rules={}, host_id=1)
    if active == "playing":
        await store.start_game("first", random_game("first").setup_json())
    with pytest.raises(ChannelBusyError, match=f"channel {CHANNEL} already has game 'first' \\({active}\\)"):
        await store.create_game("second", guild_id=GUILD, channel_id=CHANNEL, mode="solo", rules={}, host_id=2)
    assert await store.get_game("second") is None
    # another channel is free, and so is this one once its game has ended
    await store.create_game("third", guild_id=GUILD, channel_id=CHANNEL + 1, mode="solo", rules={}, host_id=2)
    await store.cancel_game("first")
    await store.create_game("second", guild_id=GUILD, channel_id=CHANNEL, mode="solo", rules={}, host_id=2)
    assert [g.info.game_id for g in await store.recent_games(GUILD, CHANNEL)] == ["second", "first"]


async def test_server_settings_merge_and_survive_restart(db_url: str) -> None:
    store = await open_store(db_url)
    assert await store.get_settings(GUILD) == {}
    assert await store.update_settings(GUILD, {"mode": "solo", "target": 300}) == {"mode": "solo", "target": 300}
    assert await store.update_settings(GUILD, {"target": None, "turn_timeout": 60}) == {
        "mode": "solo",
        "turn_timeout": 60,
    }
    await store.close()
    store = await open_store(db_url)
    try:
        assert await store.get_settings(GUILD) == {"mode": "solo", "turn_timeout": 60}
        assert await store.get_settings(GUILD + 1) == {}
    finally:
        await store.close()


async def test_cancelled_writes_are_all_or_nothing_and_the_store_goes_on(store: Store) -> None:
    """Tasks cancelled at every point of their writes (a shutdown, a timeout) leave whole data only."""
    games = [random_game(f"g{n}", actions=12, seed=n) for n in range(24)]
    writers = [asyncio.create_task(store_game(store, g)) for g in games]
    for task in writers:
        await asyncio.sleep(0.004)
        task.cancel()
    await asyncio.gather(*writers, return_exceptions=True)
    recovery = await store.recover()
    assert recovery.damaged == ()
    loaded = {s.info.game_id: s.game for s in recovery.games}
    for game in games:  # each log is a prefix of what was being written
        if loaded.get(game.game_id) is not None:
            events = loaded[game.game_id].events  # type: ignore[union-attr]
            assert events == game.events[: len(events)]

    started = [g for g in games if loaded.get(g.game_id) is not None]
    finishers = [
        asyncio.create_task(
            store.finish_game(g.game_id, [result(s, str(1000 + 10 * n + s), 100 * s, 3 - s) for s in range(3)])
        )
        for n, g in enumerate(started)
    ]
    for finisher in finishers:
        await asyncio.sleep(0.002)
        finisher.cancel()
    await asyncio.gather(*finishers, return_exceptions=True)
    for n, game in enumerate(started):
        info = await store.get_game(game.game_id)
        stats = await store.player_stats(GUILD, 1000 + 10 * n, "cutthroat")
        assert info is not None
        assert stats.games == (1 if info.status == "finished" else 0)
        assert len(stats.ratings) == stats.games

    await store_game(store, random_game("after", actions=5))
    assert (await store.load_game("after")) is not None
