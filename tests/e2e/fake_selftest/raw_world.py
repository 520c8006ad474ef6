"""A fake Discord with a logged-in client that answers nothing, and raw REST calls to it (no client-side
rate limiting), under a limiter clock moved only by the test: for the self-tests of the rate limits
and of the specification."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import discord.http

from devkit.fake_discord import FakeChannel, FakeDiscord, FakeInteraction, FakeUser
from devkit.fake_discord.pytest_plugin import started_fake_discord
from tests.e2e.fake_selftest.clients import pointed_at


class FrozenClock:
    """The limiter's clock, moved only by the test."""

    def __init__(self) -> None:
        self.now = time.monotonic() + 1000.0  # past every window opened while the client logged in

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any


@dataclass
class World:
    fake: FakeDiscord
    clock: FrozenClock
    alice: FakeUser
    bob: FakeUser
    channel: FakeChannel
    other: FakeChannel

    async def call(self, method: str, path: str, body: Any = None, *, auth: bool = True) -> Answer:
        """One raw REST call (no client-side rate limiting), answer and headers as sent."""
        headers = {"Authorization": f"Bot {self.fake.token}"} if auth else {}
        async with (
            aiohttp.ClientSession() as session,
            session.request(method, self.fake.api_base + path, json=body, headers=headers) as resp,
        ):
            data = await resp.json() if resp.content_type == "application/json" else None
            return Answer(resp.status, dict(resp.headers), data)

    async def post(self, channel: FakeChannel, content: str = "hi") -> Answer:
        return await self.call("POST", f"/channels/{channel.id}/messages", {"content": content})

    async def command(self, user: FakeUser | None = None) -> FakeInteraction:
        """A slash command nobody answers (the client has no command tree): the test answers it."""
        return await self.fake.send_slash_command(user or self.alice, self.channel, "noop", strict=False)

    async def respond(self, inter: FakeInteraction, kind: int, data: dict[str, Any] | None = None) -> Answer:
        path = f"/interactions/{inter.id}/{inter.token}/callback?with_response=true"
        return await self.call("POST", path, {"type": kind, "data": data or {}}, auth=False)

    def webhook(self, inter: FakeInteraction, message: str | None = "@original") -> str:
        base = f"/webhooks/{self.fake.application_id}/{inter.token}"
        return base if message is None else f"{base}/messages/{message}"


@contextlib.asynccontextmanager
async def silent_client(fake: FakeDiscord) -> AsyncIterator[discord.Client]:
    """A logged-in discord.Client without a command tree: it holds the gateway session the fake
    sends interactions to and answers none of them."""
    ready = asyncio.Event()
    with pointed_at(fake):
        client = discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05)
        client.event(ready_handler(ready))
        runner = asyncio.create_task(client.start(fake.token))
        try:
            await asyncio.wait_for(ready.wait(), 5)
            yield client
        finally:
            await client.close()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(runner, 2)


def ready_handler(ready: asyncio.Event) -> Any:
    async def on_ready() -> None:
        ready.set()

    return on_ready


@contextlib.asynccontextmanager
async def world_of(**options: Any) -> AsyncIterator[World]:
    async with started_fake_discord(**options) as fake:
        owner, alice, bob = fake.create_user("Owner"), fake.create_user("Alice"), fake.create_user("Bob")
        guild = fake.create_guild("Spades Club", owner)
        fake.add_member(guild, alice)
        fake.add_member(guild, bob)
        channel, other = fake.create_channel(guild, "table"), fake.create_channel(guild, "other")
        async with silent_client(fake):
            clock = FrozenClock()
            fake.limits.clock = clock
            yield World(fake, clock, alice, bob, channel, other)
