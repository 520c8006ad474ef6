"""Swiss tournaments, the pure part: points by place, standings and the seating of a round.

An *entrant* is one player (cutthroat, solo, duo, five) or one registered pair (partners). A table seats
:func:`units_per_table` entrants; a seat nobody fills is a computer player, written ``None``.
Everything here is a function of the entrants and the rounds so far, so a tournament replayed
from its events always seats and ranks the same way. docs/tournaments.md explains the choices.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations

from bot.engine.errors import IllegalAction
from bot.engine.rules import Mode

POINTS_BY_PLACE: dict[Mode, tuple[int, ...]] = {
    Mode.CUTTHROAT: (3, 1, 0),
    Mode.SOLO: (3, 2, 1, 0),
    Mode.PARTNERS: (2, 0),  # per team
    Mode.DUO: (2, 0),  # a head-to-head game, as partners' two teams
    Mode.FIVE: (4, 3, 2, 1, 0),
    # Six seats each player (team-mates share their team's place, so a pair or trio averages the
    # points of the places it covers: first of three pairs scores (5 + 4) / 2 each).
    Mode.SIX: (5, 4, 3, 2, 1, 0),
}
# Shared places average their points; with at most 6 at a table, 60ths are always whole.
_POINT_SCALE = 60
# Iterated local search: random kicks tried from the best seating found (fixed: seeded, replayable).
_KICKS = 40
# Then, if someone still meets someone again, an exhaustive search for fewer repeats, up to this many steps.
_STEPS = 20_000


def units_per_table(mode: Mode) -> int:
    """Entrants per table: players in the modes without teams, teams of two in partners."""
    return 2 if mode is Mode.PARTNERS else mode.seats


def members_per_entrant(mode: Mode) -> int:
    return 2 if mode is Mode.PARTNERS else 1


@dataclass(frozen=True, slots=True)
class Entrant:
    entrant_id: str
    name: str
    members: tuple[str, ...]  # player ids: one, or the two partners of a team


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a round: entrant ids in seat order (partners: the two teams); None is a computer."""

    seats: tuple[str | None, ...]

    @property
    def entrants(self) -> tuple[str, ...]:
        return tuple(seat for seat in self.seats if seat is not None)

    @property
    def computers(self) -> int:
        return self.seats.count(None)


@dataclass(frozen=True, slots=True)
class TableResult:
    """A table's game points and places, one per seat of its :class:`Table` (per team in partners)."""

    scores: tuple[int, ...]
    places: tuple[int, ...]
    unfinished: bool = False  # stopped at the round's time limit and decided by the score then


@dataclass(frozen=True, slots=True)
class RoundResult:
    number: int
    tables: tuple[Table, ...]
    results: tuple[TableResult | None, ...]  # None while that table still plays

    @property
    def complete(self) -> bool:
        return all(result is not None for result in self.results)


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    entrant_id: str
    name: str
    points: Fraction
    game_points: int
    games: int
    dropped: bool


def decide_unfinished(scores: Sequence[int]) -> tuple[int, ...]:
    """Places of a game stopped at the time limit: by the score then; equal scores share a place."""
    return tuple(1 + sum(1 for other in scores if other > score) for score in scores)


def is_ranking(places: Sequence[int]) -> bool:
    """True for places as a game gives them: 1 is first, tied seats share a place, the next is skipped."""
    return all(place == 1 + sum(1 for other in places if other < place) for place in places)


def points_for_places(mode: Mode, places: Sequence[int]) -> tuple[Fraction, ...]:
    """Tournament points per seat; entrants sharing a place share (average) the points it covers."""
    table = POINTS_BY_PLACE[mode]
    if len(places) != len(table) or not is_ranking(places):
        raise IllegalAction(f"{list(places)} are not the places of a {mode} table.")
    counts = Counter(places)
    return tuple(
        Fraction(sum(table[place - 1:place - 1 + counts[place]]), counts[place]) for place in places
    )


@dataclass(slots=True)
class _Record:
    points: Fraction = Fraction(0)
    game_points: int = 0
    games: int = 0
    computer_rounds: int = 0  # rounds seated at a table with a computer player
    met: Counter[str] = field(default_factory=Counter)


def _records(mode: Mode, rounds: Sequence[RoundResult]) -> dict[str, _Record]:
    records: dict[str, _Record] = {}
    for played in rounds:
        for table, result in zip(played.tables, played.results, strict=True):
            present = table.entrants
            for entrant in present:
                record = records.setdefault(entrant, _Record())
                record.met.update(other for other in present if other != entrant)
                record.computer_rounds += table.computers > 0
            if result is None:
                continue
            points = points_for_places(mode, result.places)
            for seat, occupant in enumerate(table.seats):
                if occupant is not None:
                    record = records[occupant]
                    record.points += points[seat]
                    record.game_points += result.scores[seat]
                    record.games += 1
    return records


def _head_to_head(group: Collection[str], rounds: Sequence[RoundResult]) -> Counter[str]:
    """Among tied entrants: +1 for each of them one finished above at a table, −1 for each below."""
    score: Counter[str] = Counter()
    for played in rounds:
        for table, result in zip(played.tables, played.results, strict=True):
            if result is None:
                continue
            seated = [(e, p) for e, p in zip(table.seats, result.places, strict=True)
                      if e is not None and e in group]
            for (a, place_a), (b, place_b) in combinations(seated, 2):
                if place_a != place_b:
                    winner, loser = (a, b) if place_a < place_b else (b, a)
                    score[winner] += 1
                    score[loser] -= 1
    return score


def standings(
    mode: Mode,
    entrants: Sequence[Entrant],
    rounds: Sequence[RoundResult],
    dropped: Collection[str] = (),
) -> list[Standing]:
    """Everyone who played or is entered, best first.

    Order: tournament points, then total game points, then head-to-head among those still tied,
    then sign-up order (the order of ``entrants``), so no two entrants ever share a rank.
    """
    records = _records(mode, rounds)
    signup = {entrant.entrant_id: index for index, entrant in enumerate(entrants)}
    empty = _Record()
    groups: dict[tuple[Fraction, int], list[str]] = {}
    for entrant in entrants:
        record = records.get(entrant.entrant_id, empty)
        groups.setdefault((record.points, record.game_points), []).append(entrant.entrant_id)
    ordered: list[str] = []
    for key in sorted(groups, reverse=True):
        group = groups[key]
        h2h = _head_to_head(group, rounds) if len(group) > 1 else Counter[str]()
        ordered += sorted(group, key=lambda e: (-h2h[e], signup[e]))
    by_id = {entrant.entrant_id: entrant for entrant in entrants}
    return [
        Standing(
            rank, entrant, by_id[entrant].name, records.get(entrant, empty).points,
            records.get(entrant, empty).game_points, records.get(entrant, empty).games,
            entrant in dropped,
        )
        for rank, entrant in enumerate(ordered, start=1)
    ]


def seat_round(
    entrants: Sequence[Entrant],
    history: Sequence[RoundResult],
    mode: Mode,
    rng_seed: int,
    round_number: int,
) -> list[Table]:
    """Seat every entrant still in once, at tables of the mode's size, best table first.

    Hard rule: computer seats go to those who have sat with computers least. Then, in order of
    importance: as few repeat meetings as possible, and tables of entrants with similar points.
    Round 1 (nobody has points) is a seeded random draw.
    """
    size = units_per_table(mode)
    count = len(entrants)
    if count < 2:
        raise IllegalAction("A round needs at least two entrants still in the tournament.")
    rng = random.Random(f"{rng_seed}/round/{round_number}")
    records = _records(mode, history)
    empty = _Record()
    order = sorted(entrant.entrant_id for entrant in entrants)  # the draw, not the list order, decides
    rng.shuffle(order)  # ties in points are seated in a seeded random order
    order.sort(key=lambda e: (-records.get(e, empty).points, -records.get(e, empty).game_points))
    tables = -(-count // size)
    computers = tables * size - count
    # Computers spread as evenly as tables allow, at the bottom tables: every game keeps as many people as it can.
    per_table = [computers // tables + (index >= tables - computers % tables) for index in range(tables)]
    seated = _Plan(order, records, [size - c for c in per_table], [c > 0 for c in per_table], rng).search()
    seated.sort(key=min)  # the table of the best-placed entrant first
    result = []
    for members in seated:
        seats: list[str | None] = [order[m] for m in members]
        seats += [None] * (size - len(members))
        rng.shuffle(seats)
        result.append(Table(tuple(seats)))
    return result


class _Plan:
    """The seating search over entrants numbered by standing (0 is the leader)."""

    def __init__(
        self,
        order: Sequence[str],
        records: dict[str, _Record],
        humans: Sequence[int],
        with_computers: Sequence[bool],
        rng: random.Random,
    ) -> None:
        empty = _Record()
        people = [records.get(e, empty) for e in order]
        self.rng = rng
        self.humans = list(humans)
        self.with_computers = list(with_computers)
        score = [int(p.points * _POINT_SCALE) for p in people]
        spread = max(score) - min(score)
        weight = spread * spread * len(order) * max(humans) + 1  # one repeat outweighs every points gap
        # What seating two entrants together costs: earlier meetings first, then their points gap.
        self.met = [[a.met[other] for other in order] for a in people]
        self.pair = [
            [self.met[i][j] * weight + (score[i] - score[j]) ** 2 for j in range(len(order))]
            for i in range(len(order))
        ]
        # The fewest rounds with computers go first: below `level` one must sit with them, above it not.
        exposure = [p.computer_rounds for p in people]
        self.computer_seats = sum(h for h, c in zip(humans, with_computers, strict=True) if c)
        ranked = sorted(exposure)
        level = ranked[self.computer_seats - 1] if self.computer_seats else ranked[0]
        self.may_sit = [(e <= level, e >= level) for e in exposure]  # (at a computer table, at a full one)

    def allowed(self, person: int, table: int) -> bool:
        return self.may_sit[person][0 if self.with_computers[table] else 1]

    def repeats(self, tables: Sequence[Sequence[int]]) -> int:
        return sum(self.met[a][b] for members in tables for a, b in combinations(members, 2))

    def total(self, tables: Sequence[Sequence[int]]) -> int:
        return sum(self.pair[a][b] for members in tables for a, b in combinations(members, 2))

    def start(self) -> list[list[int]]:
        """Standing order down the tables; the computer seats to the lowest-placed who may take them."""
        people = range(len(self.pair))
        must = [p for p in people if not self.may_sit[p][1]]
        may = [p for p in reversed(people) if self.may_sit[p] == (True, True)]
        low = set(must + may[:self.computer_seats - len(must)])
        queues = {True: [p for p in people if p in low], False: [p for p in people if p not in low]}
        return [
            [queues[computers].pop(0) for _ in range(humans)]
            for humans, computers in zip(self.humans, self.with_computers, strict=True)
        ]

    def improve(self, tables: list[list[int]], changed: Iterable[int]) -> None:
        """Swap two entrants of different tables while any swap lowers the total cost.

        Only pairs of tables involving one changed since it was last checked need a look.
        """
        pair = self.pair
        dirty = sorted(set(changed))
        while dirty:
            t = dirty.pop()
            first = tables[t]
            for u, second in enumerate(tables):
                if u == t:
                    continue
                for i in range(len(first)):
                    for j in range(len(second)):
                        a, b = first[i], second[j]
                        if not (self.allowed(b, t) and self.allowed(a, u)):
                            continue
                        row_a, row_b = pair[a], pair[b]
                        change = sum(row_b[x] - row_a[x] for x in first if x != a)
                        change += sum(row_a[y] - row_b[y] for y in second if y != b)
                        if change < 0:
                            first[i], second[j] = b, a
                            if u not in dirty:
                                dirty.append(u)
                            if t not in dirty:
                                dirty.append(t)

    def fewer_repeats(self, limit: int) -> list[list[int]] | None:
        """Depth-first, in standing order: the fair seating with the fewest repeats below ``limit``
        (None if there is none, or none found within the step budget)."""
        tables: list[list[int]] = [[] for _ in self.humans]
        best: list[list[int]] | None = None
        steps = 0

        def place(person: int, repeats: int) -> None:
            nonlocal best, limit, steps
            if person == len(self.met):
                best, limit = [list(t) for t in tables], repeats
                return
            steps += 1
            empty_kinds: set[tuple[int, bool]] = set()
            for t, members in enumerate(tables):
                if limit == 0 or steps > _STEPS:
                    return
                if len(members) == self.humans[t] or not self.allowed(person, t):
                    continue
                if not members:  # empty tables of one kind are interchangeable
                    kind = (self.humans[t], self.with_computers[t])
                    if kind in empty_kinds:
                        continue
                    empty_kinds.add(kind)
                more = repeats + sum(self.met[person][m] for m in members)
                if more < limit:
                    members.append(person)
                    place(person + 1, more)
                    members.pop()

        place(0, 0)
        return best

    def search(self) -> list[list[int]]:
        best = self.start()
        self.improve(best, range(len(best)))
        best_cost = self.total(best)
        for _ in range(_KICKS if len(best) > 1 else 0):
            if best_cost == 0:
                break
            trial = [list(t) for t in best]
            kicked: list[int] = []
            for _ in range(2):
                t, u = self.rng.sample(range(len(trial)), 2)
                i, j = self.rng.randrange(len(trial[t])), self.rng.randrange(len(trial[u]))
                if self.allowed(trial[u][j], t) and self.allowed(trial[t][i], u):
                    trial[t][i], trial[u][j] = trial[u][j], trial[t][i]
                    kicked += (t, u)
            self.improve(trial, kicked)
            cost = self.total(trial)
            if cost < best_cost:
                best, best_cost = trial, cost
        repeats = self.repeats(best)
        better = self.fewer_repeats(repeats) if repeats else None
        if better is not None:
            self.improve(better, range(len(better)))
            best = better
        return best
