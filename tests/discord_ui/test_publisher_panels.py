"""A private panel can be edited for as long as its interaction token lives (15 minutes): before it
runs out, the panel says it has gone to sleep instead of going on looking live."""

from __future__ import annotations

import asyncio
from typing import Any

from discord import ui

from bot.discord_ui.publisher import Publisher
from bot.engine import Game, Mode, Rules
from bot.service import LiveGame
from bot.store import Seat


class RecordingInteraction:
    """What the publisher asks of an interaction to edit the panel it showed."""

    def __init__(self) -> None:
        self.message = None
        self.shown: list[ui.LayoutView] = []

    async def edit_original_response(self, *, view: ui.LayoutView) -> None:
        self.shown.append(view)


def _texts(view: ui.LayoutView) -> str:
    found: list[str] = []

    def walk(components: list[dict[str, Any]]) -> None:
        for component in components:
            found.append(str(component.get("content", "")))
            walk(component.get("components", []))

    walk(view.to_components())
    return "\n".join(found)


async def test_a_panel_goes_to_sleep_before_its_token_runs_out() -> None:
    publisher = Publisher(None, panel_life=1.0)  # type: ignore[arg-type]
    seats = [Seat(i, name, user_id=i + 1) for i, name in enumerate(("alice", "bob", "carol"))]
    live = LiveGame("ab12", 1, 2, Mode.CUTTHROAT, Rules(), 1, seats, 120.0, status="playing")
    live.game = Game.new("ab12", Mode.CUTTHROAT, Rules(), seed=1, names=["alice", "bob", "carol"])
    live.game.deal()
    first, second = RecordingInteraction(), RecordingInteraction()
    publisher.panel_shown(live, 1, first, live.token)  # type: ignore[arg-type]
    await asyncio.sleep(0.5)
    publisher.panel_shown(live, 2, second, live.token)  # type: ignore[arg-type]
    await asyncio.sleep(0.75)  # the first went to sleep 0.25 s ago; the second sleeps in 0.25 s
    assert len(first.shown) == 1 and not second.shown  # the older one first, the other still live
    assert "gone to sleep" in _texts(first.shown[0]) and "My hand" in _texts(first.shown[0])
    assert not first.shown[0].to_components()[0]["components"][-1].get("components")  # nothing to press
    await asyncio.sleep(0.5)
    assert len(second.shown) == 1 and len(first.shown) == 1  # each once
    await publisher.close(timeout=0.1)
