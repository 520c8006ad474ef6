"""The composition root of `python -m bot`: config, store, computer players, game and season services,
client.

Everything is built here and handed down, so the Discord layer knows only the service. Start-up
goes from what costs nothing to what leaves something behind: the settings and the database URL
(no token, a path that can't be a database: one clear line and exit code 2, before any network),
then `METRICS_PORT` if set (its `/healthz` says 503 from the first moment, so an orchestrator sees
a bot starting rather than none), then Discord's answer to the token (one request, nothing posted:
a wrong token leaves no database file behind), then the store, opened and created before the
gateway is joined, so nothing reaches Discord's channels from a bot that couldn't keep its games.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import random
import signal
import sys

import aiohttp
import discord
import uvloop
import yarl

from bot.ai.runner import DecisionRunner
from bot.config import Config, ConfigError, load_dotenv
from bot.discord_ui.client import Parts, ShardedSpadesBot, SpadesBot
from bot.discord_ui.seasons.poster import PodiumPoster
from bot.discord_ui.services import Services
from bot.discord_ui.table.handlers import Handlers
from bot.discord_ui.table.publisher import Publisher
from bot.discord_ui.tournaments.poster import TournamentDesk
from bot.discord_ui.transport import HttpClient, RateLimits, Transport
from bot.ops import logs, serve
from bot.service import GameService
from bot.service.clock import OffsetClock
from bot.service.coach import CoachService
from bot.service.seasons import SeasonService
from bot.service.tournaments import Listeners, TournamentService
from bot.store import ShardSet, Store, StoreError, check_database_url, open_store

log = logging.getLogger("bot")

GC_YOUNG_THRESHOLD = 5_000


def point_discord_at(api_base: str | None, gateway_url: str | None) -> None:
    """Send REST calls and the gateway elsewhere (a REST proxy, or the test suite's fake Discord).

    discord.py builds every REST URL from ``Route.BASE`` and connects straight to
    ``DiscordWebSocket.DEFAULT_GATEWAY``, so both are set before logging in.
    """
    if api_base:
        discord.http.Route.BASE = api_base.rstrip("/")
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def shard_set(config: Config) -> ShardSet | None:
    """The servers this process serves: Discord puts a server on shard (id >> 22) % count."""
    if config.shard_count is None or config.shard_ids is None:
        return None
    return ShardSet(config.shard_count, frozenset(config.shard_ids))


def build_client(config: Config, store: Store, runner: DecisionRunner) -> SpadesBot:
    """Wire the pieces. The game service comes first, telling what changed to listeners that join
    once they exist: the publisher (built on the service, which it asks back through a narrow
    port), then the tournament service. The Discord parts are built on the client, which they
    reach Discord through; the posters confirm what they posted to the services built after them.
    Nothing is told before the client starts."""
    listeners = Listeners()
    games = GameService(
        store, listeners, decider=runner,
        bot_move_delay=config.bot_move_delay, turn_timeout=config.turn_timeout,
        hand_pause=config.hand_pause, lobby_timeout=config.lobby_timeout,
        rng=random.Random(config.game_seed) if config.game_seed is not None else None,
        shards=shard_set(config),
    )

    def assemble(client: discord.Client) -> Parts:
        transport = Transport(RateLimits(), HttpClient(idle_expiry=config.idle_expiry))
        publisher = Publisher(client, games, refresh_interval=config.refresh_interval,
                              channel_lost_timeout=config.channel_lost_timeout, global_rate=config.global_rate,
                              transport=transport)
        listeners.listeners.append(publisher)
        podiums = PodiumPoster(client, publisher.budget, publisher.limits, lambda post_id: seasons.delivered(post_id),
                               channel_lost_timeout=config.channel_lost_timeout)
        desk = TournamentDesk(client, publisher.budget, lambda: tournaments)
        season_clock = OffsetClock(config.season_clock_offset) if config.season_clock_offset else None
        seasons = SeasonService(store, podiums, clock=season_clock, shards=shard_set(config))
        tournaments = TournamentService(store, games, desk, shards=shard_set(config),
                                        round_pause=config.tournament_round_pause,
                                        rng=random.Random(config.game_seed + 1) if config.game_seed is not None
                                        else None)
        listeners.listeners.append(tournaments)  # hears when a table's game ends
        services = Services(games, seasons, CoachService(games, runner), tournaments,
                            table=Handlers(games, publisher), publisher=publisher, tournament_clicks=desk)
        return Parts(services, publisher, podiums, desk)

    if config.shard_count is not None:
        return ShardedSpadesBot(assemble, dev_guild_id=config.dev_guild_id, shard_count=config.shard_count,
                                shard_ids=list(config.shard_ids or ()), sync_commands=0 in (config.shard_ids or ()))
    return SpadesBot(assemble, dev_guild_id=config.dev_guild_id)


async def check_token(token: str) -> None:
    """Ask Discord who the token belongs to (GET /users/@me); `discord.LoginFailure` if nobody."""
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(token)
    finally:
        await http.close()


async def _serve(config: Config) -> None:
    check_database_url(config.database_url)
    health = serve.Health()  # /healthz answers 503 from the start, 200 once the bot is ready
    server = await serve.start(health, config.metrics_port) if config.metrics_port is not None else None
    try:
        await _run_bot(config, health)
    finally:
        if server is not None:
            await server.cleanup()


async def _run_bot(config: Config, health: serve.Health) -> None:
    await check_token(config.token)
    store = await open_store(config.database_url)
    shards = shard_set(config)
    if shards is not None:
        try:
            await store.claim_shards(shards)  # two processes must never serve the same shard
        except StoreError:
            await store.close()
            raise
    health.store_open = True
    runner = DecisionRunner()  # hard players search in a process pool, off the event loop
    try:
        client = build_client(config, store, runner)
        health.client = client
        serve.watch(client)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, lambda: asyncio.ensure_future(client.close()))
        # Full collections scan the whole heap and stall every channel: collect young objects in
        # steps of a few thousand (at 20,000 each young collection paused the loop ~25 ms under load,
        # at 5,000 ~5 ms, for the same total), and keep what start-up built out of their reach.
        gc.collect()
        gc.freeze()
        gc.set_threshold(GC_YOUNG_THRESHOLD, 10, 100)
        async with client:
            announced = asyncio.create_task(_announce(client, config))
            try:
                await client.start(config.token)
            finally:
                announced.cancel()
    finally:
        health.store_open = False
        runner.close()
        await store.close()


async def _announce(client: discord.Client, config: Config) -> None:
    """The one line that says who the bot is and what it serves, once it is ready."""
    await client.wait_until_ready()
    log.info(logs.ready_line(client, config.shard_count, config.shard_ids, config.database_url))


def run() -> int:
    """`python -m bot`: exit code 2 with one clear line for a setting, token or database mistake."""
    load_dotenv()
    try:
        config = Config.from_env()
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    logs.set_up(config.log_level, config.log_format)
    point_discord_at(config.api_base, config.gateway_url)
    try:
        # uvloop: the bot's event loop does all Discord I/O; libuv's loop roughly halves its overhead.
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(_serve(config))
    except discord.LoginFailure:
        print("error: Discord rejected DISCORD_TOKEN; copy the token again from the Developer Portal "
              "(Bot → Reset Token).", file=sys.stderr)
        return 2
    except (StoreError, ConfigError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (OSError, aiohttp.ClientError) as error:
        print(f"error: can't reach Discord ({error}); check the network and DISCORD_API_BASE.", file=sys.stderr)
        return 2
    return 0
