"""Leaderboards and player stats, checked against figures worked out by hand."""

from __future__ import annotations

import pytest

from bot.store import LeaderboardEntry, Store
from tests.store.helpers import GUILD, finished_game, result

# Six cutthroat games among players 1-5: (player, final score, place) by seat.
GAMES = [
    [(1, 510, 1), (2, 300, 2), (3, 100, 3)],
    [(1, 200, 3), (2, 520, 1), (4, 400, 2)],
    [(1, 505, 1), (3, 450, 2), (4, -50, 3)],
    [(2, 500, 1), (3, 480, 2), (5, 100, 3)],
    [(1, 530, 1), (2, 100, 2), (5, 0, 3)],
    [(1, 300, 2), (2, 600, 1), (3, 200, 3)],
]
# Player 1's other figures in games 0, 1, 2, 4, 5: hands, bids made, bids set, nils tried, nils made, bags.
PLAYER_1 = {
    0: (10, 7, 2, 1, 1, 12),
    1: (12, 6, 5, 1, 0, 9),
    2: (9, 8, 1, 0, 0, 5),
    4: (11, 9, 2, 0, 0, 14),
    5: (8, 4, 3, 2, 1, 3),
}
# Worked out by hand from the above:
#   player 1: 5 games, 3 wins, 2045 points; 50 hands, 34 of 47 contracts, 2 of 4 nils, 43 bags
#   player 2: 5 games, 3 wins, 2020 points
#   player 3: 4 games, 0 wins, 1230 points
#   player 4: 2 games, 0 wins, 350 points
#   player 5: 2 games, 0 wins, 100 points


@pytest.fixture
async def server(store: Store) -> Store:
    for number, seats in enumerate(GAMES):
        results = []
        for seat, (player, score, place) in enumerate(seats):
            hands, made, set_, nils, nils_made, bags = PLAYER_1[number] if player == 1 else (10, 0, 0, 0, 0, 0)
            results.append(result(seat, str(player), score, place, name=f"p{player}", hands=hands, bids_made=made,
                                  bids_set=set_, nils_tried=nils, nils_made=nils_made, bags=bags))  # fmt: skip
        await finished_game(store, f"c{number}", "cutthroat", results)
    # player 1 in a solo game, and everyone in another server: neither touches the cutthroat board here
    await finished_game(store, "s1", "solo", [
        result(0, "1", 350, 2, hands=13, bids_made=10, bids_set=3, bags=7),
        result(1, "6", 400, 1), result(2, "bot:easy", 100, 3), result(3, "7", 50, 4),
    ])  # fmt: skip
    await finished_game(
        store, "other", "cutthroat", [result(0, "1", 0, 3), result(1, "2", 10, 2), result(2, "9", 600, 1)],
        guild_id=GUILD + 1,
    )  # fmt: skip
    return store


def board(entries: list[LeaderboardEntry]) -> list[tuple[int, int]]:
    return [(e.user_id, e.rank) for e in entries]


async def test_by_wins_ties_share_a_rank(server: Store) -> None:
    entries = await server.leaderboard(GUILD, "cutthroat", "wins")
    assert sorted(board(entries)[:2]) == [(1, 1), (2, 1)]
    assert sorted(board(entries)[2:]) == [(3, 3), (4, 3), (5, 3)]
    assert {e.user_id: (e.games, e.wins) for e in entries} == {1: (5, 3), 2: (5, 3), 3: (4, 0), 4: (2, 0), 5: (2, 0)}
    # a page that starts inside a tie still shows the tie's rank
    assert [e.rank for e in await server.leaderboard(GUILD, "cutthroat", "wins", limit=2, offset=1)] == [1, 3]
    assert [e.rank for e in await server.leaderboard(GUILD, "cutthroat", "wins", limit=5, offset=3)] == [3, 3]
    assert await server.leaderboard(GUILD, "cutthroat", "wins", offset=5) == []


async def test_by_win_rate_needs_a_minimum_of_games(server: Store) -> None:
    entries = await server.leaderboard(GUILD, "cutthroat", "win_rate")  # default minimum: 5 games
    assert sorted(board(entries)) == [(1, 1), (2, 1)]
    assert [e.win_rate for e in entries] == [0.6, 0.6]
    entries = await server.leaderboard(GUILD, "cutthroat", "win_rate", min_games=4)
    assert board(entries)[2] == (3, 3)
    assert len(await server.leaderboard(GUILD, "cutthroat", "win_rate", min_games=1)) == 5


async def test_by_points_is_the_total_of_final_scores(server: Store) -> None:
    entries = await server.leaderboard(GUILD, "cutthroat", "points")
    assert board(entries) == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    assert [e.points for e in entries] == [2045, 2020, 1230, 350, 100]
    assert [e.average_score for e in entries] == [409.0, 404.0, 307.5, 175.0, 50.0]
    assert [e.name for e in entries] == ["p1", "p2", "p3", "p4", "p5"]


async def test_by_rating_sorts_by_ordinal(server: Store) -> None:
    entries = await server.leaderboard(GUILD, "cutthroat")
    assert [e.rating for e in entries] == sorted((e.rating for e in entries), reverse=True)
    assert [e.rank for e in entries] == [1, 2, 3, 4, 5]
    assert all(e.rating == pytest.approx(e.mu - 3 * e.sigma) for e in entries)
    assert board(await server.leaderboard(GUILD, "cutthroat", limit=2, offset=1)) == board(entries)[1:3]


async def test_leaderboards_list_humans_of_one_server_and_mode(server: Store) -> None:
    assert [e.user_id for e in await server.leaderboard(GUILD, "solo", "points")] == [6, 1, 7]
    assert [e.user_id for e in await server.leaderboard(GUILD + 1, "cutthroat", "points")] == [9, 2, 1]
    assert await server.leaderboard(GUILD, "partners") == []
    with pytest.raises(ValueError):
        await server.leaderboard(GUILD, "cutthroat", "luck")  # type: ignore[arg-type]


async def test_player_stats_in_one_mode(server: Store) -> None:
    stats = await server.player_stats(GUILD, 1, "cutthroat")
    assert (stats.games, stats.wins, stats.win_rate, stats.average_score) == (5, 3, 0.6, 409.0)
    assert (stats.bids_made, stats.bids_total, stats.nils_made, stats.nils_tried) == (34, 47, 2, 4)
    assert (stats.hands, stats.bags, stats.bags_per_hand) == (50, 43, 0.86)
    [rating] = stats.ratings
    rating_board = await server.leaderboard(GUILD, "cutthroat")
    assert (rating.mode, rating.games, rating.wins) == ("cutthroat", 5, 3)
    assert (rating.rank, rating.rating) == next((e.rank, e.rating) for e in rating_board if e.user_id == 1)


async def test_player_stats_across_modes(server: Store) -> None:
    stats = await server.player_stats(GUILD, 1)
    assert stats.mode is None
    assert (stats.games, stats.wins, stats.average_score) == (6, 3, pytest.approx(2395 / 6))
    assert (stats.bids_made, stats.bids_total, stats.hands, stats.bags) == (44, 60, 63, 50)
    assert stats.bags_per_hand == pytest.approx(50 / 63)
    assert [(r.mode, r.rank) for r in stats.ratings] == [("cutthroat", stats.ratings[0].rank), ("solo", 2)]


async def test_a_stranger_has_empty_stats(server: Store) -> None:
    stats = await server.player_stats(GUILD, 424242)
    assert (stats.games, stats.win_rate, stats.bags_per_hand, stats.ratings) == (0, 0.0, 0.0, ())
