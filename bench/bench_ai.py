"""Computer players: hard decision times at the default budget through the service's runner (process
pool included), the event loop's lag meanwhile, and short tournaments. Prints a JSON line of figures.

Targets (issue: computer players): hard decisions p50 <= 1 s and p99 <= 2 s on this machine; the
event loop stays responsive while they think. The tournaments here are short, for a quick reading;
the full figures come from `python -m bot selfplay --duplicate` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import statistics
import time

from bot import selfplay
from bot.ai import apply_move, forced_move, make_player
from bot.ai.runner import DecisionRunner
from bot.engine import Game, Phase, Rules, SeatView, seat_view


def hard_positions(count: int, seed: int) -> list[SeatView]:
    """Positions where the hard player has a real choice, from games of normal players."""
    views: list[SeatView] = []
    game_number = 0
    while len(views) < count:
        game = Game.new(f"bench-{game_number}", "cutthroat", Rules(target=300), seed + game_number)
        players = [make_player("normal", s) for s in range(3)]
        while not game.is_over and len(views) < count:
            if game.phase is Phase.DEALING:
                game.deal()
                continue
            seat = game.turn
            assert seat is not None
            view = seat_view(game, seat)
            if seat == 0 and forced_move(view) is None:
                views.append(view)
            apply_move(game, seat, players[seat].choose(view))
        game_number += 1
    return views


async def time_decisions(views: list[SeatView]) -> dict[str, float]:
    runner = DecisionRunner()
    lags: list[float] = []
    stop = False

    async def ticker() -> None:
        last = time.perf_counter()
        while not stop:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            lags.append(now - last - 0.005)
            last = now

    try:
        await runner.decide("hard", views[0], seed=0)  # start the worker process
        task = asyncio.create_task(ticker())
        times = []
        for number, view in enumerate(views):
            start = time.perf_counter()
            await runner.decide("hard", view, seed=number)
            times.append(time.perf_counter() - start)
        stop = True
        await task
    finally:
        runner.close()
    times.sort()
    lags.sort()
    return {
        "hard_decisions": len(times),
        "hard_decision_s_p50": round(statistics.median(times), 3),
        "hard_decision_s_p99": round(times[min(len(times) - 1, int(0.99 * len(times)))], 3),
        "hard_decision_s_max": round(times[-1], 3),
        "loop_lag_ms_p99": round(1000 * lags[int(0.99 * len(lags))], 2),
    }


def tournament(players: str, games: int, budget: str | None) -> dict[str, object]:
    parser = argparse.ArgumentParser()
    selfplay.add_arguments(parser)
    argv = ["--players", players, "--games", str(games), "--duplicate", "--rule", "target=300", "--seed", "77"]
    if budget:
        argv += ["--budget", budget]
    summary = selfplay.run(parser.parse_args(argv), out=io.StringIO())
    return {"players": players, "games": summary["games"], "hands": summary["hands"],
            "first_player_margin_per_hand": summary.get("first_player_margin_per_hand"),
            "per_player": [{k: p[k] for k in ("level", "win_rate", "win_rate_ci95", "points_per_hand",
                                              "bid_success_rate", "decision_ms_p50", "decision_ms_p99")}
                           for p in summary["per_player"]]}


def main() -> None:
    figures: dict[str, object] = {"bench": "ai"}
    figures.update(asyncio.run(time_decisions(hard_positions(60, seed=5))))
    figures["targets"] = {"hard_decision_s_p50": 1.0, "hard_decision_s_p99": 2.0}
    figures["tournaments"] = [tournament("normal,easy,easy", 20, None),
                              tournament("hard,normal,normal", 2, "0.1s")]
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
