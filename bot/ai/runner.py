"""Computer players' decisions for the asyncio service, without ever blocking its event loop.

Forced moves are answered at once and easy/normal decide in-process (well under a millisecond);
the hard player's search runs in a process pool within its time budget, so a channel where
computer players are thinking stays as responsive to people as any other. Hints search in the same
pool on the same budget; reviews (seconds of search) run in a one-worker pool of their own, so a
review never keeps a computer player waiting.
"""

from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bot.ai import Move, forced_move, make_player
from bot.ai.coach import Hint, advise
from bot.ai.hard import DEFAULT_BUDGET_S
from bot.ai.review import review_game, review_text
from bot.engine import SeatView

POOLED_LEVELS = frozenset({"hard"})
MIN_SEARCH_S = 0.05  # what a search still gets when the queue or a worker's start ate its budget
PR_SET_PDEATHSIG = 1  # Linux prctl: a signal the kernel sends this process when its parent dies
PARENT_CHECK_S = 1.0  # elsewhere: how often a worker looks for its parent


def die_with_parent(parent: int) -> None:
    """A pool worker's initializer: the worker ends when the bot does, however the bot ends. A worker
    waits on a queue whose other end it also holds, so a killed bot's workers (about 30 MB each)
    would wait forever, and a crash loop would pile them up. On Linux the kernel kills the worker
    when its parent dies; elsewhere a thread looks for the parent every second."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    else:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="parent-watch").start()
    if os.getppid() != parent:  # the parent died before the worker could ask to follow it
        os._exit(1)


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_S)
    os._exit(1)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """Worker processes that die with the bot. "spawn": the service has threads (discord.py, the
    store's reader and fsync), which fork must not copy."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=die_with_parent, initargs=(os.getpid(),))


def decide_in_worker(level: str, view: SeatView, seed: int, deadline: float) -> Move:
    """Run in a pool process: one decision by a fresh player (players keep no state between turns).
    The budget runs to a wall-clock deadline set on submission, so time spent queued behind other
    games' decisions, or starting the worker, comes out of the search rather than on top of it."""
    budget = max(MIN_SEARCH_S, deadline - time.time())
    return make_player(level, seed, budget).choose(view)


def hint_in_worker(view: SeatView, seed: int, deadline: float) -> Hint:
    """Run in a pool process: a hint, searched to the same kind of deadline as a decision."""
    return advise(view, seed, max(MIN_SEARCH_S, deadline - time.time()))


def review_in_worker(record: Mapping[str, Any], seat: int, seed: int) -> str:
    """Run in the review process: a whole game's review, within the reviewer's own time limit."""
    return review_text(review_game(record, seat, seed))


class DecisionRunner:
    """Owns the process pool (created on first use, one worker per spare core) for search players."""

    def __init__(self, workers: int | None = None, budget_s: float = DEFAULT_BUDGET_S) -> None:
        self.workers = workers or max(1, (os.cpu_count() or 2) - 1)
        self.budget_s = budget_s
        self._pool: ProcessPoolExecutor | None = None
        self._review_pool: ProcessPoolExecutor | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = worker_pool(self.workers)
        return self._pool

    async def hint(self, view: SeatView, seed: int) -> Hint:
        """The hard player's choice for ``view``'s seat with its reason, bounded like a decision."""
        loop = asyncio.get_running_loop()
        deadline = time.time() + self.budget_s
        return await loop.run_in_executor(self._executor(), hint_in_worker, view, seed, deadline)

    async def review(self, record: Mapping[str, Any], seat: int, seed: int) -> str:
        """A finished game's review for one seat, in the review process (one at a time)."""
        if self._review_pool is None:
            self._review_pool = worker_pool(1)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._review_pool, review_in_worker, dict(record), seat, seed)

    async def decide(self, level: str, view: SeatView, seed: int, budget_s: float | None = None) -> Move:
        """The move for ``view``'s seat; raises ``ValueError`` for an unknown level."""
        forced = forced_move(view)
        if forced is not None:
            return forced
        if level not in POOLED_LEVELS:
            return make_player(level, seed).choose(view)
        loop = asyncio.get_running_loop()
        deadline = time.time() + (self.budget_s if budget_s is None else budget_s)
        return await loop.run_in_executor(self._executor(), decide_in_worker, level, view, seed, deadline)

    def close(self) -> None:
        """Stop the workers; pending decisions are cancelled. The runner can be used again after."""
        for pool in (self._pool, self._review_pool):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        self._pool = self._review_pool = None
