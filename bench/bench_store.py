"""Store benchmarks, SQLite and PostgreSQL side by side: appending an action, leaderboards on a big
server, finishing a game, start-up recovery.

Targets (from the issues), on both backends: append p99 < 5 ms; a leaderboard (each sort, and a
50-row page deep in the board) on a server with 100,000 finished games and 2,000 players < 20 ms;
recovering 1,000 unfinished games < 3 s. SQLite is measured with the default synchronous=full (an
fsync per commit, off the loop) and with `?synchronous=normal`; PostgreSQL with its defaults (a WAL
flush per commit). `append_with_post` is the full append again with one outbox post per action (a
hand summary's size); `append_per_move` saves one move as the service does: the move's events (a
deal's with the first move of a hand), the next turn's deadline and a table post. Each append figure
has `cpu_us`, this process's CPU per save: the bot's share of the cost, which a server's speed
hides from the wall times. `append_concurrent` is many games saving actions at once: SQLite's group
commit against PostgreSQL's own commit path (pooled connections whose commits share log flushes).
`open_s` is opening the big database (on SQLite most of it the `PRAGMA quick_check`).

PostgreSQL runs on a throwaway server started in a temporary folder (devkit/pg.py); without its
binaries that half is reported as skipped. Timings go through the public `Store` interface. Seeding
does not: the big server is written in bulk straight into the schema (one by one through the API
would take many minutes), with the same row formats and the same openskill updates as
`finish_game`, and the same rows on both backends. Finished games are seeded without their event
logs, which no leaderboard or stats query reads. The last line printed is a JSON object with every
figure; `--appends-only` skips the big server (seconds instead of minutes), `--backend` picks one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import asyncpg  # noqa: E402

from bot.ai.drive import drive, random_moves  # noqa: E402
from bot.engine import Game, event_to_json  # noqa: E402
from bot.store import Deadline, Post, SeatResult, Store, open_store  # noqa: E402
from bot.store.ratings import Rating, rate_game  # noqa: E402
from bot.store.replay import dumps  # noqa: E402
from devkit.pg import PgServer, PostgresNotFound, start_postgres  # noqa: E402  (the devkit's throwaway server, as the tests use)

GUILD = 1
CHANNELS = 20
PLAYERS = 2_000
FINISHED_GAMES = 100_000
UNFINISHED_GAMES = 1_000
EVENTS_PER_UNFINISHED = 30
APPENDS = 3_000
CONCURRENT_GAMES = 50
CONCURRENT_ACTIONS = 60  # per game
RUNS = 25
REPEATS = 3  # recovery is timed this many times, and the median reported


def play(game: Game, rng: random.Random, actions: int) -> None:
    """Random legal actions until the game has `actions` events (or is over)."""
    drive(game, random_moves(rng, blind_nil=0.3), until=lambda g: g.event_count >= actions)


def ms_percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(1000 * ordered[len(ordered) // 2], 3),
        "p99_ms": round(1000 * ordered[int(len(ordered) * 0.99)], 3),
        "max_ms": round(1000 * ordered[-1], 3),
    }


async def median_ms(run: Callable[[], Awaitable[Any]], runs: int = RUNS) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        await run()
        samples.append(time.perf_counter() - start)
    return round(1000 * statistics.median(samples), 3)


# -- the big server's rows, made once and loaded into each backend ------------------------------------

GAME_COLUMNS = ("game_id", "guild_id", "channel_id", "mode", "rules_json", "setup_json", "status", "host_id",
                "created_at", "started_at", "ended_at")  # fmt: skip
SEAT_COLUMNS = ("game_id", "seat", "name", "user_id", "bot_level")
RESULT_COLUMNS = ("game_id", "seat", "guild_id", "mode", "player_key", "name", "is_bot", "final_score", "place", "won",
                  "hands", "bids_made", "bids_set", "nils_tried", "nils_made", "bags", "rating_before", "rating_after",
                  "rank_before", "rank_after", "finished_at")  # fmt: skip
RATING_COLUMNS = ("guild_id", "mode", "player_key", "is_bot", "name", "mu", "sigma", "ordinal", "games", "wins",
                  "points", "updated_at")  # fmt: skip
EVENT_COLUMNS = ("game_id", "seq", "event_json", "created_at")


@dataclass
class BigServer:
    """Rows per table, in the columns above."""

    tables: dict[str, tuple[tuple[str, ...], list[tuple[Any, ...]]]] = field(default_factory=dict)

    def add(self, table: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        self.tables.setdefault(table, (columns, []))[1].extend(rows)


def finished_games(server: BigServer) -> None:
    """100,000 finished cutthroat games among 2,000 players (every tenth game has a computer player)."""
    rng = random.Random(7)
    ratings: dict[str, Rating] = {}
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    names: dict[str, str] = {}
    games, seats, results = [], [], []
    clock = 1.7e9
    for n in range(FINISHED_GAMES):
        game_id = f"f{n}"
        keys = [str(k) for k in rng.sample(range(1, PLAYERS + 1), 3)]
        if n % 10 == 0:
            keys[2] = "bot:hard"
        scores = [rng.randrange(-200, 700) for _ in keys]
        places = [1 + sum(other > score for other in scores) for score in scores]
        seat_results = [
            SeatResult(seat, key, f"player {key}", scores[seat], places[seat], places[seat] == 1,
                       hands := rng.randrange(6, 20), rng.randrange(hands), rng.randrange(4), rng.randrange(3), 0,
                       rng.randrange(12))
            for seat, key in enumerate(keys)
        ]  # fmt: skip
        before = {k: ratings[k] for k in keys if k in ratings}
        after = rate_game("cutthroat", seat_results, before)
        ratings.update(after)
        clock += 30
        games.append((game_id, GUILD, n % CHANNELS, "cutthroat", "{}", "{}", "finished", int(keys[0]),
                      clock - 1800, clock - 1790, clock))  # fmt: skip
        for r in seat_results:
            bot = r.player_key.startswith("bot:")
            seats.append((game_id, r.seat, r.name, None if bot else int(r.player_key), "hard" if bot else None))
            results.append((game_id, r.seat, GUILD, "cutthroat", r.player_key, r.name, int(bot), r.final_score,
                            r.place, int(r.won), r.hands, r.bids_made, r.bids_set, r.nils_tried, r.nils_made,
                            r.bags, before[r.player_key].ordinal if r.player_key in before else None,
                            after[r.player_key].ordinal, None, None, clock))  # fmt: skip
            total = totals[r.player_key]
            total[0] += 1
            total[1] += r.won
            total[2] += r.final_score
            names[r.player_key] = r.name
    server.add("games", GAME_COLUMNS, games)
    server.add("seats", SEAT_COLUMNS, seats)
    server.add("results", RESULT_COLUMNS, results)
    server.add("ratings", RATING_COLUMNS, [
        (GUILD, "cutthroat", key, int(key.startswith("bot:")), names[key], r.mu, r.sigma, r.ordinal, *totals[key],
         clock)
        for key, r in ratings.items()
    ])  # fmt: skip


def unfinished_games(server: BigServer) -> None:
    """1,000 games in play, ~30 engine events each, in the rows `create_game`/`append_event` write."""
    rng = random.Random(11)
    games: list[tuple[Any, ...]] = []
    seats: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []
    for n in range(UNFINISHED_GAMES):
        mode = ("cutthroat", "solo", "partners")[n % 3]
        game = Game.new(f"u{n}", mode, seed=n)
        play(game, rng, EVENTS_PER_UNFINISHED)
        games.append((game.game_id, GUILD, 1000 + n, mode, dumps(game.rules.to_dict()), dumps(game.setup_json()),
                      "playing", 1, 1.8e9, 1.8e9, None))  # fmt: skip
        seats.extend((game.game_id, s, name, 10_000 + s, None) for s, name in enumerate(game.names))
        events.extend((game.game_id, seq, dumps(event_to_json(e)), 1.8e9) for seq, e in enumerate(game.events, 1))
    server.add("games", GAME_COLUMNS, games)
    server.add("seats", SEAT_COLUMNS, seats)
    server.add("events", EVENT_COLUMNS, events)


def load_sqlite(url: str, server: BigServer) -> None:
    conn = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
    conn.execute("BEGIN")
    for table, (columns, rows) in server.tables.items():
        marks = ", ".join("?" * len(columns))
        conn.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
    conn.execute("COMMIT")
    conn.close()


async def load_postgresql(url: str, server: BigServer) -> None:
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction():
            for table, (columns, rows) in server.tables.items():
                await conn.copy_records_to_table(table, records=rows, columns=columns)
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


# -- the figures -------------------------------------------------------------------------------------

SUMMARY = {"hand": 3, "bids": [3, 4, 2], "tricks": [4, 5, 4], "scores": [34, -40, 22], "bags": [1, 0, 2]}


def played_by_moves(game: Game, rng: random.Random, actions: int) -> tuple[Game, list[int]]:
    """`play`, also giving the event count after each move."""
    move_ends: list[int] = []
    drive(game, random_moves(rng, blind_nil=0.3), until=lambda g: g.event_count >= actions,
          moved=lambda g, _seat, _move: move_ends.append(g.event_count))  # fmt: skip
    return game, move_ends


Save = tuple[int, list[dict[str, Any]], Deadline | None, list[Post]]  # first seq, events, deadline, posts


def saves_of(game: Game, kind: str, move_ends: list[int]) -> list[Save]:
    """The saves that store `game`: one event each ("event"), one event and a hand summary
    ("with_post"), or one move each with the next turn's deadline and a table post ("move")."""
    events = [event_to_json(event) for event in game.events]
    if kind != "move":
        posts = [Post("hand_scored", SUMMARY)] if kind == "with_post" else []
        return [(seq, [event], None, posts) for seq, event in enumerate(events, start=1)]
    starts = [0, *move_ends[:-1]]
    return [(start + 1, events[start:end], Deadline("remind", 1.8e9 + end), [Post("table", {"seq": end})])
            for start, end in zip(starts, move_ends, strict=True)]  # fmt: skip


async def bench_append(url: str, kind: str = "event") -> dict[str, float]:
    """Each save is timed alone: one committed write per save (see `saves_of`)."""
    store = await open_store(url)
    rng = random.Random(1)
    samples: list[float] = []
    cpu_s = 0.0
    try:
        for n in range(APPENDS // 300):
            game, move_ends = played_by_moves(Game.new(f"a{n}", "cutthroat", seed=n), rng, 300)
            await store.create_game(game.game_id, guild_id=GUILD, channel_id=n, mode="cutthroat", rules={}, host_id=1)
            await store.start_game(game.game_id, game.setup_json())
            for first_seq, events, deadline, posts in saves_of(game, kind, move_ends):
                start, start_cpu = time.perf_counter(), time.process_time()
                await store.append_events(game.game_id, first_seq, events, deadline, posts)
                samples.append(time.perf_counter() - start)
                cpu_s += time.process_time() - start_cpu
    finally:
        await store.close()
    return {"appends": len(samples), **ms_percentiles(samples), "cpu_us": round(1e6 * cpu_s / len(samples), 1)}


async def bench_concurrent_appends(url: str) -> dict[str, float]:
    """Many games saving at once, each one action after another, as busy channels do."""
    store = await open_store(url)
    rng = random.Random(2)
    samples: list[float] = []

    async def channel(game: Game) -> None:
        for seq, event in enumerate(game.events, start=1):
            start = time.perf_counter()
            await store.append_events(game.game_id, seq, [event_to_json(event)], posts=[Post("table", {"seq": seq})])
            samples.append(time.perf_counter() - start)

    try:
        games = []
        for n in range(CONCURRENT_GAMES):
            game = Game.new(f"c{n}", "cutthroat", seed=n)
            play(game, rng, CONCURRENT_ACTIONS)
            games.append(game)
            await store.create_game(game.game_id, guild_id=GUILD, channel_id=n, mode="cutthroat", rules={}, host_id=1)
            await store.start_game(game.game_id, game.setup_json())
        start = time.perf_counter()
        await asyncio.gather(*(channel(game) for game in games))
        elapsed = time.perf_counter() - start
    finally:
        await store.close()
    return {"games": CONCURRENT_GAMES, "actions_per_s": round(len(samples) / elapsed), **ms_percentiles(samples)}


async def bench_big_server(url: str, load: Callable[[], Awaitable[None]]) -> dict[str, Any]:
    await (await open_store(url)).close()  # create the schema
    start = time.perf_counter()
    await load()
    seed_s = time.perf_counter() - start

    store = await open_store(url)
    try:
        top = (await store.leaderboard(GUILD, "cutthroat"))[0].user_id
        leaderboard = {
            sort: await median_ms(lambda sort=sort: store.leaderboard(GUILD, "cutthroat", sort))  # type: ignore[misc]
            for sort in ("rating", "wins", "win_rate", "points")
        }
        leaderboard["page_of_50_at_500"] = await median_ms(
            lambda: store.leaderboard(GUILD, "cutthroat", limit=50, offset=500)
        )
        stats_ms = await median_ms(lambda: store.player_stats(GUILD, top))
        recent_ms = await median_ms(lambda: store.recent_games(GUILD, 3))
        finish_ms = await _finish_games(store)
    finally:
        await store.close()

    recoveries, startups, opens = [], [], []
    for _ in range(REPEATS):
        start = time.perf_counter()
        store = await open_store(url)
        opened = time.perf_counter()
        recovery = await store.recover()
        recoveries.append(time.perf_counter() - opened)
        opens.append(opened - start)
        startups.append(time.perf_counter() - start)
        await store.close()
        assert len(recovery.games) == UNFINISHED_GAMES and not recovery.damaged, recovery.damaged[:3]
    return {
        "seed_s": round(seed_s, 1),
        "leaderboard_ms": leaderboard,
        "player_stats_ms": stats_ms,
        "recent_games_ms": recent_ms,
        "finish_game_ms": finish_ms,
        "open_s": round(statistics.median(opens), 3),
        "recovery_s": round(statistics.median(recoveries), 3),
        "startup_with_recovery_s": round(statistics.median(startups), 3),
    }


async def _finish_games(store: Store) -> float:
    """Median time to finish a game among three of the big server's players."""
    samples = []
    for n in range(RUNS):
        game_id = f"finish{n}"
        keys = [str(k) for k in random.Random(n).sample(range(1, PLAYERS + 1), 3)]
        await store.create_game(game_id, guild_id=GUILD, channel_id=1, mode="cutthroat", rules={}, host_id=1)
        await store.start_game(game_id, {})
        seat_results = [SeatResult(s, k, f"player {k}", 500 - 100 * s, s + 1, s == 0, 10, 5, 2, 1, 1, 3)
                        for s, k in enumerate(keys)]  # fmt: skip
        start = time.perf_counter()
        await store.finish_game(game_id, seat_results)
        samples.append(time.perf_counter() - start)
    return round(1000 * statistics.median(samples), 3)


def targets(figures: dict[str, Any]) -> dict[str, bool]:
    met = {"append_p99_under_5ms": figures["append"]["p99_ms"] < 5}
    if "leaderboard_ms" in figures:
        met["leaderboard_under_20ms"] = max(figures["leaderboard_ms"].values()) < 20
        met["recovery_under_3s"] = figures["startup_with_recovery_s"] < 3
    return met


async def bench_sqlite(folder: Path, big: BigServer | None) -> dict[str, Any]:
    def url(name: str, option: str = "") -> str:
        return f"sqlite:///{folder / name}.db{option}"

    figures: dict[str, Any] = {"version": sqlite3.sqlite_version}
    figures["append"] = await bench_append(url("append"))
    figures["append_synchronous_normal"] = await bench_append(url("normal", "?synchronous=normal"))
    figures["append_with_post"] = await bench_append(url("post"), "with_post")
    figures["append_per_move"] = await bench_append(url("move"), "move")
    figures["append_concurrent"] = await bench_concurrent_appends(url("concurrent"))
    if big is not None:
        seed = big

        async def load() -> None:
            load_sqlite(url("big"), seed)

        figures |= await bench_big_server(url("big"), load)
    return figures | {"targets_met": targets(figures)}


async def bench_postgresql(server: PgServer, big: BigServer | None) -> dict[str, Any]:
    version = server.sql("SHOW server_version").strip()
    figures: dict[str, Any] = {"version": version}
    figures["append"] = await bench_append(server.create_database("append"))
    figures["append_with_post"] = await bench_append(server.create_database("post"), "with_post")
    figures["append_per_move"] = await bench_append(server.create_database("move"), "move")
    figures["append_concurrent"] = await bench_concurrent_appends(server.create_database("concurrent"))
    if big is not None:
        seed, url = big, server.create_database("big")
        figures |= await bench_big_server(url, lambda: load_postgresql(url, seed))
    return figures | {"targets_met": targets(figures)}


async def main(backends: tuple[str, ...], appends_only: bool) -> dict[str, Any]:
    big = None
    if not appends_only:
        big = BigServer()
        finished_games(big)
        unfinished_games(big)
    figures: dict[str, Any] = {"bench": "store"}
    if big is not None:
        figures["server"] = {
            "finished_games": FINISHED_GAMES,
            "players": PLAYERS,
            "unfinished_games": UNFINISHED_GAMES,
            "events_per_unfinished_game": EVENTS_PER_UNFINISHED,
        }
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if "sqlite" in backends:
            figures["sqlite"] = await bench_sqlite(folder, big)
        if "postgresql" in backends:
            try:
                server = start_postgres(folder, durable=True)  # commits as in production
            except PostgresNotFound as missing:
                figures["postgresql"] = {"skipped": str(missing)}
            else:
                try:
                    figures["postgresql"] = await bench_postgresql(server, big)
                finally:
                    server.discard()
    return figures


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Store benchmarks, SQLite and PostgreSQL side by side.")
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--appends-only", action="store_true",
                        help="only the append figures, without the big server (seconds instead of minutes)")
    args = parser.parse_args()
    chosen = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    print(json.dumps(asyncio.run(main(chosen, args.appends_only))))
