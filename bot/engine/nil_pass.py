"""Nil passing (RULES.md, ``nil_pass=one_two``): after the bidding, partners on a team with a nil
bidder trade cards, 1 each (2 each when the nil is blind), before the first lead.

Each partner chooses in turn, clockwise from the dealer's left, and the cards change hands only
once both have chosen: nobody sees what comes before choosing what goes. Passed cards are private
to the two partners until the hand is over.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine.cards import Card, card_label


def pass_counts(rules_nil_pass: str, teams: Sequence[Sequence[int]], bids: Sequence[int | None],
                blind: Sequence[bool]) -> list[int]:
    """Per seat, how many cards it passes this hand (0 for most seats, and for every seat when the
    rule is off). Only teams of two pass: the cards go to the one partner."""
    counts = [0] * len(bids)
    if rules_nil_pass == "off":
        return counts
    for team in teams:
        if len(team) != 2 or not any(bids[seat] == 0 for seat in team):
            continue
        count = 2 if any(bids[seat] == 0 and blind[seat] for seat in team) else 1
        for seat in team:
            counts[seat] = count
    return counts


def partner(teams: Sequence[Sequence[int]], seat: int) -> int:
    """The seat a passing seat gives its cards to."""
    team = next(team for team in teams if seat in team)
    return next(other for other in team if other != seat)


def explain(count: int, partner_name: str) -> str:
    """What a seat is asked to do while it passes (and what a refused pass says)."""
    cards = "a card" if count == 1 else f"{count} cards"
    return f"Pass {cards} to your partner {partner_name}."


def refusal(hand: int, to_pass: int, cards: Sequence[Card]) -> str | None:
    """Why these cards can't be passed now (``hand``: the seat's cards, ``to_pass``: still owed)."""
    if not cards:
        return "Choose the cards to pass."
    if len(cards) > to_pass:
        return f"You pass {to_pass} card{'s' if to_pass != 1 else ''} now, not {len(cards)}."
    if len(set(cards)) != len(cards):
        return "Each card can be passed only once."
    for card in cards:
        if not hand >> card & 1:
            return f"You don't have the {card_label(card)}."
    return None
