"""The game service without Discord: a scripted game, refusals, timers, restarts."""

from __future__ import annotations

import asyncio

import pytest

from bot.engine import seat_view
from bot.engine.names import named
from bot.service import (
    ActedForPlayer,
    GameOver,
    HandDealt,
    Refusal,
    TrickWon,
    TurnReminder,
)
from bot.service.deadlines import Takeover
from tests.record_check import check_record
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, DAVE, GUILD, NAMES, Harness
from tests.service.games import act_once, play_to_the_end, three_player_game, user_at


async def test_a_scripted_cutthroat_game_to_the_end_saves_results_and_ratings(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    assert live.status == "playing" and harness.recorder.of(HandDealt)
    steps = 0
    while live.status == "playing":
        await act_once(service, live)
        steps += 1
        assert steps < 5000
    assert live.status == "finished" and service.game_in_channel(CHANNEL) is None
    over = harness.recorder.of(GameOver)
    assert len(over) == 1 and over[0].outcome is not None
    assert {c.player_key for c in over[0].outcome.changes} == {str(ALICE), str(BOB), str(CAROL)}
    assert harness.recorder.of(TrickWon)
    record = await harness.store.game_record(live.game_id)
    check_record(record)
    assert record is not None and record["final"]["ended"] in ("target", "mercy")
    board = await harness.store.leaderboard(GUILD, "cutthroat", "wins", min_games=1)
    game = live.game
    assert game is not None
    winner_ids = {live.seats[s].user_id for s in game.winners}
    assert {e.user_id for e in board if e.wins == 1} == winner_ids


async def test_lobby_refusals_change_nothing(harness: Harness) -> None:
    service = await harness.boot()
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice")
    with pytest.raises(Refusal, match="There's already a lobby in this channel"):
        await service.new_lobby(GUILD, CHANNEL, BOB, "bob")
    with pytest.raises(Refusal, match="You're already seated in this game."):
        await service.join(live, ALICE, "alice")
    await service.join(live, BOB, "bob")
    with pytest.raises(Refusal, match="Only the host can start the game."):
        await service.start(live, BOB)
    with pytest.raises(Refusal, match="Waiting for 1 more player: use Join, or Add bot."):
        await service.start(live, ALICE)
    with pytest.raises(Refusal, match="Only the host can add computer players."):
        await service.add_bot(live, BOB, "easy")
    with pytest.raises(Refusal, match="Unknown level “genius”"):
        await service.add_bot(live, ALICE, "genius")
    with pytest.raises(Refusal, match="target can't be 5"):
        await service.new_lobby(GUILD, CHANNEL + 1, ALICE, "alice", options={"target": "5"})
    assert [s.name for s in live.seats] == ["alice", "bob"]
    stored = await harness.store.get_game(live.game_id)
    assert stored is not None and [s.name for s in stored.seats] == ["alice", "bob"]


async def test_play_refusals_are_specific_and_change_nothing(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    game = live.game
    assert game is not None
    turn = game.turn
    assert turn is not None
    other = user_at(live, (turn + 1) % 3)
    events = game.event_count
    with pytest.raises(Refusal, match=f"It's {named(live.seats[turn].name)}'s turn."):
        await service.bid(live, other, "3")
    with pytest.raises(Refusal, match="You're not playing in this game."):
        await service.bid(live, DAVE, "3")
    with pytest.raises(Refusal, match="isn't a bid"):
        await service.bid(live, user_at(live, turn), "lots")
    with pytest.raises(Refusal, match="Bidding isn't finished yet."):
        await service.play(live, user_at(live, turn), "AS")
    with pytest.raises(Refusal, match="isn't a card"):
        await service.play(live, user_at(live, turn), "XX")
    assert game.event_count == events
    stored = await harness.store.load_game(live.game_id)
    assert stored is not None and stored.game is not None and stored.game.event_count == events


async def test_two_identical_actions_at_once_apply_once(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    game = live.game
    assert game is not None and game.turn is not None
    user = user_at(live, game.turn)
    before = game.event_count
    results = await asyncio.gather(service.bid(live, user, "3"), service.bid(live, user, "3"),
                                   return_exceptions=True)
    assert sum(r is None for r in results) == 1
    assert any(isinstance(r, Refusal) for r in results)
    assert game.event_count == before + 1


async def test_a_silent_player_is_reminded_then_a_computer_acts_for_them(harness: Harness) -> None:
    service = await harness.boot(turn_timeout=60)
    live = await three_player_game(service)
    game = live.game
    assert game is not None
    seat = game.turn
    await harness.clock.advance(59)
    assert not harness.recorder.of(TurnReminder)
    await harness.clock.advance(2)
    assert [r.seat for r in harness.recorder.of(TurnReminder)] == [seat]
    assert game.turn == seat
    await harness.clock.advance(60)
    assert [a.seat for a in harness.recorder.of(ActedForPlayer)] == [seat]
    assert seat is not None and (game.turn != seat or not game.cards_hidden(seat))


async def test_computer_players_fill_seats_and_finish_the_game(harness: Harness) -> None:
    service = await harness.boot(bot_move_delay=0.5)
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice",
                                   options={"target": "100", "mercy": "100"})
    await service.add_bot(live, ALICE, "easy")
    await service.add_bot(live, ALICE, "normal")
    await service.start(live, ALICE)
    await play_to_the_end(harness, service, live, 0.5)
    assert live.status == "finished"
    check_record(await harness.store.game_record(live.game_id))


async def test_a_restart_resumes_the_game_with_nothing_lost(harness: Harness) -> None:
    service = await harness.boot(turn_timeout=60)
    live = await three_player_game(service)
    for _ in range(10):
        await act_once(service, live)
    game = live.game
    assert game is not None
    saved = game.to_json()
    hand = seat_view(game, 0).hand
    await harness.clock.advance(61)  # the reminder fired; the takeover deadline is saved
    await harness.shutdown()

    service = await harness.boot(turn_timeout=60)
    resumed = service.game_in_channel(CHANNEL)
    assert resumed is not None and resumed.game is not None
    assert resumed.game.to_json() == saved
    assert seat_view(resumed.game, 0).hand == hand
    assert isinstance(resumed.deadline, Takeover)
    turn = resumed.game.turn
    await harness.clock.advance(60)
    assert [a.seat for a in harness.recorder.of(ActedForPlayer)] == [turn]
    await act_once(service, resumed)
    record = await harness.store.game_record(resumed.game_id)
    check_record(record)


async def test_cancel_needs_the_host_or_an_admin_and_counts_nothing(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    with pytest.raises(Refusal, match="Only the host or a member with Manage Server"):
        await service.cancel(live, BOB, is_admin=False, name="bob")
    await service.cancel(live, BOB, is_admin=True, name="bob")
    assert live.status == "cancelled" and service.game_in_channel(CHANNEL) is None
    record = await harness.store.game_record(live.game_id)
    assert record is not None and record["final"]["ended"] == "cancelled"
    assert await harness.store.leaderboard(GUILD, "cutthroat", "wins", min_games=0) == []


async def test_leaving_a_running_game_hands_the_seat_to_a_computer(harness: Harness) -> None:
    service = await harness.boot(bot_move_delay=0.1)
    live = await three_player_game(service)
    await service.leave(live, CAROL)
    assert live.seats[2].is_bot and live.game is not None and "carol" in live.game.names[2]
    with pytest.raises(Refusal, match="You're not playing in this game."):
        await service.bid(live, CAROL, "3")


def test_bid_text() -> None:
    from bot.service import parse_bid

    assert parse_bid("Blind Nil") == (0, True)
    assert parse_bid("nil") == (0, False)
    assert parse_bid(" 4 ") == (4, False)
    with pytest.raises(Refusal):
        parse_bid("four-ish")


async def test_settings_validate_and_feed_new_lobbies(harness: Harness) -> None:
    service = await harness.boot()
    with pytest.raises(Refusal, match="bag_limit can't be"):
        await service.update_settings(GUILD, {"bag_limit": "0"})
    await service.update_settings(GUILD, {"mode": "solo", "target": "250", "turn_timeout": 90})
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, NAMES[ALICE])
    assert live.mode.value == "solo" and live.rules.target == 250 and live.turn_timeout == 90


async def test_a_server_default_mercy_is_turned_off_with_0(harness: Harness) -> None:
    service = await harness.boot()
    saved = await service.update_settings(GUILD, {"mercy": "200"})
    assert saved["rules"] == {"mercy": 200}
    saved = await service.update_settings(GUILD, {"mercy": "0"})
    assert saved["rules"] == {}
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, NAMES[ALICE], options={"mercy": 0})
    assert live.rules.mercy is None


async def test_leaving_mid_game_counts_as_a_forfeit_for_the_leaver(harness: Harness) -> None:
    service = await harness.boot(bot_move_delay=0.1)
    live = await three_player_game(service)
    await service.leave(live, CAROL)
    await harness.shutdown()  # the leaver must be remembered across a restart too
    service = await harness.boot(bot_move_delay=0.1)
    resumed = service.game_in_channel(CHANNEL)
    assert resumed is not None and resumed.seats[2].left_user_id == CAROL
    await play_to_the_end(harness, service, resumed, 0.1)
    assert resumed.status == "finished"
    board = {e.user_id: e for e in await harness.store.leaderboard(GUILD, "cutthroat", "wins", min_games=0)}
    assert set(board) == {ALICE, BOB, CAROL}
    assert board[CAROL].games == 1 and board[CAROL].wins == 0
    carol = await harness.store.player_stats(GUILD, CAROL)
    assert carol.games == 1 and carol.wins == 0
