"""What the edge tests share beyond fixtures."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from bot.discord_ui.transport.http import HttpClient

T = TypeVar("T")
CALL_TIMEOUT = 10.0  # the client's own; each test bounds what it waits far tighter
ClientFactory = Callable[..., HttpClient]  # the `make_client` fixture


async def within(seconds: float, call: Awaitable[T]) -> T:
    """`call`'s result, failing the test (with a message that says so) if it takes over `seconds`;
    an exception of the call's own, a TimeoutError among them, passes through."""
    limit = asyncio.timeout(seconds)
    try:
        async with limit:
            return await call
    except TimeoutError:
        if limit.expired():
            pytest.fail(f"no answer within {seconds} s")
        raise
