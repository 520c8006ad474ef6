"""A side's contract and nils scored under the house rules of scoring (RULES.md, "House rules").

:func:`bot.engine.scoring.score_side` adds these up and keeps the bag count; the figures of each
rule live here, one place, so the hard player's simulations score exactly as the game does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from bot.engine.rules import Rules

TEN_FOR_200 = 10  # "any bid of 10 is automatically a 10-for-200 bid" (file 003)
TEN_FOR_200_POINTS = 200
OVERTRICK_POINTS = {"bags": 1, "none": 0, "negative": -1, "quicksand": -10}


class ContractScore(NamedTuple):
    points: int
    overtricks: int  # tricks over the contract (bags, whatever they score)


def contract_score(rules: Rules, contract: int, blind_tricks: int, taken: int) -> ContractScore:
    """A contract of ``contract`` tricks (``blind_tricks`` of them bid blind) that took ``taken``."""
    over = taken - contract
    if over < 0:
        return ContractScore(_set_points(rules, contract, blind_tricks, taken), 0)
    if blind_tricks:  # trailing blind bids: 20 a blind trick, no overtricks scored nor bags
        return ContractScore(10 * contract + 10 * blind_tricks + seven_bonus(rules, contract), 0)
    if rules.ten_for_200 and contract == TEN_FOR_200:
        base = TEN_FOR_200_POINTS
    elif rules.double_back and taken >= 2 * contract:
        return ContractScore(-20 * contract, over)
    else:
        base = 10 * contract + seven_bonus(rules, contract)
    return ContractScore(base + OVERTRICK_POINTS[rules.overtricks] * over, over)


def _set_points(rules: Rules, contract: int, blind_tricks: int, taken: int) -> int:
    if blind_tricks:
        return -10 * contract
    if rules.ten_for_200 and contract == TEN_FOR_200:
        return -rules.ten_for_200_loss
    if rules.overtricks == "quicksand":
        return -10 * (contract - taken)
    return -10 * contract if rules.set_penalty == "minus" else 0


def seven_bonus(rules: Rules, contract: int) -> int:
    """``seven_bonus``: +10 for each trick of a made contract above 6."""
    return 10 * max(0, contract - 6) if rules.seven_bonus else 0


def moon_taken(rules: Rules, every: int, bids_and_tricks: Sequence[tuple[int, int]]) -> bool:
    """House rule ``moon``: a side that bid ``every`` trick of the hand and took them all wins the game."""
    return (rules.moon and sum(bid for bid, _ in bids_and_tricks) == every
            and sum(taken for _, taken in bids_and_tricks) == every)


def nil_points(rules: Rules, bids: Sequence[int], blinds: Sequence[bool], tricks: Sequence[int]) -> int:
    """The nil bidders of one side: each alone, or with ``double_nil=double`` and every member on
    nil, twice their bonuses if all are made and nothing at all if one fails."""
    values = [(rules.blind_nil_value if blind else rules.nil_value, taken)
              for bid, blind, taken in zip(bids, blinds, tricks, strict=True) if bid == 0]
    if rules.double_nil == "double" and len(bids) > 1 and len(values) == len(bids):
        return 2 * sum(value for value, _ in values) if all(taken == 0 for _, taken in values) else 0
    return sum(value if taken == 0 else -value for value, taken in values)
