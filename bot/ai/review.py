"""A player's finished game reviewed by the hard player, from its ``spades-record/1`` document.

The game is replayed from the record and, at each of the seat's own decisions, the hard player looks
at that seat's view only (as it would have in play): its bid against the player's, what the hand took
on average when played out, and what each card the player could have played was worth. The costliest
plays are the ones whose card the search valued furthest below its best. Bag penalties and nils, read
straight from the record, are the turning points.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from bot.ai.bidding import wants_blind_nil
from bot.ai.hard import Budget, HardPlayer, distinct_cards, play_alike
from bot.ai.places import card_of, in_places
from bot.engine import (
    RECORD_FORMAT,
    EngineError,
    Game,
    Mode,
    Rules,
    SeatView,
    card_label,
    mask_of,
    parse_card,
    seat_view,
    start_hand,
)
from bot.engine.card_order import card_order
from bot.engine.cards import Card
from bot.engine.modes import sides_for
from bot.engine.names import NAME_END, NAME_START, named

REVIEW_ITERATIONS = 24  # sampled deals per decision: a whole game in a few seconds on one core
REVIEW_SECONDS = 8.0  # at most this long for one review; hands past it are left out, and said so
COST_FLOOR = 4.0  # a smaller difference between two cards is within the search's noise
COSTLY_SHOWN = 3
TURNING_SHOWN = 5


class BidLine(NamedTuple):
    hand: int
    bid: int
    blind: bool
    hard_bid: int | None  # None: the hard player would have gone blind nil (or did not look)
    hard_blind: bool
    worth: float  # tricks the hand took on average, played out with the hard player's bid
    took: int


class CostlyPlay(NamedTuple):
    hand: int
    trick: int
    card: Card
    better: Card
    cost: float  # points, by the hard player's estimate


class Review(NamedTuple):
    game_id: str
    seat: int
    name: str
    bids: tuple[BidLine, ...]
    costly: tuple[CostlyPlay, ...]
    turning: tuple[str, ...]
    hands_reviewed: int
    hands_played: int


class Decision(NamedTuple):
    """One seat's decision in a replayed game: the view it had and what it did."""

    view: SeatView
    kind: str  # "bid", "blind" (bid blind nil), "reveal" (chose to see the cards), "play"
    value: int
    hand: int
    trick: int  # 1-based during play; 0 while bidding


def _rules(record: Mapping[str, Any]) -> Rules:
    return Rules.from_saved({k: v for k, v in dict(record["rules"]).items() if k in Rules.__dataclass_fields__})


def _read(record: Mapping[str, Any]) -> tuple[Game, list[Mapping[str, Any]]]:
    mode = Mode.parse(str(record["mode"]))
    rules = _rules(record)
    players = sorted(record["players"], key=lambda p: int(p["seat"]))
    hands = [h for h in record["hands"] if "result" in h]
    first_dealer = int(hands[0]["dealer"]) if hands else 0
    game = Game(str(record["game_id"]), mode, rules, 0, first_dealer, [str(p["name"]) for p in players])
    return game, hands


def decisions(record: Mapping[str, Any]) -> Iterator[Decision]:
    """Every decision of every finished hand in ``record``, in order, with the deciding seat's view
    just before it. Raises ``ValueError`` for a record that doesn't replay."""
    try:
        game, hands = _read(record)
        for hand in hands:
            number = int(hand["number"])
            start_hand(game, hand)
            for bid in hand["bids"]:
                seat, tricks, blind = int(bid["seat"]), int(bid["bid"]), bool(bid["blind"])
                if game.cards_hidden(seat):
                    yield Decision(seat_view(game, seat), "blind" if blind else "reveal", 0, number, 0)
                    if not blind:
                        game.reveal(seat)
                if bid.get("forced"):  # no decision: the game made it when the rules left one bid
                    continue
                if not blind:
                    yield Decision(seat_view(game, seat), "bid", tricks, number, 0)
                game.bid(seat, tricks, blind=blind)
            for passed in hand.get("passes", ()):  # nil_pass: not reviewed, but the cards change hands
                game.pass_cards(int(passed["from"]), [parse_card(c) for c in passed["cards"]])
            tricks = hand["tricks"]
            if "fast_finish" in hand:  # the rest played itself
                tricks = tricks[:int(hand["fast_finish"]["from_trick"]) - 1]
            for index, trick in enumerate(tricks, start=1):
                for seat, code in trick["plays"]:
                    card = parse_card(code)
                    yield Decision(seat_view(game, int(seat)), "play", card, number, index)
                    game.play(int(seat), card)
    except (KeyError, TypeError, ValueError, IndexError, EngineError) as error:
        raise ValueError(f"That record can't be replayed: {error}") from None


def review_game(record: Mapping[str, Any], seat: int, seed: int = 0, iterations: int = REVIEW_ITERATIONS,
                seconds: float = REVIEW_SECONDS) -> Review:
    """Review ``seat``'s game. Deterministic for a seed, unless ``seconds`` runs out first."""
    players = sorted(record.get("players", []), key=lambda p: int(p["seat"]))
    if not 0 <= seat < len(players):
        raise ValueError(f"There is no seat {seat} in that game.")
    deadline = time.monotonic() + seconds
    budget = Budget(iterations=iterations)
    bids: list[BidLine] = []
    costly: list[CostlyPlay] = []
    took = _tricks_taken(record, seat)
    reviewed, blind_at = 0, 0
    pending_hard: tuple[int | None, bool] | None = None
    for decision in decisions(record):
        if decision.hand > reviewed:
            if time.monotonic() > deadline:
                break
            reviewed = decision.hand
        view = in_places(decision.view)  # the hard player reasons on places (bot/ai/places.py)
        if view.seat != seat:
            continue
        player = HardPlayer(seed + decision.hand * 100 + decision.trick, budget)
        if decision.kind in ("blind", "reveal"):
            hard_blind = wants_blind_nil(view)
            pending_hard = (None, True) if hard_blind else None
            if decision.kind == "blind":
                blind_at = decision.hand
                bids.append(BidLine(decision.hand, 0, True, None, hard_blind, 0.0, took.get(decision.hand, 0)))
        elif decision.kind == "bid":
            candidates, predicted = player.bid_candidates(view)
            values = player.bid_values(view, candidates or [predicted])
            best = max(values, key=lambda v: v.reward)
            hard_bid, hard_blind = pending_hard or (best.bid, False)
            bids.append(BidLine(decision.hand, decision.value, False, hard_bid, hard_blind, best.tricks,
                                took.get(decision.hand, 0)))
            pending_hard = None
        elif decision.kind == "play" and decision.hand != blind_at:
            cost = _play_cost(player, view, card_order(view.rules).place[decision.value])
            if cost is not None and cost[1] >= COST_FLOOR:
                costly.append(CostlyPlay(decision.hand, decision.trick, decision.value, card_of(view, cost[0]),
                                         cost[1]))
    costly.sort(key=lambda c: -c.cost)
    played = sum(1 for h in record["hands"] if "result" in h)
    return Review(str(record["game_id"]), seat, str(players[seat]["name"]), tuple(bids),
                  tuple(costly[:COSTLY_SHOWN]), tuple(turning_points(record, seat)[:TURNING_SHOWN]),
                  min(reviewed, played), played)


def _play_cost(player: HardPlayer, view: SeatView, card: Card) -> tuple[Card, float] | None:
    """The better card and what the played one cost, or None when there was no real choice."""
    unseen = mask_of(view.unseen_cards())
    candidates = distinct_cards(view.legal_cards, mask_of(view.hand), unseen)
    if len(candidates) < 2:
        return None
    values = player.play_values(view, candidates)
    best = max(range(len(candidates)), key=values.__getitem__)
    chosen = next((i for i, c in enumerate(candidates) if play_alike(c, card, unseen)), None)
    if chosen is None or chosen == best:
        return None
    return candidates[best], values[best] - values[chosen]


def _tricks_taken(record: Mapping[str, Any], seat: int) -> dict[int, int]:
    return {int(h["number"]): int(h["result"]["tricks_won"][seat]) for h in record["hands"] if "result" in h}


def turning_points(record: Mapping[str, Any], seat: int) -> list[str]:
    """Bag penalties on the seat's side and every nil (made or set), hand by hand, in words. The side
    is the mode's (partners, six's pairs and trios): a partner, or in a trio a teammate by name."""
    names = {int(p["seat"]): named(str(p["name"])) for p in record["players"]}
    seats = len(names)
    rules = record["rules"]
    limit, penalty = int(rules.get("bag_limit", 10)), int(rules.get("bag_penalty", 100))
    sides = sides_for(Mode.parse(str(record["mode"])), _rules(record))
    mates = [s for s in range(seat % sides, seats, sides) if s != seat]  # seat s plays for side s % sides
    bags_before = [0] * seats
    out: list[str] = []

    def who(other: int) -> str:
        if other == seat:
            return "you"
        if other in mates:
            return "your partner" if len(mates) == 1 else f"your teammate {names[other]}"
        return names[other]

    def whose(other: int) -> str:
        return "your" if other == seat else f"{who(other)}'s"

    for hand in record["hands"]:
        result = hand.get("result")
        if result is None:
            break
        number = int(hand["number"])
        for bid in hand["bids"]:
            nil_seat = int(bid["seat"])
            if int(bid["bid"]) != 0:
                continue
            kind = "blind nil" if bid["blind"] else "nil"
            owner = whose(nil_seat)
            lost = next(((i, c) for i, t in enumerate(hand["tricks"], start=1) if t["winner"] == nil_seat
                         for s, c in t["plays"] if s == nil_seat), None)
            if lost is None:
                out.append(f"Hand {number}: {owner} {kind} was made")
            else:
                trick, code = lost
                out.append(f"Hand {number}: {owner} {kind} was set on trick {trick}, "
                           f"when {who(nil_seat)} won with the {card_label(parse_card(code))}")
        bags_after = [int(b) for b in result["bags"]]
        if bags_after[seat] < bags_before[seat]:
            side = "your side's" if mates else "your"
            out.append(f"Hand {number}: {side} bags reached {limit}, a {penalty}-point penalty")
        bags_before = bags_after
    return out


def review_text(review: Review) -> str:
    """The review in a few lines, for a private reply or the terminal."""
    lines = [f"**Review of game `{review.game_id}`** for {named(review.name)}, by the hard computer player"]
    if review.hands_reviewed < review.hands_played:
        lines.append(f"(the first {review.hands_reviewed} of {review.hands_played} hands, in the time allowed)")
    lines.append("**Bids**")
    for b in review.bids:
        yours = "blind nil" if b.blind else _bid_words(b.bid)
        if b.hard_blind:
            hard = "blind nil"
        elif b.hard_bid is None:
            hard = "looked at its cards first"
        else:
            hard = _bid_words(b.hard_bid)
        worth = f"; worth {b.worth:.1f} tricks on average" if not b.blind else ""
        lines.append(f"Hand {b.hand}: you bid {yours}, hard: {hard}{worth}; you took {b.took}")
    lines.append("**Costliest plays**")
    if not review.costly:
        lines.append("None worth mentioning: the hard player would have played much as you did.")
    for i, c in enumerate(review.costly, start=1):
        lines.append(f"{i}. Hand {c.hand}, trick {c.trick}: the {card_label(c.card)}; "
                     f"the {card_label(c.better)} was better by about {c.cost:.0f} points")
    lines.append("**Turning points**")
    lines.extend(review.turning or ["No nils and no bag penalties in this game."])
    return "\n".join(lines)


def _bid_words(bid: int) -> str:
    return "nil" if bid == 0 else str(bid)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help="a spades-record/1 JSON file (/spades record, or a line of selfplay --out)")
    parser.add_argument("--seat", type=int, default=None,
                        help="whose game to review (default: every human seat, or every seat if none is human)")
    parser.add_argument("--game", type=int, default=1, help="with a JSON Lines file: which line (default: 1)")
    parser.add_argument("--seed", type=int, default=0, help="the search's seed (the same seed gives the same review)")


def load_record(path: str, line: int = 1) -> dict[str, Any]:
    """A record from a JSON file or one line of a JSON Lines file; ``ValueError`` in plain words."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise ValueError(f"can't read {path}: {error.strerror}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        lines = [raw for raw in text.splitlines() if raw.strip()]
        if not 1 <= line <= len(lines):
            raise ValueError(f"{path} has no record on line {line}") from None
        try:
            document = json.loads(lines[line - 1])
        except json.JSONDecodeError as error:
            raise ValueError(f"{path} line {line} isn't JSON: {error.msg}") from None
    if not isinstance(document, dict) or document.get("format") != RECORD_FORMAT:
        raise ValueError(f"{path} isn't a {RECORD_FORMAT} game record")
    return document


def run(args: argparse.Namespace) -> None:
    """`python -m bot review game.json`: the review of each asked seat, printed as plain text."""
    record = load_record(args.record, args.game)
    players = record.get("players", [])
    if args.seat is not None:
        seats = [args.seat]
    else:
        seats = [int(p["seat"]) for p in players if p.get("kind") == "human"] or [int(p["seat"]) for p in players]
    for index, seat in enumerate(seats):
        text = review_text(review_game(record, seat, seed=args.seed))
        text = "".join(c for c in text if c not in (NAME_START, NAME_END)).replace("**", "").replace("`", "")
        print(("\n" if index else "") + text)
