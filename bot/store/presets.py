"""A server's own presets (named rule sets), kept in `guild_settings.presets_json`, as transactions
every backend runs."""

from __future__ import annotations

from typing import Any

from bot.store import replay
from bot.store.sql import Transaction


async def presets(tx: Transaction, guild_id: int) -> dict[str, dict[str, Any]]:
    row = await tx.fetchrow("SELECT presets_json FROM guild_settings WHERE guild_id = $1", guild_id)
    return {} if row is None else replay.loads_object(row["presets_json"])


async def save_preset(tx: Transaction, guild_id: int, name: str, rules: dict[str, Any] | None,
                      now: float) -> dict[str, dict[str, Any]]:
    """Save (or with ``rules`` None, delete) one preset under the row's lock; returns them all."""
    await tx.execute(
        "INSERT INTO guild_settings (guild_id, settings_json, updated_at) VALUES ($1, '{}', $2) ON CONFLICT DO NOTHING",
        guild_id, now,
    )  # fmt: skip
    row = await tx.fetchrow(
        f"SELECT presets_json FROM guild_settings WHERE guild_id = $1{tx.dialect.lock_rows}", guild_id
    )
    assert row is not None
    saved = replay.loads_object(row["presets_json"])
    if rules is None:
        saved.pop(name, None)
    else:
        saved[name] = rules
    await tx.execute(
        "UPDATE guild_settings SET presets_json = $1, updated_at = $2 WHERE guild_id = $3",
        replay.dumps(saved), now, guild_id,
    )  # fmt: skip
    return saved
