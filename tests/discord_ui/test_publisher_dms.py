"""Each player's DM channel is opened once, however many players the bot has seen since."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord

from bot.discord_ui.fastpath import FastEdits
from bot.discord_ui.publisher import Publisher


class CountingCalls(FastEdits):
    """The bot's own call that opens a DM channel, counted instead of sent."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[int] = []

    async def open_dm(self, token: str, user_id: int) -> int:
        self.opened.append(user_id)
        return 10_000 + user_id


class Client:
    """What the publisher asks of the client to reach a DM: its token, and a channel by id."""

    http = SimpleNamespace(token="made-up")

    def get_partial_messageable(self, channel_id: int, *, type: discord.ChannelType) -> tuple[int, Any]:
        return channel_id, type


async def test_more_players_than_discord_py_remembers_each_open_their_dm_once() -> None:
    calls = CountingCalls()
    publisher = Publisher(Client(), edits=calls)  # type: ignore[arg-type]
    players = range(1, 301)  # discord.py itself keeps only the last 128 DM channels
    for _hand in range(3):
        for user_id in players:
            assert await publisher.dms.channel(user_id) == (10_000 + user_id, discord.ChannelType.private)
    assert calls.opened == list(players)
