"""The house rules' modes in the store: a five-player game's fifth seat and a duo game are saved,
rated and ranked on boards of their own mode (RULES.md, "More modes")."""

from __future__ import annotations

from bot.store import Store
from tests.store.helpers import GUILD, finished_game, result


async def test_five_and_duo_games_are_rated_on_boards_of_their_own(store: Store) -> None:
    await finished_game(store, "f1", "five", [
        result(0, "1", 310, 1), result(1, "2", 200, 2), result(2, "3", 150, 3), result(3, "4", 90, 4),
        result(4, "5", -20, 5),
    ])  # fmt: skip
    await finished_game(store, "d1", "duo", [result(0, "5", 520, 1), result(1, "1", 300, 2)])
    five = await store.leaderboard(GUILD, "five", "wins")
    assert [(e.user_id, e.wins) for e in five][:1] == [(1, 1)] and len(five) == 5
    duo = await store.leaderboard(GUILD, "duo", "wins")
    assert [(e.user_id, e.games, e.wins) for e in duo] == [(5, 1, 1), (1, 1, 0)]
    stats = await store.player_stats(GUILD, 5)
    assert {r.mode for r in stats.ratings} == {"five", "duo"}
    assert (stats.games, stats.wins) == (2, 1)
