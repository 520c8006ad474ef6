"""Point discord.py at a Discord-compatible server (the fake) instead of discord.com."""

from __future__ import annotations

import discord.gateway
import discord.http
import yarl


def point_discord_py_at(api_base: str, gateway_url: str) -> None:
    """Make every discord.py REST call and gateway connection go to `api_base` / `gateway_url`.

    discord.py builds REST URLs from the class attribute `discord.http.Route.BASE` (a str such
    as 'http://127.0.0.1:PORT/api/v10') when a Route is created, and `Client.connect` opens
    `discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY` (a yarl.URL) directly, so both must be
    set before the client logs in. The bot has its own copy of this logic, driven by the
    DISCORD_API_BASE and DISCORD_GATEWAY_URL environment variables.
    """
    discord.http.Route.BASE = api_base.rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
