"""Dealing the cards a seat can't see, consistently with what it knows.

Hard constraints: the seat's own hand, every card played, each seat's hand size, the suits a seat
has shown it lacks (it didn't follow, or it led a spade before spades were broken), the cards a
house rule of play would have made it play (``first_trick``, ``must_overtrump``), and a set-aside
card that the rules name (``leftover=two_clubs``). Soft evidence: bids, by preferring deals in which
the normal bidder would have bid what each seat did, and in duo the draw, in which players keep
high cards and spades rather than discard them.
"""

from __future__ import annotations

import math
import random

from bot.ai.bidding import bid_for_hand, calibration, honour_count
from bot.ai.house_bidding import predicted_legal
from bot.engine import Phase, Rules, SeatView
from bot.engine.card_order import card_order
from bot.engine.cards import (
    BASE,
    CLUBS,
    FIRST_SPADE,
    NON_SPADE_MASK,
    PLACES,
    SPADE_MASK,
    SPADES,
    SUIT_MASKS,
    SUIT_OF,
    TWO_OF_CLUBS,
    Card,
    cards_of,
    copies,
    mask_of,
    stronger,
)
from bot.engine.modes import sets_aside
from bot.engine.play_rules import restricts_play

# Duo: the other player chose its hand in the draw. In normal self-play it kept spades, aces and kings
# about four times in five, queens 44%, other cards about one in three: a card's odds of being in its
# hand rather than among its discards, against a low card's.
KEPT_ODDS = tuple(9.0 if c >= FIRST_SPADE or c % 13 >= 11 else 2.0 if c % 13 == 10 else 1.0 for c in range(PLACES))


# Dealing card by card can dead-end; late in a six hand (six seats, many voids) a try succeeds about
# one time in five, so 20 tries fell back on a deal that ignores the voids about once in a hundred.
STRICT_TRIES = 60


def shown_voids(view: SeatView) -> list[int]:
    """Per seat, a mask of the cards it has shown it holds none of: suits it didn't follow, and what
    the house rules of play would have made it play."""
    voids = [0] * view.seats
    broken = False
    must_break = view.rules.spades_must_break
    tricks = [t.plays for t in view.tricks]
    if view.trick:
        tricks.append(view.trick)
    house = restricts_play(view.rules)
    for number, plays in enumerate(tricks):
        if house:
            _house_play_shows(view.rules, plays, number == 0, voids)
        _, first = plays[0]
        led = SUIT_OF[first]
        if first & BASE >= FIRST_SPADE and must_break and not broken:
            voids[plays[0][0]] |= SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2]
        for seat, card in plays[1:]:
            if SUIT_OF[card] != led:
                voids[seat] |= SUIT_MASKS[led]
        if any(card & BASE >= FIRST_SPADE for _, card in plays):
            broken = True
    return voids


def _house_play_shows(rules: Rules, plays: tuple[tuple[int, Card], ...], first_trick: bool, voids: list[int]) -> None:
    """A card played under first_trick or must_overtrump rules out the cards that would have been forced."""
    led = SUIT_OF[plays[0][1]]
    best = -1
    twin_beats = rules.identical == "last"  # six: a spade's twin beats it, so playing it obeys must_overtrump
    for position, (seat, card) in enumerate(plays):
        spade = card & BASE >= FIRST_SPADE
        if first_trick and rules.first_trick == "no_spades" and spade and (position == 0 or led != SPADES):
            voids[seat] |= NON_SPADE_MASK
        if first_trick and rules.first_trick == "lowest_club" and (position == 0 or led == CLUBS):
            voids[seat] |= SUIT_MASKS[CLUBS] & (~stronger(card) & ~copies(card) if SUIT_OF[card] == CLUBS else -1)
        if (rules.must_overtrump and position and led != SPADES and SUIT_OF[card] != led and best >= 0
                and not (spade and (card & BASE > best or (twin_beats and card & BASE == best)))):
            voids[seat] |= SPADE_MASK & stronger(best)
        if spade:
            best = max(best, card & BASE)


class Sampler:
    """Deals for one decision: built once from the view, then asked for many deals."""

    def __init__(self, view: SeatView, rng: random.Random) -> None:
        self.view = view
        self.rng = rng
        self.seat = view.seat
        self.seats = view.seats
        self.hand = mask_of(view.hand)
        unknown = mask_of(view.unseen_cards())
        known_aside = 0
        two_clubs = card_order(view.rules).place[TWO_OF_CLUBS]  # a view's cards are places (ai/places.py)
        if sets_aside(view.mode, view.rules) and view.rules.leftover == "two_clubs" and unknown >> two_clubs & 1:
            known_aside = 1 << two_clubs
        self.unknown = unknown & ~known_aside
        self.others = [s for s in range(self.seats) if s != self.seat]
        self.sizes = list(view.hand_sizes)
        self.fixed = [0] * self.seats  # cards known to be in a hand: nil_pass, what this seat gave its partner
        if view.passed and view.phase is Phase.PLAYING:
            mate = (self.seat + view.sides) % self.seats  # nil_pass is played by teams of two
            self.fixed[mate] = mask_of(view.passed) & self.unknown
            self.unknown &= ~self.fixed[mate]
            self.sizes[mate] -= self.fixed[mate].bit_count()
        self.aside = self.unknown.bit_count() - sum(self.sizes[s] for s in self.others)
        voids = shown_voids(view)
        self.allowed = [self.unknown & ~voids[s] for s in range(self.seats)]
        self.played_by = [0] * self.seats
        for trick in view.tricks:
            for seat, card in trick.plays:
                self.played_by[seat] |= 1 << card
        for seat, card in view.trick:
            self.played_by[seat] |= 1 << card
        self.cards = list(cards_of(self.unknown))
        self.cal = calibration(view.mode, view.rules)
        self.odds = KEPT_ODDS if view.mode.draws else None

    def deal(self) -> list[int]:
        """Every seat's hand (the seat's own included), respecting the hard constraints."""
        for _ in range(STRICT_TRIES):
            hands = self._try_deal(strict=True)
            if hands is not None:
                return hands
        hands = self._try_deal(strict=False)
        assert hands is not None
        return hands

    def _try_deal(self, strict: bool) -> list[int] | None:
        rng = self.rng
        random_ = rng.random
        hands = self.fixed[:]
        hands[self.seat] = self.hand
        room = self.sizes[:]
        room[self.seat] = 0
        aside = self.aside
        allowed = self.allowed
        others = self.others
        cards = self.cards[:]
        rng.shuffle(cards)
        if strict:  # the most constrained cards first, so that dealing rarely dead-ends
            cards.sort(key=lambda c: sum(allowed[s] >> c & 1 for s in others))
        odds = self.odds
        for card in cards:
            weight = 1.0 if odds is None else odds[card]
            total: float = aside
            for s in others:
                if room[s] and (not strict or allowed[s] >> card & 1):
                    total += room[s] * weight
            if not total:
                return None
            pick = random_() * total
            chosen = -1
            for s in others:
                if room[s] and (not strict or allowed[s] >> card & 1):
                    pick -= room[s] * weight
                    if pick < 0:
                        chosen = s
                        break
            if chosen < 0:
                aside -= 1
                continue
            hands[chosen] |= 1 << card
            room[chosen] -= 1
        return hands

    def weight(self, hands: list[int]) -> float:
        """How well a deal explains the bids made: 1 for a perfect fit, smaller the worse."""
        view = self.view
        log_weight = 0.0
        for s in self.others:
            bid = view.bids[s]
            if bid is None or view.blind[s]:
                continue
            original = hands[s] | self.played_by[s]
            if bid == 0:
                log_weight -= max(0.0, honour_count(original, self.cal) - 1.0)
            else:
                legal = tuple(b for b in predicted_legal(view.rules, original, view.tricks_per_hand) if b > 0)
                predicted = bid_for_hand(original, view.mode, view.rules, legal or (bid,),
                                         tricks=view.tricks_per_hand)
                log_weight -= (predicted - bid) ** 2 / 4.5
        return math.exp(log_weight)

    def deal_fitting_bids(self, tries: int = 6) -> list[int]:
        """A deal accepted with probability equal to its weight (the best of ``tries`` otherwise)."""
        best: list[int] = []
        best_weight = -1.0
        for _ in range(tries):
            hands = self.deal()
            weight = self.weight(hands)
            if self.rng.random() < weight:
                return hands
            if weight > best_weight:
                best, best_weight = hands, weight
        return best
