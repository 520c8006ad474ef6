"""A tournament table is stopped by its organiser only, and people who leave one keep their loss."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.engine.names import named
from bot.engine.tournaments.tournament import Stage
from bot.service import Refusal
from bot.service.tournaments import PODIUM, STANDINGS
from tests.service.conftest import GUILD
from tests.service.tournament_harness import ORGANISER, PLAYERS, Harness, harness, points

__all__ = ["harness"]  # the fixture, shared with the tournament tests


async def test_only_the_organiser_stops_a_table_which_is_decided_by_the_score_with_the_reason(
        harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(rounds=2)
    await service.start(live)
    [game] = harness.round_games(live)
    assert game.game is not None
    while not any(game.game.scores):  # into the second hand: someone has points
        await harness.play(live, moves=1)
    host = game.host_id
    assert host is not None and host != ORGANISER
    with pytest.raises(Refusal, match="only the tournament's organiser"):
        await harness.games.cancel(game, host, is_admin=False, name=PLAYERS[host])
    assert game.status == "playing" and live.engine.played[0].results == (None,)

    scores = tuple(game.game.scores)
    assert await harness.games.cancel(game, ORGANISER, is_admin=False, name="org") is None
    await harness.settle()
    [result] = live.engine.played[0].results
    assert result is not None and result.unfinished and sorted(result.scores) == sorted(scores)
    assert harness.host.posts == [(STANDINGS, {"round": 1, "stopped": [
        f"Table 1: stopped by {named('org')}; it is decided by the score at that moment."]})]
    assert live.engine.stage is Stage.BETWEEN


async def test_people_who_both_leave_a_table_are_placed_below_its_computer(harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(players=(101, 102, 103, 104), rounds=1)
    await service.start(live)
    first, second = harness.round_games(live)
    await harness.play(live, moves=2)
    people = [s.user_id for s in first.seats if s.user_id is not None]
    assert len(people) == 2
    for user in people:
        await harness.games.leave(first, user)
    assert first.status == "finished"
    await harness.settle()
    table = next(t for t, row in enumerate(live.engine.played[0].tables) if str(people[0]) in row.seats)
    result = live.engine.played[0].results[table]
    assert result is not None and not result.unfinished
    standing = points(live)
    # The computer takes first place and its 3 points; the two who left share the last two places.
    assert [standing[PLAYERS[user]] for user in people] == [Fraction(1, 2)] * 2
    for user in people:
        stats = await harness.store.player_stats(GUILD, user)
        assert (stats.games, stats.wins) == (1, 0)
    while second.status == "playing":
        await harness.play(live)
    assert harness.host.kinds() == [PODIUM]


async def test_after_a_restart_a_tables_host_still_cannot_stop_it(harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(rounds=1)
    await service.start(live)
    await harness.play(live, moves=2)
    await harness.crash()
    service = await harness.boot()
    resumed = service.in_channel(live.channel_id)
    assert resumed is not None
    [game] = harness.round_games(resumed)
    assert game.host_id is not None and game.organiser_id == ORGANISER
    with pytest.raises(Refusal, match="only the tournament's organiser"):
        await harness.games.cancel(game, game.host_id, is_admin=False, name=PLAYERS[game.host_id])
    assert game.status == "playing"
