"""A tournament as the service runs it: what is stored of it, its engine, its tables and its
timer; and a table's seats as its game sees them (a person first, to host it) and back."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from bot.engine import Game, Mode
from bot.engine.tournaments.swiss import Standing, TableResult, members_per_entrant, standings
from bot.engine.tournaments.tournament import Tournament, table_result
from bot.store import StoredTournament, TournamentInfo, TournamentTable


class TableSeat(NamedTuple):
    """A seat of a table's game: a person (user id) or a computer (None), and the name shown."""

    user_id: int | None
    name: str


@dataclass(eq=False)
class LiveTournament:
    info: TournamentInfo
    engine: Tournament
    level: str  # the computer players' level
    round_minutes: int | None
    signup_minutes: int | None
    deadline: float | None = None
    tables: dict[tuple[int, int], TournamentTable] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.Task[None] | None = None
    # Why a table's game was stopped before its end (by its game id), for the round's standings.
    # Kept in memory until the round's standings are saved with it.
    stopped: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_stored(cls, stored: StoredTournament) -> LiveTournament:
        """The tournament as the store has it: its engine replayed from the saved events."""
        setup = stored.info.setup
        engine = Tournament.from_json({"format": "spades-tournament/1", "setup": setup["engine"],
                                       "events": list(stored.events)})
        live = cls(stored.info, engine, str(setup["computer"]), setup.get("round_minutes"),
                   setup.get("signup_minutes"), deadline=stored.info.deadline_at)
        live.tables = {(t.round, t.table): t for t in stored.tables}
        return live

    @property
    def tournament_id(self) -> str:
        return self.info.tournament_id

    @property
    def guild_id(self) -> int:
        return self.info.guild_id

    @property
    def channel_id(self) -> int:
        return self.info.channel_id

    @property
    def organiser_id(self) -> int:
        return self.info.organiser_id

    @property
    def mode(self) -> Mode:
        return self.engine.mode

    @property
    def round_number(self) -> int:
        return len(self.engine.played)

    def standings_after(self, round_number: int) -> list[Standing]:
        """The standings as they stood when round `round_number` ended (0: before any round)."""
        engine = self.engine
        return standings(engine.mode, engine.entrants, engine.played[:round_number], engine.dropped)

    def table_seats(self, round_number: int, table: int) -> tuple[TableSeat, ...]:
        """A table of a round as game seats, in the engine's order (partners: teams across)."""
        seating = self.engine.played[round_number - 1].tables[table]
        entrants = {e.entrant_id: e for e in self.engine.entrants}
        per_unit: list[list[TableSeat]] = []
        computers = 0
        for entrant_id in seating.seats:
            if entrant_id is None:
                computers += 1
                count = members_per_entrant(self.mode)
                per_unit.append([TableSeat(None, f"Bot {computers}{'ab'[i] if count > 1 else ''} ({self.level})")
                                 for i in range(count)])
                continue
            per_unit.append([TableSeat(int(m), self.engine.member_name(m)) for m in entrants[entrant_id].members])
        if self.mode is not Mode.PARTNERS:
            return tuple(unit[0] for unit in per_unit)
        return tuple(per_unit[seat % 2][seat // 2] for seat in range(4))

    def table_of_game(self, game_id: str) -> tuple[int, int] | None:
        return next(((r, t) for (r, t), row in self.tables.items() if row.game_id == game_id), None)


def team_name(names: Sequence[str]) -> str:
    """An entry's name from its players' own: one player's, or "A & B" for a team."""
    return " & ".join(names)


def rotation(seats: Sequence[TableSeat]) -> int:
    """The game seats the table turned by this much, so a person sits first (and hosts the game)."""
    return next(index for index, seat in enumerate(seats) if seat.user_id is not None)


def result_of(game: Game, turned: int, forfeited: Collection[int] = ()) -> TableResult:
    """The table's result in the tournament's seat order, from its game (seated turned by `turned`).
    In a game that came to its end, the sides of `forfeited` seats (their people left) are placed
    below everyone else, as on the leaderboard; a game decided by the score is decided by it alone."""
    found = table_result(game)
    units = len(found.scores)
    left = {game.side_of(seat) for seat in forfeited}
    if left and not found.unfinished:
        # Those who stayed keep the game's order; those who left come after, by their score.
        standing = [(False, found.scores[side]) if side in left else (True, -place)
                    for side, place in enumerate(found.places)]
        found = TableResult(found.scores, tuple(1 + sum(other > mine for other in standing) for mine in standing))

    def back(values: Sequence[int]) -> tuple[int, ...]:
        return tuple(values[(unit - turned) % units] for unit in range(units))

    return TableResult(back(found.scores), back(found.places), found.unfinished)
