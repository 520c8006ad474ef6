"""What the load benchmark reports of a measured stretch: acknowledgement latencies, REST calls by
kind and against the token's limit, and the CPU of the bots, the fake and the rest of the machine
(`bench_load.py`)."""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from load_players import LoadDiscord, Tally, kind_of
from load_world import World

from devkit.fake_discord import FakeInteraction

DRAIN_SECONDS = 5.0  # after a run: how long the answers still in flight are awaited


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
        if len(bot_cpu) > 1:  # each process over the interactions of its own shard's guilds
            served = Counter((inter.channel.guild.id >> 22) % len(bot_cpu) for inter in interactions
                             if inter.channel.guild is not None)
            figures["bot_cpu_ms_per_interaction_by_process"] = [
                None if cpu is None or not served[k] else round(1000 * cpu / served[k], 3)
                for k, cpu in enumerate(bot_cpu)]
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
