"""`python -m bot play`: a whole game in the terminal against computer players, no Discord needed."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from typing import TextIO

from bot.ai import BLIND_NIL, LEVELS, REVEAL, ComputerPlayer, Move, apply_move, make_player
from bot.engine import (
    EngineError,
    Game,
    Mode,
    Phase,
    SeatView,
    card_label,
    display_sorted,
    parse_card,
    seat_view,
)
from bot.selfplay import parse_rules


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", default="cutthroat", choices=[m.value for m in Mode])
    parser.add_argument("--players", default=None,
                        help="levels of the computer players, comma-separated, one per other seat "
                             f"({', '.join(LEVELS)}; default: normal)")
    parser.add_argument("--name", default="You")
    parser.add_argument("--seat", type=int, default=0, help="your seat, from 0")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--budget", default=None, help="the hard players' thinking time (seconds) or 200it")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option of RULES.md; repeatable")


def render_table(view: SeatView) -> str:
    """The table as people read it: scores, bids and tricks, the trick in progress, your hand."""
    lines = [f"— {view.mode.value}, game to {view.rules.target}, hand {view.hand_number}, "
             f"spades {'broken' if view.spades_broken else 'not broken'} —"]
    for seat, name in enumerate(view.names):
        bid = view.bids[seat]
        bid_text = "–" if bid is None else ("blind nil" if view.blind[seat] else "nil" if bid == 0 else str(bid))
        marks = (" (dealer)" if seat == view.dealer else "") + (" ◀ to act" if seat == view.turn else "")
        lines.append(f"  {name:<12} score {view.scores[seat]:>5}  bags {view.bags[seat]:>2}  "
                     f"bid {bid_text:<9} tricks {view.tricks_won[seat]:>2}{marks}")
    if view.tricks:
        last = view.tricks[-1]
        plays = "  ".join(f"{view.names[s]} {card_label(c)}" for s, c in last.plays)
        lines.append(f"  last trick: {plays} → {view.names[last.winner]}")
    if view.trick:
        lines.append("  on the table: " + "  ".join(f"{view.names[s]} {card_label(c)}" for s, c in view.trick))
    if view.hand:
        lines.append("  your hand: " + " ".join(card_label(c) for c in display_sorted(view.hand)))
    return "\n".join(lines)


def ask_human(view: SeatView, read: Callable[[str], str], out: TextIO) -> Move:
    """Ask until the answer is a legal move; every refusal says why."""
    while True:
        if view.cards_hidden:
            answer = read("Blind nil? You may bid it before seeing your cards [y/N]: ").strip().lower()
            return BLIND_NIL if answer in ("y", "yes") else REVEAL
        if view.legal_bids:
            low, high = min(view.legal_bids), max(view.legal_bids)
            answer = read(f"Your bid ({'nil' if low == 0 else low}–{high}): ").strip().lower()
            bid = 0 if answer == "nil" else int(answer) if answer.isdigit() else None
            if bid in view.legal_bids:
                return Move.bid(bid)
            print(f"“{answer}” isn't a bid you can make: choose from "
                  f"{', '.join('nil' if b == 0 else str(b) for b in view.legal_bids)}.", file=out)
            continue
        legal = " ".join(card_label(c) for c in display_sorted(view.legal_cards))
        answer = read(f"Your card ({legal}): ")
        try:
            card = parse_card(answer)
        except EngineError as error:
            print(error, file=out)
            continue
        if card in view.legal_cards:
            return Move.play(card)
        print(f"You can't play {card_label(card)} now: play one of {legal}.", file=out)


def run(args: argparse.Namespace, read: Callable[[str], str] = input, out: TextIO | None = None) -> Game:
    out = out or sys.stdout
    mode = Mode.parse(args.mode)
    rules = parse_rules(args.rule)
    if not 0 <= args.seat < mode.seats:
        raise EngineError(f"{mode} has seats 0 to {mode.seats - 1}.")
    levels = args.players.split(",") if args.players else ["normal"] * (mode.seats - 1)
    if len(levels) != mode.seats - 1:
        raise EngineError(f"{mode} needs {mode.seats - 1} computer players: --players takes that many levels.")
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    others = iter(levels)
    bots: dict[int, ComputerPlayer] = {}
    names = []
    for place in range(mode.seats):
        if place == args.seat:
            names.append(args.name)
            continue
        level = next(others)
        bots[place] = make_player(level, seed * 10 + place, args.budget)
        names.append(f"{level}-bot-{place}")
    game = Game.new(f"terminal-{seed}", mode, rules, seed, names)
    while not game.is_over:
        if game.phase is Phase.DEALING:
            if game.hand_number:
                _print_result(game, out)
            game.deal()
            continue
        seat = game.turn
        assert seat is not None
        if seat == args.seat:
            view = seat_view(game, args.seat)
            print(render_table(view), file=out)
            apply_move(game, args.seat, ask_human(view, read, out))
            continue
        move = bots[seat].choose(seat_view(game, seat))
        if move.kind == "play":
            print(f"{names[seat]} plays {card_label(move.value)}", file=out)
        elif move.kind in ("bid", "blind_nil"):
            print(f"{names[seat]} bids {'blind nil' if move.kind == 'blind_nil' else move.value or 'nil'}",
                  file=out)
        apply_move(game, seat, move)
    _print_result(game, out)
    winners = ", ".join(names[s] for s in game.winners) or "nobody"
    print(f"Game over ({game.ended}): {winners} won. Final scores: "
          + ", ".join(f"{n} {s}" for n, s in zip(names, game.scores, strict=True)), file=out)
    return game


def _print_result(game: Game, out: TextIO) -> None:
    result = game.hand_logs[-1].result
    if result is None:
        return
    print(f"Hand {game.hand_number} over. " + "; ".join(
        f"{name}: {tricks} tricks, {points:+d} → {score} ({bags} bags)"
        for name, tricks, points, score, bags in zip(game.names, result.tricks_won, result.hand_points,
                                                     result.scores, result.bags, strict=True)), file=out)
