"""The computer players' worker processes end with the bot, even when it is killed: a crash loop
must not pile up orphans of ~30 MB each."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOT = """
import os, signal, sys
from bot.ai.runner import worker_pool
pools = [worker_pool(1), worker_pool(1)]  # the search pool and the review pool
print(*(pool.submit(os.getpid).result() for pool in pools), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def _alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_workers_die_when_the_bot_is_killed() -> None:
    bot = subprocess.Popen([sys.executable, "-c", BOT], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert bot.stdout is not None
    workers = [int(pid) for pid in bot.stdout.readline().split()]  # not read to its end: workers hold it too
    assert bot.wait(timeout=60) == -signal.SIGKILL
    assert len(workers) == 2 and os.getpid() not in workers
    try:
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers), "workers outlived the bot"
    finally:
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        bot.stdout.close()
