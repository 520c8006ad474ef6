"""The game-over score chart: render time and size for a usual game (12 hands) and a very long one
(150 hands). Each run draws another game, with other players' names and scores, as the bot does: drawing
the same chart over and over would flatter what the chart keeps between games. Prints a JSON line of figures.

Target: under 50 ms a chart (it is drawn in the bot's own process when a game ends) and under 60 KB.
"""

from __future__ import annotations

import json
import random
import statistics
import time

from bot.discord_ui.pictures.chart import score_chart_png

RUNS = 200


def running_scores(sides: int, hands: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    totals = [0] * sides
    rows = []
    for _ in range(hands):
        totals = [t + rng.randrange(-120, 130, 10) + rng.randrange(3) for t in totals]
        rows.append(list(totals))
    return rows


def measure(hands: int) -> dict[str, float]:
    def render(run: int) -> bytes:
        names = [f"{name} {run}" for name in ("Alice", "Bob the Builder", "Carol", "Dave")]
        scores = running_scores(4, hands, seed=hands * RUNS + run)
        return score_chart_png(names, scores, 500, title="Solo Spades", winners=[0], mercy=300)

    render(-1)  # fonts load once per process
    times, sizes = [], []
    for run in range(RUNS):
        start = time.perf_counter()
        png = render(run)
        times.append((time.perf_counter() - start) * 1000)
        sizes.append(len(png))
    times.sort()
    return {
        f"hands_{hands}_p50_ms": round(statistics.median(times), 2),
        f"hands_{hands}_p99_ms": round(times[int(len(times) * 0.99) - 1], 2),
        f"hands_{hands}_bytes": max(sizes),
    }


def main() -> None:
    start = time.perf_counter()
    score_chart_png(["A", "B"], [[10, 20]], 100)
    first_ms = (time.perf_counter() - start) * 1000
    print(json.dumps({
        "bench": "chart",
        "runs": RUNS,
        "first_chart_ms": round(first_ms, 2),  # includes loading the fonts
        **measure(12),
        **measure(150),
        "target_ms": 50,
        "target_bytes": 60_000,
    }))


if __name__ == "__main__":
    main()
