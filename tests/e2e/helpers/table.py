"""`Table`: one channel's game seen by its players. Each player keeps one private panel open (from
**My hand** on the table), learns from it that it's their turn, and acts with one click on it, or with
`/spades bid` and `/spades play`. Every move the bot acknowledged is remembered, so tests can compare
it with the exported record."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.discord_ui.safe_text import shown
from devkit.fake_discord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.e2e.helpers.cards import card_code, card_texts
from tests.e2e.helpers.record import Move
from tests.e2e.helpers.server import Spades, name_of

TURN_LINE = re.compile(r"^▶ \*\*(?P<name>.+)\*\* to (?P<what>bid|pass|play|draw)", re.MULTILINE)
SEAT_LINE = re.compile(r"^(?:▶ )?\*\*(.+?)\*\*(?: \(dealer\))? — bid", re.MULTILINE)
HAND_NUMBER = re.compile(r"hand (\d+)")
DRAWN = re.compile(r"\*\*You drew (?P<card>\S+)\.\*\*")

Phase = Literal["bid", "pass", "play", "hidden", "draw"]
Style = Literal["command", "panel"]
ROTATION: tuple[Style, ...] = ("panel", "command", "panel", "panel")  # every player types now and then


@dataclass
class Turn:
    """Whose turn it is, with that player's panel."""

    user: FakeUser
    phase: Phase
    panel: FakeMessage


def game_id_of(lobby: FakeMessage) -> str:
    ids = [c for c in lobby.custom_ids() if c.startswith("spades:lobby:")]
    assert ids, f"not a lobby: {lobby}"
    return ids[0].split(":")[2]


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
    panels: dict[int, FakeMessage] = field(default_factory=dict)
    style_counter: int = 0
    bid_policy: Callable[[Table, FakeUser, list[str]], str] | None = None
    blind_nil: Callable[[Table, FakeUser], bool] = lambda table, user: False

    @property
    def fake(self) -> FakeDiscord:
        return self.spades.fake

    # ----------------------------------------------------------------- lobby
    async def open(self, host: FakeUser, **options: Any) -> FakeMessage:
        lobby = await self.spades.command(host, self.channel, "new", **options)
        assert not lobby.ephemeral and "new game" in lobby.text
        self.game_id = game_id_of(lobby)
        self.lobby = lobby
        return lobby

    def seat_of(self, user: FakeUser) -> int:
        return self.seat_names.index(shown(name_of(user)))

    def read_seats(self) -> None:
        """Seat names in order, from the table message (bots included)."""
        self.seat_names = SEAT_LINE.findall(self.table_message().text)

    # ----------------------------------------------------------------- what players see
    def table_message(self) -> FakeMessage:
        found = self.find_table()
        assert found is not None, "no table message"
        return found

    def find_table(self) -> FakeMessage | None:
        for message in reversed(list(self.channel.messages.values())):
            if (not message.deleted and not message.ephemeral and message.author.id == self.fake.bot_user.id
                    and f"-# game {self.game_id}" in message.text):
                return message
        return None

    async def wait_table(self, predicate: Callable[[FakeMessage], bool], what: str,
                         timeout: float = 10.0) -> FakeMessage:
        def check() -> FakeMessage | None:
            table = self.find_table()
            return table if table is not None and predicate(table) else None

        return await self.fake.wait_until(check, timeout, what, lambda: f"table: {self.find_table()}")

    async def open_panel(self, user: FakeUser) -> FakeMessage:
        """**My hand** on the table: the player's private panel, kept current by the bot."""
        table = await self.wait_table(lambda m: m.find_component(self.hand_button) is not None, "My hand")
        panel = await self.spades.click(user, table, self.hand_button)
        assert panel.ephemeral and panel.visible_to is user, panel
        self.panels[user.id] = panel
        return panel

    async def reopen_panels(self) -> None:
        """After a restart the bot no longer keeps the old panels current: press My hand again."""
        for user in self.players:
            await self.open_panel(user)

    @property
    def hand_button(self) -> str:
        return f"spades:table:{self.game_id}:hand"

    async def panel(self, user: FakeUser) -> FakeMessage:
        panel = self.panels.get(user.id)
        if panel is None or panel.deleted:
            panel = await self.open_panel(user)
        return panel

    def phase_in(self, panel: FakeMessage) -> Phase | None:
        text = panel.text
        if panel.find_component(f"spades:reveal:{self.game_id}") is not None:
            return "hidden"
        if panel.find_component(f"spades:draw:{self.game_id}:keep") is not None:
            return "draw"
        if "**Your turn to bid.**" in text:
            return "bid"
        if "**Pass " in text:
            return "pass"
        if "**Your turn:**" in text or "**Your lead.**" in text:
            return "play"
        return None

    def enabled_cards(self, message: FakeMessage) -> list[str]:
        prefix = f"spades:card:{self.game_id}:"
        return [card_code(b["label"]) for b in message.buttons()
                if b.get("custom_id", "").startswith(prefix) and not b.get("disabled")]

    def held_cards(self, message: FakeMessage) -> list[str]:
        prefix = f"spades:card:{self.game_id}:"
        return [card_code(b["label"]) for b in message.buttons() if b.get("custom_id", "").startswith(prefix)]

    def card_id(self, message: FakeMessage, code: str) -> str:
        prefix = f"spades:card:{self.game_id}:"
        return next(str(b["custom_id"]) for b in message.buttons()
                    if b.get("custom_id", "").startswith(prefix) and card_code(b["label"]) == code)

    def bid_buttons(self, panel: FakeMessage) -> dict[str, str]:
        """The bids offered on a panel, as typed ("nil", "blind nil", "4"), to their custom ids."""
        prefix = f"spades:bid:{self.game_id}:"
        words = {"Blind nil": "blind nil", "Nil": "nil"}
        return {words.get(str(b["label"]), str(b["label"])): b["custom_id"] for b in panel.buttons()
                if b.get("custom_id", "").startswith(prefix) and not b.get("disabled")}

    def over(self) -> bool:
        """The players' panels say so (the game-over post follows)."""
        return bool(self.panels) and all("The game is over." in p.text for p in self.panels.values())

    def whose_turn_now(self) -> Turn | None:
        """The human whose open panel says it's their turn, if any (no waiting)."""
        for user in self.players:
            panel = self.panels.get(user.id)
            phase = self.phase_in(panel) if panel is not None else None
            if panel is not None and phase is not None:
                return Turn(user, phase, panel)
        return None

    async def whose_turn(self, timeout: float = 15.0) -> Turn | None:
        """The human whose panel says it's their turn (computer players move meanwhile); None once
        the game is over."""
        for user in self.players:
            await self.panel(user)

        def check() -> Turn | Literal["over"] | None:
            return self.whose_turn_now() or ("over" if self.over() else None)

        found = await self.fake.wait_until(check, timeout, "a player's turn",
                                           lambda: "\n".join(p.text for p in self.panels.values()))
        return found if isinstance(found, Turn) else None

    # ----------------------------------------------------------------- acting
    def next_style(self) -> Style:
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

    async def act(self, turn: Turn, style: Style | None = None) -> Move | None:
        """Make one move for the player whose turn it is (a blind nil choice first, if offered)."""
        if turn.phase == "hidden":
            return await self._decide_blind(turn)
        style = style or self.next_style()
        if turn.phase == "draw":
            return await self._draw(turn, style)
        if turn.phase == "bid":
            return await self._bid(turn, style)
        if turn.phase == "pass":
            return await self._pass(turn, style)
        return await self._play(turn, style)

    async def _pass(self, turn: Turn, style: Style) -> Move:
        """nil_pass: the first card the panel offers, by command (with its autocomplete) or a click."""
        user, seat, panel = turn.user, self.seat_of(turn.user), turn.panel
        offered = self.enabled_cards(panel)
        assert sorted(offered) == sorted(self.held_cards(panel)), panel.text  # any card may go
        card = offered[0]
        if style == "command":
            choices = [card_code(label) for label in await self.spades.choices(user, self.channel, "pass", "cards", "")]
            assert sorted(choices) == sorted(offered)
            answer = await self.spades.command(user, self.channel, "pass", cards=card)
            assert answer.ephemeral and answer.content.startswith("You passed "), answer
        else:
            answer = await self.spades.click(user, panel, self.card_id(panel, card))
            assert answer is panel, answer
        await self.fake.wait_until(lambda: card not in self.held_cards(panel) or self.phase_in(panel) != "pass", 10,
                                   "the panel to follow the pass")
        return self._acknowledged(Move(seat, "pass", card, style))

    async def _decide_blind(self, turn: Turn) -> Move | None:
        user, panel = turn.user, turn.panel
        if self.blind_nil(self, user) and f"spades:bid:{self.game_id}:blind" in panel.custom_ids():
            answer = await self.spades.click(user, panel, f"spades:bid:{self.game_id}:blind")
            assert answer is panel and "bid blind nil" in panel.text, panel.text
            return self._acknowledged(Move(self.seat_of(user), "bid", "blind nil", "panel"))
        answer = await self.spades.click(user, panel, f"spades:reveal:{self.game_id}")
        assert answer is panel and self.phase_in(panel) != "hidden", panel.text
        return None

    async def _draw(self, turn: Turn, style: Style) -> Move:
        """Duo: keep a drawn spade or ace, discard anything else (and keep the next card)."""
        user, seat, panel = turn.user, self.seat_of(turn.user), turn.panel
        drawn = DRAWN.search(panel.text)
        assert drawn is not None, panel.text
        keep = drawn["card"][-1] == "♠" or drawn["card"].startswith("A")
        choice = "keep" if keep else "discard"
        if style == "command":
            answer = await self.spades.command(user, self.channel, "draw", keep="yes" if keep else "no")
            assert answer.ephemeral and answer.content.startswith("You kept "), answer
            if keep:
                assert answer.content.startswith(f"You kept {drawn['card']} and discarded "), answer
            else:
                assert answer.content.endswith(f" and discarded {drawn['card']}."), answer
            def moved_on() -> bool:  # every card is drawn once: the panel no longer offers this one
                shown_now = DRAWN.search(panel.text)
                return shown_now is None or shown_now["card"] != drawn["card"]

            await self.fake.wait_until(moved_on, 10, "the panel to follow the draw")
        else:
            answer = await self.spades.click(user, panel, f"spades:draw:{self.game_id}:{choice}")
            assert answer is panel, panel.text
        return self._acknowledged(Move(seat, "draw", choice, style))

    async def _bid(self, turn: Turn, style: Style) -> Move:
        user, seat, panel = turn.user, self.seat_of(turn.user), turn.panel
        if style == "command":
            legal = await self.spades.choices(user, self.channel, "bid", "bid", "")
            bid = self.choose_bid(user, [b for b in legal if b != "blind nil"])
            typed = {"nil": "Zero", "blind nil": "BN"}.get(bid, f" {bid} ")  # as people type: said back plainly
            answer = await self.spades.command(user, self.channel, "bid", bid=typed)
            assert answer.ephemeral and answer.content == f"You bid **{bid}**.", answer
            # Until the panel shows the bid made: an edit drawn before it may land in between.
            await self.fake.wait_until(lambda: f"You: bid {bid} ·" in panel.text, 10, "the panel to follow the bid")
        else:
            offered = self.bid_buttons(panel)
            bid = self.choose_bid(user, [b for b in offered if b != "blind nil"])
            answer = await self.spades.click(user, panel, offered[bid])
            assert answer is panel and f"You: bid {bid} ·" in panel.text, panel.text
        return self._acknowledged(Move(seat, "bid", bid, style))

    async def _play(self, turn: Turn, style: Style) -> Move:
        user, seat, panel = turn.user, self.seat_of(turn.user), turn.panel
        legal = self.enabled_cards(panel)
        assert legal, panel.text
        card = legal[0]
        hand_before = HAND_NUMBER.search(panel.text)
        if style == "command":
            offered = [card_code(label) for label in await self.spades.choices(user, self.channel, "play", "card", "")]
            assert sorted(offered) == sorted(set(legal))  # autocomplete offers the enabled cards, a twin once
            forms = card_texts(card)
            typed = forms[sum(1 for m in self.moves if m.how == "command") % len(forms)]
            held = self.held_cards(panel).count(card)  # two in six when both copies are held
            answer = await self.spades.command(user, self.channel, "play", card=typed)
            assert answer.ephemeral and answer.content == f"You played {forms[2]}.", answer
            await self.fake.wait_until(
                lambda: self.phase_in(panel) != "play" or self.held_cards(panel).count(card) < held,
                10, "the panel to follow the card")
        else:
            held = self.held_cards(panel).count(card)
            custom_id = self.card_id(panel, card)
            answer = await self.spades.click(user, panel, custom_id)
            hand_after = HAND_NUMBER.search(panel.text)
            assert answer is panel and hand_before and hand_after, panel.text
            if hand_after[0] == hand_before[0]:  # the card left the hand (one copy of two, in six)
                assert self.held_cards(panel).count(card) < held, panel.text
        return self._acknowledged(Move(seat, "play", card, style))

    def _acknowledged(self, move: Move) -> Move:
        self.moves.append(move)
        return move

    async def play_moves(self, count: int | None = None, style: Style | None = None) -> None:
        """Make `count` moves (all of them by default: until the game is over)."""
        made = 0
        while count is None or made < count:
            turn = await self.whose_turn()
            if turn is None:
                assert count is None, f"the game ended after {made} of {count} moves"
                return
            if await self.act(turn, style) is not None:
                made += 1

    def acknowledged(self) -> list[tuple[Any, ...]]:
        return [move.key() for move in self.moves]

    async def hand_dm(self, user: FakeUser, hand: int, after: int | None = None) -> FakeMessage | None:
        """The direct message with `user`'s deal of hand `hand`; None while their panel offers blind
        nil (the deal is sent once they choose, and shown nowhere before)."""
        panel = await self.panel(user)
        await self.fake.wait_until(lambda: f"hand {hand}" in panel.text, 10, f"the panel to show hand {hand}")
        dms = self.fake.dm_channels.get(user.id)
        if self.phase_in(panel) == "hidden":
            assert dms is None or not [m for m in dms.messages.values() if f"hand {hand}" in m.content]
            return None
        return await self.fake.wait_for_dm(
            user, lambda m: "**Your hand** · " in m.content and f"hand {hand}" in m.content, after=after)


async def start_game(spades: Spades, channel: FakeChannel, players: Sequence[FakeUser],
                     **options: Any) -> Table:
    """The first player opens a lobby, the second joins with the button, the third with
    `/spades join`, and the host starts with the button; everyone opens their panel and gets their
    hand by DM (once they may see it)."""
    table = Table(spades, channel, list(players))
    host, *others = players
    mark = spades.fake.checkpoint()
    lobby = await table.open(host, **options)
    for index, user in enumerate(others):
        if index % 2 == 0:
            answer = await spades.click(user, lobby, f"spades:lobby:{table.game_id}:join")
            assert answer is lobby and shown(name_of(user)) in lobby.content
        else:
            answer = await spades.command(user, channel, "join")
            assert answer.ephemeral and answer.content == "You joined the game."
    answer = await spades.click(host, lobby, f"spades:lobby:{table.game_id}:start")
    assert answer is lobby and "The game has started." in lobby.content and not lobby.buttons()
    await table.wait_table(lambda m: TURN_LINE.search(m.text) is not None, "the table message")
    table.read_seats()
    drawing = TURN_LINE.search(table.table_message().text)["what"] == "draw"  # type: ignore[index]
    for user in players:
        panel = await table.open_panel(user)
        # A blind-nil choice first, or the duo draw: no DM yet.
        if not user.dms_closed and table.phase_in(panel) != "hidden" and not drawing:
            await spades.fake.wait_for_dm(user, lambda m: "**Your hand** · " in m.content and "hand 1" in m.content,
                                          after=mark)
    return table


async def play_game(spades: Spades, channel: FakeChannel, players: Sequence[FakeUser], **options: Any) -> FakeMessage:
    """A whole game, lobby to end (one hand with a nil, to 50 with mercy 50); its game-over post."""
    mark = spades.fake.checkpoint()
    table = await start_game(spades, channel, players, **{"target": 50, "mercy": 50, **options})
    await table.play_moves()
    return await spades.fake.wait_for_message(
        channel, lambda m: m.content.startswith("## 🏆") and m.content.splitlines()[0].endswith(("win!", "wins!")),
        after=mark)
