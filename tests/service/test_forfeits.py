"""Leaving a running game forfeits it: the leaver's loss is saved when they leave and counts
whatever becomes of the game: nobody left to play, a cancel, a restart."""

from __future__ import annotations

from bot.service import GameOver, GameService, LiveGame
from tests.service.conftest import ALICE, BOB, CHANNEL, GUILD, Harness
from tests.service.games import act_once


async def against_computers(service: GameService, *people: tuple[int, str]) -> LiveGame:
    """A cutthroat game of these people (the first hosts) and computer players for the rest."""
    (host, name), *others = people
    live = await service.new_lobby(GUILD, CHANNEL, host, name, computer_levels=["easy"] * (3 - len(people)))
    for user, other in others:
        await service.join(live, user, other)
    await service.start(live, host)
    return live


async def into_the_hand(harness: Harness, service: GameService, live: LiveGame) -> None:
    """A few moves in, so the leave comes mid-hand."""
    for _ in range(4):
        game = live.game
        assert game is not None and game.turn is not None
        if live.seats[game.turn].is_bot:
            await harness.clock.advance(1.0)
        else:
            await act_once(service, live)


async def test_the_only_person_leaving_ends_the_game_decided_and_keeps_their_loss(harness: Harness) -> None:
    service = await harness.boot()
    live = await against_computers(service, (ALICE, "alice"))
    await into_the_hand(harness, service, live)
    await service.leave(live, ALICE)
    assert live.status == "finished" and service.game_in_channel(CHANNEL) is None
    [over] = harness.recorder.of(GameOver)
    assert [c.player_key for c in over.outcome.changes] == [str(ALICE)]
    record = await harness.store.game_record(live.game_id)
    assert record is not None and record["final"]["ended"] == "forfeit"
    alice = await harness.store.player_stats(GUILD, ALICE)
    assert (alice.games, alice.wins) == (1, 0)


async def test_the_first_leaver_keeps_their_loss_when_the_last_person_leaves(harness: Harness) -> None:
    service = await harness.boot()
    live = await against_computers(service, (ALICE, "alice"), (BOB, "bob"))
    await into_the_hand(harness, service, live)
    await service.leave(live, ALICE)
    assert live.status == "playing"
    await service.leave(live, BOB)
    assert live.status == "finished"
    for user in (ALICE, BOB):
        stats = await harness.store.player_stats(GUILD, user)
        assert (stats.games, stats.wins) == (1, 0)
    board = await harness.store.leaderboard(GUILD, "cutthroat", "wins", min_games=0)
    assert {e.user_id: e.games for e in board} == {ALICE: 1, BOB: 1}


async def test_a_cancel_after_a_leave_and_a_restart_keep_the_leavers_loss(harness: Harness) -> None:
    service = await harness.boot()
    live = await against_computers(service, (ALICE, "alice"), (BOB, "bob"))
    await into_the_hand(harness, service, live)
    seat = live.seat_of(BOB)
    await service.leave(live, BOB)
    await harness.shutdown()
    service = await harness.boot()
    resumed = service.game_in_channel(CHANNEL)
    assert resumed is not None and seat is not None and resumed.seats[seat].left_user_id == BOB
    await service.cancel(resumed, ALICE, is_admin=True, name="alice")
    assert resumed.status == "cancelled"
    bob = await harness.store.player_stats(GUILD, BOB)
    alice = await harness.store.player_stats(GUILD, ALICE)
    assert (bob.games, bob.wins) == (1, 0)
    assert alice.games == 0  # still seated when it was cancelled: her game doesn't count
