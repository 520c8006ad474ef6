"""Presets for a server: the built-in ones and its own, for `/spades new rules:` (autocomplete and
parsing) and `/spades settings preset_save` / `preset_delete`."""

from __future__ import annotations

from typing import Any

from bot.engine import EngineError
from bot.engine.presets import Preset, built_in_presets, find_preset, preset_name, rules_options
from bot.service.context import saving
from bot.service.errors import Refusal
from bot.store import Store

CHOICES = 25  # Discord shows at most 25 autocomplete choices


class Presets:
    def __init__(self, store: Store) -> None:
        self._store = store

    async def all(self, guild_id: int) -> dict[str, Preset]:
        """The built-in presets first, then the server's own."""
        return {**built_in_presets(), **await self._store.get_presets(guild_id)}

    async def choices(self, guild_id: int, typed: str, own: bool = False) -> list[str]:
        """Preset names holding what was typed (any case), for the autocomplete; ``own``: only the
        server's (the ones it may delete)."""
        wanted = typed.strip().casefold()
        names = await self._store.get_presets(guild_id) if own else await self.all(guild_id)
        return [name for name in names if wanted in name.casefold()][:CHOICES]

    async def options(self, guild_id: int, text: str) -> dict[str, Any]:
        """The options a rules text stands for (presets and key=value pairs), as given: whoever uses
        them checks them (a new lobby its rules, the settings their own keys too)."""
        try:
            return rules_options(text, await self.all(guild_id))
        except EngineError as error:
            raise Refusal(str(error)) from None

    async def save(self, guild_id: int, name: str) -> tuple[str, dict[str, Any]]:
        """Save the server's default rules (its `rules` setting) as a preset; returns its name and rules."""
        try:
            name = preset_name(name)
        except EngineError as error:
            raise Refusal(str(error)) from None
        rules = (await self._store.get_settings(guild_id)).get("rules", {})
        saved = await self._store.get_presets(guild_id)
        known = find_preset(name, saved)
        name = known[0] if known else name  # saving again under another case replaces it
        with saving("the preset wasn't saved"):
            await self._store.save_preset(guild_id, name, rules)
        return name, rules

    async def delete(self, guild_id: int, name: str) -> str:
        known = find_preset(name, await self._store.get_presets(guild_id))
        if known is None:
            built_in = find_preset(name, built_in_presets())
            if built_in is not None:
                raise Refusal(f"“{built_in[0]}” is a built-in preset: it can't be deleted.")
            raise Refusal(f"This server has no preset “{name.strip()}”.")
        with saving("the preset wasn't deleted"):
            await self._store.save_preset(guild_id, known[0], None)
        return known[0]
