"""The organiser's and the players' actions: opening a tournament for sign-up, entering, leaving,
replacing a player, starting a round early and cancelling. Each is checked, saved with the outbox
under the tournament's lock, and only then shown on the sign-up message."""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import Any

from bot.engine import EngineError, Mode, Rules
from bot.engine.names import named
from bot.engine.tournaments.swiss import units_per_table
from bot.engine.tournaments.tournament import MIN_TO_START, Stage, Tournament
from bot.service.context import BOT_LEVELS
from bot.service.errors import Refusal, SaveFailed
from bot.service.tournaments.context import CANCELLED, Context
from bot.service.tournaments.live import LiveTournament, team_name
from bot.service.tournaments.outbox import Outbox
from bot.service.tournaments.rounds import Rounds
from bot.service.tournaments.tables import Tables
from bot.store import ChannelBusyError, Post, StoreError

MAX_TABLES = 25  # per round: each is a thread, and a server has Discord's limit of active threads
MAX_ROUND_MINUTES = 24 * 60
MAX_SIGNUP_MINUTES = 7 * 24 * 60


class Roster:
    def __init__(self, context: Context, outbox: Outbox, tables: Tables, rounds: Rounds) -> None:
        self._context = context
        self._store = context.store
        self._host = context.host
        self._outbox = outbox
        self._tables = tables
        self._rounds = rounds

    async def new(self, guild_id: int, channel_id: int, organiser_id: int, *, mode: str | None = None,
                  options: dict[str, object] | None = None, rounds: int = 3, level: str = "normal",
                  signup_minutes: int | None = None, round_minutes: int | None = None) -> LiveTournament:
        """Open a tournament for sign-up in this channel (its tables will play in threads under its
        message). It starts when the organiser says so, or when sign-up closes if a window was given."""
        if channel_id in self._context.channels:
            raise Refusal("There's already a tournament in this channel: one at a time. "
                          "`/spades tournament standings` shows it.")
        if level not in BOT_LEVELS:
            raise Refusal(f"Unknown computer level “{level}”: use {', '.join(BOT_LEVELS)}.")
        for name, value, most in (("signup", signup_minutes, MAX_SIGNUP_MINUTES),
                                  ("round_minutes", round_minutes, MAX_ROUND_MINUTES)):
            if value is not None and not 1 <= value <= most:
                raise Refusal(f"`{name}` is a number of minutes from 1 to {most}.")
        defaults = await self._context.games.server_defaults(guild_id)
        rng = self._context.rng
        try:
            game_mode = Mode.parse(mode or "cutthroat")
            rules = Rules.from_options(dict(options or {}), base=Rules.from_options(defaults.get("rules", {})))
            tournament_id = f"{rng.getrandbits(32):08x}" if rng is not None else secrets.token_hex(4)
            seed = rng.getrandbits(63) if rng is not None else None
            engine = Tournament.new(tournament_id, game_mode, rules, rounds, seed)
        except EngineError as error:
            raise Refusal(str(error)) from None
        now = self._context.clock.now()
        deadline = now + signup_minutes * 60 if signup_minutes else None
        setup = {"engine": engine.to_json()["setup"], "computer": level, "round_minutes": round_minutes,
                 "signup_minutes": signup_minutes}
        try:
            info = await self._store.create_tournament(engine.tournament_id, guild_id=guild_id, channel_id=channel_id,
                                                       organiser_id=organiser_id, setup=setup, deadline=deadline)
        except ChannelBusyError:
            raise Refusal("There's already a tournament in this channel: one at a time.") from None
        except StoreError as error:
            raise SaveFailed("I couldn't save the tournament just now; please try again.") from error
        live = LiveTournament(info, engine, level, round_minutes, signup_minutes, deadline=deadline)
        self._context.register(live)
        self._rounds.arm(live, deadline)
        return live

    async def set_organiser_role(self, guild_id: int, role_id: int) -> dict[str, Any]:
        """Members with this role may run tournaments on the server, besides those with Manage Server."""
        try:
            return await self._store.update_settings(guild_id, {"tournament_role": role_id})
        except StoreError as error:
            raise SaveFailed("I couldn't save that just now; the settings didn't change.") from error

    async def set_message(self, live: LiveTournament, message_id: int) -> None:
        """The sign-up message is out: its threads hang from it, and it is edited as people join."""
        await self._store.set_tournament_message(live.tournament_id, message_id)
        live.info = replace(live.info, message_id=message_id)
        self._host.signup_changed(live)

    async def join(self, live: LiveTournament, user_id: int, name: str,
                   partner: tuple[int, str] | None = None) -> None:
        """Enter (with a partner in partners). Before round 1 and between rounds; a late entry starts
        with no points."""
        async with live.lock:
            _require_open(live)
            if live.engine.stage is Stage.PLAYING:
                raise Refusal(f"Round {live.round_number} is being played: entries open again when it ends.")
            if str(user_id) in {m for e in live.engine.entrants for m in e.members}:
                left = live.engine.entrant_of(str(user_id)) is None
                raise Refusal("You left this tournament, so you can't come back as a new entry." if left
                              else "You're already in this tournament.")
            if partner is not None:
                _require_newcomer(live, partner[0], partner[1])
            if live.mode is Mode.PARTNERS:
                if partner is None:
                    raise Refusal("This is a partners tournament: name your partner with `partner:`.")
                if partner[0] == user_id:
                    raise Refusal("Your partner must be someone else.")
                members, names = [str(user_id), str(partner[0])], [name, partner[1]]
                entrant_id, shown = "+".join(members), team_name(names)
            else:
                if partner is not None:
                    raise Refusal(f"A {live.mode.value} tournament is played alone: leave out `partner:`.")
                members, names, entrant_id, shown = [str(user_id)], [name], str(user_id), name
            if len(live.engine.active) >= MAX_TABLES * units_per_table(live.mode):
                raise Refusal(f"This tournament is full: {MAX_TABLES} tables a round is as many threads as I "
                              "open at once.")
            await self._outbox.act(live, lambda: live.engine.join(entrant_id, shown, members, names))
            self._host.signup_changed(live)

    async def leave(self, live: LiveTournament, user_id: int, player: int | None = None,
                    is_organiser: bool = False) -> str:
        """Leave (or, for the organiser, drop `player`): before round 1 the entry goes; later its
        results stay, a game it is in is played out by a computer, and it is not seated again."""
        async with live.lock:
            _require_open(live)
            target = user_id if player is None else player
            if target != user_id and not is_organiser:
                raise Refusal("Only the organiser (or a member with Manage Server) can drop someone else.")
            entrant = live.engine.entrant_of(str(target))
            if entrant is None:
                raise Refusal("You're not in this tournament." if target == user_id
                              else "That player isn't in this tournament.")
            await self._outbox.act(live, lambda: live.engine.drop(entrant.entrant_id))
            self._host.signup_changed(live)
        await self._tables.leave_running_game(live, entrant.members)
        return entrant.name

    async def replace(self, live: LiveTournament, out: int, new: int, new_name: str) -> str:
        """Between rounds, `new` takes over `out`'s entry with its points and history."""
        async with live.lock:
            _require_open(live)
            entrant = live.engine.entrant_of(str(out))
            if entrant is None:
                raise Refusal("That player isn't in this tournament.")
            _require_newcomer(live, new, new_name)
            names = [new_name if m == str(out) else live.engine.member_name(m) for m in entrant.members]
            await self._outbox.act(live, lambda: live.engine.replace(entrant.entrant_id, str(out), str(new),
                                                                      team_name(names), new_name))
            self._host.signup_changed(live)
            return entrant.name

    async def start(self, live: LiveTournament) -> int:
        """Seat round 1 now (or, between rounds, the next round without waiting); its number."""
        async with live.lock:
            _require_open(live)
            stage = live.engine.stage
            if stage is Stage.PLAYING:
                raise Refusal(f"Round {live.round_number} is being played; the next one is seated when it ends.")
            needed = MIN_TO_START[live.mode] if stage is Stage.SIGNUP else 2
            if len(live.engine.active) < needed:
                what = "teams" if live.mode is Mode.PARTNERS else "players"
                raise Refusal(f"A {live.mode.value} tournament needs at least {needed} {what}; "
                              f"{len(live.engine.active)} signed up so far.")
            await self._rounds.seat(live)
            return live.round_number

    async def cancel(self, live: LiveTournament, reason: str = "cancelled by its organiser") -> None:
        """Stop it; nothing of it counts. Its running games are cancelled too."""
        async with live.lock:
            _require_open(live)
            await self._outbox.act(live, live.engine.cancel, posts=[Post(CANCELLED, {"reason": reason})],
                                   status="cancelled", deadline=None)
            self._context.forget(live)
            self._host.signup_changed(live)
            running = [g for g in (self._tables.running_game(live, key) for key in live.tables) if g is not None]
        for game in running:
            await self._context.games.cancel_for(game, "the tournament was cancelled")


def _require_newcomer(live: LiveTournament, user_id: int, name: str) -> None:
    """Someone another person brings in (a partner, a replacement) plays for no entry yet, and
    didn't leave: said with their name (the engine only knows their id)."""
    entrant = next((e for e in live.engine.entrants if str(user_id) in e.members), None)
    if entrant is not None:
        left = entrant.entrant_id in live.engine.dropped
        raise Refusal(f"{named(name)} {'left' if left else 'is already in'} this tournament.")


def _require_open(live: LiveTournament) -> None:
    if live.engine.stage in (Stage.OVER, Stage.CANCELLED):
        raise Refusal(f"This tournament is {'over' if live.engine.stage is Stage.OVER else 'cancelled'}.")
