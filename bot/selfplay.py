"""`python -m bot selfplay`: computer players play whole games offline; records and a JSON summary."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from bot.ai import ComputerPlayer, apply_move, make_player
from bot.engine import EngineError, Game, Mode, Phase, Rules, export_record, seat_view


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", default="cutthroat", choices=[m.value for m in Mode])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", default=None,
                        help="comma-separated levels, one per seat (default: random for every seat)")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option of RULES.md; repeatable, a later one overrides an earlier one")
    parser.add_argument("--out", default=None, help="write one spades-record/1 JSON document per line")


def parse_rules(pairs: Sequence[str]) -> Rules:
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise EngineError(f"--rule takes KEY=VALUE, got “{pair}”.")
        options[key] = value
    return Rules.from_options(options)


def play_game(game: Game, players: Sequence[ComputerPlayer]) -> Game:
    """Drive one game to its end, asking each seat's player on its turn."""
    while not game.is_over:
        if game.phase is Phase.DEALING:
            game.deal()
            continue
        seat = game.turn
        assert seat is not None
        apply_move(game, seat, players[seat].choose(seat_view(game, seat)))
    return game


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> dict[str, Any]:
    mode = Mode.parse(args.mode)
    rules = parse_rules(args.rule)
    rules.check_mode(mode)
    levels = args.players.split(",") if args.players else ["random"] * mode.seats
    if len(levels) != mode.seats:
        raise EngineError(f"{mode} has {mode.seats} seats: --players needs {mode.seats} levels.")
    records = open(args.out, "w", encoding="utf-8") if args.out else None  # noqa: SIM115
    hands = 0
    wins = [0.0] * mode.seats
    start = time.perf_counter()
    try:
        for number in range(args.games):
            seed = args.seed * 1_000_003 + number
            players = [make_player(level, seed=seed * 7 + seat) for seat, level in enumerate(levels)]
            names = [f"{level}-{seat}" for seat, level in enumerate(levels)]
            game = play_game(Game.new(f"selfplay-{args.seed}-{number}", mode, rules, seed, names), players)
            hands += game.hands_played
            for seat in game.winners:
                wins[seat] += 1 / len(game.winners) if mode is not Mode.PARTNERS else 1 / (len(game.winners) // 2)
            if records:
                players_json = [{"seat": s, "name": names[s], "kind": "bot", "id": levels[s]}
                                for s in range(mode.seats)]
                records.write(json.dumps(export_record(game, players_json)) + "\n")
    finally:
        if records:
            records.close()
    seconds = time.perf_counter() - start
    summary = {
        "games": args.games,
        "hands": hands,
        "seconds": round(seconds, 3),
        "hands_per_second": round(hands / seconds, 1) if seconds else None,
        "mode": mode.value,
        "players": levels,
        "wins": wins,
    }
    print(json.dumps(summary), file=out)
    return summary
