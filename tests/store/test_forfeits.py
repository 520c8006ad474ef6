"""Forfeits: a player who leaves a running game has their result written then, and it stands
whatever becomes of the game (cancelled, finished, the bot restarted)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.engine import Game
from bot.store import GameStateError, Seat, SeatResult, Store, open_store
from tests.store.helpers import GUILD, channel_of, result, run_sql

SEATS = [Seat(0, "alice", user_id=1), Seat(1, "bob", user_id=2), Seat(2, "Bot 1 (hard)", bot_level="hard")]
# Alice (seat 0) leaves while ahead: she is placed last all the same.
STANDING = [result(0, "1", 120, 3, won=False), result(1, "2", 80, 1, won=False),
            result(2, "bot:hard", 40, 2, won=False)]


async def running_game(store: Store, game_id: str = "g") -> None:
    await store.create_game(game_id, guild_id=GUILD, channel_id=channel_of(game_id), mode="cutthroat", rules={},
                            host_id=1, seats=SEATS)
    await store.start_game(game_id, Game.new(game_id, "cutthroat", seed=1).setup_json())


def taken_over(seat: int) -> list[Seat]:
    seats = list(SEATS)
    old = seats[seat]
    seats[seat] = Seat(seat, f"{old.name} (bot)", bot_level="normal", left_user_id=old.user_id, left_name=old.name)
    return seats


async def test_a_forfeit_counts_as_a_loss_even_if_the_game_is_then_cancelled(db_url: str) -> None:
    store = await open_store(db_url)
    try:
        await running_game(store)
        await store.forfeit_seat("g", taken_over(0), STANDING, 0)
        await store.cancel_game("g")
    finally:
        await store.close()
    reopened = await open_store(db_url)  # a restart keeps it
    try:
        alice = await reopened.player_stats(GUILD, 1, "cutthroat")
        bob = await reopened.player_stats(GUILD, 2, "cutthroat")
        assert (alice.games, alice.wins) == (1, 0)
        assert [r.games for r in alice.ratings] == [1]
        assert bob.games == 0  # still seated when it was cancelled: nothing counts for bob
        info = await reopened.get_game("g")
        assert info is not None and info.seats[0].left_user_id == 1
    finally:
        await reopened.close()


async def test_finishing_after_a_forfeit_writes_the_others_and_counts_the_leaver_once(store: Store,
                                                                                       db_url: str) -> None:
    await running_game(store)
    await store.forfeit_seat("g", taken_over(0), STANDING, 0)
    rating_after_leaving = (await store.player_stats(GUILD, 1, "cutthroat")).ratings[0].rating
    # At the end alice's seat (played by the computer) came first: her forfeit still stands.
    final: list[SeatResult] = [result(0, "1", 500, 3, won=False), result(1, "2", 300, 1),
                               result(2, "bot:hard", 90, 2)]
    outcome = await store.finish_game("g", final)
    alice = await store.player_stats(GUILD, 1, "cutthroat")
    bob = await store.player_stats(GUILD, 2, "cutthroat")
    assert (alice.games, alice.wins, alice.average_score) == (1, 0, 120)
    assert alice.ratings[0].rating == rating_after_leaving
    assert (bob.games, bob.wins) == (1, 1)
    assert [c.player_key for c in outcome.changes] == ["1", "2"]
    [[(count,)]] = run_sql(db_url, "SELECT count(*) FROM results WHERE game_id = 'g'")
    assert count == 3


async def test_a_seat_forfeits_once_and_only_in_a_game_in_play(store: Store) -> None:
    await running_game(store)
    await store.forfeit_seat("g", taken_over(0), STANDING, 0)
    with pytest.raises(GameStateError):
        await store.forfeit_seat("g", taken_over(0), STANDING, 0)
    await store.cancel_game("g")
    with pytest.raises(GameStateError):
        await store.forfeit_seat("g", taken_over(1), [replace(r, place=3) if r.seat == 1 else r for r in STANDING], 1)
    assert (await store.player_stats(GUILD, 2, "cutthroat")).games == 0
