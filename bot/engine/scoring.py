"""Scoring one hand for one side (a player, or a partnership), as docs/rules.md's scoring table says."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from bot.engine.contracts import contract_score, nil_points
from bot.engine.rules import Rules


class SideScore(NamedTuple):
    points: int  # this hand's points, bag penalties included
    bags: int  # the side's bag count after the hand (after any penalty)
    new_bags: int  # overtricks taken this hand
    bag_outs: int  # how many times the bag penalty was applied


def score_side(
    rules: Rules,
    bids: Sequence[int],
    blinds: Sequence[bool],
    tricks: Sequence[int],
    bags_before: int,
) -> SideScore:
    """Score the members of one side. ``bids[i] == 0`` is nil (the rules never let a contract be 0).

    A nil bidder is scored alone (or as a double nil, see :mod:`bot.engine.contracts`); their tricks
    are never bags and count toward the partner's contract only with ``nil_tricks_help_partner``.
    """
    points = nil_points(rules, bids, blinds, tricks)
    contract = 0
    blind_tricks = 0
    counted_tricks = 0
    has_contract = False
    for bid, blind, taken in zip(bids, blinds, tricks, strict=True):
        if bid == 0:
            if rules.nil_tricks_help_partner:
                counted_tricks += taken
        else:
            has_contract = True
            contract += bid
            blind_tricks += bid if blind else 0
            counted_tricks += taken
    new_bags = 0
    if has_contract:
        scored = contract_score(rules, contract, blind_tricks, counted_tricks)
        points += scored.points
        new_bags = scored.overtricks
    bags = bags_before + (new_bags if rules.overtricks == "bags" else 0)  # other overtricks: no bag penalty
    bag_outs = 0
    while bags >= rules.bag_limit:
        bags -= rules.bag_limit
        points -= rules.bag_penalty
        bag_outs += 1
    return SideScore(points, bags, new_bags, bag_outs)


def game_end(rules: Rules, side_scores: Sequence[int]) -> tuple[str, list[int]] | None:
    """After a hand: ``(ending, winning sides)`` if the game is over, else None.

    Someone at the target (or, with ``mercy``, at or below −mercy) ends the game, but only when
    the highest score is not shared: a tie for the lead plays another hand.
    """
    top = max(side_scores)
    leaders = [side for side, score in enumerate(side_scores) if score == top]
    reached = any(score >= rules.target for score in side_scores)
    mercy = rules.mercy is not None and any(score <= -rules.mercy for score in side_scores)
    if (reached or mercy) and len(leaders) == 1:
        return ("target" if reached else "mercy", leaders)
    return None
