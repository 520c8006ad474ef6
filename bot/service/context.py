"""What the parts of the game service share: the store, the listener, the clock, the pace of play,
and the games this process is running, found by channel and by id; with the guards they all use.
Also the two ports between the service and the Discord layer: what the service tells it (`Listener`)
and what its publisher may ask back (`PublisherPort`)."""

from __future__ import annotations

import contextlib
import logging
import random
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.ai import LEVELS
from bot.engine import Game
from bot.service.changes import Change
from bot.service.clock import Clock
from bot.service.errors import Refusal, SaveFailed
from bot.service.live import LiveGame
from bot.store import GameInfo, GameStatus, ShardSet, Store, StoreError

log = logging.getLogger(__name__)

BOT_LEVELS = tuple(level for level in LEVELS if level != "random")
BOT_WIDE = 0  # the settings row of the bot itself, not of a server
DEFAULT_TURN_PING_DELAY = 5.0
DEFAULT_LOBBY_TIMEOUT = 30 * 60.0


class Listener(Protocol):
    """Receives what changed, in order, while the game's lock is held; must not block."""

    def publish(self, live: LiveGame, changes: Sequence[Change]) -> None: ...


class PublisherPort(Protocol):
    """What the publisher may ask of the game service, and no more: give up a game whose channel
    is gone, confirm an owed post, say which messages show a game. What it draws is `live.shown`."""

    async def cancel_for(self, live: LiveGame, reason: str) -> None: ...

    async def delivered(self, post_id: int) -> None: ...

    async def set_lobby_message(self, live: LiveGame, message_id: int) -> None: ...

    async def set_table_message(self, live: LiveGame, message_id: int | None) -> None: ...


@dataclass(frozen=True, slots=True)
class Pace:
    """How fast games go by themselves (seconds), unless a server's settings say otherwise."""

    bot_move_delay: float = 1.0
    turn_timeout: float = 120.0
    lobby_timeout: float = DEFAULT_LOBBY_TIMEOUT
    hand_pause: float = 0.0  # the last trick of a hand stays up this long before the next deal


@dataclass(eq=False)
class Context:
    """The games this process runs, and what every part of the service reaches them through."""

    store: Store
    listener: Listener
    clock: Clock
    pace: Pace
    rng: random.Random | None = None  # seeded: game ids and deals follow from it (tests); None: unpredictable
    shards: ShardSet | None = None  # the servers this process serves (None: all)
    takeover_level: str = "random"  # who plays for a person who left or whose time ran out
    channels: dict[int, LiveGame] = field(default_factory=dict)
    games: dict[str, LiveGame] = field(default_factory=dict)

    def publish(self, live: LiveGame, changes: Sequence[Change]) -> None:
        """Tell the listener what changed, with what may now be shown frozen first (`live.shown`).
        Called with the game's lock held, after the change was saved."""
        live.freeze()
        self.listener.publish(live, changes)

    def register(self, live: LiveGame) -> None:
        self.games[live.game_id] = live
        if live.active:
            self.channels[live.channel_id] = live

    def end(self, live: LiveGame, status: GameStatus) -> None:
        """Forget an ended game: its buttons then answer that it isn't running, and a server that
        plays all day doesn't keep every game it ever ran in memory. Its timers stop."""
        live.status = status
        if self.channels.get(live.channel_id) is live:
            del self.channels[live.channel_id]
        self.games.pop(live.game_id, None)
        for alarm in (live.timer, live.ping_timer):
            if alarm is not None:
                alarm.cancel()
        live.timer = live.ping_timer = None
        live.deadline = None

    def revive(self, info: GameInfo, game: Game | None) -> LiveGame:
        """A stored game as the service runs it."""
        return LiveGame.from_info(info, game, self.pace.turn_timeout)

    def game_in_channel(self, channel_id: int) -> LiveGame | None:
        return self.channels.get(channel_id)

    def require_channel_game(self, channel_id: int) -> LiveGame:
        live = self.channels.get(channel_id)
        if live is None:
            raise Refusal("There's no game in this channel. Start one with /spades new.")
        return live

    def require_game(self, game_id: str, guild_id: int | None, channel_id: int | None = None) -> LiveGame:
        """The running game a button names, checked against where the click came from: a button
        copied from another server (or forged) must not reach that server's game."""
        live = self.games.get(game_id)
        if live is None or guild_id is None or live.guild_id != guild_id:
            raise Refusal("That game isn't running any more.")
        if channel_id is not None and live.channel_id != channel_id:
            raise Refusal("That button belongs to a game in another channel.")
        return live

    async def apply_server_settings(self, live: LiveGame) -> None:
        settings = await self.store.get_settings(live.guild_id)
        live.turn_timeout = float(settings.get("turn_timeout", self.pace.turn_timeout))
        live.turn_ping_delay = float(settings.get("turn_ping_delay", DEFAULT_TURN_PING_DELAY))

    def new_game_id(self) -> str:
        return f"{self.rng.getrandbits(32):08x}" if self.rng is not None else secrets.token_hex(4)

    def new_seed(self) -> int | None:
        return self.rng.getrandbits(63) if self.rng is not None else None


@contextlib.contextmanager
def saving(what: str) -> Iterator[None]:
    """A store failure becomes a refusal the person can read; nothing changed in memory."""
    try:
        yield
    except StoreError as error:
        log.warning("saving failed (%s): %s", what, error)
        raise SaveFailed(f"I couldn't save that just now, so {what}. Please try again in a moment.") from error


def require_lobby(live: LiveGame) -> None:
    if live.status == "playing":
        raise Refusal("The game has already started.")
    if live.status != "lobby":
        raise Refusal("This game is over.")


def require_playing(live: LiveGame) -> None:
    if live.status == "lobby":
        raise Refusal("The game hasn't started yet.")
    if live.status != "playing":
        raise Refusal("This game is over.")


def require_host(live: LiveGame, user_id: int, what: str) -> None:
    if user_id != live.host_id:
        raise Refusal(f"Only the host can {what}.")


def looks_like_game_id(text: str) -> bool:
    return 1 <= len(text) <= 32 and all(c in "0123456789abcdef" for c in text)
