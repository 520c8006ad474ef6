"""A handled interaction is freed by reference counting, not left for the cyclic garbage collector."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import discord
import pytest

from bot.discord_ui.app import release_interaction


def click_payload() -> dict[str, Any]:
    """A button click as Discord sends it, with a member and the clicked message."""
    user = {"id": "42", "username": "ann", "discriminator": "0", "global_name": "Ann", "avatar": None}
    return {
        "id": "1001", "application_id": "7", "type": 3, "token": "t", "version": 1, "attachment_size_limit": 1,
        "guild_id": "5", "channel_id": "6",
        "channel": {"id": "6", "type": 0, "name": "spades", "position": 0, "guild_id": "5"},
        "member": {"user": user, "roles": [], "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False,
                   "mute": False, "permissions": "0", "flags": 0},
        "data": {"custom_id": "spades:card:abc:12", "component_type": 2},
        "message": {"id": "9", "channel_id": "6", "author": user, "content": "hand", "timestamp":
                    "2026-01-01T00:00:00+00:00", "edited_timestamp": None, "tts": False, "mention_everyone": False,
                    "mentions": [], "mention_roles": [], "attachments": [], "embeds": [], "pinned": False,
                    "type": 0, "components": [{"type": 1, "components": [
                        {"type": 2, "style": 2, "label": "Q♠", "custom_id": "spades:card:abc:12"}]}]},
    }


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def interactions_left_for_the_collector(release: bool) -> int:
    client = discord.Client(intents=discord.Intents(guilds=True))
    state = client._connection
    state.user = discord.ClientUser(state=state, data={"id": "7", "username": "Spades", "discriminator": "0",
                                                       "avatar": None})  # type: ignore[typeddict-item]
    interaction = discord.Interaction(data=click_payload(), state=state)  # type: ignore[arg-type]
    interaction.response.is_done()  # what every handler does first: it caches the response
    if release:
        release_interaction(interaction)
    del interaction
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    gc.set_debug(0)
    found = sum(1 for o in gc.garbage if isinstance(o, discord.Interaction))
    gc.garbage.clear()
    gc.collect()  # free what was kept for counting, so the next count starts clean
    return found


@pytest.mark.usefixtures("no_automatic_collection")
def test_a_released_interaction_is_freed_at_once() -> None:
    assert interactions_left_for_the_collector(release=False) == 1  # the cycle the release breaks
    assert interactions_left_for_the_collector(release=True) == 0
