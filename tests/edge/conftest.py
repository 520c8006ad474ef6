"""The edge tests: the bot's HTTP client (bot/discord_ui/transport/http.py) behind a real nginx and a
relay that forgets idle connections, each test on both event loops (the bot runs on uvloop)."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import pytest
import pytest_asyncio
import uvloop

from bot.discord_ui.transport.http import HttpClient
from devkit.nginx import nginx, nginx_ca, nginx_factory, nginx_trust, recording_upstream  # noqa: F401
from devkit.relay import relay_factory  # noqa: F401

from .support import CALL_TIMEOUT, ClientFactory


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> Mapping[str, Callable[[], Any]]:
    return {"asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}


@pytest_asyncio.fixture
async def make_client(nginx_trust: ssl.SSLContext) -> AsyncIterator[ClientFactory]:  # noqa: F811
    """`make_client(**options) -> HttpClient` trusting nginx's certificate, closed at teardown."""
    made: list[HttpClient] = []

    def make(**options: Any) -> HttpClient:
        client = HttpClient(timeout=CALL_TIMEOUT, tls=nginx_trust, **options)
        made.append(client)
        return client

    try:
        yield make
    finally:
        for client in made:
            await client.close()


@pytest_asyncio.fixture
async def client(make_client: ClientFactory) -> HttpClient:
    """The client as the bot builds it (no options beyond timeout and TLS)."""
    return make_client()
