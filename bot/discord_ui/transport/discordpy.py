"""discord.py's own calls (commands' answers, channel posts, threads, deletions) held to the
transport's state, through the parts discord.py and aiohttp offer for it: its session's
connector (idle connections expire as the fast path's do) and an aiohttp trace, whose callbacks
aiohttp awaits: before each request it waits out a global pause or a ban and refuses what the
invalid-request breaker holds back; after each, the answer's headers feed the same buckets and
counts as the fast path's. discord.py still keeps its own buckets too: waiting twice is harmless."""

from __future__ import annotations

from types import SimpleNamespace

import aiohttp
import discord

from bot.discord_ui.transport import USER_AGENT, Transport, route_key
from bot.discord_ui.transport.errors import Held
from bot.discord_ui.transport.limits import RateLimits
from bot.ops.metrics import rest_answered


def attach(http: discord.http.HTTPClient, transport: Transport) -> None:
    """Before discord.py logs in (it opens its session then, with these)."""
    http.user_agent = USER_AGENT
    http.connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=transport.http.idle_expiry)
    http.http_trace = trace(transport.limits)


def trace(limits: RateLimits) -> aiohttp.TraceConfig:
    config = aiohttp.TraceConfig()

    async def before(_: aiohttp.ClientSession, __: SimpleNamespace, params: aiohttp.TraceRequestStartParams) -> None:
        counted = "Authorization" in params.headers
        if limits.wait_for(counted):
            await limits.clear(counted)
        if counted and limits.held_back(route_key(params.method, params.url.path)):
            raise Held(f"{params.method} {params.url.path}: held back, too many invalid requests lately")

    async def after(_: aiohttp.ClientSession, __: SimpleNamespace, params: aiohttp.TraceRequestEndParams) -> None:
        response = params.response
        headers = {name.lower(): value for name, value in response.headers.items()}
        body = await response.read() if response.status == 429 else None
        limits.note(route_key(params.method, params.url.path), response.status, headers, body)
        rest_answered(params.method, params.url.path, response.status, headers)

    config.on_request_start.append(before)
    config.on_request_end.append(after)
    return config
