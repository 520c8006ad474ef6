"""Tournaments in the store: one open per channel, events appended in order with the posts and
status they lead to (all or nothing), tables' threads and games kept, owed posts until delivered."""

from __future__ import annotations

import pytest

from bot.store import (
    ChannelBusyError,
    DuplicateEventError,
    EventGapError,
    GameStateError,
    Post,
    ShardSet,
    Store,
)
from tests.store.helpers import GUILD

CHANNEL = 31
SETUP = {"mode": "cutthroat", "rounds": 3, "seed": 5}
JOIN = {"type": "join", "entrant": "1", "name": "ann", "members": ["1"]}


async def _open(store: Store, tournament_id: str = "t1", channel_id: int = CHANNEL, guild_id: int = GUILD) -> None:
    await store.create_tournament(tournament_id, guild_id=guild_id, channel_id=channel_id, organiser_id=9,
                                  setup=SETUP)


async def test_a_channel_holds_one_open_tournament_and_ids_are_never_reused(store: Store) -> None:
    await _open(store)
    with pytest.raises(ChannelBusyError):
        await _open(store, "t2")
    with pytest.raises(GameStateError):
        await _open(store, "t1", channel_id=CHANNEL + 1)
    await _open(store, "t3", channel_id=CHANNEL + 1)  # another channel is free
    await store.append_tournament_events("t1", 1, [{"type": "end", "cancelled": True}], status="cancelled")
    await _open(store, "t2")  # the channel is free again once the first one is over
    latest = await store.latest_tournament(GUILD, CHANNEL)
    assert latest is not None and latest.info.tournament_id == "t2"
    assert [t.info.tournament_id for t in await store.open_tournaments()] == ["t3", "t2"]


async def test_events_are_appended_in_order_with_their_posts_all_or_nothing(store: Store) -> None:
    await _open(store)
    await store.set_tournament_message("t1", 555)
    assert await store.append_tournament_events("t1", 1, [JOIN]) == []
    with pytest.raises(DuplicateEventError):
        await store.append_tournament_events("t1", 1, [JOIN], posts=[Post("standings", {"round": 1})])
    with pytest.raises(EventGapError):
        await store.append_tournament_events("t1", 3, [JOIN], posts=[Post("standings", {"round": 1})])
    assert await store.pending_tournament_posts() == []  # a refused append keeps none of its posts
    second = {"type": "drop", "entrant": "1"}
    [post_id] = await store.append_tournament_events("t1", 2, [second], posts=[Post("podium", {})], status="over",
                                                     deadline=1234.5)
    stored = await store.load_tournament("t1")
    assert stored is not None
    assert stored.events == (JOIN, second)
    assert (stored.info.status, stored.info.message_id, stored.info.setup) == ("over", 555, SETUP)
    assert stored.info.deadline_at == 1234.5
    with pytest.raises(GameStateError):  # an ended tournament takes no more events
        await store.append_tournament_events("t1", 3, [JOIN])
    [owed] = await store.pending_tournament_posts()
    assert (owed.post_id, owed.kind, owed.info.channel_id) == (post_id, "podium", CHANNEL)
    await store.tournament_posts_delivered([post_id, 12345])
    assert await store.pending_tournament_posts() == []
    assert await store.open_tournaments() == []


async def test_a_tables_thread_and_game_are_kept_as_each_appears(store: Store) -> None:
    await _open(store)
    await store.set_tournament_table("t1", 1, 0, thread_id=700)
    await store.set_tournament_table("t1", 1, 1, thread_id=701)
    await store.set_tournament_table("t1", 1, 0, game_id="abc")
    stored = await store.load_tournament("t1")
    assert stored is not None
    assert [(t.round, t.table, t.thread_id, t.game_id) for t in stored.tables] == [(1, 0, 700, "abc"),
                                                                                   (1, 1, 701, None)]


async def test_a_process_sees_only_its_shards_tournaments(store: Store) -> None:
    await _open(store, "a", channel_id=1, guild_id=0 << 22)
    await _open(store, "b", channel_id=2, guild_id=1 << 22)
    await store.append_tournament_events("b", 1, [JOIN], posts=[Post("standings", {"round": 1})])
    assert [t.info.tournament_id for t in await store.open_tournaments(ShardSet(2, frozenset({1})))] == ["b"]
    assert await store.pending_tournament_posts(ShardSet(2, frozenset({0}))) == []
    assert len(await store.pending_tournament_posts(ShardSet(2, frozenset({1})))) == 1
