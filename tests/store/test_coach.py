"""Hints taken and reviews kept, on both backends: hints come back in order and count into the
results of the game (so stats can tell games played with help), and a review is kept per seat and
reviewer version."""

from __future__ import annotations

from bot.engine import Game
from bot.store import HintTaken, Store
from tests.store.helpers import GUILD, finished_game, result, store_game


async def test_hints_are_kept_in_order_and_counted_when_the_game_finishes(store: Store) -> None:
    await store_game(store, Game.new("hinted", "cutthroat", seed=3))
    asked = [HintTaken(1, 1, "bid", None, 10.5), HintTaken(1, 1, "play", 3, 12.0),
             HintTaken(2, 2, "blind_nil", None, 13)]
    for hint in asked:
        await store.add_hint("hinted", hint)
    assert await store.game_hints("hinted") == asked
    assert await store.game_hints("nothing-here") == []
    await store.finish_game("hinted", [result(0, "1", 100, 1), result(1, "2", 50, 2), result(2, "3", 10, 3)])
    stats = [await store.player_stats(GUILD, user, "cutthroat") for user in (1, 2, 3)]
    assert [s.hinted_games for s in stats] == [0, 1, 1]
    assert [s.games for s in stats] == [1, 1, 1]
    await finished_game(store, "plain", "cutthroat", [result(0, "2", 100, 1), result(1, "1", 50, 2),
                                                      result(2, "3", 10, 3)])
    assert (await store.player_stats(GUILD, 2, "cutthroat")).hinted_games == 1
    assert (await store.player_stats(GUILD, 2, "cutthroat")).games == 2


async def test_a_review_is_kept_per_seat_and_reviewer_version(store: Store) -> None:
    await store_game(store, Game.new("reviewed", "cutthroat", seed=4))
    assert await store.review("reviewed", 0, 1) is None
    await store.save_review("reviewed", 0, 1, "seat 0, first reviewer")
    await store.save_review("reviewed", 1, 1, "seat 1")
    assert await store.review("reviewed", 0, 1) == "seat 0, first reviewer"
    assert await store.review("reviewed", 0, 2) is None  # a newer reviewer doesn't take an old review
    await store.save_review("reviewed", 0, 2, "seat 0, second reviewer")
    assert await store.review("reviewed", 0, 2) == "seat 0, second reviewer"
    assert await store.review("reviewed", 1, 1) == "seat 1"
