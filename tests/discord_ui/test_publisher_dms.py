"""Each player's DM channel is opened once, however many players the bot has seen since."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_ui.publisher import Publisher
from tests.discord_ui.fakes import Games


class CountingClient:
    """What the publisher asks of the client to reach a DM: opening one, and a channel by id."""

    def __init__(self) -> None:
        self.opened: list[int] = []

    async def create_dm(self, user: discord.abc.Snowflake) -> Any:
        self.opened.append(user.id)
        return discord.Object(10_000 + user.id)

    def get_partial_messageable(self, channel_id: int, *, type: discord.ChannelType) -> tuple[int, Any]:
        return channel_id, type


async def test_more_players_than_discord_py_remembers_each_open_their_dm_once() -> None:
    client = CountingClient()
    publisher = Publisher(client, Games())  # type: ignore[arg-type]
    players = range(1, 301)  # discord.py itself keeps only the last 128 DM channels
    for _hand in range(3):
        for user_id in players:
            assert await publisher.dms.channel(user_id) == (10_000 + user_id, discord.ChannelType.private)
    assert client.opened == list(players)
