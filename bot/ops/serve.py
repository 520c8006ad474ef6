"""`METRICS_PORT`: `/metrics` for Prometheus and `/healthz` for Docker and orchestrators, served
by an aiohttp app on the bot's own event loop (aiohttp comes with discord.py).

`/healthz` answers 200 only while the bot can serve: the store open and every shard's gateway
connected and ready; 503 with the reason before that (starting up), while a connection is lost,
and once the bot is stopping.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import discord
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest

from bot.config import ConfigError
from bot.ops import metrics


class Health:
    """What `/healthz` reads: set by the composition root as the store opens and the client is built."""

    def __init__(self) -> None:
        self.store_open = False
        self.client: discord.Client | None = None

    def problem(self) -> str | None:
        """Why the bot can't serve now, or None when it can."""
        if not self.store_open:
            return "the store is not open"
        client = self.client
        if client is None or client.is_closed() or not client.is_ready():
            return "the gateway is not ready"
        if isinstance(client, discord.AutoShardedClient):
            lost = [shard_id for shard_id, shard in client.shards.items() if shard.is_closed()]
            if lost:
                return f"the gateway connection of shard {', '.join(map(str, lost))} is lost"
        elif client.ws is None or not client.ws.open:
            return "the gateway connection is lost"
        return None


def app(health: Health, scrape: Callable[[], bytes] = lambda: generate_latest(REGISTRY)) -> web.Application:
    async def metrics(_: web.Request) -> web.Response:
        return web.Response(body=scrape(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def healthz(_: web.Request) -> web.Response:
        problem = health.problem()
        return web.Response(status=503 if problem else 200, text=f"{problem}\n" if problem else "ok\n")

    application = web.Application()
    application.router.add_get("/metrics", metrics)
    application.router.add_get("/healthz", healthz)
    return application


async def start(health: Health, port: int, host: str = "0.0.0.0") -> web.AppRunner:
    """Listen on `port` (all interfaces: Prometheus scrapes from another host or container);
    `ConfigError` if it can't (taken, or not allowed). `await runner.cleanup()` stops it."""
    runner = web.AppRunner(app(health), access_log=None, handle_signals=False)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as error:
        await runner.cleanup()
        why = os.strerror(error.errno).lower() if error.errno else str(error)
        raise ConfigError(f"METRICS_PORT {port} can't be served: {why}.") from None
    return runner


def watch(client: Any) -> None:
    """Point the scrape-time figures at a running bot (a `SpadesBot`): its REST budget, games and
    gateway; and name its button kinds for the interaction counts."""
    def latencies() -> Iterable[tuple[int, float]]:
        if isinstance(client, discord.AutoShardedClient):
            return client.latencies
        return [(0, client.latency)]

    metrics.LIVE.watch(lambda: client.publisher.budget, client.services.games.running, latencies)
    metrics.use_button_kinds(kind.__discord_ui_compiled_template__.pattern.split(":")[1]
                             for kind in client.button_kinds)
