"""Lobbies and the life of a game around play: opening one (or a rematch), seats, starting,
leaving, cancelling, a server's defaults, and which messages show the lobby and the table."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from bot.engine import EngineError, Game, Mode, Rules
from bot.engine.names import named
from bot.service.changes import Change, GameCancelled, GameStarted, LobbyChanged, SeatTakenOver, TableChanged
from bot.service.context import (
    BOT_LEVELS,
    Context,
    looks_like_game_id,
    require_host,
    require_lobby,
    require_playing,
    saving,
)
from bot.service.errors import Refusal, SaveFailed
from bot.service.inputs import parse_whole_number
from bot.service.live import CancelRequest, LiveGame
from bot.service.outbox import Outbox, results
from bot.service.play import Play
from bot.service.steps import Step, post_for
from bot.service.timers import Timers
from bot.store import ChannelBusyError, GameStateError, Seat, StoreError

log = logging.getLogger(__name__)

MIN_TURN_TIMEOUT, MAX_TURN_TIMEOUT = 15, 3600
MAX_TURN_PING_DELAY = 60
CANCEL_REQUEST_TIME = 60.0  # seconds the other players have to agree to the host's cancel


class Lobby:
    def __init__(self, context: Context, outbox: Outbox, timers: Timers, play: Play) -> None:
        self._context = context
        self._store = context.store
        self._outbox = outbox
        self._timers = timers
        self._play = play
        self._create_locks: dict[int, asyncio.Lock] = {}  # per channel: one game per channel

    # ------------------------------------------------------------------------- settings
    async def server_defaults(self, guild_id: int) -> dict[str, Any]:
        return await self._store.get_settings(guild_id)

    async def update_settings(self, guild_id: int, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and save server defaults: mode, rule options, turn timeout, turn ping delay.
        A default that would make every later /spades new fail is refused now, not then."""
        current = await self._store.get_settings(guild_id)
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
        with saving("the settings didn't change"):
            return await self._store.update_settings(guild_id, clean)

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
            existing = self._context.channels.get(channel_id)
            if existing is not None:
                what = "a lobby" if existing.status == "lobby" else "a game"
                raise Refusal(f"There's already {what} in this channel. Use /spades table to see it.")
            defaults = await self._store.get_settings(guild_id)
            try:
                game_mode = Mode.parse(mode or defaults.get("mode", "cutthroat"))
                rules = Rules.from_options(defaults.get("rules", {}))
                rules = Rules.from_options(dict(options or {}), base=rules)
                if defaults.get("rules", {}).get("hints") == "off":  # the server's off is final
                    rules = Rules.from_options({"hints": "off"}, base=rules)
                rules.check_mode(game_mode)
            except EngineError as error:
                raise Refusal(str(error)) from None
            seats = [Seat(0, host_name, user_id=host_id)]
            for level in computer_levels[: game_mode.seats - 1]:
                seats.append(Seat(len(seats), _computer_name(seats, level), bot_level=level))
            with saving("no lobby was opened"):
                for _ in range(5):
                    game_id = self._context.new_game_id()
                    try:
                        await self._store.create_game(
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
                            turn_timeout=self._context.pace.turn_timeout)
            await self._context.apply_server_settings(live)
            self._context.register(live)
            async with live.lock:
                await self._timers.keep_lobby_open(live)
                self._context.publish(live, [LobbyChanged()])
            return live

    async def rematch(self, finished_game_id: str, guild_id: int, channel_id: int, user_id: int, name: str,
                      ) -> tuple[LiveGame, bool]:
        """Rematch on a game-over post: the first click of one of its players opens a lobby with the
        same mode, rules and computer players; each later click seats its clicker (anyone, as Join
        would). A full rematch lobby starts by itself. Returns the lobby and whether this click
        opened it (that click shows it in the channel): everyone clicks at once at a game's end, so
        a click that finds no lobby may still lose the race to open one, and then takes a seat in
        the winner's."""
        existing = self._context.channels.get(channel_id)
        if existing is None:
            # Its row and seats say all a rematch needs: its events (a replay) are not read.
            finished = await self._store.get_game(finished_game_id) if looks_like_game_id(finished_game_id) else None
            if finished is None or finished.guild_id != guild_id or finished.channel_id != channel_id:
                raise Refusal("That game isn't one I can set up again here.")
            if user_id not in {s.left_user_id or s.user_id for s in finished.seats}:
                raise Refusal("A rematch is opened by one of that game's players; once it's open, anyone can "
                              "join it. Or start your own game with `/spades new`.")
            levels = [s.bot_level for s in finished.seats if s.bot_level is not None and s.left_user_id is None]
            try:
                live = await self.new_lobby(guild_id, channel_id, user_id, name, finished.mode,
                                            finished.rules, computer_levels=levels)
            except Refusal:
                existing = self._context.channels.get(channel_id)
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

    async def join(self, live: LiveGame, user_id: int, name: str) -> None:
        async with live.lock:
            require_lobby(live)
            if live.seat_of(user_id) is not None:
                raise Refusal("You're already seated in this game.")
            if live.is_full:
                raise Refusal("This game is full.")
            await self._set_seats(live, [*live.seats, Seat(len(live.seats), name, user_id=user_id)])
            await self._timers.keep_lobby_open(live)
            self._context.publish(live, [LobbyChanged()])

    async def add_bot(self, live: LiveGame, user_id: int, level: str) -> None:
        async with live.lock:
            require_lobby(live)
            require_host(live, user_id, "add computer players")
            if level not in BOT_LEVELS:
                raise Refusal(f"Unknown level “{level}”: use {', '.join(BOT_LEVELS)}.")
            if live.is_full:
                raise Refusal("This game is full.")
            seat = Seat(len(live.seats), _computer_name(live.seats, level), bot_level=level)
            await self._set_seats(live, [*live.seats, seat])
            await self._timers.keep_lobby_open(live)
            self._context.publish(live, [LobbyChanged()])

    async def leave(self, live: LiveGame, user_id: int) -> None:
        """In the lobby: give up the seat. In a game: forfeit it (see `_forfeit`)."""
        async with live.lock:
            seat = live.seat_of(user_id)
            if seat is None:
                raise Refusal("You're not in this game.")
            if live.status == "lobby":
                remaining = [s for s in live.seats if s.user_id != user_id]
                if not any(not s.is_bot for s in remaining):
                    await self.cancel_locked(live, "everyone left the lobby")
                    return
                reseated = [Seat(i, s.name, s.user_id, s.bot_level) for i, s in enumerate(remaining)]
                await self._set_seats(live, reseated)
                if live.host_id == user_id:
                    live.host_id = next(s.user_id for s in reseated if not s.is_bot)
                await self._timers.keep_lobby_open(live)
                self._context.publish(live, [LobbyChanged()])
                return
            require_playing(live)
            if live.game is None or live.game.is_over:  # over, its result being saved: nothing to forfeit
                raise Refusal("This game is over.")
            await self._forfeit(live, seat)

    async def _forfeit(self, live: LiveGame, seat: int) -> None:
        """A person leaves a running game: a computer player takes the seat and the leaver's loss is
        saved with it, so it counts whatever becomes of the game. With nobody left to play for, the
        game ends at once, decided by the score (the last leaver's side last). Lock held."""
        game = live.game
        assert game is not None
        old = live.seats[seat]
        replacement = Seat(seat, f"{old.name} (bot)", bot_level=self._context.takeover_level,
                           left_user_id=old.user_id, left_name=old.name)
        seats = list(live.seats)
        seats[seat] = replacement
        with saving("you're still in the game"):
            await self._store.forfeit_seat(live.game_id, seats, results(live, seats), seat)
        live.seats = seats
        live.name_seats()
        self._context.publish(live, [SeatTakenOver(seat, old.name), TableChanged()])
        if any(not s.is_bot for s in seats):
            await self._timers.schedule(live)
            return
        before = game.event_count
        game.forfeit(seat)
        try:
            await self._play.carry_out(live, Step(before, [], [], game_over=True, timer=None))
        except SaveFailed:  # the loss is saved; the computer players play the game out instead
            await self._timers.schedule(live)

    async def start(self, live: LiveGame, user_id: int) -> None:
        async with live.lock:
            require_lobby(live)
            require_host(live, user_id, "start the game")
            missing = live.mode.seats - len(live.seats)
            if missing:
                plural = "s" if missing > 1 else ""
                raise Refusal(f"Waiting for {missing} more player{plural}: use Join, or Add bot.")
            game = Game.new(live.game_id, live.mode, live.rules, seed=self._context.new_seed(), names=live.names())
            with saving("the game didn't start"):
                await self._store.start_game(live.game_id, game.setup_json())
            live.game = game
            live.status = "playing"
            self._context.publish(live, [GameStarted()])
            try:
                await self._play.deal_next(live)
            except SaveFailed:  # started, but the first deal wasn't saved: it is retried shortly
                self._timers.retry(live)
                raise

    async def cancel(self, live: LiveGame, user_id: int, is_admin: bool, name: str) -> CancelRequest | None:
        """End the game, with nothing counting for those still seated. Before the deal the host
        cancels at once; once cards are dealt the other seated people must agree (the request comes
        back; see `agree_to_cancel`). A member with Manage Server cancels outright. A tournament
        table is stopped by its organiser (or Manage Server) only, and the tournament decides it."""
        async with live.lock:
            if not live.active:
                raise Refusal("This game is already over.")
            if live.organiser_id is not None:
                if user_id != live.organiser_id and not is_admin:
                    raise Refusal("This is a tournament table: only the tournament's organiser or a member "
                                  "with Manage Server can stop it.")
                await self.cancel_locked(live, f"stopped by {named(name)}; it is decided by the score at that moment")
                return None
            if is_admin:
                await self.cancel_locked(live, f"cancelled by {named(name)}, who manages this server")
                return None
            if user_id != live.host_id or live.seat_of(user_id) is None:  # a host who left is no longer one
                raise Refusal("Only the host or a member with Manage Server can cancel the game.")
            asked = frozenset(s.user_id for s in live.seats if s.user_id is not None and s.user_id != user_id)
            if live.game is None or not asked:
                await self.cancel_locked(live, "cancelled by the host")
                return None
            request = CancelRequest(user_id, asked, self._context.clock.now() + CANCEL_REQUEST_TIME)
            live.cancel_request = request
            return request

    async def agree_to_cancel(self, live: LiveGame, user_id: int) -> CancelRequest | None:
        """A seated person agrees to the host's request; the last agreement cancels the game
        (None comes back), until then the request does."""
        async with live.lock:
            request = live.cancel_request
            if not live.active or request is None or self._context.clock.now() > request.until:
                raise Refusal("No request to cancel this game is waiting (one lasts a minute; the host can "
                              "ask again with /spades cancel).")
            if user_id not in request.asked:
                raise Refusal("Only the other people seated in this game are asked to agree.")
            if user_id in request.agreed:
                raise Refusal("You've already agreed; waiting for the others.")
            request.agreed.add(user_id)
            if request.agreed != request.asked:
                return request
            await self.cancel_locked(live, "cancelled by the host, with every player's agreement")
            return None

    async def cancel_for(self, live: LiveGame, reason: str) -> None:
        """Cancel for a reason outside the game (its channel was deleted, access was lost for good)."""
        async with live.lock:
            if live.active:
                log.warning("cancelling game %s: %s", live.game_id, reason)
                await self.cancel_locked(live, reason)

    async def expire(self, live: LiveGame) -> None:
        """A lobby nobody started in time closes. Lock held."""
        minutes = round(self._context.pace.lobby_timeout / 60)
        await self.cancel_locked(live, f"nobody started it within {minutes} minutes")

    async def cancel_locked(self, live: LiveGame, reason: str) -> None:
        live.cancel_request = None
        cancelled = GameCancelled(reason)
        notice = post_for(cancelled)
        assert notice is not None
        game = live.game
        if game is not None and not game.is_over:
            before = game.event_count
            game.cancel()
            [notice_id] = await self._outbox.persist(live, before, None, [notice])
            with saving("the game wasn't cancelled"):
                await self._store.cancel_game(live.game_id)
        else:
            with saving("nothing was cancelled"):
                [notice_id] = await self._store.cancel_game(live.game_id, posts=[notice])
        self._context.end(live, "cancelled")
        changes: list[Change] = [replace(cancelled, post_id=notice_id)]
        if game is not None:
            changes.append(TableChanged())
        self._context.publish(live, changes)

    # ------------------------------------------------------------------- where it is shown
    async def set_lobby_message(self, live: LiveGame, message_id: int) -> None:
        """The message now showing the lobby. Joins may have come while it was being posted (their
        edits had no message to go to), so it is rendered once more."""
        await self._store.set_lobby_message(live.game_id, message_id)
        live.lobby_message_id = message_id
        self._context.publish(live, [LobbyChanged()])

    async def set_table_message(self, live: LiveGame, message_id: int | None) -> None:
        """Which message shows the table (a restart edits it again); only cosmetic if not saved."""
        live.table_message_id = message_id
        try:
            await self._store.set_table_message(live.game_id, message_id)
        except StoreError:
            log.warning("game %s: the table message id wasn't saved", live.game_id, exc_info=True)

    async def _set_seats(self, live: LiveGame, seats: list[Seat]) -> None:
        with saving("nothing changed"):
            await self._store.set_seats(live.game_id, seats)
        live.seats = seats


def _computer_name(seats: Sequence[Seat], level: str) -> str:
    return f"Bot {sum(1 for s in seats if s.is_bot) + 1} ({level})"
