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
The last line printed is one JSON object with every figure; every process a run starts is stopped
before it ends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvloop

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from load_players import SHORT_GAMES, LoadDiscord, Table, Tally, kind_of, play_closed  # noqa: E402

from devkit.fake_discord import BotProcess, FakeInteraction  # noqa: E402
from devkit.fake_discord.ratelimits import DISCORD_LIMITS, NO_LIMITS  # noqa: E402

CONFIGS = {"sqlite-1": ("sqlite", 1), "pg-1": ("pg", 1), "pg-2shards": ("pg", 2)}
PG_MISSING = "PostgreSQL configurations need devkit/pg.py (the PostgreSQL store)"
TABLES_PER_GUILD = 10  # servers with a few game channels each, spread over the shards
PLAYERS = 3
BOT_ENV = {"BOT_MOVE_DELAY": "0", "HAND_PAUSE": "0", "LOG_LEVEL": "WARNING"}
PREPARE_TABLE_S = 60.0  # at most this long getting one table ready
PREPARE_AT_ONCE = 50  # tables getting ready together before an open-loop run (more made acks late on 2 cores)
STAGGER_MOVES = 54  # a cutthroat hand: 3 bids and 51 cards, and games to 50 with mercy 50 last about one
OVERLOADED_P99_MS = 1000.0  # a sweep stops after a rate this slow, or that lost answers: higher ones only
OVERLOADED_LOST = 0.01  # collapse further (an answer after 3 s is refused, so p99 alone never shows more)
STALL_SECONDS = 30.0  # open loop: a table not waiting for an arrival with nothing answered this long is stuck
DRAIN_SECONDS = 5.0  # after a run: how long the answers still in flight are awaited
TARGET_P99_MS = 100.0
ENOUGH_OF_OFFERED = 0.95  # an open-loop rate counts only if this much of it was really sent


class Unavailable(Exception):
    """A configuration can't run here; the message is the one line the user sees."""


# ------------------------------------------------------------------------------ measuring
def cpu_seconds(pid: int | None) -> float | None:
    """CPU time a process has used so far (Linux), to tell a busy bot from a busy machine."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def machine_busy_seconds() -> float:
    """CPU time all processes on the machine have used (Linux /proc/stat): what else ran shows as
    this less the bots and this process."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def percentile(ordered: Sequence[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def ms(seconds: float) -> float:
    return round(1000 * seconds, 2)


def latency_figures(interactions: Sequence[FakeInteraction]) -> dict[str, Any]:
    latencies = sorted(i.response.latency for i in interactions if i.response is not None)
    return {
        "answered": len(latencies),
        "unanswered": len(interactions) - len(latencies),
        "ack_p50_ms": ms(percentile(latencies, 0.50)) if latencies else None,
        "ack_p99_ms": ms(percentile(latencies, 0.99)) if latencies else None,
        "ack_max_ms": ms(latencies[-1]) if latencies else None,
        "acks_over_3s": sum(1 for x in latencies if x > 3.0),
    }


def by_kind(interactions: Sequence[FakeInteraction]) -> dict[str, dict[str, float]]:
    kinds: dict[str, list[float]] = {}
    for inter in interactions:
        if inter.response is not None:
            kinds.setdefault(kind_of(inter), []).append(inter.response.latency)
    out = {}
    for kind, samples in sorted(kinds.items()):
        samples.sort()
        out[kind] = {"n": len(samples), "p50_ms": round(1000 * percentile(samples, 0.5), 1),
                     "p99_ms": round(1000 * percentile(samples, 0.99), 1), "max_ms": round(1000 * samples[-1], 1)}
    return out


@dataclass
class Window:
    """Counters at the start of a measured stretch, to report what happened within it."""

    world: World
    started: float = field(default_factory=time.monotonic)
    own_cpu: float = field(default_factory=time.process_time)
    machine_cpu: float = field(default_factory=machine_busy_seconds)
    bot_cpu: list[float | None] = field(default_factory=list)
    requests: Counter[str] = field(default_factory=Counter)
    calls: Counter[str] = field(default_factory=Counter)  # REST calls by kind (the fake's counters)
    counted_calls: int = 0  # of them, those against the token's global limit
    limited: int = 0  # 429s answered
    errors: int = 0
    tally: Tally = field(default_factory=Tally)  # its counts only
    unexpected: int = 0
    shown_from: int = 0  # where this stretch starts in the tally's timings
    behind_from: int = 0

    def __post_init__(self) -> None:
        fake, tally = self.world.fake, self.world.tally
        self.bot_cpu = self.world.bot_cpu()
        self.requests = Counter(fake.request_counts)
        self.calls, self.counted_calls, self.limited = Counter(fake.calls_by_kind), fake.global_calls, fake.count_429s()
        self.errors = len(fake.errors)
        self.tally = Tally(tally.moves, tally.games_started, tally.games_finished)
        self.unexpected = len(tally.unexpected)
        self.shown_from, self.behind_from = len(tally.turn_shown), len(tally.table_behind)
        self.late_from, self.early_from = len(tally.table_late), tally.table_before_answer

    def figures(self, interactions: Sequence[FakeInteraction], elapsed: float) -> dict[str, Any]:
        fake, tally = self.world.fake, self.world.tally
        bot_cpu = [None if a is None or b is None else round(a - b, 1)
                   for a, b in zip(self.world.bot_cpu(), self.bot_cpu, strict=True)]
        own_cpu = time.process_time() - self.own_cpu
        others = machine_busy_seconds() - self.machine_cpu - own_cpu - sum(c or 0.0 for c in bot_cpu)
        rest = Counter(fake.request_counts)
        rest.subtract(self.requests)
        figures = latency_figures(interactions)
        figures.update(rest_figures(fake, self, len(interactions), elapsed))
        protocol_errors = fake.errors[self.errors:]
        unexpected = tally.unexpected[self.unexpected:]
        shown = sorted(tally.turn_shown[self.shown_from:])
        behind = sorted(tally.table_behind[self.behind_from:])
        figures.update({
            # from a move's acknowledgement: the next player's panel showing their turn; a table showing the move
            "turn_shown_p50_ms": ms(percentile(shown, 0.5)) if shown else None,
            "turn_shown_p99_ms": ms(percentile(shown, 0.99)) if shown else None,
            "turn_shown_max_ms": ms(shown[-1]) if shown else None,  # one turn shown much later: a table held up
            "table_behind_p50_ms": ms(percentile(behind, 0.5)) if behind else None,
            "table_behind_p99_ms": ms(percentile(behind, 0.99)) if behind else None,
            "table_behind_max_ms": ms(behind[-1]) if behind else None,
            "table_late": tally.table_late[self.late_from:][:10],
            "table_before_answer": tally.table_before_answer - self.early_from,
            "moves": tally.moves - self.tally.moves,
            "games_started": tally.games_started - self.tally.games_started,
            "games_finished": tally.games_finished - self.tally.games_finished,
            "by_kind": by_kind(interactions),
            "rest_calls": {route: n for route, n in rest.most_common() if n > 0},  # what the bot asked of Discord
            "bot_cpu_s": bot_cpu,  # per bot process, while the players played
            "fake_and_players_cpu_s": round(own_cpu, 1),  # a busy fake delays acks too
            "other_processes_cpu_s": round(max(0.0, others), 1),  # whatever else ran on the machine meanwhile
            "errors": len(protocol_errors) + figures["unanswered"] + len(unexpected),
            "protocol_errors": [str(e)[:300] for e in protocol_errors[:10]],
            "unexpected_replies": unexpected[:10],
        })
        figures["bot_cpu_share"] = [None if c is None else round(c / elapsed, 2) for c in bot_cpu]
        # What shards divide: CPU per interaction, all bot processes together (flat if they scale).
        known = [c for c in bot_cpu if c is not None]
        figures["bot_cpu_ms_per_interaction"] = (round(1000 * sum(known) / len(interactions), 2)
                                                 if interactions and len(known) == len(bot_cpu) else None)
        return figures


def rest_figures(fake: LoadDiscord, since: Window, interactions: int, elapsed: float) -> dict[str, Any]:
    """What the bot asked of Discord per interaction, by kind, and what counted against the token's
    global limit (everything but interaction callbacks and webhooks); the 429s it received."""
    calls = Counter(fake.calls_by_kind)
    calls.subtract(since.calls)
    counted = fake.global_calls - since.counted_calls
    return {
        "rest_per_interaction": {kind: round(n / interactions, 3) for kind, n in sorted(calls.items()) if n > 0}
        if interactions else {},
        "counted_calls_per_interaction": round(counted / interactions, 3) if interactions else None,
        "counted_calls_per_s": round(counted / elapsed, 1) if elapsed else None,
        "answered_429": fake.count_429s() - since.limited,
    }


async def drain(interactions: Sequence[FakeInteraction]) -> None:
    """Give the answers still in flight a moment (an answer later than 3 s is refused by the fake)."""
    deadline = time.monotonic() + DRAIN_SECONDS
    while time.monotonic() < deadline and any(i.response is None for i in interactions):
        await asyncio.sleep(0.05)


# ------------------------------------------------------------------------------ the world
@dataclass
class World:
    """The fake, its tables (channels of three people) and the bot processes of one configuration."""

    fake: LoadDiscord
    tables: list[Table]
    tally: Tally
    bots: list[BotProcess] = field(default_factory=list)
    database: str = ""
    log_errors: list[str] = field(default_factory=list)  # error lines of the bots' logs, once stopped

    def bot_cpu(self) -> list[float | None]:
        return [cpu_seconds(bot.proc.pid if bot.proc is not None else None) for bot in self.bots]


def sqlite_url(folder: Path, synchronous: str) -> str:
    return f"sqlite:///{folder / 'load.sqlite3'}?synchronous={synchronous}"


def postgres_url(folder: Path, stack: contextlib.ExitStack) -> str:
    """A throwaway PostgreSQL server and database (stopped when `stack` closes)."""
    try:
        from devkit.pg import start_postgres
    except ModuleNotFoundError as missing:
        if missing.name != "devkit.pg":
            raise
        raise Unavailable(PG_MISSING) from None
    try:
        server = start_postgres(folder / "pg", durable=True)  # as in production
    except Exception as error:  # no server binaries, or it wouldn't start: say so in one line
        raise Unavailable(f"PostgreSQL didn't start: {str(error).splitlines()[0] if str(error) else error!r}") \
            from None
    stack.callback(server.discard)
    url: str = server.create_database("load")
    return url


@contextlib.asynccontextmanager
async def running(args: argparse.Namespace, table_count: int, baseline: Path | None = None) -> AsyncIterator[World]:
    """Start the fake, create `table_count` tables, start the configuration's bots (from `baseline`,
    a checkout of older code, against a fake without limits); stop them all after."""
    synchronous, log_path = args.synchronous, args.log
    backend, processes = CONFIGS[args.config]
    tally = Tally()
    limits = NO_LIMITS if args.no_limits or baseline is not None else DISCORD_LIMITS
    fake = LoadDiscord(recommended_shards=processes, rest_latency=args.rest_latency_ms / 1000, **limits)
    await fake.start()
    world = World(fake, [], tally)
    with tempfile.TemporaryDirectory() as name, contextlib.ExitStack() as stack:
        folder = Path(name)
        try:
            url = sqlite_url(folder, synchronous) if backend == "sqlite" else postgres_url(folder, stack)
            world.database = url.split("@")[-1] if backend == "pg" else f"sqlite:///<tmp>?synchronous={synchronous}"
            owner = fake.create_user("Owner")
            guild = None
            for n in range(table_count):
                if n % TABLES_PER_GUILD == 0:
                    shard = (n // TABLES_PER_GUILD) % processes
                    guild = fake.create_guild(f"Club {n // TABLES_PER_GUILD}", owner,
                                              shard=shard if processes > 1 else None,
                                              shard_count=processes if processes > 1 else None)
                assert guild is not None
                users = [fake.create_user(f"p{n}_{k}") for k in range(PLAYERS)]
                for user in users:
                    fake.add_member(guild, user)
                world.tables.append(Table(fake, fake.create_channel(guild, f"spades-{n}"), users, tally,
                                         SHORT_GAMES if args.game_target is None else {"target": args.game_target}))
            for k in range(processes):
                env = {**BOT_ENV, "DATABASE_URL": url, "REFRESH_INTERVAL": str(args.refresh_interval)}
                if processes > 1:
                    env.update({"SHARD_COUNT": str(processes), "SHARD_IDS": str(k)})
                bot = BotProcess(fake, folder / f"bot{k}.sqlite3", env,  # the path names its log only
                                 cwd=baseline or args.bot_root)
                world.bots.append(bot)
                await bot.start()  # one after the other: the first migrates the database
                await bot.wait_ready(120.0)
            yield world
        finally:
            for bot in world.bots:
                await bot.stop()
            logs = [bot.log_text() for bot in world.bots]
            if log_path is not None:
                with log_path.open("a") as log_file:
                    log_file.write("\n".join(logs))
            world.log_errors = [line for log in logs for line in log.splitlines()
                                if " ERROR " in line or "Traceback" in line]
            await fake.stop()
            gc.unfreeze()  # the next rate's world starts afresh: let this one's heap go


def quiet_collector() -> None:
    """The fake keeps every message it has seen, so full collections of this process's growing heap
    stalled it for up to 0.6 s at a time, and every ack in flight was counted that much slower.
    Young garbage is still collected; what exists now is kept out of every collection."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(700, 10, 1_000_000_000)


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
        for _ in range(args.repeat):  # alternated, so the machine's moods fall on both alike
            for who in (("baseline", "this") if args.baseline_root else ("this",)):
                async with running(args, tables, args.baseline_root if who == "baseline" else None) as world:
                    await prepare(world.tables, random.Random(rng.random()))
                    settled = await settle(world)
                    one = await offer(world, rate, seconds, args.warmup, args.arrivals, random.Random(rng.random()))
                runs[who].append({**one, **world_figures(world), "settle_s": settled,
                                  "errors": one["errors"] + len(world.log_errors)})
        row = median_run(runs["this"])
        if runs["baseline"]:
            theirs_run = median_run(runs["baseline"])
            row["baseline"] = {key: theirs_run[key] for key in BASELINE_KEYS if key in theirs_run}
            ours, theirs = row["bot_cpu_ms_per_interaction"], row["baseline"]["bot_cpu_ms_per_interaction"]
            row["cpu_baseline_over_this"] = round(theirs / ours, 2) if ours and theirs else None
        if args.repeat > 1:
            row["bot_cpu_ms_per_interaction_runs"] = {who: [r["bot_cpu_ms_per_interaction"] for r in found]
                                                      for who, found in runs.items() if found}
        rows.append(row)
    passing = [row["offered_rate"] for row in rows if "skipped" not in row and rate_ok(row)]
    return {"rates": list(rates), "arrivals": args.arrivals, "table_gap_s": args.table_gap,
            "warmup_s": args.warmup, "seconds_per_rate": seconds, "rows": rows,
            "max_rate_p99_under_100ms": max(passing) if passing else None,
            "errors": sum(row.get("errors", 0) for row in rows)}


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
        "baseline": args.baseline, "repeat": args.repeat,
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
    args.baseline_root = None
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
    with checked_out(args.baseline) as tree:
        args.baseline_root = tree
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
