"""The hand's direct messages: each player's DM channel opened once, however many players the bot
has seen since, and a player who leaves while the hands go out gets none."""

from __future__ import annotations

from types import SimpleNamespace

from bot.discord_ui.table import render
from bot.discord_ui.table.desk import Desk
from bot.discord_ui.table.panels import PanelSet
from bot.discord_ui.table.publisher import Publisher
from bot.discord_ui.transport.fastpath import FastEdits
from bot.engine import Game, Mode, Rules
from bot.service import HandDealt, LiveGame
from bot.store import Seat
from tests.discord_ui.fakes import Games


class CountingCalls(FastEdits):
    """The bot's own calls to a DM, kept instead of sent: opening the channel, and posting in it."""

    def __init__(self, live: LiveGame | None = None) -> None:
        super().__init__()
        self.live = live
        self.opened: list[int] = []
        self.sent: list[tuple[int, str]] = []

    async def open_dm(self, token: str, user_id: int) -> int:
        self.opened.append(user_id)
        return 10_000 + user_id

    async def post(self, token: str, channel_id: int, content: str, nonce: str | None = None) -> None:
        self.sent.append((channel_id - 10_000, content))
        live = self.live
        if live is not None and live.seats[1].user_id == 2:  # bob leaves while the others' hands go out
            live.seats = [*live.seats[:1], Seat(1, "bob (bot)", bot_level="normal", left_user_id=2, left_name="bob"),
                          *live.seats[2:]]
            live.name_seats()
            live.freeze()  # as the service does once the leave is saved


class Client:
    """What the publisher asks of the client to reach a DM: its token."""

    http = SimpleNamespace(token="made-up")


async def test_more_players_than_discord_py_remembers_each_open_their_dm_once() -> None:
    calls = CountingCalls()
    publisher = Publisher(Client(), Games(), edits=calls)  # type: ignore[arg-type]
    players = range(1, 301)  # discord.py itself keeps only the last 128 DM channels
    for _hand in range(3):
        for user_id in players:
            assert await publisher.dms.channel_id(user_id) == 10_000 + user_id
    assert calls.opened == list(players)


async def test_a_player_who_leaves_while_the_hands_go_out_gets_none_and_the_others_theirs() -> None:
    seats = [Seat(i, name, user_id=i + 1) for i, name in enumerate(("alice", "bob", "carol"))]
    live = LiveGame("ab12", 1, 2, Mode.CUTTHROAT, Rules(blind_nil=False), 1, seats, 120.0, status="playing")
    game = live.game = Game.new("ab12", Mode.CUTTHROAT, Rules(blind_nil=False), seed=1, names=["alice", "bob", "carol"])
    game.deal()
    live.freeze()
    calls = CountingCalls(live)
    publisher = Publisher(Client(), Games(), edits=calls)  # type: ignore[arg-type]
    desk = Desk(panels=PanelSet(publisher.pace, publisher.edits))
    await publisher.dms.deal(desk, live, HandDealt(1, ()))
    assert [user for user, _ in calls.sent] == [1, 3]
    for user, text in calls.sent:
        assert render.hand_text(game.hand_of(user - 1), "\n") in text
