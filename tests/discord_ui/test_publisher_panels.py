"""A private panel can be edited for as long as its interaction token lives (15 minutes): before it
runs out, the panel says it has gone to sleep instead of going on looking live."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.discord_ui import faces
from bot.discord_ui.fastpath import FastEdits
from bot.discord_ui.publisher import Publisher
from bot.engine import Game, Mode, Rules
from bot.service import LiveGame
from bot.store import Seat


class RecordingEdits(FastEdits):
    """The panels' edits, by the interaction that showed them."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: dict[object, list[faces.Face]] = {}

    async def edit(self, interaction: Any, message: int | str, face: faces.Face) -> None:
        assert message == "@original"
        self.shown.setdefault(interaction, []).append(face)


class Clicked:
    message = None


def _texts(face: faces.Face) -> str:
    return "\n".join(part.content for part in face.parts if isinstance(part, faces.Text))


async def test_a_panel_goes_to_sleep_before_its_token_runs_out() -> None:
    edits = RecordingEdits()
    publisher = Publisher(None, panel_life=1.0, edits=edits)  # type: ignore[arg-type]
    seats = [Seat(i, name, user_id=i + 1) for i, name in enumerate(("alice", "bob", "carol"))]
    live = LiveGame("ab12", 1, 2, Mode.CUTTHROAT, Rules(), 1, seats, 120.0, status="playing")
    live.game = Game.new("ab12", Mode.CUTTHROAT, Rules(), seed=1, names=["alice", "bob", "carol"])
    live.game.deal()
    first, second = Clicked(), Clicked()
    publisher.panel_shown(live, 1, first, live.token)  # type: ignore[arg-type]
    await asyncio.sleep(0.5)
    publisher.panel_shown(live, 2, second, live.token)  # type: ignore[arg-type]
    await asyncio.sleep(0.75)  # the first went to sleep 0.25 s ago; the second sleeps in 0.25 s
    assert len(edits.shown.get(first, [])) == 1 and second not in edits.shown  # the older one first
    asleep = edits.shown[first][0]
    assert "gone to sleep" in _texts(asleep) and "My hand" in _texts(asleep)
    assert not any(isinstance(part, faces.Row) for part in asleep.parts)  # nothing to press
    await asyncio.sleep(0.5)
    assert len(edits.shown[second]) == 1 and len(edits.shown[first]) == 1  # each once
    await publisher.close(timeout=0.1)
