"""Tournaments run by the service without Discord: a fake host stands in for the threads and posts,
the clock is moved by hand, and the tables' games are played through the game service."""

from __future__ import annotations

import asyncio
from fractions import Fraction

import pytest

from bot.engine import POINTS_BY_PLACE, Mode
from bot.engine.tournaments.tournament import Stage
from bot.service import Refusal
from bot.service.tournaments import CANCELLED, PODIUM, STANDINGS
from tests.service.conftest import GUILD
from tests.service.tournament_harness import CHANNEL, FAST_GAMES, ORGANISER, PAUSE, PLAYERS, Harness, harness, points

__all__ = ["harness"]  # the fixture, used by name


async def test_the_time_limit_decides_a_running_game_by_its_score_and_stops_it(harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(rounds=2, round_minutes=1)
    assert await service.start(live) == 1
    [game] = harness.round_games(live)
    assert game.game is not None
    while not any(game.game.scores):  # into the second hand: someone has points
        await harness.play(live, moves=1)
    scores = tuple(game.game.scores)
    await harness.clock.advance(59.0)
    assert live.engine.played[0].results == (None,) and game.status == "playing"

    await harness.clock.advance(1.0)
    await harness.settle()
    [result] = live.engine.played[0].results
    assert result is not None and result.unfinished and result.scores == scores
    assert list(result.places) == [1 + sum(other > score for other in scores) for score in scores]
    assert game.status == "cancelled" and game.game.ended is not None  # stopped, not played on
    assert await harness.store.leaderboard(GUILD, "cutthroat", "wins", min_games=1) == []  # a stopped game
    assert harness.host.kinds() == [STANDINGS] and live.engine.stage is Stage.BETWEEN

    await harness.clock.advance(PAUSE)
    assert live.round_number == 2 and len(harness.host.opened) == 2
    await harness.play(live)
    assert live.engine.stage is Stage.OVER and harness.host.kinds() == [STANDINGS, PODIUM]


async def test_a_refused_thread_is_retried_every_half_minute_and_the_round_waits(harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(rounds=1)
    harness.host.refusals = 2
    await service.start(live)
    assert harness.host.notices == ["This server has as many active threads as Discord allows."]
    assert not harness.host.opened and live.engine.stage is Stage.PLAYING
    await harness.clock.advance(29.0)
    assert len(harness.host.notices) == 1
    await harness.clock.advance(1.0)
    assert len(harness.host.notices) == 2 and not harness.host.opened
    await harness.clock.advance(30.0)
    assert len(harness.host.opened) == 1 and len(harness.round_games(live)) == 1
    assert harness.host.tries == [(1, 0, False), (1, 0, True), (1, 0, True)]  # retries look for the first try
    await harness.play(live)
    assert live.engine.stage is Stage.OVER and harness.host.kinds() == [PODIUM]


async def test_tables_that_never_got_a_thread_are_even_at_the_time_limit(harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(rounds=2, round_minutes=1)
    harness.host.refusals = 10
    await service.start(live)
    await harness.clock.advance(30.0)
    await harness.clock.advance(30.0)
    [result] = live.engine.played[0].results
    assert result is not None and result.unfinished and result.scores == (0, 0, 0) and result.places == (1, 1, 1)
    assert set(points(live).values()) == {Fraction(4, 3)}  # (3 + 1 + 0) / 3 each
    assert harness.host.kinds() == [STANDINGS] and not harness.host.opened


async def test_between_rounds_the_organiser_drops_one_player_and_replaces_another(harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(players=(101, 102, 103, 104), rounds=2)
    await service.start(live)
    with pytest.raises(Refusal, match="between rounds"):
        await service.replace(live, 103, 105, "eve")
    await harness.play(live)
    assert live.engine.stage is Stage.BETWEEN
    after_one = {row.entrant_id: row.points for row in live.engine.standings()}

    with pytest.raises(Refusal, match="Only the organiser"):
        await service.leave(live, 101, player=104)
    assert await service.leave(live, ORGANISER, player=104, is_organiser=True) == "dan"
    assert await service.replace(live, 103, 105, "eve") == "cat"
    with pytest.raises(Refusal, match="You left this tournament"):
        await service.join(live, 104, "dan")
    with pytest.raises(Refusal, match="already in"):
        await service.replace(live, 101, 105, "eve")

    await harness.clock.advance(PAUSE)
    assert live.round_number == 2
    seated = {seat.user_id for seat in harness.host.opened[-1][2]}
    assert seated == {101, 102, 105}  # one table: dan is out, eve plays for cat's entry
    game = harness.round_games(live)[0]
    assert {s.name for s in game.seats} == {"ann", "ben", "eve"}
    rows = {row.entrant_id: row for row in live.engine.standings()}
    assert rows["104"].dropped and rows["104"].points == after_one["104"] and rows["104"].games == 1
    assert rows["103"].name == "eve" and rows["103"].points == after_one["103"]

    await harness.play(live)
    assert live.engine.stage is Stage.OVER and harness.host.kinds() == [STANDINGS, PODIUM]
    rows = {row.entrant_id: row for row in live.engine.standings()}
    assert rows["104"].games == 1 and rows["103"].games == 2


async def test_sign_up_closes_by_itself_and_starts_round_one_even_across_a_restart(harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(rounds=1, signup_minutes=1)
    await harness.clock.advance(59.0)
    assert live.engine.stage is Stage.SIGNUP
    await harness.crash()
    await harness.clock.advance(60.0)  # sign-up closed while the bot was down
    service = await harness.boot()
    live_again = service.in_channel(CHANNEL)
    assert live_again is not None and live_again.engine.stage is Stage.PLAYING
    assert len(harness.host.opened) == 1
    assert {seat.user_id for seat in harness.host.opened[0][2]} == {101, 102, 103}


async def test_sign_up_closing_with_too_few_entries_cancels_the_tournament(harness: Harness) -> None:
    service = await harness.boot()
    await harness.open(players=(101, 102), signup_minutes=5)
    await harness.clock.advance(300.0)
    assert harness.host.posts == [(CANCELLED, {"reason": "sign-up closed with fewer than 3 entries"})]
    assert service.in_channel(CHANNEL) is None and not harness.host.opened
    stored = await harness.store.latest_tournament(GUILD, CHANNEL)
    assert stored is not None and stored.info.status == "cancelled"
    await harness.open(players=(101, 102, 103))  # the channel is free for the next one


async def test_a_partners_tournament_is_played_to_the_podium_with_teams_across(harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(mode="partners", players=tuple(PLAYERS), rounds=2)
    with pytest.raises(Refusal, match="name your partner"):
        await service.join(live, ORGANISER, "olga")
    await service.start(live)
    for number in (1, 2):
        games = harness.round_games(live)
        assert len(games) == 2  # three teams: one plays a computer team
        for game in games:
            teams = [{game.seats[s].user_id, game.seats[s + 2].user_id} for s in (0, 1)]
            for team in teams:
                assert team == {None} or any(team == set(map(int, e.members)) for e in live.engine.entrants)
        await harness.play(live)
        if number == 1:
            assert harness.host.kinds() == [STANDINGS]
            await harness.clock.advance(PAUSE)
    assert live.engine.stage is Stage.OVER and harness.host.kinds() == [STANDINGS, PODIUM]
    final = live.engine.standings()
    assert {row.name for row in final} == {"ann & ben", "cat & dan", "eve & fay"}
    for row in final:  # two games each, 2 a win, 1 a draw
        assert row.games == 2 and row.points in {Fraction(n) for n in range(5)}
    stored = await harness.store.latest_tournament(GUILD, CHANNEL)
    assert stored is not None and stored.info.status == "over"
    assert service.in_channel(CHANNEL) is None


@pytest.mark.parametrize(("mode", "players", "humans"),
                         [("five", 6, [3, 3]), ("duo", 3, [2, 1]), ("six", 5, [5])])
async def test_duo_five_and_six_tournaments_seat_tables_of_their_size_with_computers_spread(
        harness: Harness, mode: str, players: int, humans: list[int]) -> None:
    service = await harness.boot()
    live = await harness.open(mode=mode, players=tuple(PLAYERS)[:players], rounds=1)
    await service.start(live)
    games = harness.round_games(live)
    seats = Mode(mode).seats
    assert [len(g.seats) for g in games] == [seats] * len(games)
    assert sorted((sum(not s.is_bot for s in g.seats) for g in games), reverse=True) == humans
    await harness.play(live)
    assert live.engine.stage is Stage.OVER
    standings = live.engine.standings()
    assert len(standings) == players and all(row.games == 1 for row in standings)
    assert sum(row.points for row in standings) <= sum(POINTS_BY_PLACE[Mode(mode)]) * len(games)


async def test_a_crash_while_a_thread_opens_makes_the_next_start_look_for_it(harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(rounds=1)
    harness.host.hang = asyncio.Event()
    starting = asyncio.create_task(service.start(live))
    for _ in range(5000):  # the seating is saved (the store works in a thread), then the thread opens
        if harness.host.tries:
            break
        await asyncio.sleep(0.001)
    assert harness.host.tries == [(1, 0, False)]  # the call may be out; its thread isn't saved
    await harness.crash()
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await starting

    await harness.boot()
    assert harness.host.tries == [(1, 0, True)] and len(harness.host.opened) == 1
    live = harness.tournaments.in_channel(CHANNEL) or pytest.fail("the tournament is gone")
    assert len(harness.round_games(live)) == 1


async def test_team_members_keep_their_own_names_even_with_an_ampersand_in_them(harness: Harness) -> None:
    service = await harness.boot()
    live = await service.new(GUILD, CHANNEL, ORGANISER, mode="partners", options=FAST_GAMES, rounds=2)
    await service.join(live, 101, "Tom & Jerry", (102, "Bo"))
    await service.join(live, 103, "cat", (104, "dan"))
    await service.start(live)
    [game] = harness.round_games(live)
    assert {s.name for s in game.seats} == {"Tom & Jerry", "Bo", "cat", "dan"}
    await harness.play(live)
    assert await service.replace(live, 102, 105, "Rock & Roll") == "Tom & Jerry & Bo"

    await harness.crash()  # the names come back from the stored events
    service = await harness.boot()
    live = service.in_channel(CHANNEL) or pytest.fail("the tournament is gone")
    assert {e.name for e in live.engine.active} == {"Tom & Jerry & Rock & Roll", "cat & dan"}
    await service.start(live)
    [game] = harness.round_games(live)
    names = {s.user_id: s.name for s in game.seats}
    assert names == {101: "Tom & Jerry", 105: "Rock & Roll", 103: "cat", 104: "dan"}
