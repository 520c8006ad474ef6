"""What the Discord layer may draw (`live.shown`) is taken after each save, under the game's lock:
a move being saved is never drawn before it is saved, and one whose save failed never at all."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.service import Refusal
from bot.store import StoreError
from tests.service.conftest import ALICE, DAVE, Harness
from tests.service.games import act_once, three_player_game


async def test_what_may_be_shown_follows_the_saves_not_the_game_in_memory(harness: Harness,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    service = await harness.boot()
    live = await three_player_game(service)
    assert live.game is not None and live.shown.token == live.game.event_count
    assert live.shown.table is not None and live.shown.view(ALICE).seat == live.seat_of(ALICE)
    with pytest.raises(Refusal, match="not playing"):
        live.shown.view(DAVE)

    saving, release = asyncio.Event(), asyncio.Event()
    append = harness.store.append_events

    async def slow_append(*args: Any, **kwargs: Any) -> Any:
        saving.set()
        await release.wait()
        return await append(*args, **kwargs)

    monkeypatch.setattr(harness.store, "append_events", slow_append)
    before = live.shown
    move = asyncio.create_task(act_once(service, live))
    await saving.wait()  # the move is applied to the game in memory, its save not done
    assert live.game.event_count > before.token and live.shown is before
    release.set()
    await move
    assert live.shown.token == live.game.event_count > before.token

    async def failing_append(*args: Any, **kwargs: Any) -> Any:
        raise StoreError("the disk is full")

    monkeypatch.setattr(harness.store, "append_events", failing_append)
    shown = live.shown
    with pytest.raises(Refusal):
        await act_once(service, live)
    assert live.shown.token == shown.token  # the refused move was never there to draw
