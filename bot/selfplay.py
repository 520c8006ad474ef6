"""`python -m bot selfplay`: computer players play whole games offline; records and a JSON summary.

Tournaments: ``--players hard,normal,normal`` names one level per player, ``--duplicate`` plays every
deal once per seat rotation (the same seed gives the same deals, so luck of the cards cancels out),
``--budget`` bounds the hard player's search and ``--jobs`` plays games in parallel processes.

Every run ends: a game still going after ``--max-hands`` hands (players that keep failing their bids
can sink forever and never reach the target) is cancelled, so its record says ``"ended": "cancelled"``
with no winner, and the summary counts it under ``cancelled``.

A long run shows it is alive: a line on stderr per finished game, at most one a second ("game 3/20
done: winner hard-0, 12 hands, 4.1 s"), so quick runs stay quiet; the JSON summary is stdout's only line.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, NamedTuple, TextIO

from bot.ai import ALL_LEVELS, Budget, ComputerPlayer, Move, forced_move, make_player
from bot.ai.drive import drive
from bot.engine import Ending, EngineError, Game, Mode, Rules, export_record, seat_tallies, seat_view

DEFAULT_LEVEL = "normal"  # finishes a game to 500 in about 14 hands; random players may never get there
DEFAULT_MAX_HANDS = 500  # far beyond any real game (easy players to 1000 take at most ~140 hands)
PROGRESS_INTERVAL = 1.0  # seconds: a game that took longer gets its progress line, quick runs stay quiet


class UsageError(Exception):
    """Bad command-line input; the message is one line for the person who typed it."""


def at_least(low: int) -> Callable[[str], int]:
    """An argparse type: a whole number no smaller than ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"takes a whole number, not “{text}”") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {value}")
        return value

    return parse


def levels_list(text: str) -> tuple[str, ...]:
    """An argparse type: comma-separated computer player levels, each one we know."""
    levels = tuple(level.strip().lower() for level in text.split(","))
    for level in levels:
        if level not in ALL_LEVELS:
            raise argparse.ArgumentTypeError(f"unknown level “{level}”: use {', '.join(ALL_LEVELS)}")
    return levels


def seat_levels(given: Sequence[str] | None, seats: int, what: str) -> list[str]:
    """The level of each of ``seats`` computer players from ``--players``: one level per seat, or one
    level for every seat, as people type it (``--players hard``); none given: the default for all."""
    levels = list(given or [DEFAULT_LEVEL])
    if len(levels) == 1:
        return levels * seats
    if len(levels) != seats:
        raise UsageError(f"{what}: --players takes one level for every seat or {seats} levels, got {len(levels)}.")
    return levels


def budget_text(text: str) -> str:
    """An argparse type: a hard player's budget, checked now and passed on as typed."""
    try:
        Budget.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", default="cutthroat", choices=[m.value for m in Mode])
    parser.add_argument("--games", type=at_least(1), default=10,
                        help="games to play (with --duplicate: deals, each played once per rotation)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=levels_list, default=None,
                        help=f"comma-separated levels ({', '.join(ALL_LEVELS)}), one per seat, or one level "
                             f"for every seat (default: {DEFAULT_LEVEL})")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option of docs/rules.md; repeatable, a later one overrides an earlier one")
    parser.add_argument("--out", default=None, help="write one spades-record/1 JSON document per line")
    parser.add_argument("--duplicate", action="store_true",
                        help="play each deal once per seat rotation of the players, to cut luck")
    parser.add_argument("--budget", type=budget_text, default=None,
                        help="hard player's search budget: seconds (0.3 or 0.3s) or determinizations (200it)")
    parser.add_argument("--jobs", type=at_least(1), default=1, help="games played in parallel processes")
    parser.add_argument("--max-hands", type=at_least(1), default=DEFAULT_MAX_HANDS,
                        help="cancel a game still going after this many hands "
                             f"(recorded as ended=cancelled; default {DEFAULT_MAX_HANDS})")


def parse_rules(pairs: Sequence[str], mode: Mode) -> Rules:
    """The ``--rule KEY=VALUE`` options for ``mode``; anything wrong is a :class:`UsageError`."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise UsageError(f"--rule takes KEY=VALUE, got “{pair}”.")
        options[key] = value
    try:
        rules = Rules.from_options(options)
        rules.check_mode(mode)
    except EngineError as error:
        raise UsageError(str(error)) from None
    return rules


def play_game(game: Game, players: Sequence[ComputerPlayer],
              timings: Sequence[list[float]] | None = None, max_hands: int | None = None) -> Game:
    """Drive one game to its end, asking each seat's player on its turn; with ``timings``, record
    each seat's decision times (forced moves left out: they take no thought). A game that has
    played ``max_hands`` hands without ending is cancelled."""

    def choose(game: Game, seat: int) -> Move:
        view = seat_view(game, seat)
        if timings is None or forced_move(view) is not None:
            return players[seat].choose(view)
        start = time.perf_counter()
        move = players[seat].choose(view)
        timings[seat].append(time.perf_counter() - start)
        return move

    return drive(game, choose, max_hands=max_hands)


class GameJob(NamedTuple):
    game_id: str
    mode: Mode
    rules: Rules
    seed: int
    levels: tuple[str, ...]
    seating: tuple[int, ...]  # seating[seat] is the index of the player (in --players) in that seat
    budget: str | None
    record: bool
    max_hands: int


class GameOutcome(NamedTuple):
    hands: int
    cancelled: bool
    seating: tuple[int, ...]
    win_shares: tuple[float, ...]  # per seat
    tallies: tuple[tuple[int, ...], ...]  # per seat, bot.engine.SeatTally as a plain tuple
    timings: tuple[list[float], ...]  # per seat
    record: dict[str, Any] | None
    seconds: float  # the game's own time, in whichever process played it


def player_name(level: str, index: int) -> str:
    """A tournament player's name in progress lines, records and the summary: its level and its place
    in --players, so two players of one level are told apart (normal-1, normal-2)."""
    return f"{level}-{index}"


def play_job(job: GameJob) -> GameOutcome:
    """One game of a tournament; a top-level function so worker processes can run it."""
    start = time.perf_counter()
    seats = job.mode.seats
    players = [make_player(job.levels[job.seating[s]], seed=job.seed * 7 + s, budget=job.budget)
               for s in range(seats)]
    names = [player_name(job.levels[job.seating[s]], job.seating[s]) for s in range(seats)]
    timings: tuple[list[float], ...] = tuple([] for _ in range(seats))
    game = play_game(Game.new(job.game_id, job.mode, job.rules, job.seed, names), players, timings, job.max_hands)
    share = 1 / len(game.winners) if game.winners else 0.0
    if game.sides < seats and game.winners:  # a team's members share its win
        share = (seats // game.sides) / len(game.winners)
    wins = tuple(share if s in game.winners else 0.0 for s in range(seats))
    record = None
    if job.record:
        players_json = [{"seat": s, "name": names[s], "kind": "bot", "id": job.levels[job.seating[s]]}
                        for s in range(seats)]
        record = export_record(game, players_json)
    tallies = tuple(tuple(t) for t in seat_tallies(game))
    return GameOutcome(game.hands_played, game.ended is Ending.CANCELLED, job.seating, wins, tallies, timings, record,
                       time.perf_counter() - start)


def jobs_for(args: argparse.Namespace, mode: Mode, rules: Rules, levels: Sequence[str]) -> Iterator[GameJob]:
    rotations = range(mode.seats) if args.duplicate else range(1)
    for number in range(args.games):
        seed = args.seed * 1_000_003 + number
        for rotation in rotations:
            seating = tuple((seat + rotation) % mode.seats for seat in range(mode.seats))
            suffix = f"-r{rotation}" if args.duplicate else ""
            yield GameJob(f"selfplay-{args.seed}-{number}{suffix}", mode, rules, seed, tuple(levels), seating,
                          args.budget, bool(args.out), args.max_hands)


class Progress:
    """One line on stderr per finished game, once at least ``PROGRESS_INTERVAL`` has passed since the
    last: a run of slow games shows each one, a run of quick ones (random players) stays quiet. The
    JSON summary stays stdout's only line."""

    def __init__(self, total: int, levels: Sequence[str], err: TextIO) -> None:
        self.total = total
        self.names = [player_name(level, index) for index, level in enumerate(levels)]
        self.err = err
        self.done = 0
        self.last = time.monotonic()

    def game_done(self, outcome: GameOutcome) -> None:
        self.done += 1
        now = time.monotonic()
        if now - self.last < PROGRESS_INTERVAL:
            return
        self.last = now
        winners = [self.names[player] for seat, player in enumerate(outcome.seating) if outcome.win_shares[seat]]
        ended = "cancelled" if outcome.cancelled else f"winner {' & '.join(winners)}"
        print(f"game {self.done}/{self.total} done: {ended}, {outcome.hands} hands, {outcome.seconds:.1f} s",
              file=self.err, flush=True)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% confidence interval of a win rate (Wilson score interval; fair with few games)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4))


def percentile_ms(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


class PlayerStats:
    """One tournament player's totals over every seat it sat in."""

    def __init__(self, level: str, name: str) -> None:
        self.level = level
        self.name = name
        self.games = 0
        self.wins = 0.0
        self.hands = 0
        self.bids_made = 0
        self.bids_set = 0
        self.nils_tried = 0
        self.nils_made = 0
        self.blind_nils_tried = 0
        self.blind_nils_made = 0
        self.bags = 0
        self.points = 0
        self.timings: list[float] = []

    def add(self, win: float, tally: Sequence[int], timings: list[float]) -> None:
        hands, made, set_, nils, nils_made, blinds, blinds_made, bags, points = tally
        self.games += 1
        self.wins += win
        self.hands += hands
        self.bids_made += made
        self.bids_set += set_
        self.nils_tried += nils
        self.nils_made += nils_made
        self.blind_nils_tried += blinds
        self.blind_nils_made += blinds_made
        self.bags += bags
        self.points += points
        self.timings.extend(timings)

    def summary(self) -> dict[str, Any]:
        contracts = self.bids_made + self.bids_set
        return {
            "name": self.name,
            "level": self.level,
            "games": self.games,
            "wins": round(self.wins, 2),
            "win_rate": round(self.wins / self.games, 4) if self.games else None,
            "win_rate_ci95": list(wilson(self.wins, self.games)),
            "hands": self.hands,
            "points_per_hand": round(self.points / self.hands, 2) if self.hands else None,
            "bid_success_rate": round(self.bids_made / contracts, 4) if contracts else None,
            "nils_tried": self.nils_tried,
            "nils_made": self.nils_made,
            "blind_nils_tried": self.blind_nils_tried,
            "blind_nils_made": self.blind_nils_made,
            "bags_per_hand": round(self.bags / self.hands, 3) if self.hands else None,
            "decisions": len(self.timings),
            "decision_ms_p50": percentile_ms(self.timings, 0.5),
            "decision_ms_p99": percentile_ms(self.timings, 0.99),
        }


def open_out(path: str | None) -> TextIO | None:
    """Open the records file before any game is played, so a bad path costs nothing."""
    if path is None:
        return None
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as error:
        raise UsageError(f"can't write records to {path}: {error.strerror}.") from None


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> dict[str, Any]:
    out = out or sys.stdout
    mode = Mode.parse(args.mode)
    rules = parse_rules(args.rule, mode)
    levels = seat_levels(args.players, mode.seats, f"{mode} has {mode.seats} seats")
    stats = [PlayerStats(level, player_name(level, index)) for index, level in enumerate(levels)]
    records = open_out(args.out)
    progress = Progress(args.games * (mode.seats if args.duplicate else 1), levels, err or sys.stderr)
    hands = games = cancelled = 0
    wins = [0.0] * mode.seats
    start = time.perf_counter()
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        jobs = jobs_for(args, mode, rules, levels)
        outcomes = pool.map(play_job, jobs, chunksize=1) if pool else map(play_job, jobs)
        for outcome in outcomes:
            games += 1
            hands += outcome.hands
            cancelled += outcome.cancelled
            for seat, player in enumerate(outcome.seating):
                wins[player] += outcome.win_shares[seat]
                stats[player].add(outcome.win_shares[seat], outcome.tallies[seat], outcome.timings[seat])
            if records and outcome.record is not None:
                records.write(json.dumps(outcome.record) + "\n")
            progress.game_done(outcome)
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
        if records:
            records.close()
    seconds = time.perf_counter() - start
    summary = {
        "games": games,
        "cancelled": cancelled,
        "hands": hands,
        "seconds": round(seconds, 3),
        "hands_per_second": round(hands / seconds, 1) if seconds else None,
        "mode": mode.value,
        "players": levels,
        "wins": wins,
        "duplicate": bool(args.duplicate),
        "budget": args.budget,
        "rules": rules.changed(),
        "per_player": [s.summary() for s in stats],
    }
    if stats and stats[0].hands:
        others = [s.points / s.hands for s in stats[1:] if s.hands]
        summary["first_player_margin_per_hand"] = (
            round(stats[0].points / stats[0].hands - statistics.mean(others), 2) if others else None)
    print(json.dumps(summary), file=out)
    return summary
