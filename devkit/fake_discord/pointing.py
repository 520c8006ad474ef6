"""Point an in-process discord.py client at the fake, the same way the bot does from its settings."""

from __future__ import annotations

from bot.runtime import point_discord_at


def point_discord_py_at(api_base: str, gateway_url: str) -> None:
    """The bot's own `point_discord_at` (DISCORD_API_BASE / DISCORD_GATEWAY_URL), for the self-test's
    in-process client: one implementation, so the self-test proves what the bot relies on."""
    point_discord_at(api_base, gateway_url)
