"""Computer players: hard decision times at the default budget through the service's runner (process
pool included), the event loop's lag meanwhile, and a strength table. Prints one JSON line of figures.

Targets (issues: computer players, the coach): hard decisions p50 <= 1 s and p99 <= 2 s on this
machine, the event loop responsive while they think; against the frozen ``normal-v1`` the hard player
wins >= 90% in cutthroat, >= 75% in solo, >= 85% as a pair in partners and >= 65% partnering today's
normal; nils are made >= 60% of the time (hard's >= 80%) and blind nils only bid with a real chance.

The strength table plays duplicate games (each deal once per seat rotation, so the luck of the cards
cancels) and reports, per matchup and level: wins with a 95% interval, nils and blind nils made and
tried, opponents' nils set and faced, bags per hand and the decision time. ``--games`` and
``--budget`` trade time for precision; the defaults make a quick reading, not the final figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, NamedTuple

from bot import selfplay
from bot.ai import ComputerPlayer, Move, forced_move, make_player
from bot.ai.bidding import bid_for_hand, nil_risk
from bot.ai.drive import Choose, drive
from bot.ai.policy import normal_card
from bot.ai.runner import DecisionRunner
from bot.ai.sim import PlayState, deck_mask
from bot.engine import Game, Mode, Rules, SeatView, seat_view
from bot.engine.modes import deck_for, sides_for, tricks_for

# The strength table: the subject first, then its table-mates. In partners seats 0 and 2 are a side.
MATCHUPS: dict[str, tuple[tuple[str, ...], ...]] = {
    "cutthroat": (("hard", "normal-v1", "normal-v1"), ("normal", "normal-v1", "normal-v1")),
    "solo": (("hard", "normal-v1", "normal-v1", "normal-v1"), ("normal", "normal-v1", "normal-v1", "normal-v1")),
    "partners": (("hard", "normal-v1", "hard", "normal-v1"), ("hard", "normal-v1", "normal", "normal-v1"),
                 ("normal", "normal-v1", "normal", "normal-v1")),
    # The house rules' modes came after normal-v1: measured against today's normal, and normal
    # against the random player.
    "duo": (("hard", "normal"), ("normal", "random")),
    "five": (("hard", "normal", "normal", "normal", "normal"), ("normal", "random", "random", "random", "random")),
    # Six, written for solo; with pairs or trios (--rule teams=…) each side plays as its first seat's
    # level (``seat_levels``): a hard pair against two normal pairs, a hard trio against a normal one.
    "six": (("hard", "normal", "normal", "normal", "normal", "normal"),
            ("normal", "random", "random", "random", "random", "random")),
}


def hard_positions(count: int, seed: int) -> list[SeatView]:
    """Positions where the hard player has a real choice, from games of normal players."""
    views: list[SeatView] = []
    game_number = 0
    while len(views) < count:
        game = Game.new(f"bench-{game_number}", "cutthroat", Rules(target=300), seed + game_number)
        players = [make_player("normal", s) for s in range(3)]
        drive(game, _noting_seat_0(players, views), until=lambda _: len(views) >= count)
        game_number += 1
    return views


def _noting_seat_0(players: list[ComputerPlayer], views: list[SeatView]) -> Choose:
    """The players' own moves, noting each position where seat 0 has a real choice."""

    def choose(game: Game, seat: int) -> Move:
        view = seat_view(game, seat)
        if seat == 0 and forced_move(view) is None:
            views.append(view)
        return players[seat].choose(view)

    return choose


async def time_decisions(views: list[SeatView]) -> dict[str, float]:
    runner = DecisionRunner()
    lags: list[float] = []
    stop = False

    async def ticker() -> None:
        last = time.perf_counter()
        while not stop:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            lags.append(now - last - 0.005)
            last = now

    try:
        await runner.decide("hard", views[0], seed=0)  # start the worker process
        task = asyncio.create_task(ticker())
        times = []
        for number, view in enumerate(views):
            start = time.perf_counter()
            await runner.decide("hard", view, seed=number)
            times.append(time.perf_counter() - start)
        stop = True
        await task
    finally:
        runner.close()
    times.sort()
    lags.sort()
    return {
        "hard_decisions": len(times),
        "hard_decision_s_p50": round(statistics.median(times), 3),
        "hard_decision_s_p99": round(times[min(len(times) - 1, int(0.99 * len(times)))], 3),
        "hard_decision_s_max": round(times[-1], 3),
        "loop_lag_ms_p99": round(1000 * lags[int(0.99 * len(lags))], 2),
    }


class Deal(NamedTuple):
    """One game of a matchup: a deal seed and the rotation of the players around the table."""

    mode: Mode
    rules: Rules
    levels: tuple[str, ...]
    seed: int
    rotation: int
    budget: str | None


class SeatFigures(NamedTuple):
    """What one seat's player did in one game."""

    level: str
    win: float
    hands: int
    points: int  # the seat's side's hand points, summed
    contracts: int
    contracts_made: int
    nils: int
    nils_made: int
    blinds: int
    blinds_made: int
    opp_nils: int  # opponents' nils (blind ones too) in the hands played
    opp_nils_set: int
    bags: int
    timings: list[float]
    house: HouseBids


class HouseBids(NamedTuple):
    """The house rules' bids this seat's side made (ten_for_200, moon) and its own trailing blind
    bids: each tried, and made. A side's contract is counted for each of its seats."""

    tens: int = 0
    tens_made: int = 0
    moons: int = 0
    moons_made: int = 0
    blind_bids: int = 0
    blind_bids_made: int = 0

    def plus(self, other: Sequence[int]) -> HouseBids:
        return HouseBids(*(a + b for a, b in zip(self, other, strict=True)))


def house_bids(game: Game, seat: int) -> HouseBids:
    """RULES.md "Bidding": a side's open contract of exactly 10 is a 10-for-200 (a blind one is
    scored as blind); a contract of every trick is a moon; a blind bid above 0 is a trailing blind bid."""
    total = HouseBids()
    members = game.side_seats(game.side_of(seat))
    for log in game.hand_logs:
        made = log.result.contract_made[seat] if log.result is not None else None
        if made is None:  # unscored, or the seat bid nil
            continue
        bids = {b.seat: b for b in log.bids}
        contract = sum(bids[s].bid for s in members)
        blind = any(bids[s].blind for s in members)
        ten = game.rules.ten_for_200 and contract == 10 and not blind
        moon = game.rules.moon and contract == game.tricks_per_hand
        mine = bids[seat].blind and bids[seat].bid > 0
        total = total.plus((ten, ten and made, moon, moon and made, mine, mine and made))
    return total


def opponents(game: Game, seat: int) -> list[int]:
    """The seats of the other sides, by the mode's teams."""
    return [s for s in range(game.seats) if game.side_of(s) != game.side_of(seat)]


def seat_levels(mode: Mode, rules: Rules, levels: tuple[str, ...]) -> tuple[str, ...]:
    """A matchup's level per seat. Six's matchups are written for solo; in its team games every seat
    plays as its side's first seat, so that a level always holds whole sides and its wins count once
    a side (a normal partner of the hard player would blur both levels' figures)."""
    if mode is not Mode.SIX:
        return levels
    sides = sides_for(mode, rules)
    return tuple(levels[seat % sides] for seat in range(mode.seats))


def rotations(levels: tuple[str, ...]) -> int:
    """The distinct seatings of a matchup: a hard pair in partners repeats itself after two turns, so
    the other two would replay the same games and count them twice."""
    return next(r for r in range(1, len(levels) + 1) if levels[r:] + levels[:r] == levels)


def play_deal(deal: Deal) -> list[SeatFigures]:
    """Play one game and read each seat's figures off its hand logs; a top-level function for the pool."""
    seats = deal.mode.seats
    levels = [deal.levels[(s + deal.rotation) % seats] for s in range(seats)]
    players = [make_player(level, seed=deal.seed * 7 + s, budget=deal.budget) for s, level in enumerate(levels)]
    timings: tuple[list[float], ...] = tuple([] for _ in range(seats))
    game = Game.new(f"bench-{deal.seed}-r{deal.rotation}", deal.mode, deal.rules, deal.seed, levels)
    selfplay.play_game(game, players, timings, selfplay.DEFAULT_MAX_HANDS)
    # A win shared by sides (a tie at the top) is split between them; each seat of a side holds its share.
    share = 1 / len({game.side_of(s) for s in game.winners}) if game.winners else 0.0
    out = []
    for seat in range(seats):
        hands = points = contracts = contracts_made = nils = nils_made = blinds = blinds_made = 0
        opp_nils = opp_set = bags = 0
        for log in game.hand_logs:
            result = log.result
            if result is None:
                continue
            hands += 1
            bags += result.new_bags[seat]
            points += result.hand_points[seat]
            if result.contract_made[seat] is not None:
                contracts += 1
                contracts_made += result.contract_made[seat] is True
            made = result.nil_made[seat]
            if made is not None:
                blind = any(b.seat == seat and b.blind for b in log.bids)
                nils += 1
                nils_made += made
                blinds += blind
                blinds_made += blind and made
            for other in opponents(game, seat):
                if result.nil_made[other] is not None:
                    opp_nils += 1
                    opp_set += not result.nil_made[other]
        out.append(SeatFigures(levels[seat], share if seat in game.winners else 0.0, hands, points, contracts,
                               contracts_made, nils, nils_made, blinds, blinds_made, opp_nils, opp_set, bags,
                               timings[seat], house_bids(game, seat)))
    return out


class Tally:
    """One level's figures over a matchup's games. The seats of one side (partners, six's pairs and
    trios) are one side: their win, and the opponents' nils they all faced, count once. ``sides`` is
    how many sides a game has, so a side's fair share of the wins is one in ``sides``."""

    def __init__(self, level: str, sides: int) -> None:
        self.level = level
        self.side_count = sides
        self.sides = 0  # games × the sides this level held in them
        self.wins = 0.0
        self.hands = self.points = self.contracts = self.contracts_made = 0
        self.nils = self.nils_made = self.blinds = self.blinds_made = 0
        self.opp_nils = self.opp_set = self.bags = 0
        self.timings: list[float] = []
        self.house = HouseBids()

    def add(self, figures: Sequence[SeatFigures]) -> None:
        mine = [f for f in figures if f.level == self.level]
        if not mine:
            return
        sides = len({seat % self.side_count for seat, f in enumerate(figures) if f.level == self.level})
        per_side = len(mine) // sides
        self.sides += sides
        self.wins += sum(f.win for f in mine) / per_side
        self.opp_nils += sum(f.opp_nils for f in mine) // per_side
        self.opp_set += sum(f.opp_nils_set for f in mine) // per_side
        sides_bids = HouseBids()
        for f in mine:
            sides_bids = sides_bids.plus(f.house)
        # A side's 10-for-200 and moon once per side; blind bids are each seat's own.
        self.house = self.house.plus((*(n // per_side for n in sides_bids[:4]), *sides_bids[4:]))
        for f in mine:
            self.hands += f.hands
            self.points += f.points
            self.contracts += f.contracts
            self.contracts_made += f.contracts_made
            self.nils += f.nils
            self.nils_made += f.nils_made
            self.blinds += f.blinds
            self.blinds_made += f.blinds_made
            self.bags += f.bags
            self.timings.extend(f.timings)

    def summary(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "wins": [round(self.wins, 2), self.sides],  # won, played (a side of partners counted once)
            "win_rate": round(self.wins / self.sides, 3) if self.sides else None,
            "win_rate_ci95": list(selfplay.wilson(self.wins, self.sides)),
            "fair_share": round(1 / self.side_count, 3),  # a side's wins if every side played alike
            "points_per_hand": round(self.points / self.hands, 1) if self.hands else None,
            "contracts": [self.contracts_made, self.contracts],  # made, bid (nils apart)
            "nils": [self.nils_made, self.nils],  # made, tried (blind nils included)
            "blind_nils": [self.blinds_made, self.blinds],
            "opp_nils_set": [self.opp_set, self.opp_nils],  # set, faced
            # made, tried: a side's 10-for-200 and moon contracts, and trailing blind bids (1-7)
            "ten_for_200": [self.house.tens_made, self.house.tens],
            "moon": [self.house.moons_made, self.house.moons],
            "blind_bids": [self.house.blind_bids_made, self.house.blind_bids],
            "hands": self.hands,
            "bags_per_hand": round(self.bags / self.hands, 3) if self.hands else None,
            "decisions": len(self.timings),
            "decision_ms_p50": selfplay.percentile_ms(self.timings, 0.5),
        }


def deals(mode: Mode, rules: Rules, levels: tuple[str, ...], games: int, seed: int,
          budget: str | None) -> Iterator[Deal]:
    for number in range(games):
        for rotation in range(rotations(levels)):
            yield Deal(mode, rules, levels, seed * 1_000_003 + number, rotation, budget)


def matchup(pool: ProcessPoolExecutor | None, mode: Mode, rules: Rules, levels: tuple[str, ...], games: int,
            seed: int, budget: str | None) -> dict[str, Any]:
    levels = seat_levels(mode, rules, levels)
    tallies = [Tally(level, sides_for(mode, rules)) for level in dict.fromkeys(levels)]
    played = hands = 0
    start = time.perf_counter()
    jobs = deals(mode, rules, levels, games, seed, budget)
    for figures in (pool.map(play_deal, jobs) if pool else map(play_deal, jobs)):
        played += 1
        hands += figures[0].hands
        for tally in tallies:
            tally.add(figures)
    return {"mode": mode.value, "players": list(levels), "games": played, "hands": hands,
            "seconds": round(time.perf_counter() - start, 1), "per_level": [t.summary() for t in tallies]}


def strength_table(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for name in args.modes.split(","):
            mode = Mode.parse(name)
            rules = selfplay.parse_rules([f"target={args.target}", *args.rule], mode)
            for levels in MATCHUPS[mode.value]:
                if args.only is None or args.only == levels[0]:
                    rows.append(matchup(pool, mode, rules, levels, args.games, args.seed, args.budget))
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    return rows


def nil_hand(mode: Mode, rng: random.Random, blind: bool) -> tuple[int, int | None, bool]:
    """Deal once, seat 0 bids nil (blind or open), the others bid as the normal player would, and
    everyone plays it out like the normal player: (seat 0's hand, its partner's earlier bid, made)."""
    rules = Rules()
    seats, size = mode.seats, tricks_for(mode, rules)
    cards = list(deck_for(mode, rules))
    rng.shuffle(cards)
    hands = [sum(1 << c for c in cards[s * size:(s + 1) * size]) for s in range(seats)]
    first = rng.randrange(seats)
    bids: list[int | None] = [None] * seats
    mate = None
    for seat in ((first + k) % seats for k in range(seats)):
        partner = bids[(seat + 2) % 4] if mode is Mode.PARTNERS else None
        if seat == 0:
            mate = partner
            bids[0] = 0
        else:
            bids[seat] = bid_for_hand(hands[seat], mode, rules, tuple(range(size + 1)), mate=partner)
    state = PlayState(rules, sides_for(mode, rules), hands[:], [b or 0 for b in bids],
                      [blind] + [False] * (seats - 1), [0] * seats, [0] * seats, first, size, 0, False,
                      deck=deck_mask(mode, rules))
    while state.tricks_left:
        state.play(normal_card(state, state.turn))
    return hands[0], mate, state.won[0] == 0


def nil_chances(deals: int, seed: int) -> dict[str, Any]:
    """How often nils are made with today's rule-based play at every seat, defenders included: the
    source of the chance model and risk limits in bot/ai/bidding.py. Blind nils by the partner's bid
    (partners, when it came first), open nils by ``nil_risk`` to the nearest half."""
    rng = random.Random(seed)
    out: dict[str, Any] = {}
    for mode in (m for m in Mode if not m.draws):  # duo's hands are drawn, not dealt at random
        blind: dict[str, list[int]] = {}
        open_: dict[str, list[int]] = {}
        for _ in range(deals):
            _, mate, made = nil_hand(mode, rng, blind=True)
            row = blind.setdefault("unknown" if mate is None else str(min(mate, 7)), [0, 0])
            row[0] += made
            row[1] += 1
            hand, _, made = nil_hand(mode, rng, blind=False)
            risk = nil_risk(hand, tricks_for(mode, Rules()))
            if risk < 3:
                row = open_.setdefault(f"{round(risk * 2) / 2:.1f}", [0, 0])
                row[0] += made
                row[1] += 1
        out[mode.value] = {
            "blind_nil_made_by_partner_bid": {k: [round(m / n, 2), n] for k, (m, n) in sorted(blind.items())},
            "nil_made_by_risk": {k: [round(m / n, 2), n] for k, (m, n) in sorted(open_.items())},
        }
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Computer players' decision times and strength table.")
    parser.add_argument("--modes", default="cutthroat,solo,partners")
    parser.add_argument("--games", type=int, default=1, help="deals per matchup, each played once per distinct seating")
    parser.add_argument("--budget", default="0.1s", help="the hard player's search budget in the games")
    parser.add_argument("--target", type=int, default=Rules().target, help="points to win the games")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE", help="another rule option")
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel processes")
    parser.add_argument("--only", default=None, help="only the matchups whose first player is this level")
    parser.add_argument("--no-timing", action="store_true", help="skip timing hard decisions through the runner")
    parser.add_argument("--nil-chances", type=int, default=0, metavar="DEALS",
                        help="only measure how often nils and blind nils are made over this many deals a mode")
    args = parser.parse_args(argv)
    figures: dict[str, object] = {"bench": "ai"}
    if args.nil_chances:
        figures["nil_chances"] = nil_chances(args.nil_chances, args.seed)
        print(json.dumps(figures))
        return
    if not args.no_timing:
        figures.update(asyncio.run(time_decisions(hard_positions(60, seed=5))))
        figures["targets"] = {"hard_decision_s_p50": 1.0, "hard_decision_s_p99": 2.0}
    figures["tournament"] = {"games_per_matchup": args.games, "budget": args.budget, "target": args.target,
                             "rules": args.rule, "seed": args.seed}
    figures["strength"] = strength_table(args)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
