"""Helpers for end-to-end tests of the bot as it ships (`python -m bot`) against the fake Discord.

`Spades` is one server with the bot running; `Table` is one channel's game seen by its players:
it finds whose turn it is the way a player does (`/spades hand`, or the table message), acts in
one of the ways a player can (command, table button, hand panel, direct-message button), and
remembers every move the bot acknowledged so tests can compare it with the exported record.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest
import pytest_asyncio

from tests.fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeInteraction, FakeMessage, FakeUser
from tests.fake_discord.bot_process import BotProcess
from tests.fake_discord.pytest_plugin import BotRunner

ACK_LIMIT = 1.0  # seconds: every interaction must be acknowledged faster than this
SUIT_LETTERS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_WORDS = {"2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight",
              "9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
TURN_LINE = re.compile(r"^Turn: \*\*(?P<name>.+)\*\* to (?P<what>bid|play)$", re.MULTILINE)
GAME_ID = re.compile(r"game `(?P<id>[0-9a-f]+)`")
HAND_NUMBER = re.compile(r"`, hand (\d+)")
NO_GAME = "There's no game in this channel"

Phase = Literal["bid", "play"]
Style = Literal["command", "table", "panel", "dm"]
ROTATION: tuple[Style, ...] = ("command", "table", "panel")


def card_code(label: str) -> str:
    """A button label (``10♥``) in record form (``10H``)."""
    return label[:-1] + SUIT_LETTERS[label[-1]]


def card_texts(code: str) -> list[str]:
    """The ways a player may type one card: ``AS``, ``as``, ``A♠``, ``ace of spades``."""
    rank, suit = code[:-1], code[-1]
    symbol = next(s for s, letter in SUIT_LETTERS.items() if letter == suit)
    return [code, code.lower(), rank + symbol, f"{RANK_WORDS[rank]} of {SUIT_WORDS[suit]}"]


@dataclass(frozen=True)
class Move:
    """An action the bot acknowledged, in record terms."""

    seat: int
    kind: Phase
    value: str  # a bid as typed ("nil", "4", "blind nil"), or a card code ("10H")
    how: str = ""  # the way the player acted: command, table, panel or dm

    def key(self) -> tuple[Any, ...]:
        if self.kind == "play":
            return ("play", self.seat, self.value)
        blind = self.value == "blind nil"
        return ("bid", self.seat, 0 if self.value in ("nil", "blind nil") else int(self.value), blind)


def record_moves(record: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Every bid and card of a `spades-record/1` document, in the order they were made."""
    moves: list[tuple[Any, ...]] = []
    for hand in record["hands"]:
        moves += [("bid", b["seat"], b["bid"], b["blind"]) for b in hand["bids"]]
        for trick in hand["tricks"]:
            moves += [("play", seat, card) for seat, card in trick["plays"]]
    return moves


@dataclass
class Turn:
    """Whose turn it is, with the ephemeral hand panel that player is looking at."""

    user: FakeUser
    phase: Phase
    panel: FakeMessage


class Spades:
    """A server with the bot in it, and helpers that act as its members."""

    def __init__(self, fake: FakeDiscord, runner: BotRunner, db_path: Path) -> None:
        self.fake = fake
        self.runner = runner
        self.db_path = db_path
        self.bot: BotProcess | None = None
        self.owner = fake.create_user("Owner")
        self.guild: FakeGuild = fake.create_guild("Spades Club", self.owner)

    def member(self, name: str) -> FakeUser:
        user = self.fake.create_user(name)
        self.fake.add_member(self.guild, user)
        return user

    def channel(self, name: str) -> FakeChannel:
        return self.fake.create_channel(self.guild, name)

    async def start_bot(self, extra_env: dict[str, str] | None = None) -> BotProcess:
        self.bot = await self.runner(db_path=self.db_path, extra_env=extra_env)
        return self.bot

    # ----------------------------------------------------------------- what members do
    async def command(self, user: FakeUser, channel: FakeChannel, sub: str, /, **options: Any) -> FakeMessage:
        """`/spades <sub> option:value …`; returns the bot's answer (it must answer with a message)."""
        inter = await self.fake.send_slash_command(user, channel, "spades", subcommand=sub, options=options)
        return await self._answer(inter)

    async def click(self, user: FakeUser, message: FakeMessage, custom_id: str) -> FakeMessage:
        inter = await self.fake.click_button(user, message, custom_id)
        return await self._answer(inter)

    async def choices(self, user: FakeUser, channel: FakeChannel, sub: str, option: str, typed: str) -> list[str]:
        """What autocomplete offers while `user` types `typed` into `option`."""
        inter = await self.fake.send_autocomplete(user, channel, "spades", subcommand=sub,
                                                  options={option: typed}, focused=option)
        response = await self.fake.wait_for_response(inter)
        assert response.type == 8, response
        return [str(c["value"]) for c in response.choices]

    async def _answer(self, inter: FakeInteraction) -> FakeMessage:
        response = await self.fake.wait_for_response(inter)
        assert response.message is not None, f"{inter} was answered without a message: {response}"
        return response.message

    async def record(self, user: FakeUser, channel: FakeChannel, game: str | None = None) -> dict[str, Any]:
        """`/spades record`: the attached JSON document."""
        options = {"game": game} if game else {}
        answer = await self.command(user, channel, "record", **options)
        [attachment] = answer.attachments
        assert attachment.filename.endswith(".json")
        document: dict[str, Any] = json.loads(attachment.data)
        return document

    # ----------------------------------------------------------------- checks
    def assert_acknowledged(self) -> None:
        """Every interaction got an answer, each in under ACK_LIMIT seconds."""
        unanswered = [i for i in self.fake.interactions.values() if i.response is None]
        assert not unanswered, f"interactions never acknowledged: {unanswered}"
        assert self.fake.ack_latencies, "no interaction was acknowledged"
        slowest = max(self.fake.ack_latencies)
        assert slowest < ACK_LIMIT, f"slowest acknowledgement {slowest:.3f}s"


def refused(message: FakeMessage, *phrases: str) -> None:
    """An ephemeral refusal in plain words that contains each of `phrases`."""
    assert message.ephemeral, f"a refusal must be ephemeral: {message}"
    for phrase in phrases:
        assert phrase in message.content, f"{phrase!r} not in {message.content!r}"
    assert "Something went wrong" not in message.content, message.content


@dataclass
class Table:
    """One channel's cutthroat game, driven by its human players."""

    spades: Spades
    channel: FakeChannel
    players: list[FakeUser]  # human players; seats are looked up by name
    game_id: str = ""
    lobby: FakeMessage | None = None
    seat_names: list[str] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    style_counter: int = 0
    bid_policy: Callable[[Table, FakeUser, list[str]], str] | None = None

    @property
    def fake(self) -> FakeDiscord:
        return self.spades.fake

    # ----------------------------------------------------------------- lobby
    async def open(self, host: FakeUser, **options: Any) -> FakeMessage:
        lobby = await self.spades.command(host, self.channel, "new", **options)
        assert not lobby.ephemeral and "lobby" in lobby.content
        found = GAME_ID.search(lobby.content)
        assert found, lobby.content
        self.game_id = found["id"]
        self.lobby = lobby
        return lobby

    def seat_of(self, user: FakeUser) -> int:
        return self.seat_names.index(user.global_name or user.username)

    def read_seats(self) -> None:
        """Seat names in order, from the table message (bots included)."""
        text = self.table_message().content
        self.seat_names = re.findall(r"^(?:▶ )?\*\*(.+?)\*\*(?: \(dealer\))? — bid", text, re.MULTILINE)

    # ----------------------------------------------------------------- what players see
    def table_message(self) -> FakeMessage:
        found = self.find_table()
        assert found is not None, "no table message"
        return found

    def find_table(self) -> FakeMessage | None:
        for message in reversed(list(self.channel.messages.values())):
            if (not message.deleted and not message.ephemeral and message.author.id == self.fake.bot_user.id
                    and " Spades** · to " in message.content and f"game `{self.game_id}`" in message.content):
                return message
        return None

    async def wait_table(self, predicate: Callable[[FakeMessage], bool], what: str,
                         timeout: float = 10.0) -> FakeMessage:
        def check() -> FakeMessage | None:
            table = self.find_table()
            return table if table is not None and predicate(table) else None

        return await self.fake.wait_until(check, timeout, what, lambda: f"table: {self.find_table()}")

    async def table_changed(self, before: str) -> FakeMessage:
        return await self.wait_table(lambda m: m.content != before, "the table to change")

    async def hand(self, user: FakeUser) -> FakeMessage:
        """`/spades hand`; a player offered blind nil first chooses **Show my cards**."""
        panel = await self.spades.command(user, self.channel, "hand")
        reveal = f"spades:reveal:{self.game_id}"
        if panel.find_component(reveal) is not None:
            panel = await self.spades.click(user, panel, reveal)
        return panel

    @staticmethod
    def phase_in(panel: FakeMessage) -> Phase | None:
        if "It's your turn to bid." in panel.content:
            return "bid"
        if "It's your turn to play" in panel.content:
            return "play"
        return None

    def enabled_cards(self, message: FakeMessage) -> list[str]:
        prefix = f"spades:card:{self.game_id}:"
        return [card_code(b["label"]) for b in message.buttons()
                if b.get("custom_id", "").startswith(prefix) and not b.get("disabled")]

    def card_id(self, message: FakeMessage, code: str) -> str:
        prefix = f"spades:card:{self.game_id}:"
        return next(str(b["custom_id"]) for b in message.buttons()
                    if b.get("custom_id", "").startswith(prefix) and card_code(b["label"]) == code)

    async def whose_turn(self, first: FakeUser | None = None, computers: bool = False) -> Turn | None:
        """Ask the players (`first` first) for their hands; None once the game is over.

        With `computers` at the table, nobody may have the turn while a computer player moves:
        then ask again once the table message has changed."""
        order = sorted(self.players, key=lambda u: u is not first)
        for _ in range(20 if computers else 1):
            table = self.find_table()
            before = table.content if table is not None else ""
            for user in order:
                panel = await self.hand(user)
                if NO_GAME in panel.content:
                    return None
                phase = self.phase_in(panel)
                if phase is not None:
                    return Turn(user, phase, panel)
            if computers:
                await self.table_changed(before)  # a computer player moved
        raise AssertionError("no human player has the turn")

    # ----------------------------------------------------------------- acting
    def next_style(self, turn: Turn) -> Style:
        """Take turns between the ways of acting; a hand's first bid comes from the direct message,
        the only time it has a Bid button."""
        if turn.phase == "bid" and self.bids_this_hand() == 0:
            return "dm"
        style = ROTATION[self.style_counter % len(ROTATION)]
        self.style_counter += 1
        return style

    def choose_bid(self, user: FakeUser, legal: list[str]) -> str:
        if self.bid_policy is not None:
            return self.bid_policy(self, user, legal)
        if self.bids_this_hand() == 0 and "nil" in legal:
            return "nil"  # a nil makes or loses 100: a game to 50 with mercy 50 ends after the hand
        return "4" if "4" in legal else legal[-1]

    def bids_this_hand(self) -> int:
        return sum(1 for move in self.moves if move.kind == "bid") % len(self.seat_names)

    async def act(self, turn: Turn, style: Style | None = None) -> Move:
        """Make one move for the player whose turn it is, in the given way of acting."""
        style = style or self.next_style(turn)
        if turn.phase == "bid":
            return await self._bid(turn, style)
        return await self._play(turn, style)

    async def _bid_panel(self, turn: Turn, style: Style) -> tuple[FakeMessage, Style]:
        """Open the bid buttons: from the hand's direct message, the table, or the hand panel."""
        act = f"spades:table:{self.game_id}:act"
        user = turn.user
        if style == "dm":
            dm = self.latest_dm(user)
            if dm is not None and dm.find_component(act) is not None:
                return await self.spades.click(user, dm, act), "dm"
            style = "table"  # only the first bidder's direct message has a Bid button
        if style == "table":
            table = await self.wait_table(lambda m: m.find_component(act) is not None, "a Bid button on the table")
            return await self.spades.click(user, table, act), "table"
        return await self.spades.click(user, turn.panel, act), "panel"  # the hand panel's own Bid button

    def latest_dm(self, user: FakeUser) -> FakeMessage | None:
        channel = self.fake.dm_channels.get(user.id)
        if channel is None:
            return None
        mine = [m for m in channel.messages.values() if f"game `{self.game_id}`" in m.content]
        return mine[-1] if mine else None

    async def _bid(self, turn: Turn, style: Style) -> Move:
        user, seat = turn.user, self.seat_of(turn.user)
        if style == "command":
            legal = await self.spades.choices(user, self.channel, "bid", "bid", "")
            bid = self.choose_bid(user, legal)
            typed = {"nil": "Zero", "blind nil": "BN"}.get(bid, f" {bid} ")  # as people type: said back plainly
            answer = await self.spades.command(user, self.channel, "bid", bid=typed)
            how: Style = "command"
        else:
            panel, how = await self._bid_panel(turn, style)
            assert panel.ephemeral and "Choose your bid:" in panel.content, panel
            labels = {b["label"]: b["custom_id"] for b in panel.buttons()
                      if b.get("custom_id", "").startswith(f"spades:bid:{self.game_id}:")}
            legal = ["blind nil" if label == "Blind nil" else "nil" if label == "Nil" else label for label in labels]
            bid = self.choose_bid(user, [b for b in legal if b != "blind nil"])
            answer = await self.spades.click(user, panel, labels["Nil" if bid == "nil" else bid])
        assert answer.ephemeral and answer.content.startswith(f"You bid **{bid}**."), answer
        return self._acknowledged(Move(seat, "bid", bid, how))

    async def _play(self, turn: Turn, style: Style) -> Move:
        user, seat = turn.user, self.seat_of(turn.user)
        if style == "command":
            legal = [card_code(label) for label in await self.spades.choices(user, self.channel, "play", "card", "")]
            assert sorted(legal) == sorted(self.enabled_cards(turn.panel))  # autocomplete offers the legal cards
            card = legal[0]
            forms = card_texts(card)
            typed = forms[sum(1 for m in self.moves if m.how == "command") % len(forms)]
            answer = await self.spades.command(user, self.channel, "play", card=typed)
            assert answer.ephemeral and answer.content == f"You played {forms[2]}.", answer
            return self._acknowledged(Move(seat, "play", card, "command"))
        panel, how = turn.panel, "panel"
        if style in ("table", "dm"):  # direct messages have no card buttons to click: use the table
            act = f"spades:table:{self.game_id}:act"
            table = await self.wait_table(lambda m: m.find_component(act) is not None, "a Play button on the table")
            panel, how = await self.spades.click(user, table, act), "table"
            assert panel.ephemeral and "It's your turn to play" in panel.content, panel
        card = self.enabled_cards(panel)[0]
        custom_id = self.card_id(panel, card)
        hand_before = HAND_NUMBER.search(panel.content)
        answer = await self.spades.click(user, panel, custom_id)
        hand_after = HAND_NUMBER.search(answer.content)
        assert answer.ephemeral and hand_before and hand_after, answer
        if hand_after[0] == hand_before[0]:  # after a hand's last card the panel shows the next hand
            assert answer.find_component(custom_id) is None, answer  # the card left the hand
        return self._acknowledged(Move(seat, "play", card, how))

    def _acknowledged(self, move: Move) -> Move:
        self.moves.append(move)
        return move

    async def play_moves(self, count: int | None = None, style: Style | None = None,
                         computers: bool = False) -> None:
        """Make `count` moves (all of them by default: until the game is over)."""
        last: FakeUser | None = None
        made = 0
        while count is None or made < count:
            turn = await self.whose_turn(self.guess_next(last), computers)
            if turn is None:
                assert count is None, f"the game ended after {made} of {count} moves"
                return
            await self.act(turn, style)
            last = turn.user
            made += 1

    async def play_with_computers(self, user: FakeUser) -> None:
        """Play `user`'s seat to the end of the game the way a person watching the table does:
        wait until the table says it's their turn, then press **Bid** or **Play** on it."""
        me, act = user.global_name or user.username, f"spades:table:{self.game_id}:act"
        seen = ""  # the table when this player last acted: only a newer table can show their next turn

        def my_turn_or_over(table: FakeMessage) -> bool:
            if "The game is over." in table.content:
                return True
            found = TURN_LINE.search(table.content)
            return table.content != seen and found is not None and found["name"] == me and bool(table.buttons())

        while True:
            table = await self.wait_table(my_turn_or_over, f"{me}'s turn", timeout=15.0)
            if "The game is over." in table.content:
                return
            seen = table.content
            found = TURN_LINE.search(table.content)
            assert found is not None
            if found["what"] == "bid":
                await self._bid(Turn(user, "bid", table), "table")
                continue
            panel = await self.spades.click(user, table, act)
            assert panel.ephemeral and "It's your turn to play" in panel.content, panel
            plays = sum(1 for move in self.moves if move.kind == "play")
            await self._play(Turn(user, "play", panel), "command" if plays % 2 else "panel")

    def guess_next(self, last: FakeUser | None) -> FakeUser | None:
        """The next seat clockwise (right except after a trick is won); only an ordering hint."""
        if last is None or last not in self.players:
            return None
        name = self.seat_names[(self.seat_of(last) + 1) % len(self.seat_names)]
        return next((u for u in self.players if (u.global_name or u.username) == name), None)

    def acknowledged(self) -> list[tuple[Any, ...]]:
        return [move.key() for move in self.moves]


async def start_game(spades: Spades, channel: FakeChannel, players: Sequence[FakeUser],
                     **options: Any) -> Table:
    """The first player opens a lobby, the second joins with the button, the third with
    `/spades join`, and the host starts with the button; everyone gets their hand by DM."""
    table = Table(spades, channel, list(players))
    host, *others = players
    mark = spades.fake.checkpoint()
    lobby = await table.open(host, **options)
    for index, user in enumerate(others):
        if index % 2 == 0:
            answer = await spades.click(user, lobby, f"spades:lobby:{table.game_id}:join")
            assert answer is lobby and (user.global_name or "") in lobby.content
        else:
            answer = await spades.command(user, channel, "join")
            assert answer.ephemeral and "You joined" in answer.content
    answer = await spades.click(host, lobby, f"spades:lobby:{table.game_id}:start")
    assert answer is lobby and "The game has started." in lobby.content and not lobby.buttons()
    await table.wait_table(lambda m: "Turn:" in m.content, "the table message")
    table.read_seats()
    for user in players:
        if not user.dms_closed:
            await spades.fake.wait_for_dm(user, lambda m: f"game `{table.game_id}`, hand 1" in m.content, after=mark)
    return table


@pytest.fixture
def bot_env() -> dict[str, str]:
    """Extra environment for the bot (BOT_MOVE_DELAY is 0 already); override with parametrize."""
    return {}


@pytest_asyncio.fixture
async def spades(fake_discord: FakeDiscord, bot_runner: BotRunner, tmp_path: Path,
                 bot_env: dict[str, str]) -> AsyncIterator[Spades]:
    """The bot, running as it ships, in a fresh server; on teardown every interaction of the test
    must have been acknowledged in under a second (`fake_discord` also asserts no protocol error)."""
    world = Spades(fake_discord, bot_runner, tmp_path / "spades.sqlite3")
    await world.start_bot(bot_env)
    yield world
    world.assert_acknowledged()
