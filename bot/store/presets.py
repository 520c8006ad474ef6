"""A server's own presets (named rule sets), kept in `guild_settings.presets_json`, as transactions
every backend runs."""

from __future__ import annotations

from typing import Any

from bot.store import replay
from bot.store.games import merge_guild_json
from bot.store.sql import Transaction


async def presets(tx: Transaction, guild_id: int) -> dict[str, dict[str, Any]]:
    row = await tx.fetchrow("SELECT presets_json FROM guild_settings WHERE guild_id = $1", guild_id)
    return {} if row is None else replay.loads_object(row["presets_json"])


async def save_preset(tx: Transaction, guild_id: int, name: str, rules: dict[str, Any] | None,
                      now: float) -> dict[str, dict[str, Any]]:
    """Save (or with ``rules`` None, delete) one preset under the row's lock; returns them all."""
    return await merge_guild_json(tx, guild_id, "presets_json", {name: rules}, now)
