"""Hints and reviews through the service: who may have a hint and when, what a hint taken leaves in
the record and the stats, and reviews that are computed once, one at a time, then served from the store."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from bot.ai.coach import Hint
from bot.engine import SeatView
from bot.engine.names import named
from bot.service import GameService, LiveGame, Refusal
from bot.service.coach import CoachService, ThreadCoach
from tests.record_check import check_record
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, GUILD, Harness
from tests.service.games import play_to_the_end, three_player_game, user_at


class CountingCoach(ThreadCoach):
    """The real coach, counting what it is asked; a review may be held back until released."""

    def __init__(self) -> None:
        super().__init__("30it")
        self.hints = 0
        self.reviews: list[int] = []
        self.release = asyncio.Event()
        self.release.set()

    async def hint(self, view: SeatView, seed: int) -> Hint:
        self.hints += 1
        return await super().hint(view, seed)

    async def review(self, record: Mapping[str, Any], seat: int, seed: int) -> str:
        self.reviews.append(seat)
        await self.release.wait()
        return await super().review(record, seat, seed)


async def game_with_bots(service: GameService, **options: object) -> LiveGame:
    live = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice", options={"target": "100", "mercy": "100", **options})
    await service.add_bot(live, ALICE, "easy")
    await service.add_bot(live, ALICE, "normal")
    await service.start(live, ALICE)
    return live


async def alices_turn(harness: Harness, live: LiveGame) -> None:
    while live.game is not None and live.game.turn != live.seat_of(ALICE):
        await harness.clock.advance(0.5)


async def test_a_hint_in_a_game_with_computers_is_given_and_noted(harness: Harness) -> None:
    service = await harness.boot(bot_move_delay=0.5)
    coach = CountingCoach()
    coaching = CoachService(service, coach)
    live = await game_with_bots(service)
    await alices_turn(harness, live)
    text = await coaching.hint(live, ALICE)
    assert text.startswith("💡 Bid ") and " — played out, your hand took about " in text
    [hint] = await harness.store.game_hints(live.game_id)
    assert (hint.seat, hint.hand, hint.phase, hint.trick) == (live.seat_of(ALICE), 1, "bid", None)
    _, shown = await service.record(GUILD, CHANNEL, ALICE)
    assert shown.document["hints"] == [hint.to_json()]
    with pytest.raises(Refusal, match="You're not playing in this game"):
        await coaching.hint(live, BOB)
    await play_to_the_end(harness, service, live, 0.5)
    stats = await harness.store.player_stats(GUILD, ALICE)
    assert (stats.games, stats.hinted_games) == (1, 1)
    record = await harness.store.game_record(live.game_id)
    check_record(record)


async def test_hints_are_refused_in_plain_words(harness: Harness) -> None:
    service = await harness.boot()
    coaching = CoachService(service, CountingCoach())
    for option in ("auto", "on"):  # a rated game has no hints, whatever its option says
        rated = await three_player_game(service, hints=option)
        game = rated.game
        assert game is not None and game.turn is not None
        with pytest.raises(Refusal, match="No hints in a game among people only"):
            await coaching.hint(rated, user_at(rated, game.turn))
        await service.cancel(rated, ALICE, is_admin=True, name="alice")
    with_bots = await game_with_bots(service, hints="on")
    game = with_bots.game
    assert game is not None and game.turn is not None
    if game.turn == with_bots.seat_of(ALICE):
        await coaching.hint(with_bots, ALICE)
    else:
        with pytest.raises(Refusal, match="it isn't your turn yet"):
            await coaching.hint(with_bots, ALICE)
    await service.update_settings(GUILD, {"hints": "off"})
    with pytest.raises(Refusal, match="Hints are turned off on this server"):
        await coaching.hint(with_bots, ALICE)
    await service.cancel(with_bots, ALICE, is_admin=True, name="alice")
    asked_for = await game_with_bots(service, hints="on")  # the server's default off is final
    assert asked_for.rules.hints == "off"
    with pytest.raises(Refusal, match=r"Hints are off in this game \(it was opened with hints=off\)"):
        await coaching.hint(asked_for, ALICE)
    await service.cancel(asked_for, ALICE, is_admin=True, name="alice")
    await service.update_settings(GUILD, {"hints": "auto"})
    table = await game_with_bots(service)
    table.organiser_id = 100  # a tournament's table, as the tournament service marks it
    with pytest.raises(Refusal, match="No hints at a tournament table"):
        await coaching.hint(table, ALICE)


async def test_a_review_is_computed_once_and_then_served_from_the_store(harness: Harness) -> None:
    service = await harness.boot(bot_move_delay=0.5)
    coach = CountingCoach()
    coaching = CoachService(service, coach)
    with pytest.raises(Refusal, match="You haven't finished a game in this channel yet"):
        await coaching.review(GUILD, CHANNEL, ALICE)
    live = await three_player_game(service, hints="on")
    with pytest.raises(Refusal, match="still going"):
        await coaching.review(GUILD, CHANNEL, ALICE, live.game_id)
    await play_to_the_end(harness, service, live, 0.5)
    coach.release.clear()
    first = await coaching.review(GUILD, CHANNEL, ALICE)
    again = await coaching.review(GUILD, CHANNEL, ALICE)  # asked again while it is being computed
    bobs = await coaching.review(GUILD, CHANNEL, BOB)  # another player's waits its turn
    assert first.text is None and first.pending is again.pending and not first.waiting
    assert bobs.pending is not first.pending and bobs.waiting
    await asyncio.sleep(0)
    assert coach.reviews == [live.seat_of(ALICE)]  # one at a time
    coach.release.set()
    assert first.pending is not None and bobs.pending is not None
    text = await first.pending
    assert text.startswith(f"**Review of game `{live.game_id}`** for {named('alice')}")
    await bobs.pending
    kept = await coaching.review(GUILD, CHANNEL, ALICE)
    assert kept.text == text and kept.pending is None
    assert coach.reviews == [live.seat_of(ALICE), live.seat_of(BOB)]  # nothing computed again
    with pytest.raises(Refusal, match="You didn't play in game"):
        await coaching.review(GUILD, CHANNEL, 99, live.game_id)
    with pytest.raises(Refusal, match="There's no game “nope” on this server"):
        await coaching.review(GUILD, CHANNEL, CAROL, "nope")
