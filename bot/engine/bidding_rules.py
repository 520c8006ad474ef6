"""The house rules of bidding (RULES.md, "House rules" › Bidding): which bids a seat may make.

Kept apart from the game's state machine so each rule reads as one short function; the game asks
:func:`bid_refusal` for every bid it checks, and :func:`legal` filters its list of bids with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from bot.engine.rules import NO_BLIND

if TYPE_CHECKING:
    from bot.engine.rules import Rules

BLIND_BID_MAX = 7  # trailing blind bids go from 1 to 7 (file 003, "Blind bidding")
LEAST_BESIDE_NIL = 4  # suicide's non-nil bidder and every fredieu bid but nil: "at least 4"


class BidContext(NamedTuple):
    """What the bidding rules need to know about one seat's bid."""

    rules: Rules
    tricks: int  # tricks in a hand
    spades: int  # trumps the bidder holds (whiz, mirrors)
    mates: tuple[int | None, ...]  # the bids of the bidder's team-mates (None: not yet); () without teams
    others: tuple[tuple[int | None, ...], ...]  # the bids of every other side, by side


def constrains(rules: Rules) -> bool:
    """Whether a house rule limits the open bids at all; if not the game's own range is the rule
    (and the game skips asking, which keeps the standard game as fast as before)."""
    return rules.bidding != "standard" or rules.min_bid > 1 or rules.moon


def blind_offered(rules: Rules) -> bool:
    """Whether anyone may be asked to choose a blind bid before looking at their cards."""
    return (rules.blind_nil or rules.blind_bids) and rules.bidding not in NO_BLIND


def bid_refusal(ctx: BidContext, bid: int) -> str | None:
    """Why the house rules refuse this bid (0 is nil), blind or not, in a line a player can read;
    None if allowed. The plain range of bids and blind bids' own conditions (`blind_refusal`) are
    the game's to check."""
    for check in (_style, _least, _moon):
        reason = check(ctx, bid)
        if reason:
            return reason
    return None


def legal(ctx: BidContext, bids: Iterable[int]) -> tuple[int, ...]:
    return tuple(b for b in bids if bid_refusal(ctx, b) is None)


def blind_refusal(rules: Rules, bid: int) -> str | None:
    """Why a blind bid of ``bid`` tricks is never allowed in this game, or None."""
    if rules.bidding in NO_BLIND:
        return f"No blind bids under {rules.bidding}."
    if bid and not rules.blind_bids:
        return "A blind bid can only be blind nil (0)."
    if bid > BLIND_BID_MAX:
        return f"Blind bids go from 1 to {BLIND_BID_MAX}."
    return None


def _style(ctx: BidContext, bid: int) -> str | None:
    style, spades = ctx.rules.bidding, ctx.spades
    if style == "whiz" and bid not in (0, spades):
        return f"Whiz: bid your spades ({spades}) or nil."
    if style == "mirrors" and bid != spades:
        return f"Mirrors: bid exactly your spades ({spades})." if spades else "Mirrors: with no spades you bid nil."
    if style == "fredieu" and 0 < bid < LEAST_BESIDE_NIL:
        return f"Fredieu: bid nil or at least {LEAST_BESIDE_NIL}."
    if style == "suicide" and ctx.mates:
        return _suicide(ctx.mates, bid)
    return None


def _suicide(mates: tuple[int | None, ...], bid: int) -> str | None:
    """Exactly one nil a team, everyone else on it at least 4: the team's last bidder must bid nil
    if nobody else did."""
    nils = sum(1 for b in mates if b == 0)
    if bid == 0 and nils:
        return f"Suicide: your team already has its nil, so bid at least {LEAST_BESIDE_NIL}."
    if bid and bid < LEAST_BESIDE_NIL:
        return f"Suicide: bid nil or at least {LEAST_BESIDE_NIL}."
    if bid and not nils and None not in mates:
        return "Suicide: nobody else on your team bid nil, so you must."
    return None


def _least(ctx: BidContext, bid: int) -> str | None:
    """``min_bid``: a player's bid without teams; with teams, the team's contract, which its last
    bidder is held to (a team of nils only has no contract)."""
    least = ctx.rules.min_bid
    if least <= 1:
        return None
    if not ctx.mates:
        return f"The least bid is {least} (or nil)." if 0 < bid < least else None
    if None in ctx.mates:
        return None
    others = sum(b for b in ctx.mates if b)
    contract = others + bid
    if 0 < contract < least:
        return f"Your team's contract must be at least {least}: bid {least - others} or more."
    return None


def _moon(ctx: BidContext, bid: int) -> str | None:
    """No moon after another side's double nil in the same hand, and no double nil after a moon."""
    if not ctx.rules.moon or None in ctx.mates:
        return None
    if sum(b for b in ctx.mates if b) + bid == ctx.tricks and any(_double_nil(s) for s in ctx.others):
        return "No moon after another team's double nil."
    if ctx.mates and bid == 0 and _double_nil((*ctx.mates, bid)) and any(
            _moon_bid(s, ctx.tricks) for s in ctx.others):
        return "No double nil after another team's moon."
    return None


def _double_nil(side: tuple[int | None, ...]) -> bool:
    return len(side) > 1 and all(b == 0 for b in side)


def _moon_bid(side: tuple[int | None, ...], tricks: int) -> bool:
    return None not in side and sum(b or 0 for b in side) == tricks
