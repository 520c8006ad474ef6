"""What another process does to the database file, for tests that need a real second process.

`python -m tests.store.other_process hold-write-lock PATH_OR_URL`: takes SQLite's write lock (BEGIN
IMMEDIATE) on a file (its path or sqlite:/// URL), or for a postgresql:// URL an EXCLUSIVE lock on
every table (others may read, not write); prints `locked`, holds it until a line arrives on stdin,
rolls back, prints `released`.

`python -m tests.store.other_process open-store URL`: opens a store, prints `open`; at the first
line on stdin closes it and prints `closed`; exits at the second.

`python -m tests.store.other_process fill-disk URL`: plays a disk that fills up (see `fill_disk`) and
prints one JSON line of what it saw.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import asyncpg

from bot.engine import event_to_json
from bot.store import Post, Store, StoreError, open_store
from tests.store.helpers import random_game, store_game

ROOT = Path(__file__).resolve().parents[2]


def start(*args: str) -> subprocess.Popen[str]:
    """This module in a process of its own, spoken to line by line over stdin and stdout."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.store.other_process", *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def hold_write_lock(target: str) -> None:
    if target.startswith(("postgresql://", "postgres://")):
        asyncio.run(hold_postgresql_locks(target))
        return
    conn = sqlite3.connect(target.removeprefix("sqlite:///"), isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    # never committed
    conn.execute("INSERT INTO guild_settings (guild_id, settings_json, updated_at) VALUES (1, '{}', 0)")
    print("locked", flush=True)
    sys.stdin.readline()
    conn.execute("ROLLBACK")
    conn.close()
    print("released", flush=True)


async def hold_postgresql_locks(url: str) -> None:
    conn = await asyncpg.connect(url)
    transaction = conn.transaction()
    await transaction.start()
    await conn.execute("LOCK TABLE games, seats, events, results, ratings, guild_settings, outbox IN EXCLUSIVE MODE")
    print("locked", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await transaction.rollback()
    await conn.close()
    print("released", flush=True)


async def open_store_until_told(url: str) -> None:
    store = await open_store(url)
    print("open", flush=True)
    sys.stdin.readline()
    await store.close()
    print("closed", flush=True)
    sys.stdin.readline()


async def _attempt(write: Any) -> str | None:
    """None if the write worked, else the error's class and message."""
    try:
        await write
    except StoreError as error:
        return f"{type(error).__name__}: {error}"
    return None


async def _what_is_stored(store: Store) -> dict[str, Any]:
    games = {}
    for game_id in ("g", "h"):
        stored = await store.load_game(game_id)
        assert stored is not None and stored.game is not None
        games[game_id] = [stored.info.status, stored.game.event_count]
    return {"games": games, "posts": [p.kind for p in await store.pending_posts()]}


async def fill_disk(url: str) -> None:
    """Two games 4 events in; then the files may not grow (RLIMIT_FSIZE, with SIGXFSZ ignored so the
    process lives to see the error) and three writes are tried at once, two sharing a group commit;
    then the limit is lifted and the very same writes are tried again."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    store = await open_store(url)
    later = {game_id: random_game(game_id, actions=6, seed=n) for n, game_id in enumerate(("g", "h"))}
    for n, game_id in enumerate(later):
        await store_game(store, random_game(game_id, actions=4, seed=n))

    def writes() -> list[Any]:
        return [
            *(
                store.append_events(game_id, 5, [event_to_json(e) for e in game.events[4:6]],
                                    posts=[Post("hand_dealt", {"game": game_id, "pad": "x" * 5000})])
                for game_id, game in later.items()
            ),
            store.update_settings(1, {"mode": "solo"}),
        ]  # fmt: skip

    log = Path(url.removeprefix("sqlite:///") + "-wal")
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (log.stat().st_size, hard))
    report: dict[str, Any] = {"full": await asyncio.gather(*(_attempt(w) for w in writes()))}
    report["stored_when_full"] = await _what_is_stored(store)
    report["settings_when_full"] = await store.get_settings(1)
    resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
    report["after"] = await asyncio.gather(*(_attempt(w) for w in writes()))
    report["stored_after"] = await _what_is_stored(store)
    report["settings_after"] = await store.get_settings(1)
    await store.close()
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    command, target = sys.argv[1:3]
    if command == "hold-write-lock":
        hold_write_lock(target)
    elif command == "open-store":
        asyncio.run(open_store_until_told(target))
    elif command == "fill-disk":
        asyncio.run(fill_disk(target))
    else:
        raise SystemExit(f"unknown command {command!r}")
