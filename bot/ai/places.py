"""The computer players under the house rule ``trumps``: they see cards as places.

A card order (bot/engine/card_order.py) gives every card a place in which the standard assumptions
hold (spades at 39 and up, a higher place wins within its suit). The players' bitmask reasoning
(play policies, search, sampling, spade counting for bids) was written for those assumptions, so
each player gets its view with every card turned into its place, and its card turned back: one
translation at the edge instead of the order threaded through every heuristic. Under the standard
trumps the view is passed through untouched.
"""

from __future__ import annotations

from bot.ai.base import ComputerPlayer, Move
from bot.engine import SeatView
from bot.engine.card_order import card_order
from bot.engine.cards import Card
from bot.engine.game import TrickLog


def in_places(view: SeatView) -> SeatView:
    """The view with each card as its place under the game's trumps (the same view if standard)."""
    order = card_order(view.rules)
    if order.standard:
        return view
    place = order.place

    def each(cards: tuple[Card, ...]) -> tuple[Card, ...]:
        return tuple(place[c] for c in cards)

    def plays(trick: tuple[tuple[int, Card], ...]) -> tuple[tuple[int, Card], ...]:
        return tuple((seat, place[c]) for seat, c in trick)

    return view._replace(
        hand=each(view.hand), legal_cards=each(view.legal_cards), passed=each(view.passed),
        received=each(view.received), trick=plays(view.trick),
        tricks=tuple(TrickLog(t.leader, plays(t.plays), t.winner) for t in view.tricks),
        deck_mask=order.places(view.deck_mask), drawn=None if view.drawn is None else place[view.drawn],
        discards=each(view.discards))


def card_of(view: SeatView, place: int) -> Card:
    """The card at a place of :func:`in_places`'s view."""
    return card_order(view.rules).card[place]


class InPlaces:
    """A computer player that chooses on :func:`in_places` views; its cards come back as cards."""

    def __init__(self, player: ComputerPlayer) -> None:
        self.player = player
        self.level = player.level

    def choose(self, view: SeatView) -> Move:
        move = self.player.choose(in_places(view))
        if move.kind in ("play", "pass") and not card_order(view.rules).standard:
            return move._replace(value=card_of(view, move.value))
        return move
