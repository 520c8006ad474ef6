"""Who may cancel a game, and when: a losing host can't wipe a running game on their own."""

from __future__ import annotations

import pytest

from bot.engine.names import named
from bot.service import GameCancelled, Refusal
from tests.service.conftest import ALICE, BOB, CAROL, CHANNEL, DAVE, GUILD, Harness
from tests.service.games import three_player_game


async def test_once_dealt_the_host_cancels_only_when_every_other_person_agrees(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    request = await service.cancel(live, ALICE, is_admin=False, name="alice")
    assert request is not None and request.asked == {BOB, CAROL}
    assert live.status == "playing"
    with pytest.raises(Refusal, match="Only the other people seated"):
        await service.agree_to_cancel(live, ALICE)
    assert await service.agree_to_cancel(live, BOB) is not None
    with pytest.raises(Refusal, match="already agreed"):
        await service.agree_to_cancel(live, BOB)
    assert live.status == "playing"
    assert await service.agree_to_cancel(live, CAROL) is None
    assert live.status == "cancelled"
    [cancelled] = harness.recorder.of(GameCancelled)
    assert "every player's agreement" in cancelled.reason


async def test_a_request_nobody_answers_in_a_minute_lapses_and_the_game_goes_on(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    await service.cancel(live, ALICE, is_admin=False, name="alice")
    await service.agree_to_cancel(live, BOB)
    await harness.clock.advance(61)
    with pytest.raises(Refusal, match="No request to cancel this game is waiting"):
        await service.agree_to_cancel(live, CAROL)
    assert live.status == "playing"
    with pytest.raises(Refusal, match="Only the host or a member with Manage Server"):
        await service.cancel(live, BOB, is_admin=False, name="bob")


async def test_before_the_deal_the_host_and_anytime_a_server_manager_cancel_at_once(harness: Harness) -> None:
    service = await harness.boot()
    lobby = await service.new_lobby(GUILD, CHANNEL, ALICE, "alice")
    await service.join(lobby, BOB, "bob")
    assert await service.cancel(lobby, ALICE, is_admin=False, name="alice") is None
    assert lobby.status == "cancelled"
    live = await three_player_game(service)
    assert await service.cancel(live, DAVE, is_admin=True, name="dave") is None
    assert live.status == "cancelled"
    assert harness.recorder.of(GameCancelled)[-1].reason == f"cancelled by {named('dave')}, who manages this server"


async def test_a_tournament_table_is_stopped_by_its_organiser_only(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    live.organiser_id = DAVE  # as the tournament service marks its tables' games
    with pytest.raises(Refusal, match="only the tournament's organiser"):
        await service.cancel(live, ALICE, is_admin=False, name="alice")
    assert live.status == "playing" and live.cancel_request is None
    assert await service.cancel(live, DAVE, is_admin=False, name="dave") is None
    assert live.status == "cancelled"
    assert harness.recorder.of(GameCancelled)[-1].reason.startswith(f"stopped by {named('dave')}")


async def test_a_host_who_left_can_no_longer_cancel(harness: Harness) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    await service.leave(live, ALICE)
    with pytest.raises(Refusal, match="Only the host or a member with Manage Server"):
        await service.cancel(live, ALICE, is_admin=False, name="alice")
    assert live.status == "playing" and live.cancel_request is None
