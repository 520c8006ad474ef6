"""A lean bitmask trick-play simulator for search: the engine's play rules without its checks and logs.

Search plays out thousands of deals a decision, so this keeps only what trick play needs.
It is the one re-implementation of the play rules in ``bot/ai``; ``tests/ai/test_sim.py`` plays it
against the engine on random deals in every mode so the two can't drift.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine import Mode, Rules, SeatView, SideScore, score_side
from bot.engine.cards import BASE, CARD_LIMIT, FIRST_SPADE, SECOND_COPY, SUIT_OF, Card, mask_of
from bot.engine.game import LAST_TRICK_BONUS
from bot.engine.modes import deck_for
from bot.engine.play_rules import narrow, plain_legal, restricts_play

EVERY_CARD = (1 << CARD_LIMIT) - 1  # every card int: both decks' (six), or every place (ai/places.py)


def deck_mask(mode: Mode, rules: Rules) -> int:
    """The cards in play in a game of this mode and rules (the others count as gone in search)."""
    return mask_of(deck_for(mode, rules))


class PlayState:
    """One hand in play: every seat's cards (in a determinization), the trick, and the context
    (bids, bags, scores) that the play policies and rewards read."""

    __slots__ = (
        "bags",
        "best",
        "best_seat",
        "bids",
        "blinds",
        "broken",
        "first_trick",
        "hands",
        "led",
        "must_break",
        "narrowed",
        "played",
        "rules",
        "seats",
        "sides",
        "ties_win",
        "trick",
        "tricks_left",
        "turn",
        "won",
    )

    def __init__(self, rules: Rules, sides: int, hands: list[int], bids: Sequence[int],
                 blinds: Sequence[bool], won: list[int], bags: Sequence[int], turn: int,
                 tricks_left: int, played: int, broken: bool, *, deck: int) -> None:
        """``played`` holds the cards of the completed tricks (none: this is the hand's first trick);
        ``deck`` the cards in play (:func:`deck_mask`); ``sides``: seat ``s`` plays for side ``s % sides``."""
        self.rules = rules
        self.must_break = rules.spades_must_break
        self.narrowed = restricts_play(rules)
        self.first_trick = not played
        self.sides = sides
        self.seats = len(hands)
        self.ties_win = rules.identical == "last"
        self.hands = hands
        self.bids = tuple(bids)
        self.blinds = tuple(blinds)
        self.won = won
        self.bags = tuple(bags)
        self.turn = turn
        self.tricks_left = tricks_left
        self.played = played | (EVERY_CARD & ~deck)  # cards out of the deck count as gone
        self.broken = broken
        self.trick: list[tuple[int, Card]] = []
        self.led = -1
        self.best = -1
        self.best_seat = -1

    @classmethod
    def from_view(cls, view: SeatView, hands: list[int] | None = None,
                  bids: Sequence[int] | None = None) -> PlayState:
        """The state a seat sees; other hands are empty unless a determinization supplies them."""
        if hands is None:
            hands = [0] * view.seats
            hands[view.seat] = sum(1 << c for c in view.hand)
        state = cls(view.rules, view.sides, hands,
                    bids if bids is not None else [b or 0 for b in view.bids], view.blind,
                    list(view.tricks_won), view.bags, view.seat if view.turn is None else view.turn,
                    view.tricks_per_hand - len(view.tricks),
                    mask_of(c for t in view.tricks for _, c in t.plays), view.spades_broken, deck=view.deck_mask)
        for seat, card in view.trick:
            state.add_to_trick(seat, card)
        return state

    def copy(self) -> PlayState:
        other = PlayState.__new__(PlayState)
        other.rules, other.must_break, other.sides, other.seats, other.ties_win = (
            self.rules, self.must_break, self.sides, self.seats, self.ties_win)
        other.narrowed, other.first_trick = self.narrowed, self.first_trick
        other.hands, other.won, other.trick = self.hands[:], self.won[:], self.trick[:]
        other.bids, other.blinds, other.bags, other.turn = self.bids, self.blinds, self.bags, self.turn
        other.tricks_left, other.played, other.broken = self.tricks_left, self.played, self.broken
        other.led, other.best, other.best_seat = self.led, self.best, self.best_seat
        return other

    def legal(self, seat: int) -> int:
        legal = plain_legal(self.hands[seat], self.led, self.broken, self.must_break)
        if self.narrowed:  # the house rules of play: the engine's own function
            best = self.best if self.best & BASE >= FIRST_SPADE else -1
            return narrow(self.rules, legal, self.first_trick, self.led, best)
        return legal

    def add_to_trick(self, seat: int, card: Card) -> None:
        """Put a card on the trick (a card already gone from the hand, as when rebuilding a view)."""
        if not self.trick:
            self.led = SUIT_OF[card]
            self.best, self.best_seat = card, seat
        else:
            strength, best = card & BASE, self.best & BASE
            if ((strength > best or (strength == best and self.ties_win))
                    and (strength >= FIRST_SPADE or SUIT_OF[card] == self.led)):
                self.best, self.best_seat = card, seat
        if card & BASE >= FIRST_SPADE:
            self.broken = True
        self.trick.append((seat, card))
        self.played |= 1 << card

    def play(self, card: Card) -> None:
        """The seat on turn plays ``card`` (assumed legal); a full trick is scored at once. Of two
        copies held (six), the first goes, as in the engine."""
        seat = self.turn
        if card >= SECOND_COPY and self.hands[seat] >> (card - SECOND_COPY) & 1:
            card -= SECOND_COPY
        self.hands[seat] ^= 1 << card
        self.add_to_trick(seat, card)
        if len(self.trick) < self.seats:
            self.turn = (seat + 1) % self.seats
            return
        winner = self.best_seat
        self.won[winner] += 1
        self.first_trick = False
        self.trick = []
        self.led = -1
        self.best = -1
        self.turn = winner
        self.tricks_left -= 1

    def side_points(self) -> list[int]:
        """Each seat's side's points for the hand as it stands (bags and bag penalties included)."""
        return [side.points for side in self.side_scores()]

    def side_scores(self) -> list[SideScore]:
        """Each seat's side's score for the hand as it stands."""
        rules = self.rules
        sides, seats = self.sides, self.seats
        if sides == seats:
            scores = [score_side(rules, (self.bids[s],), (self.blinds[s],), (self.won[s],), self.bags[s])
                      for s in range(seats)]
        else:
            teams = [range(t, seats, sides) for t in range(sides)]
            team = [score_side(rules, [self.bids[s] for s in members], [self.blinds[s] for s in members],
                               [self.won[s] for s in members], self.bags[members[0]]) for members in teams]
            scores = [team[s % sides] for s in range(seats)]
        if rules.last_trick and not self.tricks_left:  # the last trick's winner is on turn
            scores = [sc._replace(points=sc.points + LAST_TRICK_BONUS) if (s - self.turn) % sides == 0 else sc
                      for s, sc in enumerate(scores)]
        return scores
