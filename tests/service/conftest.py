"""A service on a real SQLite file, a clock moved by hand, and a listener that records changes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.service import Change, GameService, LiveGame, ManualClock
from bot.store import Store, open_store

GUILD, CHANNEL = 10, 20
ALICE, BOB, CAROL, DAVE = 1, 2, 3, 4
NAMES = {ALICE: "alice", BOB: "bob", CAROL: "carol", DAVE: "dave"}


class Recorder:
    def __init__(self) -> None:
        self.changes: list[tuple[str, Change]] = []

    def publish(self, live: LiveGame, changes: Sequence[Change]) -> None:
        self.changes.extend((live.game_id, c) for c in changes)

    def of(self, kind: type) -> list[Any]:
        return [c for _, c in self.changes if isinstance(c, kind)]


class Harness:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.clock = ManualClock()
        self.recorder = Recorder()
        self._store: Store | None = None
        self.service: GameService | None = None

    @property
    def store(self) -> Store:
        assert self._store is not None, "boot() first"
        return self._store

    async def boot(self, **kwargs: float) -> GameService:
        self._store = await open_store(f"sqlite:///{self.path}")
        self.recorder = Recorder()
        self.service = GameService(self.store, self.recorder, clock=self.clock,
                                   bot_move_delay=kwargs.get("bot_move_delay", 1.0),
                                   turn_timeout=kwargs.get("turn_timeout", 120.0))
        await self.service.recover()
        return self.service

    async def shutdown(self) -> None:
        if self.service:
            await self.service.close()
        if self._store:
            await self._store.close()
        self.service = self._store = None


@pytest.fixture
async def harness(tmp_path: Path) -> AsyncIterator[Harness]:
    h = Harness(tmp_path / "spades.db")
    yield h
    await h.shutdown()
