"""Games per channel: one lock per game, the engine for rules, the store before every answer, timers.

Every accepted action is saved before the caller hears "yes", and memory never runs ahead of the
store: an action is tried on the engine, saved, and only then told to anyone; if the save fails the
game is put back as the store has it, the player hears that the move didn't count, and whatever the
game was about to do by itself (a computer player's move, the next deal, finishing the game) is
retried. What an action owes Discord (a hand's summary, the new hands, the game-over post) is saved
with it in the store's outbox and published again after a crash until the listener confirms it.
No discord imports: the Discord layer calls these methods and renders the changes it is told about.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple, Protocol

from bot.ai import LEVELS, Move, apply_move, make_player
from bot.engine import (
    Card,
    Ending,
    EngineError,
    Game,
    Mode,
    Phase,
    RecordView,
    Rules,
    SeatView,
    event_to_json,
    parse_card,
    record_for,
    seat_tallies,
    seat_view,
)
from bot.service.changes import (
    ActedForPlayer,
    Change,
    GameCancelled,
    GameOver,
    GameStarted,
    HandDealt,
    HandScored,
    LobbyChanged,
    SeatTakenOver,
    TableChanged,
    TrickWon,
    TurnReminder,
    TurnStarted,
)
from bot.service.clock import Clock, SystemClock
from bot.service.errors import Refusal, SaveFailed
from bot.service.inputs import SHOW_MY_CARDS, parse_bid, parse_whole_number
from bot.service.live import LiveGame
from bot.store import (
    ChannelBusyError,
    Deadline,
    FinishOutcome,
    GameStateError,
    PendingPost,
    Post,
    Recovery,
    Seat,
    SeatResult,
    ShardSet,
    Store,
    StoreError,
)
from bot.store.replay import record_players

log = logging.getLogger(__name__)

BOT_LEVELS = tuple(level for level in LEVELS if level != "random")
MIN_TURN_TIMEOUT, MAX_TURN_TIMEOUT = 15, 3600
MAX_TURN_PING_DELAY = 60
DEFAULT_TURN_PING_DELAY = 5.0
DEFAULT_LOBBY_TIMEOUT = 30 * 60.0
SAVE_RETRY_DELAYS = (1.0, 3.0, 10.0, 30.0, 60.0)  # after the first, second… failure in a row
BOT_WIDE = 0  # the settings row of the bot itself, not of a server
SAVED_DEADLINES = ("remind", "takeover", "expire")  # the others are simply redone after a restart


class Listener(Protocol):
    """Receives what changed, in order, while the game's lock is held; must not block."""

    def publish(self, live: LiveGame, changes: Sequence[Change]) -> None: ...


class Decider(Protocol):
    """Chooses a computer player's move from a seat's view (the AI runner, or in-process)."""

    async def decide(self, level: str, view: SeatView, seed: int) -> Move: ...


class InlineDecider:
    """Decides in-process: fine for the fast levels and for tests."""

    async def decide(self, level: str, view: SeatView, seed: int) -> Move:
        return make_player(level, seed).choose(view)


def _saved(deadline: Deadline | None) -> Deadline | None:
    """What is stored of a deadline: a person's timers survive restarts; the rest is just redone."""
    return deadline if deadline is not None and deadline.kind in SAVED_DEADLINES else None


def _post(change: Change) -> Post | None:
    """What a change owes Discord if the process dies before it is published."""
    if isinstance(change, HandScored):
        return Post("hand_scored", {"hand": change.hand.number, "table": change.table_message_id})
    if isinstance(change, HandDealt):
        return Post("hand_dealt", {"hand": change.hand_number})
    if isinstance(change, GameCancelled):
        return Post("cancelled", {"reason": change.reason})
    return None


GAME_OVER_POST = Post("game_over", {})


class Saved(NamedTuple):
    """An action as saved: its changes carrying their post ids, the next deadline, and the id of
    the game-over post if the action ended the game."""

    changes: list[Change]
    deadline: Deadline | None
    game_over_post: int | None


@contextlib.contextmanager
def _saving(what: str) -> Iterator[None]:
    """A store failure becomes a refusal the person can read; nothing changed in memory."""
    try:
        yield
    except StoreError as error:
        log.warning("saving failed (%s): %s", what, error)
        raise SaveFailed(f"I couldn't save that just now, so {what}. Please try again in a moment.") from error


class GameService:
    def __init__(
        self,
        store: Store,
        listener: Listener,
        *,
        decider: Decider | None = None,
        clock: Clock | None = None,
        bot_move_delay: float = 1.0,
        turn_timeout: float = 120.0,
        lobby_timeout: float = DEFAULT_LOBBY_TIMEOUT,
        hand_pause: float = 0.0,
        takeover_level: str = "normal",
        rng: random.Random | None = None,
        shards: ShardSet | None = None,
    ) -> None:
        self.store = store
        self._listener = listener
        self._decider = decider or InlineDecider()
        self._clock = clock or SystemClock()
        self.bot_move_delay = bot_move_delay
        self.turn_timeout = turn_timeout
        self.lobby_timeout = lobby_timeout
        self.hand_pause = hand_pause  # seconds the last trick of a hand stays up before the next deal
        self._takeover_level = takeover_level if takeover_level in BOT_LEVELS else "random"
        self._rng = rng  # seeded: game ids and deals follow from it (tests); None: unpredictable
        self._shards = shards  # the servers this process serves (None: all)
        self._channels: dict[int, LiveGame] = {}
        self._games: dict[str, LiveGame] = {}
        self._create_locks: dict[int, asyncio.Lock] = {}  # per channel: one game per channel

    # ------------------------------------------------------------------ start-up and shutdown
    async def recover(self) -> Recovery:
        """Load every unfinished game of this process's servers and carry on where each stopped:
        first what it still owed Discord, then its next step (a deal, a finish, a timer)."""
        recovery = await self.store.recover(self._shards)
        owed: dict[str, list[PendingPost]] = defaultdict(list)
        for post in await self.store.pending_posts(self._shards):
            owed[post.game_id].append(post)
        bot_wide = await self.store.get_settings(BOT_WIDE)
        refresh_tables = not bot_wide.get("clean_stop", False)
        if "clean_stop" in bot_wide:
            await self.store.update_settings(BOT_WIDE, {"clean_stop": None})
        for damaged in recovery.damaged:
            log.error("game %s can't be replayed and was set aside: %s", damaged.game_id, damaged.reason)
        for stored in recovery.games:
            live = LiveGame.from_info(stored.info, stored.game, self.turn_timeout)
            await self._apply_server_settings(live)
            self._register(live)
            async with live.lock:
                if live.status == "lobby":
                    await self._keep_lobby_open(live, live.deadline)
                else:
                    await self._carry_on(live, owed.pop(live.game_id, []), refresh_table=refresh_tables)
        for game_id, posts in owed.items():  # games that ended before what they owed went out
            await self._deliver_ended(game_id, posts)
        return recovery

    async def synced_commands(self) -> str | None:
        """What the slash commands were when last synced (a digest), so an unchanged tree isn't synced."""
        value = (await self.store.get_settings(BOT_WIDE)).get("command_tree")
        return str(value) if value is not None else None

    async def remember_synced_commands(self, digest: str) -> None:
        await self.store.update_settings(BOT_WIDE, {"command_tree": digest})

    async def record_clean_stop(self) -> None:
        """Everything owed was published: the next start need not refresh every table."""
        await self.store.update_settings(BOT_WIDE, {"clean_stop": True})

    async def close(self) -> None:
        tasks = [t for live in self._games.values() for t in (live.timer, live.ping_timer) if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _carry_on(self, live: LiveGame, owed: Sequence[PendingPost], refresh_table: bool = False) -> None:
        """Lock held. Finish a game that is over, publish what it still owes, deal a hand that is
        due, and set its timers. Used at start-up and to retry after a failed save."""
        game = live.game
        if game is None:  # stopped between leaving the lobby and saving the game's setup
            return
        try:
            outcome = await self._finish(live) if game.is_over else None
            changes = await self._changes_of(live, owed, outcome)
            if changes or refresh_table:
                self._listener.publish(live, [*changes, TableChanged()])
            if not live.active:
                return
            if game.phase is Phase.DEALING:
                await self._deal_next(live)
            else:
                await self._schedule(live, keep=live.deadline)
                self._arm_ping(live)
        except (StoreError, SaveFailed):
            log.warning("game %s: couldn't carry on; retrying", live.game_id, exc_info=True)
            self._arm(live, self._retry_deadline(live))

    async def _deal_next(self, live: LiveGame) -> None:
        """Deal the hand that is due (the previous one ended just before a stop, or its save failed)."""
        game = live.game
        assert game is not None
        before = game.event_count
        changes: list[Change] = []
        self._deal(live, changes)
        saved = await self._save_action(live, before, changes)
        self._listener.publish(live, [*saved.changes, TableChanged()])
        self._arm(live, saved.deadline)
        self._arm_ping(live)

    async def _changes_of(self, live: LiveGame, posts: Sequence[PendingPost], outcome: FinishOutcome | None,
                          ) -> list[Change]:
        """The changes saved posts stand for; a post this version doesn't know is dropped, once."""
        changes: list[Change] = []
        for post in posts:
            change = await self._change_of(live, post, outcome)
            if change is None:
                log.error("game %s: dropping an owed %r post it can't rebuild", live.game_id, post.kind)
                await self.delivered(post.post_id)
            else:
                changes.append(change)
        return changes

    async def _change_of(self, live: LiveGame, post: PendingPost, outcome: FinishOutcome | None) -> Change | None:
        """Rebuild the change a saved post stands for, from the game as it is now."""
        game = live.game
        number = int(post.payload.get("hand", 0))
        if post.kind == "hand_scored" and game is not None and 0 < number <= len(game.hand_logs):
            table = post.payload.get("table")
            return HandScored(game.hand_logs[number - 1], int(table) if table else None, post.post_id)
        if post.kind == "hand_dealt" and game is not None:
            return HandDealt(number, self._hidden_seats(game) if game.hand_number == number else (), post.post_id)
        if post.kind == "game_over" and game is not None and game.ended is not Ending.CANCELLED:
            if outcome is None:  # finished before the stop: this answers what finishing did
                outcome = await self.store.finish_game(live.game_id, self.results(live))
            return GameOver(outcome, post.post_id)
        if post.kind == "cancelled":
            return GameCancelled(str(post.payload.get("reason", "")), post.post_id)
        return None

    async def _deliver_ended(self, game_id: str, posts: Sequence[PendingPost]) -> None:
        try:
            stored = await self.store.load_game(game_id)
            if stored is None:
                await self.store.posts_delivered([p.post_id for p in posts])
                return
            live = LiveGame.from_info(stored.info, stored.game, self.turn_timeout)
            changes = await self._changes_of(live, posts, None)
        except StoreError:
            log.exception("game %s: what it still owed Discord couldn't be read; it stays owed", game_id)
            return
        self._listener.publish(live, [*changes, TableChanged()] if live.game is not None else changes)

    async def delivered(self, post_id: int) -> None:
        """The listener published an owed post: it won't be published again after a restart."""
        try:
            await self.store.posts_delivered([post_id])
        except StoreError:
            log.warning("post %s was published but couldn't be marked; it may be repeated after a restart",
                        post_id, exc_info=True)

    # ---------------------------------------------------------------------------- lookups
    def game_in_channel(self, channel_id: int) -> LiveGame | None:
        return self._channels.get(channel_id)

    def require_channel_game(self, channel_id: int) -> LiveGame:
        live = self._channels.get(channel_id)
        if live is None:
            raise Refusal("There's no game in this channel. Start one with /spades new.")
        return live

    def require_game(self, game_id: str, guild_id: int | None, channel_id: int | None = None) -> LiveGame:
        """The running game a button names, checked against where the click came from: a button
        copied from another server (or forged) must not reach that server's game."""
        live = self._games.get(game_id)
        if live is None or guild_id is None or live.guild_id != guild_id:
            raise Refusal("That game isn't running any more.")
        if channel_id is not None and live.channel_id != channel_id:
            raise Refusal("That button belongs to a game in another channel.")
        return live

    def _register(self, live: LiveGame) -> None:
        self._games[live.game_id] = live
        if live.active:
            self._channels[live.channel_id] = live

    async def _apply_server_settings(self, live: LiveGame) -> None:
        settings = await self.store.get_settings(live.guild_id)
        live.turn_timeout = float(settings.get("turn_timeout", self.turn_timeout))
        live.turn_ping_delay = float(settings.get("turn_ping_delay", DEFAULT_TURN_PING_DELAY))

    async def last_game(self, guild_id: int, channel_id: int) -> LiveGame:
        """This channel's running game, or else the last one played here (score and record after the end)."""
        live = self._channels.get(channel_id)
        if live is not None:
            return live
        recent = await self.store.recent_games(guild_id, channel_id, limit=5)
        for summary in recent:
            if summary.info.started_at is None:
                continue
            stored = await self.store.load_game(summary.info.game_id)
            if stored is not None and stored.game is not None:
                return LiveGame.from_info(stored.info, stored.game, self.turn_timeout)
        raise Refusal("No game has been played in this channel yet. Start one with /spades new.")

    async def record(self, guild_id: int, channel_id: int, user_id: int, game_id: str | None = None,
                     ) -> tuple[str, RecordView]:
        """A game's record as `user_id` may see it: a running game shows only what is public, plus
        the asker's own cards (then the record is marked private: for the asker's eyes only)."""
        if game_id is None:
            live = await self.last_game(guild_id, channel_id)
        else:
            found = self._games.get(game_id)
            if found is None:
                stored = await self.store.load_game(game_id) if _looks_like_game_id(game_id) else None
                if stored is not None:
                    found = LiveGame.from_info(stored.info, stored.game, self.turn_timeout)
            if found is None or found.guild_id != guild_id:
                raise Refusal(f"There's no game “{game_id}” on this server.")
            live = found
        if live.game is None:
            raise Refusal("That game never started, so it has no record yet.")
        players = record_players(live.seats)
        shown = record_for(live.game, players, viewer=live.seat_of(user_id))
        hints = await self.store.game_hints(live.game_id)  # who asked for a hint, and when: never what
        if hints:
            shown = RecordView({**shown.document, "hints": [h.to_json() for h in hints]}, shown.private)
        return live.game_id, shown

    # ------------------------------------------------------------------------- settings
    async def server_defaults(self, guild_id: int) -> dict[str, Any]:
        return await self.store.get_settings(guild_id)

    async def update_settings(self, guild_id: int, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and save server defaults: mode, rule options, turn timeout, turn ping delay.
        A default that would make every later /spades new fail is refused now, not then."""
        current = await self.store.get_settings(guild_id)
        given = {k: v for k, v in changes.items() if v is not None}
        clean: dict[str, Any] = {}
        try:
            mode = Mode.parse(str(given.pop("mode", current.get("mode", "cutthroat"))))
            if "turn_timeout" in given:
                clean["turn_timeout"] = parse_whole_number(
                    "turn_timeout", given.pop("turn_timeout"), MIN_TURN_TIMEOUT, MAX_TURN_TIMEOUT)
            if "turn_ping_delay" in given:
                clean["turn_ping_delay"] = parse_whole_number(
                    "turn_ping_delay", given.pop("turn_ping_delay"), 0, MAX_TURN_PING_DELAY)
            rules = Rules.from_options({**current.get("rules", {}), **given})
            rules.check_mode(mode)
        except EngineError as error:
            raise Refusal(str(error)) from None
        clean["mode"] = mode.value
        clean["rules"] = rules.changed()
        with _saving("the settings didn't change"):
            return await self.store.update_settings(guild_id, clean)

    # ---------------------------------------------------------------------------- lobby
    async def new_lobby(
        self,
        guild_id: int,
        channel_id: int,
        host_id: int,
        host_name: str,
        mode: str | None = None,
        options: Mapping[str, object] | None = None,
        computer_levels: Sequence[str] = (),
    ) -> LiveGame:
        # Per channel, not global: a lobby waits for its own save only, never for other channels'.
        lock = self._create_locks.setdefault(channel_id, asyncio.Lock())
        async with lock:
            existing = self._channels.get(channel_id)
            if existing is not None:
                what = "a lobby" if existing.status == "lobby" else "a game"
                raise Refusal(f"There's already {what} in this channel. Use /spades table to see it.")
            defaults = await self.store.get_settings(guild_id)
            try:
                game_mode = Mode.parse(mode or defaults.get("mode", "cutthroat"))
                rules = Rules.from_options(defaults.get("rules", {}))
                rules = Rules.from_options(dict(options or {}), base=rules)
                rules.check_mode(game_mode)
            except EngineError as error:
                raise Refusal(str(error)) from None
            seats = [Seat(0, host_name, user_id=host_id)]
            for level in computer_levels[: game_mode.seats - 1]:
                seats.append(Seat(len(seats), self._computer_name(seats, level), bot_level=level))
            with _saving("no lobby was opened"):
                for _ in range(5):
                    game_id = self._new_game_id()
                    try:
                        await self.store.create_game(
                            game_id, guild_id=guild_id, channel_id=channel_id, mode=game_mode.value,
                            rules=rules.to_dict(), host_id=host_id, seats=seats,
                        )
                        break
                    except ChannelBusyError:  # another process opened one here (it can't, if sharded right)
                        raise Refusal("There's already a game in this channel. Use /spades table to see it.") from None
                    except GameStateError:  # the random id was taken: draw another
                        continue
                else:  # pragma: no cover - five random 32-bit collisions
                    raise Refusal("Couldn't open a lobby just now; please try again.")
            live = LiveGame(game_id, guild_id, channel_id, game_mode, rules, host_id, seats,
                            turn_timeout=self.turn_timeout)
            await self._apply_server_settings(live)
            self._register(live)
            async with live.lock:
                await self._keep_lobby_open(live)
                self._listener.publish(live, [LobbyChanged()])
            return live

    async def rematch(self, finished_game_id: str, guild_id: int, channel_id: int, user_id: int, name: str,
                      ) -> tuple[LiveGame, bool]:
        """Rematch on a game-over post: the first click opens a lobby with the same mode, rules and
        computer players; each later click seats its clicker. A full rematch lobby starts by itself.
        Returns the lobby and whether this click opened it (that click shows it in the channel):
        everyone clicks at once at a game's end, so a click that finds no lobby may still lose the
        race to open one, and then takes a seat in the winner's."""
        existing = self._channels.get(channel_id)
        if existing is None:
            stored = await self.store.load_game(finished_game_id) if _looks_like_game_id(finished_game_id) else None
            if stored is None or stored.info.guild_id != guild_id or stored.info.channel_id != channel_id:
                raise Refusal("That game isn't one I can set up again here.")
            levels = [s.bot_level for s in stored.info.seats if s.bot_level is not None and s.left_user_id is None]
            try:
                live = await self.new_lobby(guild_id, channel_id, user_id, name, stored.info.mode,
                                            stored.info.rules, computer_levels=levels)
            except Refusal:
                existing = self._channels.get(channel_id)
                if existing is None:
                    raise
            else:
                if live.is_full:
                    await self.start(live, user_id)
                return live, True
        if existing.status != "lobby":
            raise Refusal("A game is already running in this channel.")
        if existing.seat_of(user_id) is None:
            await self.join(existing, user_id, name)
        if existing.is_full and existing.status == "lobby" and existing.host_id is not None:
            await self.start(existing, existing.host_id)
        return existing, False

    def _new_game_id(self) -> str:
        return f"{self._rng.getrandbits(32):08x}" if self._rng is not None else secrets.token_hex(4)

    @staticmethod
    def _computer_name(seats: Sequence[Seat], level: str) -> str:
        return f"Bot {sum(1 for s in seats if s.is_bot) + 1} ({level})"

    async def join(self, live: LiveGame, user_id: int, name: str) -> None:
        async with live.lock:
            self._require_lobby(live)
            if live.seat_of(user_id) is not None:
                raise Refusal("You're already seated in this game.")
            if live.is_full:
                raise Refusal("This game is full.")
            await self._set_seats(live, [*live.seats, Seat(len(live.seats), name, user_id=user_id)])
            await self._keep_lobby_open(live)
            self._listener.publish(live, [LobbyChanged()])

    async def add_bot(self, live: LiveGame, user_id: int, level: str) -> None:
        async with live.lock:
            self._require_lobby(live)
            self._require_host(live, user_id, "add computer players")
            if level not in BOT_LEVELS:
                raise Refusal(f"Unknown level “{level}”: use {', '.join(BOT_LEVELS)}.")
            if live.is_full:
                raise Refusal("This game is full.")
            seat = Seat(len(live.seats), self._computer_name(live.seats, level), bot_level=level)
            await self._set_seats(live, [*live.seats, seat])
            await self._keep_lobby_open(live)
            self._listener.publish(live, [LobbyChanged()])

    async def leave(self, live: LiveGame, user_id: int) -> None:
        """In the lobby: give up the seat. In a game: a computer player takes the seat over."""
        async with live.lock:
            seat = live.seat_of(user_id)
            if seat is None:
                raise Refusal("You're not in this game.")
            if live.status == "lobby":
                remaining = [s for s in live.seats if s.user_id != user_id]
                if not any(not s.is_bot for s in remaining):
                    await self._cancel_locked(live, "everyone left the lobby")
                    return
                reseated = [Seat(i, s.name, s.user_id, s.bot_level) for i, s in enumerate(remaining)]
                await self._set_seats(live, reseated)
                if live.host_id == user_id:
                    live.host_id = next(s.user_id for s in reseated if not s.is_bot)
                await self._keep_lobby_open(live)
                self._listener.publish(live, [LobbyChanged()])
                return
            self._require_playing(live)
            old = live.seats[seat]
            replacement = Seat(seat, f"{old.name} (bot)", bot_level=self._takeover_level,
                               left_user_id=old.user_id, left_name=old.name)
            seats = list(live.seats)
            seats[seat] = replacement
            await self._set_seats(live, seats)
            live.name_seats()
            if not any(not s.is_bot for s in seats):
                await self._cancel_locked(live, "every human player left")
                return
            self._listener.publish(live, [SeatTakenOver(seat, old.name), TableChanged()])
            await self._schedule(live)

    async def start(self, live: LiveGame, user_id: int) -> None:
        async with live.lock:
            self._require_lobby(live)
            self._require_host(live, user_id, "start the game")
            missing = live.mode.seats - len(live.seats)
            if missing:
                plural = "s" if missing > 1 else ""
                raise Refusal(f"Waiting for {missing} more player{plural}: use Join, or Add bot.")
            seed = self._rng.getrandbits(63) if self._rng is not None else None
            game = Game.new(live.game_id, live.mode, live.rules, seed=seed, names=live.names())
            with _saving("the game didn't start"):
                await self.store.start_game(live.game_id, game.setup_json())
            live.game = game
            live.status = "playing"
            self._listener.publish(live, [GameStarted()])
            try:
                await self._deal_next(live)
            except SaveFailed:  # started, but the first deal wasn't saved: it is retried shortly
                self._arm(live, self._retry_deadline(live))
                raise

    async def cancel(self, live: LiveGame, user_id: int, is_admin: bool) -> None:
        async with live.lock:
            if not live.active:
                raise Refusal("This game is already over.")
            if user_id != live.host_id and not is_admin:
                raise Refusal("Only the host or a member with Manage Server can cancel the game.")
            await self._cancel_locked(live, "cancelled by a player")

    async def cancel_for(self, live: LiveGame, reason: str) -> None:
        """Cancel for a reason outside the game (its channel was deleted, access was lost for good)."""
        async with live.lock:
            if live.active:
                log.warning("cancelling game %s: %s", live.game_id, reason)
                await self._cancel_locked(live, reason)

    async def _cancel_locked(self, live: LiveGame, reason: str) -> None:
        cancelled = GameCancelled(reason)
        notice = _post(cancelled)
        assert notice is not None
        game = live.game
        if game is not None and not game.is_over:
            before = game.event_count
            game.cancel()
            [notice_id] = await self._persist(live, before, None, [notice])
            with _saving("the game wasn't cancelled"):
                await self.store.cancel_game(live.game_id)
        else:
            with _saving("nothing was cancelled"):
                [notice_id] = await self.store.cancel_game(live.game_id, posts=[notice])
        await self._end_live(live, "cancelled")
        changes: list[Change] = [replace(cancelled, post_id=notice_id)]
        if game is not None:
            changes.append(TableChanged())
        self._listener.publish(live, changes)

    async def _keep_lobby_open(self, live: LiveGame, keep: Deadline | None = None) -> None:
        """An idle lobby closes by itself: each change in it restarts the clock."""
        if keep is None or keep.kind != "expire":
            keep = Deadline("expire", self._clock.now() + self.lobby_timeout)
            with _saving("nothing changed"):
                await self.store.set_deadline(live.game_id, keep)
        self._arm(live, keep)

    # ---------------------------------------------------------------------- play actions
    async def bid(self, live: LiveGame, user_id: int, text: str) -> None:
        tricks, blind = parse_bid(text)
        await self._player_action(live, user_id, lambda game, seat: game.bid(seat, tricks, blind=blind))

    async def reveal(self, live: LiveGame, user_id: int) -> None:
        await self._player_action(live, user_id, lambda game, seat: game.reveal(seat))

    async def play(self, live: LiveGame, user_id: int, card: str | Card) -> Card:
        try:
            chosen = parse_card(card) if isinstance(card, str) else card
        except EngineError as error:
            raise Refusal(str(error)) from None
        await self._player_action(live, user_id, lambda game, seat: game.play(seat, chosen))
        return chosen

    async def _player_action(
        self, live: LiveGame, user_id: int, action: Callable[[Game, int], object]
    ) -> None:
        async with live.lock:
            self._require_playing(live)
            seat = live.seat_of(user_id)
            if seat is None:
                raise Refusal("You're not playing in this game.")
            game = live.game
            assert game is not None
            await self._apply(live, lambda: action(game, seat))

    async def _apply(self, live: LiveGame, action: Callable[[], object], extra: Sequence[Change] = ()) -> None:
        """Try an engine action, deal the next hand if it ended one (unless the hand pauses), save all
        of it with the next turn's deadline and what it owes Discord in one write; then tell the
        listener and arm the timers. Lock held."""
        game = live.game
        assert game is not None
        before = game.event_count
        hand_index = len(game.hand_logs) - 1
        tricks_before = len(game.hand_logs[hand_index].tricks) if hand_index >= 0 else 0
        try:
            action()
        except EngineError as error:
            raise Refusal(str(error)) from None
        changes: list[Change] = list(extra)
        hand = game.hand_logs[hand_index]
        changes.extend(TrickWon(t) for t in hand.tricks[tricks_before:])
        if hand.result is not None:
            changes.append(HandScored(hand, live.table_message_id))
            if not game.is_over and self.hand_pause <= 0:
                self._deal(live, changes)
        saved = await self._save_action(live, before, changes)
        changes = saved.changes
        if game.is_over:
            try:
                outcome = await self._finish(live)
            except StoreError:  # the events are saved: finishing (and its post) is retried
                log.warning("game %s: finishing failed; retrying", live.game_id, exc_info=True)
                self._listener.publish(live, [*changes, TableChanged()])
                self._arm(live, self._retry_deadline(live))
                return
            if outcome is not None:
                changes.append(GameOver(outcome, saved.game_over_post))
        changes.append(TableChanged())
        self._listener.publish(live, changes)
        self._arm(live, saved.deadline)
        self._arm_ping(live)

    async def _save_action(self, live: LiveGame, before: int, changes: list[Change]) -> Saved:
        """Save the events since `before` with the next deadline and the posts `changes` owe;
        the changes come back carrying their post ids."""
        game = live.game
        assert game is not None
        owed = [(index, post) for index, change in enumerate(changes) if (post := _post(change)) is not None]
        posts = [post for _, post in owed]
        if game.is_over:
            posts.append(GAME_OVER_POST)
        deadline = self._next_deadline(live)
        ids = await self._persist(live, before, deadline, posts)
        with_ids = list(changes)
        for (index, _), post_id in zip(owed, ids, strict=False):
            with_ids[index] = replace(changes[index], post_id=post_id)  # type: ignore[arg-type]
        live.save_failures = 0
        return Saved(with_ids, deadline, ids[-1] if game.is_over and ids else None)

    async def _persist(self, live: LiveGame, before: int, deadline: Deadline | None,
                       posts: Sequence[Post] = ()) -> Sequence[int]:
        """Save events ``before``..end, the next deadline and the owed posts as one write; their
        post ids. On any failure the game goes back to what the store holds."""
        game = live.game
        assert game is not None
        events = [event_to_json(e) for e in game.events[before:]]
        try:
            return await self.store.append_events(live.game_id, before + 1, events, _saved(deadline), posts=posts)
        except asyncio.CancelledError:
            raise  # an action already handed to the store is saved all the same
        except Exception as error:
            await self._rewind(live, before)
            if not isinstance(error, StoreError):
                raise
            log.warning("game %s: saving an action failed: %s", live.game_id, error)
            raise SaveFailed("I couldn't save that just now, so it didn't count. Please try again.") from error

    async def _rewind(self, live: LiveGame, before: int) -> None:
        """Put the game back as the store has it (or, if the store can't even be read, as it was
        before the unsaved action), so memory never runs ahead of the store."""
        game = live.game
        assert game is not None
        try:
            stored = await self.store.load_game(live.game_id)
        except StoreError:
            stored = None
        if stored is not None and stored.game is not None:
            live.game = stored.game
        else:
            rewound = Game(game.game_id, game.mode, game.rules, game.seed, game.first_dealer, game.names)
            rewound.replay(game.events[:before])
            live.game = rewound
        live.name_seats()

    def _retry_deadline(self, live: LiveGame) -> Deadline:
        live.save_failures += 1
        delay = SAVE_RETRY_DELAYS[min(live.save_failures, len(SAVE_RETRY_DELAYS)) - 1]
        return Deadline("retry", self._clock.now() + delay)

    @staticmethod
    def _hidden_seats(game: Game) -> tuple[int, ...]:
        return tuple(s for s in range(game.seats) if game.cards_hidden(s))

    def _deal(self, live: LiveGame, changes: list[Change]) -> None:
        game = live.game
        assert game is not None
        game.deal()
        changes.append(HandDealt(game.hand_number, self._hidden_seats(game)))

    async def _finish(self, live: LiveGame) -> FinishOutcome | None:
        """Store the result of a game that is over (None: it was cancelled) and forget it."""
        game = live.game
        assert game is not None
        if game.ended is Ending.CANCELLED:
            await self.store.cancel_game(live.game_id)
            await self._end_live(live, "cancelled")
            return None
        outcome = await self.store.finish_game(live.game_id, self.results(live))
        await self._end_live(live, "finished")
        return outcome

    def results(self, live: LiveGame) -> list[SeatResult]:
        game = live.game
        assert game is not None
        tallies = seat_tallies(game)
        places = game.places()
        scores = game.scores
        last = game.sides
        return [
            SeatResult(
                seat=s.seat, player_key=str(s.left_user_id) if s.left_user_id else s.player_key,
                name=s.left_name or s.name, final_score=scores[s.seat],
                # Whoever left forfeited: last place and no win, whatever the computer made of the seat.
                place=last if s.left_user_id else places[s.seat],
                won=s.seat in game.winners and not s.left_user_id, hands=tallies[s.seat].hands,
                bids_made=tallies[s.seat].bids_made, bids_set=tallies[s.seat].bids_set,
                nils_tried=tallies[s.seat].nils_tried, nils_made=tallies[s.seat].nils_made,
                bags=tallies[s.seat].bags,
            )
            for s in live.seats
        ]

    async def _end_live(self, live: LiveGame, status: str) -> None:
        """Forget an ended game: its buttons then answer that it isn't running, and a server that
        plays all day doesn't keep every game it ever ran in memory."""
        live.status = status
        if self._channels.get(live.channel_id) is live:
            del self._channels[live.channel_id]
        self._games.pop(live.game_id, None)
        for task in (live.timer, live.ping_timer):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        live.timer = live.ping_timer = None
        live.deadline = None

    # ----------------------------------------------------------------------------- timers
    def _next_deadline(self, live: LiveGame, keep: Deadline | None = None) -> Deadline | None:
        """Who must act next and by when: a computer player's move, or a human's reminder
        (``keep``: a saved human deadline, honoured after a restart)."""
        game = live.game
        if game is None or game.is_over or live.status != "playing":
            return None
        now = self._clock.now()
        if game.phase is Phase.DEALING:
            return Deadline("deal", now + self.hand_pause)
        if game.turn is None:
            return None
        if live.seats[game.turn].is_bot:
            return Deadline("bot", now + self.bot_move_delay)
        if keep is not None and keep.kind in ("remind", "takeover"):
            return keep
        return Deadline("remind", now + live.turn_timeout)

    def _arm(self, live: LiveGame, deadline: Deadline | None) -> None:
        if live.timer is not None and live.timer is not asyncio.current_task():
            live.timer.cancel()
        live.timer = None
        live.deadline = deadline
        if deadline is not None:
            live.timer = asyncio.create_task(self._run_timer(live, live.token, deadline))

    def _arm_ping(self, live: LiveGame) -> None:
        """A person whose turn has begun hears about it if they haven't acted a few seconds later."""
        if live.ping_timer is not None and live.ping_timer is not asyncio.current_task():
            live.ping_timer.cancel()
        live.ping_timer = None
        seat = live.human_turn()
        if seat is not None and live.turn_ping_delay > 0:
            at = self._clock.now() + live.turn_ping_delay
            live.ping_timer = asyncio.create_task(self._run_ping(live, seat, live.token, at))

    async def _run_ping(self, live: LiveGame, seat: int, token: int, at: float) -> None:
        await self._clock.sleep_until(at)
        async with live.lock:
            if live.token == token and live.human_turn() == seat:
                self._listener.publish(live, [TurnStarted(seat, token)])

    async def _schedule(self, live: LiveGame, keep: Deadline | None = None) -> None:
        """Re-arm outside an action (recovery, a seat changing hands), saving the deadline if it changed."""
        deadline = self._next_deadline(live, keep)
        if _saved(deadline) != _saved(live.deadline):
            await self.store.set_deadline(live.game_id, _saved(deadline))
        self._arm(live, deadline)

    async def _run_timer(self, live: LiveGame, token: int, deadline: Deadline) -> None:
        try:
            await self._clock.sleep_until(deadline.at)
            async with live.lock:
                if live.token != token or live.deadline is not deadline or not live.active:
                    return
                if deadline.kind == "expire":
                    minutes = round(self.lobby_timeout / 60)
                    await self._cancel_locked(live, f"nobody started it within {minutes} minutes")
                    return
                if deadline.kind == "deal":
                    await self._deal_next(live)
                    return
                if deadline.kind == "retry":  # only the game-over post can still be unpublished
                    owed = [p for p in await self.store.pending_posts()
                            if p.game_id == live.game_id and p.kind == "game_over"]
                    await self._carry_on(live, owed)
                    return
                game = live.game
                assert game is not None and game.turn is not None
                seat = game.turn
                if deadline.kind == "remind":
                    following = Deadline("takeover", deadline.at + live.turn_timeout)
                    await self.store.set_deadline(live.game_id, following)
                    self._listener.publish(live, [TurnReminder(seat)])
                    self._arm(live, following)
                    return
                occupant = live.seats[seat]
                level = occupant.bot_level or self._takeover_level
                view = seat_view(game, seat)
            # Think outside the lock so people's clicks in this game are never held up by search.
            seed = zlib.crc32(f"{live.game_id}/{token}".encode())
            move = await self._decider.decide(level, view, seed)
            async with live.lock:
                game = live.game
                if game is None or live.token != token or not live.active:
                    return
                extra: list[Change] = [] if occupant.is_bot else [ActedForPlayer(seat)]
                await self._apply(live, lambda: apply_move(game, seat, move), extra)
        except asyncio.CancelledError:
            raise
        except SaveFailed as failure:  # nobody waits for an answer: try again a little later
            log.warning("game %s: a timed action wasn't saved (%s); retrying", live.game_id, failure)
            self._arm(live, self._retry_deadline(live))
        except Refusal as refusal:
            log.error("game %s: a computer move was refused: %s", live.game_id, refusal)
        except StoreError:
            log.warning("game %s: a timer's save failed; retrying", live.game_id, exc_info=True)
            self._arm(live, self._retry_deadline(live))
        except Exception:
            log.exception("game %s: timer failed", live.game_id)

    # --------------------------------------------------------------------------- queries
    def view_for(self, live: LiveGame, user_id: int) -> SeatView:
        seat = live.seat_of(user_id)
        if seat is None:
            raise Refusal("You're not playing in this game.")
        if live.game is None:
            raise Refusal("The game hasn't started yet.")
        return seat_view(live.game, seat)

    def bid_choices(self, live: LiveGame, user_id: int) -> list[str]:
        """What autocomplete offers for /spades bid: exactly the legal bids, in words; while the
        seat may still bid blind nil, also the way to look at the cards instead."""
        seat = live.seat_of(user_id)
        if seat is None or live.game is None:
            return []
        game = live.game
        show = [SHOW_MY_CARDS] if game.can_reveal(seat) else []
        if game.turn != seat:
            return show
        choices = ["blind nil"] if game.can_bid(seat, 0, blind=True) else []
        choices += show
        for bid in game.legal_bids(seat):
            choices.append("nil" if bid == 0 else str(bid))
        return choices

    def cards_hidden(self, live: LiveGame, user_id: int) -> bool:
        """Whether this player still has to choose between blind nil and looking at their cards."""
        seat = live.seat_of(user_id)
        return seat is not None and live.game is not None and live.game.cards_hidden(seat)

    def card_choices(self, live: LiveGame, user_id: int) -> tuple[Card, ...]:
        seat = live.seat_of(user_id)
        if seat is None or live.game is None:
            return ()
        return live.game.legal_cards(seat)

    # --------------------------------------------------------------------------- guards
    @staticmethod
    def _require_lobby(live: LiveGame) -> None:
        if live.status == "playing":
            raise Refusal("The game has already started.")
        if live.status != "lobby":
            raise Refusal("This game is over.")

    @staticmethod
    def _require_playing(live: LiveGame) -> None:
        if live.status == "lobby":
            raise Refusal("The game hasn't started yet.")
        if live.status != "playing":
            raise Refusal("This game is over.")

    @staticmethod
    def _require_host(live: LiveGame, user_id: int, what: str) -> None:
        if user_id != live.host_id:
            raise Refusal(f"Only the host can {what}.")

    async def set_lobby_message(self, live: LiveGame, message_id: int) -> None:
        """The message now showing the lobby. Joins may have come while it was being posted (their
        edits had no message to go to), so it is rendered once more."""
        await self.store.set_lobby_message(live.game_id, message_id)
        live.lobby_message_id = message_id
        self._listener.publish(live, [LobbyChanged()])

    async def set_table_message(self, live: LiveGame, message_id: int | None) -> None:
        """Which message shows the table (a restart edits it again); only cosmetic if not saved."""
        live.table_message_id = message_id
        try:
            await self.store.set_table_message(live.game_id, message_id)
        except StoreError:
            log.warning("game %s: the table message id wasn't saved", live.game_id, exc_info=True)

    async def _set_seats(self, live: LiveGame, seats: list[Seat]) -> None:
        with _saving("nothing changed"):
            await self.store.set_seats(live.game_id, seats)
        live.seats = seats


def _looks_like_game_id(text: str) -> bool:
    return 1 <= len(text) <= 32 and all(c in "0123456789abcdef" for c in text)
