"""The hands by direct message: each player's DM channel opened once, however many players the bot
has seen since; only those still seated get theirs."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_ui import render
from bot.discord_ui.desk import Desk
from bot.discord_ui.panels import PanelSet
from bot.discord_ui.publisher import Publisher
from bot.engine import Game, Mode, Rules
from bot.service import HandDealt, LiveGame
from bot.store import Seat
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


class Channel:
    """A DM channel: what is sent there is kept, and the first send sees bob leave the game."""

    def __init__(self, client: SendingClient, channel_id: int) -> None:
        self.client, self.channel_id = client, channel_id

    async def send(self, text: str, **_: Any) -> None:
        self.client.sent.append((self.channel_id - 10_000, text))
        live = self.client.live
        if live.seats[1].user_id == 2:  # bob leaves while the others' hands go out
            live.seats = [*live.seats[:1], Seat(1, "bob (bot)", bot_level="normal", left_user_id=2, left_name="bob"),
                          *live.seats[2:]]
            live.name_seats()


class SendingClient(CountingClient):
    def __init__(self, live: LiveGame) -> None:
        super().__init__()
        self.live = live
        self.sent: list[tuple[int, str]] = []

    def get_partial_messageable(self, channel_id: int, *, type: discord.ChannelType) -> Any:
        return Channel(self, channel_id)


async def test_a_player_who_leaves_while_the_hands_go_out_gets_none_and_the_others_theirs() -> None:
    seats = [Seat(i, name, user_id=i + 1) for i, name in enumerate(("alice", "bob", "carol"))]
    live = LiveGame("ab12", 1, 2, Mode.CUTTHROAT, Rules(blind_nil=False), 1, seats, 120.0, status="playing")
    game = live.game = Game.new("ab12", Mode.CUTTHROAT, Rules(blind_nil=False), seed=1, names=["alice", "bob", "carol"])
    game.deal()
    client = SendingClient(live)
    publisher = Publisher(client, Games())  # type: ignore[arg-type]
    desk = Desk(panels=PanelSet(publisher.pace, publisher.edits))
    await publisher.dms.deal(desk, live, HandDealt(1, ()))
    assert [user for user, _ in client.sent] == [1, 3]
    for user, text in client.sent:
        assert render.hand_text(game.hand_of(user - 1), "\n") in text
