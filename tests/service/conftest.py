"""A service on a real SQLite file, a clock moved by hand, and a listener that records changes."""

from __future__ import annotations

import asyncio
import random
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
    """A listener that remembers every change; like the publisher it confirms owed posts, unless
    `confirm` is off (a crash before they went out)."""

    def __init__(self) -> None:
        self.changes: list[tuple[str, Change]] = []
        self.confirm = True
        self.service: GameService | None = None
        self._confirming: set[asyncio.Task[None]] = set()

    def publish(self, live: LiveGame, changes: Sequence[Change]) -> None:
        self.changes.extend((live.game_id, c) for c in changes)
        for change in changes:
            post_id = getattr(change, "post_id", None)
            if self.confirm and post_id is not None and self.service is not None:
                task = asyncio.create_task(self.service.delivered(post_id))
                self._confirming.add(task)
                task.add_done_callback(self._confirming.discard)

    async def settle(self) -> None:
        """Wait until every confirmation is saved."""
        while self._confirming:
            await asyncio.gather(*self._confirming)

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
                                   turn_timeout=kwargs.get("turn_timeout", 120.0),
                                   hand_pause=kwargs.get("hand_pause", 0.0),
                                   rng=random.Random(kwargs.get("seed", 7)))
        self.recorder.service = self.service
        await self.service.recover()
        return self.service

    async def shutdown(self) -> None:
        await self.recorder.settle()
        await self.crash()

    async def crash(self) -> None:
        """Stop without publishing anything more (what a killed process leaves behind is on disk)."""
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
