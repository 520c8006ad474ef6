"""Why the SQLite store writes on the event loop: one move's save, by the store's own writer and by
aiosqlite's thread, on an idle event loop and on a busy one.

Both ways save the same moves (`bench_store.append_per_move`'s: the move's events, the next turn's
deadline and a table post) into the same kind of file (WAL, the store's schema and pragmas), and
equally durably (`--synchronous`, the store's default `full`: each save is on disk before it is
acknowledged). (a) The store through its public API (`open_store`, `append_events`): the
transaction runs on the loop, and only the fsync of the log goes to a thread. (b) The same
transaction (`append_batch` inside `write_transaction`) handed whole, in one hand-off, to an
aiosqlite connection's thread, which syncs at COMMIT: as the store did before its writer moved.

Busy is the load that matters: `--busy-tasks` (4) tasks on the same loop, as busy channels, each
burning CPU in slices of 1-2 ms with `await asyncio.sleep(0)` between them, and a second process
burning the other core (`--no-burner` leaves it out), so a thread contends for the GIL and for a
core as in the bot under load. With one task the loop would hand the GIL over between every two
slices; a loop serving many channels runs every ready callback before it polls, holding it longer.
Each of the four runs `--repeat` times, the two ways taking turns, on uvloop as the bot does; the
figures are the medians over the repeats of each run's p50, p99 and max per save. Busy saves wait
for the loop's turns, so the default `--saves` keeps the whole bench under two minutes. Prints one
JSON line.

Run: nice -n 10 .venv/bin/python bench/bench_sqlite_writer.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

import aiosqlite
import uvloop

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_store import GUILD, Save, ms_percentiles, played_by_moves, saves_of  # noqa: E402

from bot.engine import Game  # noqa: E402
from bot.store import Store, open_store  # noqa: E402
from bot.store.games import Action  # noqa: E402
from bot.store.sqlite.connection import Work, set_up, write_transaction  # noqa: E402
from bot.store.sqlite.group_commit import QueuedAction, append_batch  # noqa: E402
from bot.store.sqlite.store import BUSY_TIMEOUT_MS  # noqa: E402

T = TypeVar("T")
Games = list[tuple[Game, list[Save]]]
Way = Callable[[Path, Games, str], Awaitable[list[float]]]  # saves `Games` into a file, each timed


@dataclass(frozen=True)
class Busy:
    """The loop's load: `tasks` channels burning CPU in slices of `slice_ms`; `other_core` a second
    process burning the other core."""

    tasks: int
    slice_ms: tuple[float, float]
    other_core: bool


def moves(saves: int) -> Games:
    """Cutthroat games played at random, and their per-move saves: `saves` of them in all."""
    rng = random.Random(1)
    played: Games = []
    while (left := saves - sum(len(s) for _, s in played)) > 0:
        game, move_ends = played_by_moves(Game.new(f"w{len(played)}", "cutthroat", seed=len(played)), rng, 300)
        played.append((game, saves_of(game, "move", move_ends)[:left]))
    return played


async def start_games(store: Store, games: Games) -> None:
    for n, (game, _) in enumerate(games):
        await store.create_game(game.game_id, guild_id=GUILD, channel_id=n, mode="cutthroat", rules={}, host_id=1)
        await store.start_game(game.game_id, game.setup_json())


async def by_store(path: Path, games: Games, synchronous: str) -> list[float]:
    """(a) The store's own writer, through its public API."""
    store = await open_store(f"sqlite:///{path}?synchronous={synchronous}")
    samples: list[float] = []
    try:
        await start_games(store, games)
        for game, saves in games:
            for first_seq, events, deadline, posts in saves:
                start = time.perf_counter()
                await store.append_events(game.game_id, first_seq, events, deadline, posts)
                samples.append(time.perf_counter() - start)
    finally:
        await store.close()
    return samples


async def on_thread(db: aiosqlite.Connection, work: Work[T]) -> T:
    """`work` run on the connection's thread in one hand-off, in order with everything else queued
    there: aiosqlite's own queue (`_execute`; its public API runs statements, not functions), as the
    store used it before its writer moved onto the loop."""
    result: T = await db._execute(work, db._conn)  # type: ignore[no-untyped-call]
    return result


async def by_aiosqlite(path: Path, games: Games, synchronous: str) -> list[float]:
    """(b) The same transaction on an aiosqlite connection's thread, one hand-off per save; the file
    is the store's (made and migrated by it), the pragmas its writer's, SQLite syncing at COMMIT."""
    store = await open_store(f"sqlite:///{path}")
    try:
        await start_games(store, games)
    finally:
        await store.close()
    db = await aiosqlite.connect(path, isolation_level=None)
    loop = asyncio.get_running_loop()
    samples: list[float] = []
    try:
        await on_thread(db, lambda conn: set_up(conn, BUSY_TIMEOUT_MS, f"PRAGMA synchronous = {synchronous}"))
        for game, saves in games:
            for first_seq, events, deadline, posts in saves:
                start = time.perf_counter()
                item = QueuedAction(Action.of(game.game_id, first_seq, events, deadline, posts), loop.create_future())
                save = write_transaction(partial(append_batch, batch=[item], now=time.time()))
                refused = await on_thread(db, save)
                samples.append(time.perf_counter() - start)
                assert refused == [None], refused
    finally:
        await db.close()
    return samples


async def burn(slice_ms: tuple[float, float], seed: int) -> None:
    """A busy channel: CPU in slices of `slice_ms`, yielding to the loop between them, until cancelled."""
    rng = random.Random(seed)
    while True:
        end = time.perf_counter() + rng.uniform(*slice_ms) / 1000
        while time.perf_counter() < end:
            pass
        await asyncio.sleep(0)


async def measure(way: Way, path: Path, games: Games, synchronous: str, busy: Busy | None) -> dict[str, float]:
    burners = [] if busy is None else [asyncio.create_task(burn(busy.slice_ms, n)) for n in range(busy.tasks)]
    try:
        return ms_percentiles(await way(path, games, synchronous))
    finally:
        for burner in burners:
            burner.cancel()


def _spin() -> None:
    while True:
        pass


@contextmanager
def other_core_busy(wanted: bool) -> Iterator[None]:
    """A second process burning a core, as the bot's other work does on a two-core machine."""
    if not wanted:
        yield
        return
    spinner = multiprocessing.Process(target=_spin, daemon=True)
    spinner.start()
    try:
        yield
    finally:
        spinner.terminate()
        spinner.join()


WAYS: dict[str, Way] = {"store": by_store, "aiosqlite": by_aiosqlite}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--saves", type=int, default=600, help="saves per run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--synchronous", choices=("full", "normal"), default="full",
                        help="both ways alike: full (the store's default) syncs every save to disk")
    parser.add_argument("--busy-tasks", type=int, default=4, help="tasks burning CPU on the loop when busy")
    parser.add_argument("--slice-ms", type=float, nargs=2, default=(1.0, 2.0), help="their CPU slices")
    parser.add_argument("--no-burner", action="store_true", help="no second process burning a core when busy")
    args = parser.parse_args()
    games = moves(args.saves)
    loads = {"idle": None, "busy": Busy(args.busy_tasks, tuple(args.slice_ms), not args.no_burner)}
    runs: dict[str, dict[str, list[dict[str, float]]]] = {load: {way: [] for way in WAYS} for load in loads}
    with tempfile.TemporaryDirectory() as folder:
        for load, busy in loads.items():
            with other_core_busy(busy is not None and busy.other_core):
                for n in range(args.repeat):
                    for name, way in WAYS.items():
                        path = Path(folder) / f"{load}-{name}-{n}.db"
                        runs[load][name].append(uvloop.run(measure(way, path, games, args.synchronous, busy)))
    print(json.dumps({
        "bench": "sqlite_writer", "saves": args.saves, "repeat": args.repeat, "sqlite": sqlite3.sqlite_version,
        "synchronous": args.synchronous, "busy_tasks": args.busy_tasks, "slice_ms": list(args.slice_ms),
        "burner": not args.no_burner,
        **{load: {way: {key: statistics.median(run[key] for run in by_way[way]) for key in by_way[way][0]}
                  for way in WAYS}
           for load, by_way in runs.items()},
        "runs": runs,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
