"""A writer killed with SIGKILL mid-stream loses no acknowledged event or post and leaves no torn one."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from bot.store import open_store
from tests.store.crash_writer import payload
from tests.store.helpers import run_sql

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


async def test_sigkill_mid_stream_loses_nothing_acknowledged(db_url: str) -> None:
    url = db_url
    rng = random.Random(2024)
    acknowledged: dict[str, set[int]] = {}
    for round_ in range(3):
        game_ids = [f"r{round_}g{n}" for n in range(4)]
        acknowledged |= run_and_kill(url, game_ids, acks_before_kill=rng.randint(100, 600))

    # the database opens cleanly after the crashes and every log is whole
    store = await open_store(url)
    await store.close()
    if url.startswith("sqlite:///"):
        assert run_sql(url, "PRAGMA integrity_check") == [[("ok",)]]
    rows, posts = run_sql(
        url,
        "SELECT game_id, seq, event_json FROM events ORDER BY game_id, seq",
        "SELECT game_id, payload_json FROM outbox ORDER BY game_id, post_id",
    )
    stored: dict[str, list[int]] = defaultdict(list)
    for game_id, seq, text in rows:
        assert json.loads(text) == payload(game_id, seq)  # complete, never half-written
        stored[game_id].append(seq)
    for game_id, seqs in acknowledged.items():
        assert stored[game_id] == list(range(1, len(stored[game_id]) + 1))  # contiguous from 1
        assert seqs <= set(stored[game_id])  # nothing acknowledged was lost
        assert len(stored[game_id]) - max(seqs) <= 1  # at most the one in flight went unacknowledged
    # each event's post, and no other
    assert [(game_id, json.loads(text)["seq"]) for game_id, text in posts] == [(g, seq) for g, seq, _ in rows]
