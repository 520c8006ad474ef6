"""Scripted players for the load benchmark (`bench_load.py`): each channel is a `Table` of three
people who see what a person sees (the lobby, the table message, the game-over post and each one's
private panel) and say what they would do next. Nothing here waits: `Table.next_step()` looks and
returns the next interaction to fire (or None while the bot hasn't shown anything to act on), so the
same tables serve a closed loop (each table acts as soon as it can) and an open loop (a schedule
picks a ready table for each arrival).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.discord_ui.safe_text import shown
from devkit.fake_discord import FakeChannel, FakeDiscord, FakeInteraction, FakeMessage, FakeUser

GENERIC_FAILURE = "Something went wrong"
NOTICE = "⚠️"  # a refusal shown on a panel
GAME_OVER = "The game is over."
LOST_AFTER = 5.0  # seconds: an interaction unanswered this long failed for its player (Discord allows 3)
COMMAND_EVERY = 4  # one move in four by `/spades bid` or `/spades play`; the rest are panel clicks
SHORT_GAMES = {"target": 50, "mercy": 50}  # a nil makes or loses 100, so about one hand a game
KINDS = {"table": "My hand", "lobby": "lobby", "bid": "bid", "card": "card", "reveal": "reveal",
         "rematch": "rematch"}


@dataclass
class Tally:
    """What all tables did, and every reply that wasn't what a player expected."""

    moves: int = 0
    games_started: int = 0
    games_finished: int = 0
    unexpected: list[str] = field(default_factory=list)
    turn_shown: list[float] = field(default_factory=list)  # seconds from a move's ack to the next turn on a panel
    table_behind: list[float] = field(default_factory=list)  # seconds from a move's ack to a table showing it
    table_late: list[str] = field(default_factory=list)  # the moves a table showed over a second late: which, where
    table_before_answer: int = 0  # moves the table showed before the move's answer reached the player

    def oops(self, what: str) -> None:
        self.unexpected.append(what[:300])


class LoadDiscord(FakeDiscord):
    """The fake, telling each table when a message in its channel appears or changes.

    The fake's own waits wake every waiter on every change; with thousands of tables that costs the
    load generator more CPU than the bot gets. Messages are created and edited in two places only,
    so the tables are told from there, on the loop's next turn: by then the interaction answered
    with that message has its response recorded.
    """

    def __init__(self, **options: Any) -> None:
        # The suite checks every request against Discord's spec (half a millisecond each): here it
        # would take the fake a third of a core at 333 moves/s, from the machine the bot is measured on.
        super().__init__(check_spec=False, **options)
        self.tables: dict[int, Table] = {}  # channel id -> table

    def _create_message(self, channel: FakeChannel, body: Any, files: Any, **kwargs: Any) -> Any:
        result = super()._create_message(channel, body, files, **kwargs)
        if isinstance(result, FakeMessage):
            self._touched(result)
        return result

    def _edit_message(self, msg: FakeMessage, body: Any, files: Any) -> Any:
        problems = super()._edit_message(msg, body, files)
        self._touched(msg)
        return problems

    def _touched(self, msg: FakeMessage) -> None:
        table = self.tables.get(msg.channel.id)
        if table is not None:
            table.saw(msg)


@dataclass
class Step:
    """One interaction a player is about to make, and how to judge the bot's answer."""

    seat: int
    kind: str
    fire: Callable[[], Awaitable[FakeInteraction]]
    check: Callable[[FakeInteraction, FakeMessage], None]
    panel_version: int | None = None  # a move: the panel version it was decided on


def _acked_at(inter: FakeInteraction) -> float | None:
    return None if inter.response is None else inter.dispatched_at + inter.response.latency


def kind_of(inter: FakeInteraction) -> str:
    """`/spades play`, `card button`, …: what an interaction was, for the per-kind figures."""
    data = inter.data
    if "custom_id" in data:
        return f"{KINDS.get(data['custom_id'].split(':')[1], 'other')} button"
    return f"/spades {data['options'][0]['name']}"


class Table:
    """Three people at one channel, game after game: the first opens a lobby (`/spades new`), the
    second joins with the button, the third with `/spades join`, the host starts; or, every other
    game, all three press Rematch on the game-over post. Each then opens their panel with **My
    hand** once and acts when it says it's their turn: one move in four by command, the others by
    one click on the panel."""

    def __init__(self, fake: LoadDiscord, channel: FakeChannel, users: list[FakeUser], tally: Tally,
                 game_options: dict[str, int] = SHORT_GAMES) -> None:
        self.fake, self.channel, self.users, self.tally = fake, channel, users, tally
        self.game_options = game_options  # what `/spades new` asks for
        self.phase = "new"  # new → join → panels → play → (rematch | new) → …
        self.game_id = ""
        self.lobby: FakeMessage | None = None
        self.table_message: FakeMessage | None = None  # the latest message with this game's My hand
        self.over_posts: dict[str, FakeMessage] = {}  # game id -> its game-over post (Rematch)
        self.over_game = ""  # the finished game a rematch is asked on
        self.panels: list[FakeMessage] = []
        self.acted: list[int] = []  # per seat: the panel version last acted on
        self.seen: list[tuple[int, str | None]] = []  # per seat: a panel version and what it asks
        self.seated = 0
        self.games = 0
        self.moves = 0
        self.next_seat = 0
        self.pending: tuple[FakeInteraction, Step] | None = None
        self.last_move: FakeInteraction | None = None  # the latest move, until a panel shows the next turn
        self.off_table: list[FakeInteraction] = []  # moves made since the table last changed
        self.broken = False
        self.last_progress = time.monotonic()
        self.on_change: Callable[[], None] = lambda: None
        self._poke_due = False
        fake.tables[channel.id] = self

    # ------------------------------------------------------------------ what the players see
    def saw(self, msg: FakeMessage) -> None:
        """A message in the channel appeared or changed: note the table and game-over posts; wake
        the driver on the loop's next turn (once, however many changes come before it)."""
        if not msg.ephemeral and self.game_id:
            for custom_id in msg.custom_ids():
                if custom_id == f"spades:table:{self.game_id}:hand" and f"-# game {self.game_id}" in msg.text:
                    self.table_message = msg  # the table, not a turn mention (deleted once the turn passes)
                    self._table_changed()
                elif custom_id.startswith("spades:rematch:"):  # it may come before the panels say so
                    self.over_posts[custom_id.split(":")[2]] = msg
        elif self.last_move is not None and msg in self.panels:
            self._turn_shown(msg)
        if not self._poke_due:
            self._poke_due = True
            asyncio.get_running_loop().call_soon(self._poke)

    def _table_changed(self) -> None:
        """The table shows every move acknowledged before now (it is rendered when it is sent)."""
        now = time.monotonic()
        for move in self.off_table:
            acked = _acked_at(move)
            if acked is None:
                # The table changed between the click and its answer: the bot applies a move before
                # it answers it, and draws a table as it sends it, so this table already shows the
                # move (the answer and the table travel on different connections, in either order).
                # Waiting for a change after the answer counted the next move's, 3 s later.
                self.tally.table_behind.append(0.0)
                self.tally.table_before_answer += 1
            else:
                self.tally.table_behind.append(max(0.0, now - acked))
                if now - acked > 1.0:
                    self.tally.table_late.append(f"{kind_of(move)} in #{self.channel.name}, "
                                                 f"{now - acked:.2f} s, game {self.game_id} move {self.moves}")
        self.off_table = []

    def _turn_shown(self, panel: FakeMessage) -> None:
        """A panel changed after a move: if it now asks its player to act, the turn has shown."""
        move = self.last_move
        acked = _acked_at(move) if move is not None else None
        if acked is not None and self.panel_phase(panel, self.game_id) in ("hidden", "bid", "play"):
            self.tally.turn_shown.append(max(0.0, time.monotonic() - acked))
            self.last_move = None

    def _poke(self) -> None:
        self._poke_due = False
        self.on_change()

    @staticmethod
    def panel_phase(panel: FakeMessage, game_id: str) -> str | None:
        """What the panel asks of its player now: hidden (blind nil offered), bid, play, over."""
        if panel.find_component(f"spades:reveal:{game_id}") is not None:
            return "hidden"
        text = panel.text
        if "**Your turn to bid.**" in text:
            return "bid"
        if "**Your turn:**" in text or "**Your lead.**" in text:
            return "play"
        if GAME_OVER in text:
            return "over"
        return None

    # ------------------------------------------------------------------ deciding
    def next_step(self) -> Step | None:
        """The next interaction, once the last one is answered (or failed) and the bot shows
        something to act on."""
        if self.pending is not None:
            inter, step = self.pending
            if inter.response is None:
                if time.monotonic() - inter.dispatched_at < LOST_AFTER:
                    return None
                self.pending = None  # "This interaction failed": the player looks at what is shown again
            else:
                self.pending = None
                self._judge(inter, step)
        if self.broken:
            return None
        return self._decide()

    def _decide(self) -> Step | None:
        if self.phase == "new":
            return self._command(0, "new", self._lobby_opened, **self.game_options)
        if self.phase == "join":
            return self._join_step()
        if self.phase == "rematch":
            post = self.over_posts.get(self.over_game)
            if post is None or post.deleted:
                return None
            return self._click(self.seated, post, f"spades:rematch:{self.over_game}", self._rematched)
        if self.phase == "panels":
            table = self.table_message
            if table is None or table.deleted:
                return None
            return self._click(len(self.panels), table, f"spades:table:{self.game_id}:hand", self._panel_opened)
        if self.phase == "play":
            return self._move()
        return None

    def _join_step(self) -> Step:
        assert self.lobby is not None
        if self.seated == 1:
            return self._click(1, self.lobby, f"spades:lobby:{self.game_id}:join", self._joined_by_click)
        if self.seated == 2:
            return self._command(2, "join", self._joined_by_command)
        return self._click(0, self.lobby, f"spades:lobby:{self.game_id}:start", self._started)

    def _move(self) -> Step | None:
        over = 0
        for offset in range(len(self.users)):
            seat = (self.next_seat + offset) % len(self.users)
            panel = self.panels[seat]
            version = len(panel.history)
            if version <= self.acted[seat]:
                continue  # after a command the panel shows the move only once the bot edits it
            if self.seen[seat][0] != version:  # reading a panel costs: once per version
                self.seen[seat] = (version, self.panel_phase(panel, self.game_id))
            phase = self.seen[seat][1]
            if phase == "over":
                over += 1
            elif phase == "hidden":
                return self._click(seat, panel, f"spades:reveal:{self.game_id}", self._revealed, version)
            elif phase == "bid":
                return self._bid(seat, panel, version)
            elif phase == "play":
                return self._play(seat, panel, version)
        if over == len(self.users):
            self.tally.games_finished += 1
            self.games += 1
            self.over_game = self.game_id
            self.phase = "rematch" if self.games % 2 else "new"
            self.seated = 0
            return self._decide()
        return None

    def _bid(self, seat: int, panel: FakeMessage, version: int) -> Step:
        prefix = f"spades:bid:{self.game_id}:"
        offered = {b["label"]: b["custom_id"] for b in panel.buttons()
                   if b.get("custom_id", "").startswith(prefix) and not b.get("disabled")}
        if "Bids: none yet" in panel.text and "Nil" in offered:
            label = "Nil"  # ends the game after this hand, made or not
        else:
            label = "4" if "4" in offered else [k for k in offered if k.isdigit()][-1]
        said = "nil" if label == "Nil" else label
        if self.moves % COMMAND_EVERY == COMMAND_EVERY - 1:
            return self._command(seat, "bid", lambda i, m: self._expect(i, m.content == f"You bid **{said}**.", m),
                                 version, bid=said)
        return self._click(seat, panel, offered[label],
                           lambda i, m: self._expect(i, f"You: bid {said} ·" in m.text and NOTICE not in m.text, m),
                           version)

    def _play(self, seat: int, panel: FakeMessage, version: int) -> Step:
        prefix = f"spades:card:{self.game_id}:"
        legal = [b for b in panel.buttons() if b.get("custom_id", "").startswith(prefix) and not b.get("disabled")]
        card = legal[0]
        if self.moves % COMMAND_EVERY == COMMAND_EVERY - 1:
            label = card["label"]
            return self._command(seat, "play", lambda i, m: self._expect(i, m.content == f"You played {label}.", m),
                                 version, card=label)

        def played(inter: FakeInteraction, answer: FakeMessage) -> None:
            shown = answer.find_component(card["custom_id"])
            self._expect(inter, NOTICE not in answer.text and (shown is None or bool(shown.get("disabled"))), answer)

        return self._click(seat, panel, card["custom_id"], played, version)

    # ------------------------------------------------------------------ acting
    def _command(self, seat: int, sub: str, check: Callable[[FakeInteraction, FakeMessage], None],
                 version: int | None = None, **options: Any) -> Step:
        user = self.users[seat]
        return Step(seat, f"/spades {sub}",
                    lambda: self.fake.send_slash_command(user, self.channel, "spades", sub, options), check, version)

    def _click(self, seat: int, message: FakeMessage, custom_id: str,
               check: Callable[[FakeInteraction, FakeMessage], None], version: int | None = None) -> Step:
        user = self.users[seat]
        return Step(seat, custom_id, lambda: self.fake.click_button(user, message, custom_id), check, version)

    async def fire(self, step: Step) -> FakeInteraction | None:
        """Send the step's interaction (not waiting for the answer: `next_step` judges it later)."""
        if step.panel_version is not None:
            self.acted[step.seat] = step.panel_version
        try:
            inter = await step.fire()
        except (LookupError, PermissionError) as error:  # the button went away: the script is lost
            self.tally.oops(f"{self.channel.name}: {error}")
            self.broken = True
            return None
        self.pending = (inter, step)
        if step.panel_version is not None:  # a move: time how soon the next turn and the table show it
            self.last_move = inter
            self.off_table.append(inter)
        return inter

    def _judge(self, inter: FakeInteraction, step: Step) -> None:
        self.last_progress = time.monotonic()
        answer = inter.response.message if inter.response is not None else None
        if answer is None:
            self.tally.oops(f"{self.channel.name}: {kind_of(inter)} answered without a message")
            self.broken = True
        elif GENERIC_FAILURE in answer.text:
            self.tally.oops(f"{self.channel.name}: {kind_of(inter)}: {answer.text}")
            self.broken = True
        else:
            step.check(inter, answer)

    def _expect(self, inter: FakeInteraction, ok: bool, answer: FakeMessage) -> None:
        """A move's answer: count it, or note what the player saw instead."""
        if ok:
            self.moves += 1
            self.tally.moves += 1
            self.next_seat = (self.users.index(inter.user) + 1) % len(self.users)
        else:
            self.tally.oops(f"{self.channel.name}: {kind_of(inter)} {inter.data}: {answer.text}")

    def _wrong(self, inter: FakeInteraction, answer: FakeMessage) -> None:
        """A lobby or panel step went wrong: this table stops (its figures say so)."""
        self.tally.oops(f"{self.channel.name} ({self.phase}): {kind_of(inter)}: {answer.text}")
        self.broken = True

    # ------------------------------------------------------------------ lobby, panels, rematch
    def _new_game(self, lobby: FakeMessage) -> bool:
        ids = [c for c in lobby.custom_ids() if c.startswith("spades:lobby:")]
        if not ids:
            return False
        self.game_id = ids[0].split(":")[2]
        self.lobby, self.table_message = lobby, None
        self.panels, self.acted, self.seen, self.next_seat = [], [], [], 0
        self.last_move, self.off_table = None, []
        return True

    def _lobby_opened(self, inter: FakeInteraction, answer: FakeMessage) -> None:
        if answer.ephemeral or not self._new_game(answer):
            return self._wrong(inter, answer)
        self.phase, self.seated, self.over_posts = "join", 1, {}
        return None

    def _joined_by_click(self, inter: FakeInteraction, answer: FakeMessage) -> None:
        name = self.users[1].global_name or ""  # as written by a baseline bot, escaped since 24dae38
        if name not in answer.content and shown(name) not in answer.content:
            return self._wrong(inter, answer)
        self.seated = 2
        return None

    def _joined_by_command(self, inter: FakeInteraction, answer: FakeMessage) -> None:
        if answer.content != "You joined the game.":
            return self._wrong(inter, answer)
        self.seated = 3
        return None

    def _started(self, inter: FakeInteraction, answer: FakeMessage) -> None:
        if "The game has started." not in answer.content:
            return self._wrong(inter, answer)
        self.phase = "panels"
        self.tally.games_started += 1
        return None

    def _rematched(self, inter: FakeInteraction, answer: FakeMessage) -> None:
        if self.seated == 0:
            if not self._new_game(answer):
                return self._wrong(inter, answer)
        elif not answer.content.startswith("You're in the rematch."):
            return self._wrong(inter, answer)
        self.seated += 1
        if self.seated == len(self.users):
            if "It has started!" not in answer.content:
                return self._wrong(inter, answer)
            self.phase, self.over_posts = "panels", {}
            self.tally.games_started += 1
        return None

    def _panel_opened(self, inter: FakeInteraction, answer: FakeMessage) -> None:
        if not answer.ephemeral or "Your hand" not in answer.text:
            return self._wrong(inter, answer)
        self.panels.append(answer)
        self.acted.append(0)
        self.seen.append((0, None))
        if len(self.panels) == len(self.users):
            self.phase = "play"
        return None

    def _revealed(self, inter: FakeInteraction, answer: FakeMessage) -> None:
        if NOTICE in answer.text or self.panel_phase(answer, self.game_id) == "hidden":
            self.tally.oops(f"{self.channel.name}: reveal: {answer.text}")


def check_stalled(table: Table, stall: float) -> None:
    """A table with nothing answered for `stall` seconds is stuck: it stops, and says so."""
    if not table.broken and time.monotonic() - table.last_progress > stall:
        table.tally.oops(f"{table.channel.name}: nothing answered for {stall:.0f}s in phase {table.phase}")
        table.broken = True


async def play_closed(table: Table, deadline: float, stall: float = 20.0,
                      until: Callable[[], bool] = lambda: False) -> None:
    """Closed loop: act as soon as the last answer is in and a panel shows a turn, until `deadline`
    (or `until()`)."""
    changed = asyncio.Event()
    table.on_change = changed.set
    table.last_progress = time.monotonic()
    while time.monotonic() < deadline and not table.broken:
        step = table.next_step()
        if until():
            break
        if step is not None:
            await table.fire(step)
            continue
        changed.clear()
        with contextlib.suppress(TimeoutError):  # a second at most: a lost answer shows only with time
            await asyncio.wait_for(changed.wait(), min(1.0, max(0.01, deadline - time.monotonic())))
        check_stalled(table, stall)
    table.on_change = lambda: None
