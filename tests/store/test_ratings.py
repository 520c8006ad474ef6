"""Finishing games: openskill updates per mode, teams in partners, idempotence, cancelled games, ranks."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from bot.store import GameStateError, Store
from tests.store.helpers import GUILD, finished_game, result, run_sql

MODEL = PlackettLuce()


def expected(ranks: list[float], teams: list[list[int]] | None = None) -> dict[int, tuple[float, float]]:
    """openskill's own answer for a first game: seat -> (mu, sigma)."""
    teams = teams or [[seat] for seat in range(len(ranks))]
    rated = MODEL.rate([[MODEL.rating() for _ in team] for team in teams], ranks=ranks)
    return {
        seat: (new.mu, new.sigma)
        for team, new_team in zip(teams, rated, strict=True)
        for seat, new in zip(team, new_team, strict=True)
    }


async def rating_of(store: Store, mode: str, user_id: int) -> tuple[float, float]:
    [mode_rating] = (await store.player_stats(GUILD, user_id, mode)).ratings
    return mode_rating.mu, mode_rating.sigma


async def test_cutthroat_each_seat_for_itself(store: Store) -> None:
    await finished_game(
        store, "g", "cutthroat", [result(0, "1", 300, 2), result(1, "2", 510, 1), result(2, "3", 90, 3)]
    )
    want = expected([2, 1, 3])
    for seat in range(3):
        assert await rating_of(store, "cutthroat", seat + 1) == pytest.approx(want[seat])


async def test_solo_four_players_with_a_tie(store: Store) -> None:
    results = [result(0, "1", 500, 1), result(1, "2", 200, 2), result(2, "3", 200, 2), result(3, "4", -10, 4)]
    await finished_game(store, "g", "solo", results)
    want = expected([1, 2, 2, 4])
    for seat in range(4):
        assert await rating_of(store, "solo", seat + 1) == pytest.approx(want[seat])
    assert want[1] == pytest.approx(want[2])


async def test_partners_rate_two_teams(store: Store) -> None:
    results = [result(0, "1", 520, 1), result(1, "2", 310, 2), result(2, "3", 520, 1), result(3, "4", 310, 2)]
    outcome = await finished_game(store, "g", "partners", results)
    want = expected([1, 2], teams=[[0, 2], [1, 3]])
    for seat in range(4):
        assert await rating_of(store, "partners", seat + 1) == pytest.approx(want[seat])
    assert [c.rank_after for c in outcome.changes] == [1, 3, 1, 3]  # partners share a rating and a rank


async def test_the_second_game_starts_from_the_stored_rating(store: Store) -> None:
    first = [result(0, "1", 510, 1), result(1, "2", 300, 2), result(2, "3", 90, 3)]
    second = [result(0, "3", 505, 1), result(1, "1", 200, 2), result(2, "4", 90, 3)]
    await finished_game(store, "g1", "cutthroat", first)
    await finished_game(store, "g2", "cutthroat", second)
    after_first = expected([1, 2, 3])
    priors = [MODEL.rating(*after_first[2]), MODEL.rating(*after_first[0]), MODEL.rating()]
    [[p3], [p1], [p4]] = MODEL.rate([[p] for p in priors], ranks=[1, 2, 3])
    assert await rating_of(store, "cutthroat", 3) == pytest.approx((p3.mu, p3.sigma))
    assert await rating_of(store, "cutthroat", 1) == pytest.approx((p1.mu, p1.sigma))
    assert await rating_of(store, "cutthroat", 4) == pytest.approx((p4.mu, p4.sigma))


async def test_finish_reports_rating_and_rank_before_and_after(store: Store) -> None:
    await finished_game(
        store, "g1", "cutthroat", [result(0, "1", 510, 1), result(1, "2", 300, 2), result(2, "3", 9, 3)]
    )
    board_before = {e.user_id: (e.rating, e.rank) for e in await store.leaderboard(GUILD, "cutthroat")}
    results = [result(0, "3", 505, 1), result(1, "2", 200, 2), result(2, "5", 90, 3)]
    outcome = await finished_game(store, "g2", "cutthroat", results)
    board_after = {e.user_id: (e.rating, e.rank) for e in await store.leaderboard(GUILD, "cutthroat")}

    assert not outcome.already_finished
    changes = {int(c.player_key): c for c in outcome.changes}
    assert set(changes) == {3, 2, 5}
    for user_id, change in changes.items():
        assert (change.rating_after, change.rank_after) == pytest.approx(board_after[user_id])
        if user_id in board_before:
            assert (change.rating_before, change.rank_before) == pytest.approx(board_before[user_id])
    assert changes[5].rating_before is None and changes[5].rank_before is None
    assert changes[3].rating_before is not None and changes[3].rating_after > changes[3].rating_before


async def test_finishing_twice_counts_once(store: Store) -> None:
    results = [result(0, "1", 510, 1), result(1, "2", 300, 2), result(2, "3", 90, 3)]
    await finished_game(store, "g", "cutthroat", results)
    board = await store.leaderboard(GUILD, "cutthroat")
    again = await store.finish_game("g", [result(0, "1", 0, 3), result(1, "2", 0, 2), result(2, "3", 999, 1)])
    assert again.already_finished
    assert [c.rating_after for c in again.changes] == pytest.approx([e.rating for e in board])
    assert await store.leaderboard(GUILD, "cutthroat") == board
    assert (await store.player_stats(GUILD, 1)).games == 1


async def test_cancelled_games_count_for_nothing(store: Store) -> None:
    await store.create_game("g", guild_id=GUILD, channel_id=1, mode="cutthroat", rules={}, host_id=None)
    await store.cancel_game("g")
    with pytest.raises(GameStateError):
        await store.finish_game("g", [result(0, "1", 510, 1), result(1, "2", 300, 2), result(2, "3", 90, 3)])
    assert await store.leaderboard(GUILD, "cutthroat") == []
    assert (await store.player_stats(GUILD, 1)).games == 0


async def test_bots_are_rated_but_not_listed(store: Store, db_url: str) -> None:
    results = [result(0, "bot:hard", 510, 1), result(1, "1", 300, 2), result(2, "bot:hard", 90, 3)]
    outcome = await finished_game(store, "g", "cutthroat", results)
    assert [c.player_key for c in outcome.changes] == ["1"]
    assert [e.user_id for e in await store.leaderboard(GUILD, "cutthroat")] == [1]
    want = expected([1, 2, 3])
    [[(mu, sigma, games, wins)]] = run_sql(
        db_url, "SELECT mu, sigma, games, wins FROM ratings WHERE player_key = 'bot:hard'"
    )
    # one computer-player level seated twice moves once, to the mean of its two seats
    assert (mu, sigma) == pytest.approx(((want[0][0] + want[2][0]) / 2, (want[0][1] + want[2][1]) / 2))
    assert (games, wins) == (2, 1)


async def test_results_must_cover_every_seat(store: Store) -> None:
    await store.create_game("g", guild_id=GUILD, channel_id=1, mode="solo", rules={}, host_id=None)
    await store.start_game("g", {"any": "setup"})
    with pytest.raises(ValueError):
        await store.finish_game("g", [result(0, "1", 1, 1), result(1, "2", 1, 2), result(2, "3", 1, 3)])
    with pytest.raises(ValueError):
        await store.finish_game("g", [result(s, str(s), 1, 0) for s in range(4)])
    assert (await store.get_game("g")).status == "playing"  # type: ignore[union-attr]
