"""Store benchmarks on real SQLite files: appending an action, leaderboards on a big server, start-up recovery.

Targets (from the issue): append p99 < 5 ms (measured with the default synchronous=full, and with the
`?synchronous=normal` URL option, which skips the fsync per commit); a leaderboard on a server with
100,000 finished games and 2,000 players < 20 ms; recovering 1,000 unfinished games < 3 s.
`append_with_post` is the full append again with one outbox post per action (a hand summary's size);
`open_s` is opening the big database, most of it the `PRAGMA quick_check` run before any write.

Timings go through the public `Store` interface. Seeding does not: the big server is written with one
bulk `executemany` transaction straight into the schema (one by one through the API would take many
minutes), with the same row formats and the same openskill updates as `finish_game`. Finished games
are seeded without their event logs, which no leaderboard or stats query reads. The last line printed
is a JSON object with every figure.
"""

from __future__ import annotations

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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.engine import Game, Phase, event_to_json  # noqa: E402
from bot.store import Post, SeatResult, open_store  # noqa: E402
from bot.store.ratings import Rating, rate_game  # noqa: E402
from bot.store.replay import dumps  # noqa: E402
from tests.store.helpers import step  # noqa: E402  (the tests' random-game driver, not a copy)

GUILD = 1
CHANNELS = 20
PLAYERS = 2_000
FINISHED_GAMES = 100_000
UNFINISHED_GAMES = 1_000
EVENTS_PER_UNFINISHED = 30
APPENDS = 3_000
RUNS = 25


def play(game: Game, rng: random.Random, actions: int) -> None:
    """Random legal actions until the game has `actions` events (or is over)."""
    while game.event_count < actions and game.phase is not Phase.OVER:
        step(game, rng)


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


async def bench_append(folder: Path, synchronous: str, with_post: bool = False) -> dict[str, float]:
    """Each append is timed alone: one committed transaction per action."""
    store = await open_store(f"sqlite:///{folder / synchronous}{with_post}.db?synchronous={synchronous}")
    summary = {"hand": 3, "bids": [3, 4, 2], "tricks": [4, 5, 4], "scores": [34, -40, 22], "bags": [1, 0, 2]}
    rng = random.Random(1)
    samples: list[float] = []
    try:
        for n in range(APPENDS // 300):
            game = Game.new(f"a{n}", "cutthroat", seed=n)
            play(game, rng, 300)
            await store.create_game(game.game_id, guild_id=GUILD, channel_id=n, mode="cutthroat", rules={}, host_id=1)
            await store.start_game(game.game_id, game.setup_json())
            for seq, event in enumerate(game.events, start=1):
                payload = event_to_json(event)
                start = time.perf_counter()
                posts = [Post("hand_scored", summary)] if with_post else []
                await store.append_events(game.game_id, seq, [payload], posts=posts)
                samples.append(time.perf_counter() - start)
    finally:
        await store.close()
    return {"appends": len(samples), **ms_percentiles(samples)}


def seed_big_server(path: Path) -> None:
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
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO games (game_id, guild_id, channel_id, mode, rules_json, setup_json, status, host_id,"
        " created_at, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        games,
    )
    conn.executemany("INSERT INTO seats (game_id, seat, name, user_id, bot_level) VALUES (?, ?, ?, ?, ?)", seats)
    conn.executemany(
        "INSERT INTO results (game_id, seat, guild_id, mode, player_key, name, is_bot, final_score, place, won,"
        " hands, bids_made, bids_set, nils_tried, nils_made, bags, rating_before, rating_after, rank_before,"
        " rank_after, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        results,
    )
    conn.executemany(
        "INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (GUILD, "cutthroat", key, int(key.startswith("bot:")), names[key], r.mu, r.sigma, r.ordinal,
             *totals[key], clock)
            for key, r in ratings.items()
        ],
    )  # fmt: skip
    conn.execute("COMMIT")
    conn.close()


def seed_unfinished(path: Path) -> None:
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
                      "playing", 1, 1.8e9, 1.8e9, 1.8e9 + 60))  # fmt: skip
        seats.extend((game.game_id, s, name, 10_000 + s, None) for s, name in enumerate(game.names))
        events.extend((game.game_id, seq, dumps(event_to_json(e)), 1.8e9) for seq, e in enumerate(game.events, 1))
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO games (game_id, guild_id, channel_id, mode, rules_json, setup_json, status, host_id,"
        " created_at, started_at, deadline_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        games,
    )
    conn.executemany("INSERT INTO seats (game_id, seat, name, user_id, bot_level) VALUES (?, ?, ?, ?, ?)", seats)
    conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", events)
    conn.execute("COMMIT")
    conn.close()


async def bench_big_server(folder: Path) -> dict[str, Any]:
    path = folder / "big.db"
    url = f"sqlite:///{path}"
    await (await open_store(url)).close()  # create the schema
    start = time.perf_counter()
    seed_big_server(path)
    seed_unfinished(path)
    seed_s = time.perf_counter() - start

    store = await open_store(url)
    try:
        board = await store.leaderboard(GUILD, "cutthroat")
        top = board[0].user_id
        leaderboard = {
            sort: await median_ms(lambda sort=sort: store.leaderboard(GUILD, "cutthroat", sort))  # type: ignore[misc]
            for sort in ("rating", "wins", "win_rate", "points")
        }
        leaderboard["rating_page_50"] = await median_ms(
            lambda: store.leaderboard(GUILD, "cutthroat", limit=10, offset=500)
        )
        stats_ms = await median_ms(lambda: store.player_stats(GUILD, top))
        recent_ms = await median_ms(lambda: store.recent_games(GUILD, 3))
        finish_samples = []
        for n in range(RUNS):
            game_id = f"finish{n}"
            keys = [str(k) for k in random.Random(n).sample(range(1, PLAYERS + 1), 3)]
            await store.create_game(game_id, guild_id=GUILD, channel_id=1, mode="cutthroat", rules={}, host_id=1)
            await store.start_game(game_id, {})
            seat_results = [SeatResult(s, k, f"player {k}", 500 - 100 * s, s + 1, s == 0, 10, 5, 2, 1, 1, 3)
                            for s, k in enumerate(keys)]  # fmt: skip
            start = time.perf_counter()
            await store.finish_game(game_id, seat_results)
            finish_samples.append(time.perf_counter() - start)
    finally:
        await store.close()

    recoveries, startups, opens = [], [], []
    for _ in range(3):
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
        "finish_game_ms": round(1000 * statistics.median(finish_samples), 3),
        "open_s": round(statistics.median(opens), 3),
        "recovery_s": round(statistics.median(recoveries), 3),
        "startup_with_recovery_s": round(statistics.median(startups), 3),
    }


async def main() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        append = await bench_append(folder, "full")
        append_normal = await bench_append(folder, "normal")
        append_with_post = await bench_append(folder, "full", with_post=True)
        big = await bench_big_server(folder)
    worst_board = max(big["leaderboard_ms"].values())
    return {
        "bench": "store",
        "sqlite": sqlite3.sqlite_version,
        "append": append,
        "append_synchronous_normal": append_normal,
        "append_with_post": append_with_post,
        "server": {
            "finished_games": FINISHED_GAMES,
            "players": PLAYERS,
            "unfinished_games": UNFINISHED_GAMES,
            "events_per_unfinished_game": EVENTS_PER_UNFINISHED,
        },
        **big,
        "targets_met": {
            "append_p99_under_5ms": append["p99_ms"] < 5,
            "append_synchronous_normal_p99_under_5ms": append_normal["p99_ms"] < 5,
            "leaderboard_under_20ms": worst_board < 20,
            "recovery_under_3s": big["startup_with_recovery_s"] < 3,
        },
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
