"""A writer killed with SIGKILL mid-stream loses no acknowledged event or post and leaves no torn one."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from bot.store import open_store
from tests.store.crash_writer import payload

ROOT = Path(__file__).resolve().parents[2]


def run_and_kill(url: str, game_ids: list[str], acks_before_kill: int) -> dict[str, set[int]]:
    """Start the writer, SIGKILL it after that many acknowledgements; every seq it acknowledged."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.store.crash_writer", url, *game_ids],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert child.stdout is not None
    acked: dict[str, set[int]] = defaultdict(set)
    for count, line in enumerate(child.stdout, start=1):
        game_id, seq = line.split()
        acked[game_id].add(int(seq))
        if count == acks_before_kill:
            child.send_signal(signal.SIGKILL)
            break
    # lines already in the pipe were acknowledged too; a last line the kill cut short says nothing
    for line in child.stdout:
        if line.endswith("\n"):
            game_id, seq = line.split()
            acked[game_id].add(int(seq))
    assert child.wait(timeout=30) == -signal.SIGKILL
    return acked


async def test_sigkill_mid_stream_loses_nothing_acknowledged(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'spades.db'}"
    rng = random.Random(2024)
    acknowledged: dict[str, set[int]] = {}
    for round_ in range(3):
        game_ids = [f"r{round_}g{n}" for n in range(4)]
        acknowledged |= run_and_kill(url, game_ids, acks_before_kill=rng.randint(100, 600))

    # the database opens cleanly after the crashes and every log is whole
    store = await open_store(url)
    await store.close()
    with sqlite3.connect(tmp_path / "spades.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = conn.execute("SELECT game_id, seq, event_json FROM events ORDER BY game_id, seq").fetchall()
        posts = conn.execute("SELECT game_id, payload_json ->> 'seq' FROM outbox ORDER BY game_id, post_id").fetchall()
    stored: dict[str, list[int]] = defaultdict(list)
    for game_id, seq, text in rows:
        assert json.loads(text) == payload(game_id, seq)  # complete, never half-written
        stored[game_id].append(seq)
    for game_id, seqs in acknowledged.items():
        assert stored[game_id] == list(range(1, len(stored[game_id]) + 1))  # contiguous from 1
        assert seqs <= set(stored[game_id])  # nothing acknowledged was lost
        assert len(stored[game_id]) - max(seqs) <= 1  # at most the one in flight went unacknowledged
    assert posts == [(game_id, seq) for game_id, seq, _ in rows]  # each event's post, and no other
