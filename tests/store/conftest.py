from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.store import Store, open_store


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'data' / 'spades.db'}"


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    opened = await open_store(db_url)
    yield opened
    await opened.close()
