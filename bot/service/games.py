"""Games per channel: one lock per game, the engine for rules, the store before every answer, timers.

Every accepted action is saved before the caller hears "yes", so nothing acknowledged is lost;
a game is rebuilt from its saved events after a restart. No discord imports: the Discord layer
calls these methods and renders the changes published to its :class:`Listener`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.ai import LEVELS, Move, apply_move, make_player
from bot.engine import (
    Card,
    Ending,
    EngineError,
    Game,
    Mode,
    Phase,
    Rules,
    SeatView,
    event_to_json,
    parse_card,
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
)
from bot.service.clock import Clock, SystemClock
from bot.service.errors import Refusal, SaveFailed
from bot.store import (
    Deadline,
    GameInfo,
    GameStateError,
    Recovery,
    Seat,
    SeatResult,
    Store,
    StoreError,
)

log = logging.getLogger(__name__)

BOT_LEVELS = tuple(level for level in LEVELS if level != "random")
MIN_TURN_TIMEOUT, MAX_TURN_TIMEOUT = 15, 3600


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


@dataclass(eq=False)
class LiveGame:
    """A game the service is running: its row, seats, engine state, lock and timer."""

    game_id: str
    guild_id: int
    channel_id: int
    mode: Mode
    rules: Rules
    host_id: int | None
    seats: list[Seat]
    turn_timeout: float
    status: str = "lobby"
    game: Game | None = None
    lobby_message_id: int | None = None
    table_message_id: int | None = None
    deadline: Deadline | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.Task[None] | None = None

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)

    @property
    def is_full(self) -> bool:
        return len(self.seats) == self.mode.seats

    @property
    def active(self) -> bool:
        return self.status in ("lobby", "playing")

    def names(self) -> list[str]:
        return [s.name for s in self.seats]


def _saved(deadline: Deadline | None) -> Deadline | None:
    """What is stored of a deadline: a human's survives restarts; a computer's move is just redone."""
    return deadline if deadline is not None and deadline.kind != "bot" else None


def parse_bid(text: str) -> tuple[int, bool]:
    """``nil``, ``blind nil`` or a number, as people type them, into (tricks, blind)."""
    cleaned = " ".join(text.strip().lower().replace("_", " ").replace("-", " ").split())
    if cleaned in ("blind nil", "blind", "bn", "blind 0"):
        return 0, True
    if cleaned in ("nil", "zero", "0"):
        return 0, False
    if cleaned.isdigit():
        return int(cleaned), False
    raise Refusal(f"“{text}” isn't a bid: type nil, blind nil, or a number of tricks.")


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
        takeover_level: str = "normal",
    ) -> None:
        self.store = store
        self._listener = listener
        self._decider = decider or InlineDecider()
        self._clock = clock or SystemClock()
        self.bot_move_delay = bot_move_delay
        self.turn_timeout = turn_timeout
        self._takeover_level = takeover_level if takeover_level in BOT_LEVELS else "random"
        self._channels: dict[int, LiveGame] = {}
        self._games: dict[str, LiveGame] = {}
        self._create_locks: dict[int, asyncio.Lock] = {}  # per channel: one game per channel

    # ------------------------------------------------------------------ start-up and shutdown
    async def recover(self) -> Recovery:
        """Load every unfinished game from the store and pick up where it stopped."""
        recovery = await self.store.recover()
        for damaged in recovery.damaged:
            log.error("game %s can't be replayed and was set aside: %s", damaged.game_id, damaged.reason)
        for stored in recovery.games:
            live = self._live_from_info(stored.info)
            settings = await self.store.get_settings(live.guild_id)
            live.turn_timeout = float(settings.get("turn_timeout", self.turn_timeout))
            live.game = stored.game
            if live.game is not None:
                for seat in live.seats:
                    live.game.rename(seat.seat, seat.name)
            self._register(live)
            async with live.lock:
                if live.status == "playing":
                    await self._resume(live)
        return recovery

    async def _resume(self, live: LiveGame) -> None:
        game = live.game
        if game is None:  # stopped between start and the first save of the setup's game
            return
        changes: list[Change] = []
        if game.is_over:
            await self._finish(live, changes)
        elif game.phase is Phase.DEALING:  # stopped between a hand's last card and the next deal
            before = game.event_count
            self._deal(live, changes)
            deadline = self._next_deadline(live)
            await self._persist(live, before, deadline)
            self._listener.publish(live, [*changes, TableChanged()])
            self._arm(live, deadline)
            return
        if changes:
            self._listener.publish(live, changes)
        await self._schedule(live, keep=live.deadline)

    async def close(self) -> None:
        for live in list(self._games.values()):
            if live.timer is not None:
                live.timer.cancel()
        tasks = [live.timer for live in self._games.values() if live.timer is not None]
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ---------------------------------------------------------------------------- lookups
    def game_in_channel(self, channel_id: int) -> LiveGame | None:
        return self._channels.get(channel_id)

    def require_channel_game(self, channel_id: int) -> LiveGame:
        live = self._channels.get(channel_id)
        if live is None:
            raise Refusal("There's no game in this channel. Start one with /spades new.")
        return live

    def require_game(self, game_id: str) -> LiveGame:
        live = self._games.get(game_id)
        if live is None:
            raise Refusal("That game isn't running any more.")
        return live

    def _register(self, live: LiveGame) -> None:
        self._games[live.game_id] = live
        if live.active:
            self._channels[live.channel_id] = live

    def _live_from_info(self, info: GameInfo) -> LiveGame:
        return LiveGame(
            game_id=info.game_id,
            guild_id=info.guild_id,
            channel_id=info.channel_id,
            mode=Mode.parse(info.mode),
            rules=Rules.from_options(info.rules),
            host_id=info.host_id,
            seats=list(info.seats),
            turn_timeout=self.turn_timeout,
            status=info.status,
            lobby_message_id=info.lobby_message_id,
            table_message_id=info.table_message_id,
            deadline=info.deadline,
        )

    # ------------------------------------------------------------------------- settings
    async def server_defaults(self, guild_id: int) -> dict[str, Any]:
        return await self.store.get_settings(guild_id)

    async def update_settings(self, guild_id: int, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Validate and save server defaults: mode, rule options, turn timeout."""
        current = await self.store.get_settings(guild_id)
        clean: dict[str, Any] = {}
        if "mode" in changes and changes["mode"] is not None:
            clean["mode"] = Mode.parse(str(changes["mode"])).value
        if "turn_timeout" in changes and changes["turn_timeout"] is not None:
            timeout = int(changes["turn_timeout"])
            if not MIN_TURN_TIMEOUT <= timeout <= MAX_TURN_TIMEOUT:
                raise Refusal(f"turn_timeout takes {MIN_TURN_TIMEOUT} to {MAX_TURN_TIMEOUT} seconds.")
            clean["turn_timeout"] = timeout
        rule_changes = {
            k: v for k, v in changes.items() if k not in ("mode", "turn_timeout") and v is not None
        }
        if rule_changes:
            try:
                merged = Rules.from_options({**current.get("rules", {}), **rule_changes})
            except EngineError as error:
                raise Refusal(str(error)) from None
            clean["rules"] = merged.changed()
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
            host = Seat(0, host_name, user_id=host_id)
            for _ in range(5):
                game_id = secrets.token_hex(4)
                try:
                    await self.store.create_game(
                        game_id, guild_id=guild_id, channel_id=channel_id, mode=game_mode.value,
                        rules=rules.to_dict(), host_id=host_id, seats=[host],
                    )
                    break
                except GameStateError:
                    continue
            else:  # pragma: no cover - five random 32-bit collisions
                raise Refusal("Couldn't open a lobby just now; please try again.")
            live = LiveGame(
                game_id, guild_id, channel_id, game_mode, rules, host_id, [host],
                turn_timeout=float(defaults.get("turn_timeout", self.turn_timeout)),
            )
            self._register(live)
            self._listener.publish(live, [LobbyChanged()])
            return live

    async def join(self, live: LiveGame, user_id: int, name: str) -> None:
        async with live.lock:
            self._require_lobby(live)
            if live.seat_of(user_id) is not None:
                raise Refusal("You're already seated in this game.")
            if live.is_full:
                raise Refusal("This game is full.")
            await self._set_seats(live, [*live.seats, Seat(len(live.seats), name, user_id=user_id)])
            self._listener.publish(live, [LobbyChanged()])

    async def add_bot(self, live: LiveGame, user_id: int, level: str) -> None:
        async with live.lock:
            self._require_lobby(live)
            self._require_host(live, user_id, "add computer players")
            if level not in BOT_LEVELS:
                raise Refusal(f"Unknown level “{level}”: use {', '.join(BOT_LEVELS)}.")
            if live.is_full:
                raise Refusal("This game is full.")
            seat = len(live.seats)
            name = f"Bot {sum(1 for s in live.seats if s.is_bot) + 1} ({level})"
            await self._set_seats(live, [*live.seats, Seat(seat, name, bot_level=level)])
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
                if live.host_id == user_id:
                    live.host_id = next(s.user_id for s in reseated if not s.is_bot)
                await self._set_seats(live, reseated)
                self._listener.publish(live, [LobbyChanged()])
                return
            self._require_playing(live)
            old = live.seats[seat]
            replacement = Seat(seat, f"{old.name} (bot)", bot_level=self._takeover_level,
                               left_user_id=old.user_id, left_name=old.name)
            seats = list(live.seats)
            seats[seat] = replacement
            await self._set_seats(live, seats)
            assert live.game is not None
            live.game.rename(seat, replacement.name)
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
            game = Game.new(live.game_id, live.mode, live.rules, names=live.names())
            await self.store.start_game(live.game_id, game.setup_json())
            live.game = game
            live.status = "playing"
            changes: list[Change] = [GameStarted()]
            self._deal(live, changes)
            deadline = self._next_deadline(live)
            await self._persist(live, 0, deadline)
            changes.append(TableChanged())
            self._listener.publish(live, changes)
            self._arm(live, deadline)

    async def cancel(self, live: LiveGame, user_id: int, is_admin: bool) -> None:
        async with live.lock:
            if not live.active:
                raise Refusal("This game is already over.")
            if user_id != live.host_id and not is_admin:
                raise Refusal("Only the host or a member with Manage Server can cancel the game.")
            await self._cancel_locked(live, "cancelled by a player")

    async def cancel_for(self, live: LiveGame, reason: str) -> None:
        """Cancel for a reason outside the game (its channel was deleted, permissions were lost)."""
        async with live.lock:
            if live.active:
                log.warning("cancelling game %s: %s", live.game_id, reason)
                await self._cancel_locked(live, reason)

    async def _cancel_locked(self, live: LiveGame, reason: str) -> None:
        changes: list[Change] = []
        if live.game is not None and not live.game.is_over:
            before = live.game.event_count
            live.game.cancel()
            await self._persist(live, before, None)
        await self.store.cancel_game(live.game_id)
        await self._end_live(live, "cancelled")
        changes.append(GameCancelled(reason))
        self._listener.publish(live, changes)

    # ---------------------------------------------------------------------- play actions
    async def bid(self, live: LiveGame, user_id: int, text: str) -> None:
        tricks, blind = parse_bid(text)
        await self._player_action(live, user_id, lambda game, seat: game.bid(seat, tricks, blind=blind))

    async def reveal(self, live: LiveGame, user_id: int) -> None:
        await self._player_action(live, user_id, lambda game, seat: game.reveal(seat))

    async def play(self, live: LiveGame, user_id: int, card: str | Card) -> None:
        try:
            chosen = parse_card(card) if isinstance(card, str) else card
        except EngineError as error:
            raise Refusal(str(error)) from None
        await self._player_action(live, user_id, lambda game, seat: game.play(seat, chosen))

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

    async def _apply(
        self, live: LiveGame, action: Callable[[], object], extra: Sequence[Change] = ()
    ) -> None:
        """Run an engine action and what follows from it (the next deal), save all of it with the
        next turn's deadline in one write, then tell the listener and arm the timer. Lock held."""
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
            changes.append(HandScored(hand))
            if not game.is_over:
                self._deal(live, changes)
        deadline = self._next_deadline(live)
        await self._persist(live, before, deadline)
        if game.is_over:
            await self._finish(live, changes)
        changes.append(TableChanged())
        self._listener.publish(live, changes)
        self._arm(live, deadline)

    async def _persist(self, live: LiveGame, before: int, deadline: Deadline | None) -> None:
        """Save events ``before``..end and the next deadline as one action; on failure reload what
        was saved, so the game never runs ahead of the store."""
        game = live.game
        assert game is not None
        events = game.events[before:]
        try:
            await self.store.append_events(live.game_id, before + 1, [event_to_json(e) for e in events],
                                           _saved(deadline))
        except StoreError as error:
            log.exception("game %s: saving an action failed; reloading from the store", live.game_id)
            stored = await self.store.load_game(live.game_id)
            if stored is not None and stored.game is not None:
                live.game = stored.game
                for seat in live.seats:
                    live.game.rename(seat.seat, seat.name)
            raise SaveFailed("That couldn't be saved, so it didn't count. Please try again.") from error

    def _deal(self, live: LiveGame, changes: list[Change]) -> None:
        game = live.game
        assert game is not None
        game.deal()
        hidden = tuple(s for s in range(game.seats) if game.cards_hidden(s))
        changes.append(HandDealt(game.hand_number, hidden))

    async def _finish(self, live: LiveGame, changes: list[Change]) -> None:
        game = live.game
        assert game is not None
        if game.ended is Ending.CANCELLED:
            await self.store.cancel_game(live.game_id)
            await self._end_live(live, "cancelled")
            changes.append(GameOver(None))
            return
        outcome = await self.store.finish_game(live.game_id, self.results(live))
        await self._end_live(live, "finished")
        changes.append(GameOver(outcome))

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
        if live.timer is not None and live.timer is not asyncio.current_task():
            live.timer.cancel()
        live.timer = None
        live.deadline = None

    # ----------------------------------------------------------------------------- timers
    def _next_deadline(self, live: LiveGame, keep: Deadline | None = None) -> Deadline | None:
        """Who must act next and by when: a computer player's move, or a human's reminder
        (``keep``: a saved human deadline, honoured after a restart)."""
        game = live.game
        if game is None or game.is_over or game.turn is None or not live.active:
            return None
        now = self._clock.now()
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
        if deadline is not None and live.game is not None:
            live.timer = asyncio.create_task(self._run_timer(live, live.game.event_count, deadline))

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
                game = live.game
                if game is None or game.event_count != token or live.deadline is not deadline:
                    return
                seat = game.turn
                assert seat is not None
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
                if game is None or game.event_count != token or not live.active:
                    return
                extra: list[Change] = [] if occupant.is_bot else [ActedForPlayer(seat)]
                await self._apply(live, lambda: apply_move(game, seat, move), extra)
        except asyncio.CancelledError:
            raise
        except Refusal as refusal:
            log.error("game %s: a computer move was refused: %s", live.game_id, refusal)
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
        """What autocomplete offers for /spades bid: exactly the legal bids, in words."""
        seat = live.seat_of(user_id)
        if seat is None or live.game is None or live.game.turn != seat:
            return []
        game = live.game
        choices = ["blind nil"] if game.can_bid(seat, 0, blind=True) else []
        for bid in game.legal_bids(seat):
            choices.append("nil" if bid == 0 else str(bid))
        return choices

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
        await self.store.set_lobby_message(live.game_id, message_id)
        live.lobby_message_id = message_id

    async def set_table_message(self, live: LiveGame, message_id: int) -> None:
        await self.store.set_table_message(live.game_id, message_id)
        live.table_message_id = message_id

    async def _set_seats(self, live: LiveGame, seats: list[Seat]) -> None:
        await self.store.set_seats(live.game_id, seats)
        live.seats = seats
