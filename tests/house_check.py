"""The record checker's part for the house rules of bidding and scoring (RULES.md "House rules").

Like `tests/record_check.py` it shares no code with `bot.engine`: the figures are worked out again
from the record, written the way a person reading RULES.md would score a hand.
"""

from __future__ import annotations

from typing import Any

HOUSE_DEFAULTS = {
    "bidding": "standard", "min_bid": 1, "ten_for_200": False, "ten_for_200_loss": 200, "moon": False,
    "double_nil": "separate", "blind_bids": False, "overtricks": "bags", "double_back": False,
    "seven_bonus": False, "last_trick": False,
}


def house(rules: dict[str, Any]) -> dict[str, Any]:
    """The record's rules with the house rules' defaults filled in (records from before them)."""
    return {**HOUSE_DEFAULTS, **rules}


def check_bid(rules: dict[str, Any], bid: dict[str, Any], spades: int | None) -> None:
    """One bid against the rules that need nothing but the bid and (if known) the bidder's spades."""
    r = house(rules)
    n = bid["bid"]
    if bid["blind"]:
        assert r["bidding"] not in ("whiz", "mirrors"), "no blind bids under whiz or mirrors"
        assert (n == 0 and r["blind_nil"]) or (1 <= n <= 7 and r["blind_bids"]), f"blind {n} not allowed"
    if bid.get("forced"):
        assert r["bidding"] != "standard" or r["min_bid"] > 1, "only a house rule forces a bid"
    if spades is not None and r["bidding"] == "whiz":
        assert n in (0, spades), "whiz: your spades or nil"
    if spades is not None and r["bidding"] == "mirrors":
        assert n == spades, "mirrors: your spades"
    if r["bidding"] == "fredieu":
        assert n == 0 or n >= 4, "fredieu: nil or at least 4"


def check_side_bids(rules: dict[str, Any], team_bids: list[int]) -> None:
    """A side's finished bids: suicide's one nil, the least contract."""
    r = house(rules)
    if r["bidding"] == "suicide":
        assert team_bids.count(0) == 1 and all(b >= 4 for b in team_bids if b), "suicide: one nil, the rest 4+"
    contract = sum(team_bids)
    if contract:
        assert contract >= r["min_bid"], f"contract {contract} under min_bid"


def side_points(rules: dict[str, Any], bids: list[dict[str, Any]], won: list[int]) -> tuple[int, int]:
    """(points before any bag penalty, bags added to the count) of one side's bids and tricks."""
    r = house(rules)
    points = 0
    nils = [(b, w) for b, w in zip(bids, won, strict=True) if b["bid"] == 0]
    if r["double_nil"] == "double" and len(bids) > 1 and len(nils) == len(bids):
        bonus = sum(r["blind_nil_value"] if b["blind"] else r["nil_value"] for b, _ in nils)
        points += 2 * bonus if all(w == 0 for _, w in nils) else 0
    else:
        for b, w in nils:
            value = r["blind_nil_value"] if b["blind"] else r["nil_value"]
            points += value if w == 0 else -value
    contract = sum(b["bid"] for b in bids)
    if not contract:
        return points, 0
    blind = sum(b["bid"] for b in bids if b["blind"])
    taken = sum(w for b, w in zip(bids, won, strict=True) if b["bid"] or r["nil_tricks_help_partner"])
    over = taken - contract
    seven = 10 * (contract - 6) if r["seven_bonus"] and contract >= 7 else 0
    wheels = r["ten_for_200"] and contract == 10 and not blind
    if over < 0:
        if blind:
            return points - 10 * contract, 0
        if wheels:
            return points - r["ten_for_200_loss"], 0
        if r["overtricks"] == "quicksand":
            return points + 10 * over, 0
        return points - (10 * contract if r["set_penalty"] == "minus" else 0), 0
    if blind:
        return points + 20 * blind + 10 * (contract - blind) + seven, 0
    bags = over if r["overtricks"] == "bags" else 0
    if not wheels and r["double_back"] and taken >= 2 * contract:
        return points - 20 * contract, bags
    per_over = {"bags": 1, "none": 0, "negative": -1, "quicksand": -10}[r["overtricks"]]
    return points + (200 if wheels else 10 * contract + seven) + per_over * over, bags


def moon_side(rules: dict[str, Any], hand: dict[str, Any], sides: list[list[int]], tricks: int) -> int | None:
    """The side that bid every trick and took them all, with `moon` on."""
    if not house(rules)["moon"]:
        return None
    bid_of = {b["seat"]: b["bid"] for b in hand["bids"]}
    won = hand["result"]["tricks_won"]
    for index, members in enumerate(sides):
        if sum(bid_of[s] for s in members) == tricks and sum(won[s] for s in members) == tricks:
            return index
    return None
