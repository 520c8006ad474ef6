"""Load benchmark: the real bot (`python -m bot`, BOT_MOVE_DELAY=0, HAND_PAUSE=0, the production
REFRESH_INTERVAL of 1 s) against the test suite's fake Discord on 127.0.0.1, played by scripted
people who see only what a person sees (`load_players.py`): three to a channel, they open a game
(`/spades new`, Join, `/spades join`, Start, or every other game Rematch ×3), press **My hand** once
each and wait for their private panel to say it's their turn; then one click on it (one move in four
by `/spades bid` / `/spades play` instead). Games go to 50 with mercy 50, so about one hand each.
The fake times every acknowledgement: interaction sent on the gateway → callback received. It
enforces Discord's rate limits (50 counted calls a second per token, per-route buckets, 429s with
Discord's headers) unless `--no-limits`; each row gives the REST calls per interaction by kind, the
calls that counted against the global limit per interaction and per second, and the 429s received.

Two modes:
- closed loop (default): `--games` channels (50, so 150 people) all act as soon as they can, for
  `--seconds` (60). Each waits for the bot, so this shows what the bot sustains, not how it queues.
- open loop (`--rate R`, or `--sweep 100,200,400,800,1200`): interactions fired on a schedule
  (`--arrivals poisson` or `even`) whatever the answers, so a slow bot can't slow the clients down
  and hide its queueing (coordinated omission). Each arrival goes to the table that has waited
  longest with something to do; there are rate × `--table-gap` (3 s) tables, so each table acts
  about every 3 s, as people do, and is idle between: the 1 s refresh interval never paces a table.
  An arrival that finds no table with anything to do is counted as missed (the achieved rate says
  so); an answer that never comes is given up after 5 s and the player looks at the panel again.
  Each rate runs on a fresh fake, bot and database (an overload must not spill into the next rate).
  Before the clock starts (unmeasured) its tables open their games and play them, closed loop, to
  a random point of the hand, so games end during the run as often as in steady state (a game
  lasts about 3 min at one move per table every 3 s); then `--warmup` (5 s) unmeasured and
  `--seconds` (30) measured. The highest rate with p99 under 100 ms, none over 3 s, no error and
  95% of the arrivals sent is `max_rate_p99_under_100ms`. A sweep skips the rates above one whose
  p99 reached 1 s or that lost over 1% of its answers (`--all-rates` runs them anyway).

Configurations (`--config`): `sqlite-1` one bot process on SQLite (the default); `pg-1` one bot
process on PostgreSQL; `pg-2shards` two bot processes (SHARD_COUNT=2, SHARD_IDS=0 and 1) on one
PostgreSQL, guilds created half on each shard. PostgreSQL runs throwaway (`devkit/pg.py`).

Targets: ack p99 under 100 ms; none over 3 s (Discord's limit); no error; and on this 2-core
machine `pg-2shards` sustains at least 1.6× the open-loop rate of `pg-1` at p99 under 100 ms
(compare `max_rate_p99_under_100ms` of the two sweeps).

Run:
    .venv/bin/python bench/bench_load.py                                   # sqlite-1, closed loop, 60 s
    .venv/bin/python bench/bench_load.py --sweep 100,200,400,800,1200      # sqlite-1, open loop
    .venv/bin/python bench/bench_load.py --config pg-1 --sweep 100,200,400,800,1200
    .venv/bin/python bench/bench_load.py --config pg-2shards --sweep 100,200,400,800,1200
    .venv/bin/python bench/bench_load.py --config pg-2shards --rate 200 --side-by-side main --repeat 3
The last with `--side-by-side REV`: REV's bot serves one shard while this checkout's serves the
other (swapped every other run), so a change is measured against the code before it under the same
load at the same moment (two runs of one bot on this machine drift by a quarter within an hour; two
sides of one run, by about 2%). The last line printed is one JSON object with every figure; every
process a run starts is stopped before it ends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import uvloop

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from load_figures import Window, drain, ms, percentile  # noqa: E402
from load_players import Table, play_closed  # noqa: E402
from load_world import CONFIGS, PLAYERS, Unavailable, World, quiet_collector, running  # noqa: E402

from devkit.fake_discord import FakeInteraction  # noqa: E402

PREPARE_TABLE_S = 60.0  # at most this long getting one table ready
PREPARE_AT_ONCE = 50  # tables getting ready together before an open-loop run (more made acks late on 2 cores)
STAGGER_MOVES = 54  # a cutthroat hand: 3 bids and 51 cards, and games to 50 with mercy 50 last about one
OVERLOADED_P99_MS = 1000.0  # a sweep stops after a rate this slow, or that lost answers: higher ones only
OVERLOADED_LOST = 0.01  # collapse further (an answer after 3 s is refused, so p99 alone never shows more)
STALL_SECONDS = 30.0  # open loop: a table not waiting for an arrival with nothing answered this long is stuck
TARGET_P99_MS = 100.0
ENOUGH_OF_OFFERED = 0.95  # an open-loop rate counts only if this much of it was really sent


# ------------------------------------------------------------------------------ closed loop
async def closed_loop(args: argparse.Namespace, seconds: float) -> dict[str, Any]:
    async with running(args, args.games) as world:
        quiet_collector()
        before = len(world.fake.interactions)
        window = Window(world)
        deadline = window.started + seconds
        await asyncio.gather(*(play_closed(table, deadline) for table in world.tables))
        elapsed = time.monotonic() - window.started
        interactions = list(world.fake.interactions.values())[before:]
        await drain(interactions)
        figures = window.figures(interactions, elapsed)
    return {"games_at_once": args.games, "users": PLAYERS * args.games, "seconds": round(elapsed, 1),
            "interactions": len(interactions), "interactions_per_s": round(len(interactions) / elapsed, 1),
            **world_figures(world), **figures, "errors": figures["errors"] + len(world.log_errors)}


def world_figures(world: World) -> dict[str, Any]:
    """The database, and the error lines of the bots' logs (once the bots are stopped)."""
    return {"database": world.database, "bot_log_errors": [line[:300] for line in world.log_errors[:10]]}


# ------------------------------------------------------------------------------ open loop
async def prepare(tables: Sequence[Table], rng: random.Random) -> None:
    """Before the clock starts, open every table's game (lobby, start, My hand) and play it to a
    random point of its hand, so that during the run games end (game-over post with its chart,
    ratings, rematch) as often as they would in steady state, not all at once nor never."""
    limit = asyncio.Semaphore(PREPARE_AT_ONCE)

    async def one(table: Table, moves: int) -> None:
        async with limit:  # a table the bot leaves stuck (an old baseline does) gives its slot up soon
            await play_closed(table, time.monotonic() + PREPARE_TABLE_S,
                              until=lambda: table.phase == "play" and table.moves >= moves)

    await asyncio.gather(*(one(t, rng.randrange(STAGGER_MOVES)) for t in tables))


def arrival_gaps(rate: float, arrivals: str, rng: random.Random) -> Callable[[], float]:
    if arrivals == "even":
        return lambda: 1.0 / rate
    return lambda: rng.expovariate(rate)


async def settle(world: World, limit: float = 300.0) -> float:
    """Seconds spent waiting until the bot has sent what opening every table at once owed (each
    deal's direct messages wait their turn in the token's budget): a run measures the steady
    state, not the start-up backlog."""
    started = time.monotonic()
    last, quiet = world.fake.global_calls, 0
    while quiet < SETTLED_SECONDS and time.monotonic() - started < limit:
        await asyncio.sleep(1.0)
        calls = world.fake.global_calls
        quiet = quiet + 1 if calls - last <= SETTLED_CALLS_PER_S else 0
        last = calls
    return round(time.monotonic() - started, 1)


async def offer(world: World, rate: float, seconds: float, warmup: float, arrivals: str,
                rng: random.Random) -> dict[str, Any]:
    """Fire interactions at `rate` per second on schedule, each to the table that has waited longest
    with something to do; measure those scheduled after `warmup`, for `seconds`."""
    tables = world.tables
    ready: deque[Table] = deque()
    queued: set[Table] = set()

    def watcher(table: Table) -> Callable[[], None]:
        def look() -> None:
            if table not in queued and table.next_step() is not None:
                queued.add(table)
                ready.append(table)
        return look

    for table in tables:
        table.on_change = watcher(table)
        table.on_change()
    gap = arrival_gaps(rate, arrivals, rng)
    quiet_collector()
    start = time.monotonic()
    measure_from, end = start + warmup, start + warmup + seconds
    window: Window | None = None
    fired: list[FakeInteraction] = []
    lags: list[float] = []
    scheduled = missed = 0
    due = look_again = start
    while due < end:
        if due >= measure_from and window is None:
            window = Window(world)
        if due >= look_again:  # answers that never came show only with time
            look_again = due + 1.0
            for table in tables:
                table.on_change()
        step = None
        while ready and step is None:
            table = ready.popleft()
            queued.discard(table)
            step = table.next_step()
        measured = window is not None
        scheduled += measured
        if step is None:
            missed += measured
        else:
            inter = await table.fire(step)
            if measured and inter is not None:
                fired.append(inter)
                lags.append(time.monotonic() - due)
        due += gap()
        wait = due - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
    now = time.monotonic()
    stalled = [t for t in tables if t.broken or (t not in queued and now - t.last_progress > STALL_SECONDS)]
    # What a stalled table's players last saw, to find why without running again: its phase, its
    # game, how long it has been idle, and the channel's last message.
    stalled_seen = [f"{t.channel.name} ({t.phase}, game {t.game_id or '-'}, idle {now - t.last_progress:.0f} s): "
                    f"{last_message(t)}" for t in stalled[:5]]
    for table in tables:
        table.on_change = lambda: None
    assert window is not None
    await drain(fired)
    lags.sort()
    return {"offered_rate": rate, "achieved_rate": round(len(fired) / seconds, 1), "tables": len(tables),
            "scheduled": scheduled, "fired": len(fired), "missed": missed,
            "fire_lag_p99_ms": ms(percentile(lags, 0.99)) if lags else None, "stalled_tables": len(stalled),
            "stalled_seen": stalled_seen,
            **window.figures(fired, seconds)}


def last_message(table: Table) -> str:
    """The newest message of a table's channel, in short: its text and its buttons."""
    messages = list(table.channel.messages.values())
    if not messages:
        return "no message"
    message = messages[-1]
    return f"{' '.join(message.text.split())[:160]!r} {message.custom_ids()[:4]}"


SETTLED_CALLS_PER_S, SETTLED_SECONDS = 5, 3  # the bot's backlog is out: this few counted calls a second, 3 s running
BASELINE_KEYS = ("achieved_rate", "ack_p99_ms", "rest_per_interaction", "counted_calls_per_interaction",
                 "answered_429", "bot_cpu_ms_per_interaction", "turn_shown_p99_ms", "table_behind_p99_ms", "errors")


def median_run(found: list[dict[str, Any]]) -> dict[str, Any]:
    """Of repeated runs at one rate, the one with the median bot CPU per interaction (whole, so its
    figures belong together)."""
    ranked = sorted(found, key=lambda r: r.get("bot_cpu_ms_per_interaction") or math.inf)
    return dict(ranked[(len(ranked) - 1) // 2])


def overloaded(row: dict[str, Any]) -> bool:
    p99 = row["ack_p99_ms"]
    return p99 is None or p99 >= OVERLOADED_P99_MS or row["unanswered"] > OVERLOADED_LOST * row["fired"]


def rate_ok(row: dict[str, Any]) -> bool:
    p99 = row["ack_p99_ms"]
    return (p99 is not None and p99 < TARGET_P99_MS and row["acks_over_3s"] == 0 and row["errors"] == 0
            and row["fired"] >= ENOUGH_OF_OFFERED * row["scheduled"])


async def open_loop(args: argparse.Namespace, rates: Sequence[float], seconds: float) -> dict[str, Any]:
    """Each rate on a fresh fake, bot and database, so an overload can't spill into the next rate."""
    rng = random.Random(args.seed)
    rows: list[dict[str, Any]] = []
    for rate in rates:
        tried = [row for row in rows if "skipped" not in row]
        if tried and overloaded(tried[-1]) and not args.all_rates:
            rows.append({"offered_rate": rate, "skipped": f"{tried[-1]['offered_rate']:g}/s was already overloaded"})
            continue
        tables = max(1, math.ceil(rate * args.table_gap))
        runs: dict[str, list[dict[str, Any]]] = {"this": [], "baseline": []}
        for n in range(args.repeat):  # alternated, so the machine's moods fall on both alike
            swapped = n % 2 == 1  # --side-by-side: each side serves each shard in turn
            for who in (("baseline", "this") if args.baseline_root else ("this",)):
                async with running(args, tables, args.baseline_root if who == "baseline" else None,
                                   side_first=swapped) as world:
                    await prepare(world.tables, random.Random(rng.random()))
                    settled = await settle(world)
                    one = await offer(world, rate, seconds, args.warmup, args.arrivals, random.Random(rng.random()))
                runs[who].append({**one, **world_figures(world), "settle_s": settled, "side_swapped": swapped,
                                  "errors": one["errors"] + len(world.log_errors)})
        row = median_run(runs["this"])
        if runs["baseline"]:
            theirs_run = median_run(runs["baseline"])
            row["baseline"] = {key: theirs_run[key] for key in BASELINE_KEYS if key in theirs_run}
            ours, theirs = row["bot_cpu_ms_per_interaction"], row["baseline"]["bot_cpu_ms_per_interaction"]
            row["cpu_baseline_over_this"] = round(theirs / ours, 2) if ours and theirs else None
        if args.side_by_side:
            row["side_by_side"] = side_by_side(args.side_by_side, runs["this"])
        if args.repeat > 1:
            row["bot_cpu_ms_per_interaction_runs"] = {who: [r["bot_cpu_ms_per_interaction"] for r in found]
                                                      for who, found in runs.items() if found}
        rows.append(row)
    passing = [row["offered_rate"] for row in rows if "skipped" not in row and rate_ok(row)]
    return {"rates": list(rates), "arrivals": args.arrivals, "table_gap_s": args.table_gap,
            "warmup_s": args.warmup, "seconds_per_rate": seconds, "rows": rows,
            "max_rate_p99_under_100ms": max(passing) if passing else None,
            "errors": sum(row.get("errors", 0) for row in rows)}


def side_by_side(rev: str, runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Each run's CPU per interaction of this checkout and of `rev`, played at the same time, each on
    its own shard (the shards swapped every other run: the first also serves direct messages): their
    ratio is free of the machine's drift between runs, which moved one bot's figure by a quarter
    within an hour (docs/operations.md)."""
    pairs = [run["bot_cpu_ms_per_interaction_by_process"][::-1 if run["side_swapped"] else 1] for run in runs]
    ratios = [round(theirs / ours, 3) for ours, theirs in pairs if ours and theirs]
    return {"rev": rev, "this_ms": [p[0] for p in pairs], "rev_ms": [p[1] for p in pairs],
            "rev_over_this_runs": ratios, "rev_over_this": statistics.median(ratios) if ratios else None}


# ------------------------------------------------------------------------------ the run
async def main(args: argparse.Namespace) -> dict[str, Any]:
    rates = [args.rate] if args.rate else [float(r) for r in args.sweep.split(",")] if args.sweep else []
    seconds = args.seconds or (30.0 if rates else 60.0)
    load_before = os.getloadavg()[0]
    if args.log is not None:
        args.log.write_text("")
    figures: dict[str, Any] = {
        "bench": "load", "config": args.config, "mode": "open" if rates else "closed",
        "bot_processes": CONFIGS[args.config][1], "refresh_interval_s": args.refresh_interval,
        "rest_latency_ms": args.rest_latency_ms, "discord_limits": not args.no_limits,
        "bot_root": str(args.bot_root) if args.bot_root else "this checkout",
        "baseline": args.baseline, "side_by_side": args.side_by_side, "repeat": args.repeat,
    }
    if rates:
        results = await open_loop(args, rates, seconds)
        figures["targets_met"] = results["max_rate_p99_under_100ms"] is not None and results["errors"] == 0
    else:
        results = await closed_loop(args, seconds)
        figures["targets_met"] = bool(results["answered"] and results["ack_p99_ms"] < TARGET_P99_MS
                                      and results["acks_over_3s"] == 0 and results["errors"] == 0)
    figures.update({
        **results,
        "machine": {"cpus": os.cpu_count(), "load_1m_before": round(load_before, 2)},
        "targets": {"ack_p99_ms": TARGET_P99_MS, "ack_max_s": 3, "errors": 0, "pg_2shards_over_pg_1": 1.6},
    })
    return figures


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--config", choices=sorted(CONFIGS), default="sqlite-1", help="bot processes and database")
    parser.add_argument("--seconds", type=float, help="closed loop: how long (60); open loop: measured per rate (30)")
    parser.add_argument("--games", type=int, default=50, help="closed loop: channels playing at once (50)")
    parser.add_argument("--rate", type=float, help="open loop: interactions offered per second")
    parser.add_argument("--sweep", help="open loop at each rate in turn, e.g. 100,200,400,800,1200")
    parser.add_argument("--table-gap", type=float, default=3.0,
                        help="open loop: mean seconds between one table's interactions; tables = rate × gap (3)")
    parser.add_argument("--arrivals", choices=("poisson", "even"), default="poisson", help="open loop schedule")
    parser.add_argument("--warmup", type=float, default=5.0, help="open loop: unmeasured seconds before each rate")
    parser.add_argument("--seed", type=int, default=1, help="open loop: seed of the arrivals and the stagger")
    parser.add_argument("--all-rates", action="store_true",
                        help="sweep: run every rate, even after an overloaded one")
    parser.add_argument("--synchronous", choices=("full", "normal"), default="full",
                        help="sqlite-1: the database's durability (DATABASE_URL ?synchronous=)")
    parser.add_argument("--log", type=Path, help="also write the bots' logs to this file")
    parser.add_argument("--no-limits", action="store_true",
                        help="a fake that never says no (Discord's global and route limits off), to compare "
                             "the bot's CPU with code that doesn't pace itself")
    parser.add_argument("--bot-root", type=Path,
                        help="run the bot from this checkout instead (a baseline: git worktree add /tmp/base 7c708de)")
    parser.add_argument("--baseline", metavar="REV",
                        help="open loop: also run the bot of this git revision (e.g. 7c708de), alternating with this "
                             "checkout, against a fake without limits (what it was built for); reports the ratio of "
                             "bot CPU per interaction")
    parser.add_argument("--side-by-side", metavar="REV",
                        help="pg-2shards, open loop: the second bot process runs this git revision's code, at the "
                             "same time as this checkout's on the first (sharing the database: REV must have the same "
                             "schema); reports each side's CPU per interaction on its own shard and their ratio")
    parser.add_argument("--repeat", type=int, default=1,
                        help="open loop: runs per rate (and per side with --baseline); the median run is reported")
    parser.add_argument("--game-target", type=int, metavar="POINTS",
                        help="games to this many points instead of the short ones (50, mercy 50: about one hand "
                             "each, so what a game costs once weighs ten times what it does in play); 500 is "
                             "a real game, whose end a measured window rarely sees")
    parser.add_argument("--refresh-interval", type=float, default=1.0,
                        help="the bots' REFRESH_INTERVAL: each game's table and panels edited at most this often"
                             " (1, as in production)")
    parser.add_argument("--rest-latency-ms", type=float, default=0.0,
                        help="how long each REST answer of the fake takes to come back, as Discord's round trip (0)")
    args = parser.parse_args()
    if args.rate and args.sweep:
        parser.error("give --rate or --sweep, not both")
    if args.baseline and not (args.rate or args.sweep):
        parser.error("--baseline needs the open loop (--rate or --sweep)")
    if args.side_by_side and (args.config != "pg-2shards" or not (args.rate or args.sweep) or args.baseline):
        parser.error("--side-by-side needs --config pg-2shards and the open loop, without --baseline")
    args.baseline_root = args.side_root = None
    return args


@contextlib.contextmanager
def checked_out(rev: str | None) -> Iterator[Path | None]:
    """A throwaway worktree of `rev` (removed after), for a baseline run in the same session."""
    if rev is None:
        yield None
        return
    with tempfile.TemporaryDirectory() as name:
        tree = Path(name) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tree), rev], check=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)


async def run_until_stopped(args: argparse.Namespace) -> dict[str, Any]:
    """SIGTERM stops the run as Ctrl-C does, so the bots and the database server are stopped too."""
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    with checked_out(args.baseline) as tree, checked_out(args.side_by_side) as side:
        args.baseline_root, args.side_root = tree, side
        return await main(args)


if __name__ == "__main__":
    arguments = parse_args()
    # An overloaded bot answers late, and the fake logs each refusal: they are counted in the figures,
    # with the first ten shown, rather than printed by the thousand.
    logging.getLogger("devkit.fake_discord").setLevel(logging.ERROR)
    try:
        # The fake and the players share one event loop; uvloop keeps their own queueing out of the figures.
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            print(json.dumps(runner.run(run_until_stopped(arguments))))
    except Unavailable as reason:
        print(f"error: {reason}", file=sys.stderr)
        sys.exit(2)
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("stopped; every process it started is stopped too", file=sys.stderr)
        sys.exit(1)
