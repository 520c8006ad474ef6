"""The tournament state machine: sign-up, rounds seated Swiss-style, table results, the end.

As in :mod:`bot.engine.game`, each action has three forms: ``verify_x`` raises an
:class:`EngineError` a player can read, ``can_x`` answers yes or no, and ``x`` acts and appends one
event. Replaying the events through the same actions rebuilds the tournament, so a stored one is
re-checked on load instead of trusted. Seating and standings live in :mod:`bot.engine.tournaments.swiss`.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Any

from bot.engine.errors import BadRecord, EngineError, IllegalAction, RuleError, WrongPhase
from bot.engine.game import Ending, Game
from bot.engine.rules import Mode, Rules
from bot.engine.tournaments.events import (
    Dropped,
    Ended,
    Joined,
    Replaced,
    RoundSeated,
    TableFinished,
    TournamentEvent,
    tournament_event_from_json,
    tournament_event_to_json,
)
from bot.engine.tournaments.swiss import (
    Entrant,
    RoundResult,
    Standing,
    Table,
    TableResult,
    decide_unfinished,
    is_ranking,
    members_per_entrant,
    seat_round,
    standings,
    units_per_table,
)

TOURNAMENT_FORMAT = "spades-tournament/1"
MAX_ROUNDS = 20
# Entrants needed to start: enough for one real game (computers may fill solo's last seat, five's last
# two, six's last three).
MIN_TO_START = {Mode.CUTTHROAT: 3, Mode.SOLO: 3, Mode.PARTNERS: 2, Mode.DUO: 2, Mode.FIVE: 3, Mode.SIX: 3}


class Stage(StrEnum):
    SIGNUP = "signup"  # entrants join and leave; no round yet
    PLAYING = "playing"  # a round is seated and some table has no result yet
    BETWEEN = "between"  # between rounds: drops, replacements and late entries
    OVER = "over"
    CANCELLED = "cancelled"


def table_result(game: Game) -> TableResult:
    """A table's result from its game, per tournament seat (per team in partners; per player in six,
    whose team-mates share their team's score and place).

    A finished game gives its places; one still running (the round's time is up) or cancelled is
    decided by the score now.
    """
    seats = range(game.seats) if game.mode is Mode.SIX else [game.side_seats(side)[0] for side in range(game.sides)]
    scores = tuple(game.scores[seat] for seat in seats)
    if game.is_over and game.ended is not Ending.CANCELLED:
        places = game.places()
        if game.mode is Mode.SIX:  # places per seat, team-mates tied: a ranking of six players
            return TableResult(scores, decide_unfinished([-place for place in places]))
        return TableResult(scores, tuple(places[seat] for seat in seats))
    return TableResult(scores, decide_unfinished(scores), unfinished=True)


def _is_name(name: object) -> bool:
    return isinstance(name, str) and bool(name.strip())


def _passes(check: Callable[..., object], *args: Any) -> bool:
    try:
        check(*args)
    except EngineError:
        return False
    return True


class Tournament:
    """A Swiss tournament in one mode: entrants, the rounds played, and where it stands."""

    def __init__(self, tournament_id: str, mode: Mode, rules: Rules, rounds: int, seed: int) -> None:
        rules.check_mode(mode)
        if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
            raise RuleError(f"A tournament has 1 to {MAX_ROUNDS} rounds.")
        self.tournament_id = tournament_id
        self.mode = mode
        self.rules = rules
        self.rounds = rounds
        self.seed = seed
        self._entrants: dict[str, Entrant] = {}  # sign-up order; those dropped after round 1 stay
        self._dropped: set[str] = set()
        self._member_names: dict[str, str] = {}  # player id: their own name (a team's entry has its own)
        self._played: list[RoundResult] = []
        self._events: list[TournamentEvent] = []
        self._stage = Stage.SIGNUP

    # ----------------------------------------------------------------- creation and persistence
    @classmethod
    def new(
        cls, tournament_id: str, mode: Mode | str, rules: Rules | None = None, rounds: int = 3,
        seed: int | None = None,
    ) -> Tournament:
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        return cls(tournament_id, Mode.parse(mode), rules or Rules(), rounds, seed)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": TOURNAMENT_FORMAT,
            "setup": {
                "tournament_id": self.tournament_id,
                "mode": self.mode.value,
                "rules": self.rules.to_dict(),
                "rounds": self.rounds,
                "seed": self.seed,
            },
            "events": [tournament_event_to_json(event) for event in self._events],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tournament:
        """Rebuild a tournament by replaying its events; anything inconsistent raises :class:`BadRecord`."""
        try:
            if data.get("format") != TOURNAMENT_FORMAT:
                raise BadRecord(f"not a {TOURNAMENT_FORMAT} document")
            setup = data["setup"]
            tournament = cls(
                str(setup["tournament_id"]), Mode.parse(setup["mode"]), Rules.from_options(setup["rules"]),
                setup["rounds"], int(setup["seed"]),
            )
            events = [tournament_event_from_json(event) for event in data["events"]]
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise BadRecord(f"damaged tournament data: {error!r}") from error
        except EngineError as error:
            raise BadRecord(f"damaged tournament data: {error}") from error
        tournament.replay(events)
        return tournament

    def replay(self, events: Sequence[TournamentEvent]) -> None:
        for index, event in enumerate(events):
            try:
                self.apply(event)
            except EngineError as error:
                raise BadRecord(f"event {index} ({event!r}) can't be replayed: {error}") from error

    def apply(self, event: TournamentEvent) -> None:
        """Carry out a logged event through the same checks as a live action."""
        if isinstance(event, Joined):
            self.join(event.entrant_id, event.name, event.members, event.names)
        elif isinstance(event, Dropped):
            self.drop(event.entrant_id)
        elif isinstance(event, Replaced):
            self.replace(event.entrant_id, event.old_member, event.new_member, event.name, event.new_name)
        elif isinstance(event, RoundSeated):
            if event.number != len(self._played) + 1:
                raise BadRecord(f"round {event.number} seated where round {len(self._played) + 1} was due")
            self.seat([Table(seats) for seats in event.tables])
        elif isinstance(event, TableFinished):
            if event.number != len(self._played):
                raise BadRecord(f"a result for round {event.number} during round {len(self._played)}")
            self.record(event.table, TableResult(event.scores, event.places, event.unfinished))
        elif event.cancelled:
            self.cancel()
        else:
            self.finish()

    # ----------------------------------------------------------------------------- queries
    @property
    def events(self) -> tuple[TournamentEvent, ...]:
        return tuple(self._events)

    @property
    def stage(self) -> Stage:
        return self._stage

    @property
    def entrants(self) -> tuple[Entrant, ...]:
        """Everyone entered, in sign-up order, including those dropped after play began."""
        return tuple(self._entrants.values())

    @property
    def active(self) -> tuple[Entrant, ...]:
        """The entrants the next round seats."""
        return tuple(e for e in self._entrants.values() if e.entrant_id not in self._dropped)

    @property
    def dropped(self) -> frozenset[str]:
        return frozenset(self._dropped)

    @property
    def played(self) -> tuple[RoundResult, ...]:
        """The rounds seated so far, the open one last, with the results recorded."""
        return tuple(self._played)

    def standings(self) -> list[Standing]:
        return standings(self.mode, self.entrants, self._played, self._dropped)

    def member_name(self, member: str) -> str:
        """A player's own name, as given when they joined or came in as a replacement."""
        return self._member_names[member]

    def entrant_of(self, member: str) -> Entrant | None:
        """The entrant a player plays for, if they are still in."""
        return next((e for e in self.active if member in e.members), None)

    def players_at(self, table: int) -> tuple[str | None, ...]:
        """The open round's table as game seats: a player id per seat, None for a computer.

        In partners the two teams sit across: the first team in seats 1 and 3, the second in 2 and 4.
        """
        if self._stage is not Stage.PLAYING or not 0 <= table < len(self._played[-1].tables):
            raise IllegalAction(f"There is no table {table + 1} in play.")
        per_member: list[tuple[str | None, ...]] = [
            self._entrants[e].members if e is not None else (None,) * members_per_entrant(self.mode)
            for e in self._played[-1].tables[table].seats
        ]
        if self.mode is not Mode.PARTNERS:
            return tuple(members[0] for members in per_member)
        return tuple(per_member[seat % 2][seat // 2] for seat in range(4))

    # ----------------------------------------------------------------------------- entrants
    def verify_join(self, entrant_id: str, name: str, members: Sequence[str],
                    names: Sequence[str] | None = None) -> None:
        self._check_open("Entries are closed while a round is being played.")
        if not isinstance(entrant_id, str) or not entrant_id or entrant_id in self._entrants:
            raise IllegalAction(f"Entrant id {entrant_id!r} is taken or empty.")
        if not _is_name(name):
            raise IllegalAction("An entrant needs a name.")
        needed = members_per_entrant(self.mode)
        if len(members) != needed or len(set(members)) != needed:
            raise IllegalAction("Partners tournaments take teams of two different players."
                                if needed == 2 else "One player per entry.")
        for member in members:
            self._check_new_player(member)
        if names is not None and (len(names) != len(members) or not all(_is_name(n) for n in names)):
            raise IllegalAction("Each player of an entry needs a name.")

    def can_join(self, entrant_id: str, name: str, members: Sequence[str], names: Sequence[str] | None = None) -> bool:
        return _passes(self.verify_join, entrant_id, name, members, names)

    def join(self, entrant_id: str, name: str, members: Sequence[str], names: Sequence[str] | None = None) -> Joined:
        """Enter a player (a team in partners); after round 1 they start with no points. `names`: each
        member's own name (by default the entry's)."""
        self.verify_join(entrant_id, name, members, names)
        own = tuple(n.strip() for n in names) if names is not None else (name.strip(),) * len(members)
        event = Joined(entrant_id, name.strip(), tuple(members), own)
        self._entrants[entrant_id] = Entrant(event.entrant_id, event.name, event.members)
        self._member_names.update(zip(event.members, event.names, strict=True))
        self._events.append(event)
        return event

    def verify_drop(self, entrant_id: str) -> None:
        self._check_not_ended()
        if entrant_id not in self._entrants or entrant_id in self._dropped:
            raise IllegalAction("That entrant is not in the tournament.")

    def can_drop(self, entrant_id: str) -> bool:
        return _passes(self.verify_drop, entrant_id)

    def drop(self, entrant_id: str) -> Dropped:
        """Leave. Before round 1 the entry is simply removed; later the results so far stay in the
        standings, a game in progress is played out (a computer takes over there), and no later
        round seats the entrant."""
        self.verify_drop(entrant_id)
        event = Dropped(entrant_id)
        if self._stage is Stage.SIGNUP:
            del self._entrants[entrant_id]
        else:
            self._dropped.add(entrant_id)
        self._events.append(event)
        return event

    def verify_replace(self, entrant_id: str, old_member: str, new_member: str, name: str,
                       new_name: str | None = None) -> None:
        if self._stage is not Stage.BETWEEN:
            raise WrongPhase("Players can be replaced between rounds only; before round 1, leave and join.")
        entrant = self._entrants.get(entrant_id)
        if entrant is None or entrant_id in self._dropped:
            raise IllegalAction("That entrant is not in the tournament.")
        if old_member not in entrant.members:
            raise IllegalAction(f"Player {old_member} doesn't play for {entrant.name}.")
        self._check_new_player(new_member)
        if not _is_name(name) or (new_name is not None and not _is_name(new_name)):
            raise IllegalAction("An entrant needs a name.")

    def can_replace(self, entrant_id: str, old_member: str, new_member: str, name: str,
                    new_name: str | None = None) -> bool:
        return _passes(self.verify_replace, entrant_id, old_member, new_member, name, new_name)

    def replace(self, entrant_id: str, old_member: str, new_member: str, name: str,
                new_name: str | None = None) -> Replaced:
        """A new player takes over an entry (its points and history stay with the entry). `name`: the
        entry's name from now on; `new_name`: the new player's own (by default the entry's)."""
        self.verify_replace(entrant_id, old_member, new_member, name, new_name)
        event = Replaced(entrant_id, old_member, new_member, name.strip(), (new_name or name).strip())
        entrant = self._entrants[entrant_id]
        members = tuple(new_member if m == old_member else m for m in entrant.members)
        self._entrants[entrant_id] = dataclasses.replace(entrant, name=event.name, members=members)
        self._member_names[new_member] = event.new_name
        self._events.append(event)
        return event

    # ----------------------------------------------------------------------------- rounds
    def verify_seat(self, tables: Sequence[Table] | None = None) -> RoundSeated:
        """Check a seating (or draw the seeded one) and return the event it would log."""
        self._check_open("This round is still being played.")
        if len(self._played) >= self.rounds:
            raise WrongPhase("Every round has been played.")
        active = self.active
        needed = MIN_TO_START[self.mode] if self._stage is Stage.SIGNUP else 2
        if len(active) < needed:
            raise IllegalAction(f"At least {needed} entrants are needed to seat a round; "
                                f"there are {len(active)}.")
        number = len(self._played) + 1
        if tables is None:
            tables = seat_round(active, self._played, self.mode, self.seed, number)
        size = units_per_table(self.mode)
        seated = sorted(e for table in tables for e in table.entrants)
        if sorted(e.entrant_id for e in active) != seated:
            raise IllegalAction("Every entrant still in must have exactly one seat.")
        if len(tables) != -(-len(active) // size) or any(
            len(table.seats) != size or not table.entrants for table in tables
        ):
            raise IllegalAction(f"Tables seat {size} each, and only the fewest computers needed.")
        return RoundSeated(number, tuple(table.seats for table in tables))

    def can_seat(self) -> bool:
        return _passes(self.verify_seat)

    def seat(self, tables: Sequence[Table] | None = None) -> RoundSeated:
        """Seat the next round: the seeded Swiss seating, or the one given (replays)."""
        event = self.verify_seat(tables)
        seating = tuple(Table(seats) for seats in event.tables)
        self._played.append(RoundResult(event.number, seating, (None,) * len(seating)))
        self._stage = Stage.PLAYING
        self._events.append(event)
        return event

    def verify_record(self, table: int, result: TableResult) -> None:
        if self._stage is not Stage.PLAYING:
            raise WrongPhase("No round is being played.")
        current = self._played[-1]
        if isinstance(table, bool) or not isinstance(table, int) or not 0 <= table < len(current.tables):
            raise IllegalAction(f"There is no table {table!r} in this round.")
        if current.results[table] is not None:
            raise IllegalAction(f"Table {table + 1} already has its result.")
        size = units_per_table(self.mode)
        values = (*result.scores, *result.places)
        if len(result.scores) != size or len(result.places) != size or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            raise IllegalAction(f"A result gives {size} scores and {size} places.")
        if not is_ranking(result.places):
            raise IllegalAction(f"{list(result.places)} are not places at a table.")
        if result.unfinished and tuple(result.places) != decide_unfinished(result.scores):
            raise IllegalAction("An unfinished game is decided by its score.")

    def can_record(self, table: int, result: TableResult) -> bool:
        return _passes(self.verify_record, table, result)

    def record(self, table: int, result: TableResult) -> TableFinished:
        """A table's result; the last one closes the round (and the tournament after the last round)."""
        self.verify_record(table, result)
        current = self._played[-1]
        event = TableFinished(current.number, table, tuple(result.scores), tuple(result.places),
                              result.unfinished)
        results = list(current.results)
        results[table] = TableResult(event.scores, event.places, event.unfinished)
        self._played[-1] = dataclasses.replace(current, results=tuple(results))
        if self._played[-1].complete:
            self._stage = Stage.OVER if current.number == self.rounds else Stage.BETWEEN
        self._events.append(event)
        return event

    # ----------------------------------------------------------------------------- the end
    def verify_finish(self) -> None:
        if self._stage is not Stage.BETWEEN:
            raise WrongPhase("A tournament can end early only between rounds, after round 1.")

    def can_finish(self) -> bool:
        return _passes(self.verify_finish)

    def finish(self) -> Ended:
        """End before the planned rounds are played: the standings now are final."""
        self.verify_finish()
        return self._end(cancelled=False)

    def verify_cancel(self) -> None:
        self._check_not_ended()

    def can_cancel(self) -> bool:
        return _passes(self.verify_cancel)

    def cancel(self) -> Ended:
        """Stop the tournament; nothing of it counts."""
        self.verify_cancel()
        return self._end(cancelled=True)

    def _end(self, *, cancelled: bool) -> Ended:
        event = Ended(cancelled)
        self._stage = Stage.CANCELLED if cancelled else Stage.OVER
        self._events.append(event)
        return event

    def _check_new_player(self, member: str) -> None:
        """Nobody plays for two entries, nor comes back as a fresh entry after dropping out."""
        if not isinstance(member, str) or not member:
            raise IllegalAction(f"{member!r} is not a player.")
        for entrant in self._entrants.values():
            if member in entrant.members:
                dropped = entrant.entrant_id in self._dropped
                raise IllegalAction(f"Player {member} {'left' if dropped else 'is already in'} this tournament.")

    def _check_not_ended(self) -> None:
        if self._stage in (Stage.OVER, Stage.CANCELLED):
            raise WrongPhase(f"The tournament is {'over' if self._stage is Stage.OVER else 'cancelled'}.")

    def _check_open(self, while_playing: str) -> None:
        self._check_not_ended()
        if self._stage is Stage.PLAYING:
            raise WrongPhase(while_playing)
