"""Export to ``spades-record/1`` (docs/record-format.md) and per-seat tallies for results and stats."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from bot.engine.cards import Card, card_code, parse_card
from bot.engine.events import dealt_from_codes
from bot.engine.game import Game, HandLog
from bot.engine.nil_pass import partner

RECORD_FORMAT = "spades-record/1"


def default_players(game: Game, kind: str = "human") -> list[dict[str, Any]]:
    return [{"seat": s, "name": n, "kind": kind, "id": f"seat-{s}"} for s, n in enumerate(game.names)]


def export_record(game: Game, players: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The whole game as one JSON-ready document that can be replayed and re-scored on its own.

    It holds every deal and the seed, so a running game's record is secret: players get
    :func:`bot.engine.public_record` instead.
    """
    return {
        "format": RECORD_FORMAT,
        "game_id": game.game_id,
        "mode": game.mode.value,
        "rules": game.rules.to_dict(),
        "players": [dict(p) for p in (players if players is not None else default_players(game))],
        # Every card a player has put down is in the record, the unfinished trick's too.
        "hands": [_hand_json(game, hand, game.trick if hand.result is None else ()) for hand in game.hand_logs],
        "final": None if not game.is_over else {
            "scores": list(game.scores),
            "winners": list(game.winners),
            "ended": game.ended.value if game.ended else None,
        },
        "seed": game.seed,
    }


def _hand_json(game: Game, hand: HandLog, unfinished_trick: Sequence[tuple[int, Card]]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "number": hand.number,
        "dealer": hand.dealer,
        "deal": {str(seat): [card_code(c) for c in cards] for seat, cards in enumerate(hand.deal)},
        "set_aside": [card_code(c) for c in hand.set_aside],
        "bids": [{"seat": b.seat, "bid": b.bid, "blind": b.blind, **({"forced": True} if b.forced else {})}
                 for b in hand.bids],
        **_passes_json(game, hand),
        "tricks": [_trick_json(t.leader, t.plays, t.winner) for t in hand.tricks],
    }
    if hand.draws:
        data["draws"] = [{"seat": d.seat, "card": card_code(d.card), "kept": d.kept} for d in hand.draws]
    if hand.fast_finished:
        data["fast_finish"] = {"from_trick": len(hand.tricks) - hand.fast_finished + 1}
    if unfinished_trick:
        data["tricks"].append(_trick_json(unfinished_trick[0][0], unfinished_trick, None))
    if hand.result is not None:
        r = hand.result
        data["result"] = {
            "tricks_won": list(r.tricks_won),
            "hand_points": list(r.hand_points),
            "bags": list(r.bags),
            "scores": list(r.scores),
        }
    return data


def start_hand(game: Game, hand: Mapping[str, Any]) -> None:
    """Begin a record's hand in ``game``: deal its ``deal``, or, in duo, lay the stock its ``draws``
    went through and make each draw again."""
    draws = hand.get("draws")
    if not draws:
        dealt = dealt_from_codes([hand["deal"][str(s)] for s in range(game.seats)], hand["set_aside"], [])
        game.deal(dealt.hands, dealt.set_aside)
        return
    game.deal([()] * game.seats, (), [parse_card(d["card"]) for d in draws])
    for first in draws[::2]:
        game.draw(int(first["seat"]), bool(first["kept"]))


def _passes_json(game: Game, hand: HandLog) -> dict[str, Any]:
    """nil_pass: who passed which cards to whom, in the order they chose ({} when nobody passed)."""
    passes: dict[int, list[str]] = {}
    for event in hand.passes:
        passes.setdefault(event.seat, []).append(card_code(event.card))
    if not passes:
        return {}
    teams = [game.side_seats(side) for side in range(game.sides)]
    return {"passes": [{"from": seat, "to": partner(teams, seat), "cards": cards} for seat, cards in passes.items()]}


def _trick_json(leader: int, plays: Sequence[tuple[int, Card]], winner: int | None) -> dict[str, Any]:
    return {"leader": leader, "plays": [[seat, card_code(card)] for seat, card in plays], "winner": winner}


class SeatTally(NamedTuple):
    """What a seat did over the scored hands, for results, stats and tournament summaries."""

    hands: int
    bids_made: int
    bids_set: int
    nils_tried: int
    nils_made: int
    blind_nils_tried: int
    blind_nils_made: int
    bags: int  # overtricks taken by the seat's side
    points: int  # hand points of the seat's side, summed


def seat_tallies(game: Game) -> tuple[SeatTally, ...]:
    tallies = []
    for seat in range(game.seats):
        hands = made = set_ = nils = nils_made = blinds = blinds_made = bags = points = 0
        for hand in game.hand_logs:
            result = hand.result
            if result is None:
                continue
            hands += 1
            bags += result.new_bags[seat]
            points += result.hand_points[seat]
            nil = result.nil_made[seat]
            if nil is None:
                made += result.contract_made[seat] is True
                set_ += result.contract_made[seat] is False
            else:
                blind = any(b.seat == seat and b.blind for b in hand.bids)
                nils += 1
                nils_made += nil
                blinds += blind
                blinds_made += blind and nil
        tallies.append(SeatTally(hands, made, set_, nils, nils_made, blinds, blinds_made, bags, points))
    return tuple(tallies)
