"""The hard player: determinized sampling (PIMC) within a time or iteration budget.

Each iteration deals the unseen cards consistently with what the seat knows (``Sampler``), then
plays every candidate move out to the end of the hand with the normal policy for all seats (exactly,
by max-n search, once few tricks remain) and scores the result as the seat's hand points minus the
best opponent's (their mean against five), each new bag charged as a debt towards the bag penalty,
with a bonus or penalty when the hand ends the game. Bids are chosen the same way: each candidate bid
(nil only for a hand within the normal player's risk limit) is played out over sampled deals; blind
nil follows the chance model.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import NamedTuple

from bot.ai.base import Move
from bot.ai.bidding import bid_for_hand, blind_move, mate_bid, nil_worth_trying
from bot.ai.drawing import keeps_drawn
from bot.ai.house_bidding import predicted_legal
from bot.ai.passing import pass_choice
from bot.ai.policy import normal_card
from bot.ai.sampler import Sampler
from bot.ai.sim import PlayState
from bot.engine import SeatView
from bot.engine.cards import BASE, SUIT_MASKS, SUIT_OF, Card, fold, held_copy, mask_of
from bot.engine.play_rules import first_leader

DEFAULT_BUDGET_S = 0.7  # with pool overhead: median well under 1 s, p99 under 2 s on two cores
MIN_ITERATIONS = 4
EXACT_TRICKS = 2  # max-n search instead of rollouts when this many tricks (or fewer) remain
EXACT_CARDS = 8  # ... or when this many cards remain: two of two players' tricks cost what four do
GAME_END_BONUS = 150  # reward for a hand that wins the game (penalty for one that loses it)
BAG_COST_SHARE = 0.5  # of the bag penalty's share per bag, charged when the bag is taken
# From this many sides on (six, each for themselves) a hand is scored against the other sides' mean,
# not their best: which of five opponents has the best hand changes with every card a rollout plays,
# so the best of them mostly adds noise to the comparison of two candidates.
MEAN_OF_OTHERS_FROM = 6


class BidValue(NamedTuple):
    """A candidate bid's mean reward over sampled deals, and the tricks the seat took on average."""

    bid: int
    reward: float
    tricks: float


class Budget:
    """A search budget: seconds of wall time, or a fixed number of sampled deals."""

    def __init__(self, seconds: float | None = None, iterations: int | None = None) -> None:
        self.seconds = seconds
        self.iterations = iterations

    @classmethod
    def parse(cls, value: str | float | Budget | None) -> Budget:
        """``None`` → the default time; ``0.5`` or ``"0.5s"`` → seconds; ``"200it"`` → deals."""
        if isinstance(value, Budget):
            return value
        if value is None:
            return cls(seconds=DEFAULT_BUDGET_S)
        text = str(value).strip().lower()
        try:
            if text.endswith("it"):
                iterations = int(text[:-2])
                if iterations < 1:
                    raise ValueError
                return cls(iterations=iterations)
            seconds = float(text.removesuffix("s"))
        except ValueError:
            raise ValueError(f"A budget is seconds (0.5 or 0.5s) or deals (200it), not “{value}”.") from None
        if not 0 < seconds <= 60:
            raise ValueError(f"A time budget is between 0 and 60 seconds, not “{value}”.")
        return cls(seconds=seconds)

    def __repr__(self) -> str:
        return f"Budget(seconds={self.seconds}, iterations={self.iterations})"


def rollout(state: PlayState) -> None:
    """Play the hand out with the normal policy for every seat."""
    card = normal_card
    while state.tricks_left:
        state.play(card(state, state.turn))


class Scorer:
    """Turns a finished hand into each seat's reward (own change minus the best opponent's, or minus
    the opponents' mean from ``MEAN_OF_OTHERS_FROM`` sides on)."""

    def __init__(self, view: SeatView) -> None:
        self.sides = view.sides
        self.scores = view.scores
        self.rules = view.rules
        self.seats = view.seats

    def rewards(self, state: PlayState) -> list[float]:
        sides = state.side_scores()
        rules = self.rules
        finals = [score + side.points for score, side in zip(self.scores, sides, strict=True)]
        # Bags carried are a debt towards the next penalty: a bag costs its share of it now, not only
        # when the penalty lands (half the share: the game may end first). Without this the search
        # took well over a bag a hand, each worth a point today and ten later.
        bag_cost = BAG_COST_SHARE * rules.bag_penalty / rules.bag_limit
        points = [side.points - (side.bags - before) * bag_cost
                  for side, before in zip(sides, state.bags, strict=True)]
        top = max(finals)
        ended = (top >= rules.target or (rules.mercy is not None and min(finals) <= -rules.mercy)) \
            and finals.count(top) == self.seats // self.sides
        mean = self.sides >= MEAN_OF_OTHERS_FROM
        out = []
        for seat in range(self.seats):
            others = [p for s, p in enumerate(points) if (s - seat) % self.sides]
            reward = float(points[seat] - (sum(others) / len(others) if mean else max(others)))
            if ended:
                reward += GAME_END_BONUS if finals[seat] == top else -GAME_END_BONUS
            out.append(reward)
        return out


def maxn(state: PlayState, scorer: Scorer) -> list[float]:
    """Exact play of the rest of the hand: every seat picks the card best for its own reward."""
    if not state.tricks_left:
        return scorer.rewards(state)
    seat = state.turn
    legal = state.legal(seat)
    best: list[float] | None = None
    while legal:
        bit = legal & -legal
        legal ^= bit
        child = state.copy()
        child.play(bit.bit_length() - 1)
        values = maxn(child, scorer)
        if best is None or values[seat] > best[seat]:
            best = values
    assert best is not None
    return best


def play_alike(card: Card, other: Card, unseen: int) -> bool:
    """Two cards of one suit that lead to the same outcomes: no card the seat can't see ranks from
    one to the other, ends included (six: an unseen twin of either would tie it, and the ``identical``
    rule would then treat the two cards differently)."""
    if SUIT_OF[card] != SUIT_OF[other]:
        return False
    low, high = sorted((card & BASE, other & BASE))
    return not fold(unseen) & ((2 << high) - 1) & ~((1 << low) - 1) & SUIT_MASKS[SUIT_OF[card]]


def distinct_cards(legal: Sequence[int], hand: int, unseen: int) -> list[int]:
    """Legal cards that could lead to different outcomes: of two identical cards (six) one, and of
    cards that play alike (``play_alike``: in sequence, with nothing unseen between) the lowest.
    Six's hands are long and their cards often in sequence, so this cuts its search most."""
    out: list[int] = []
    for card in sorted({held_copy(hand, card) for card in legal}, key=lambda c: c & BASE):
        if not (out and play_alike(out[-1], card, unseen)):
            out.append(card)
    return out


class HardPlayer:
    """Searches every bid and card over deals of the unseen cards; stateless between decisions, so a
    fresh one can decide in any worker process."""

    level = "hard"

    def __init__(self, seed: int | None = None, budget: str | float | Budget | None = None) -> None:
        self.rng = random.Random(seed)
        self.budget = Budget.parse(budget)

    def choose(self, view: SeatView) -> Move:
        if view.to_pass:  # the normal player's pass: searching 13 × 13 exchanges is not worth a budget
            return Move.pass_card(pass_choice(view))
        if view.legal_cards:
            return Move.play(self.play(view))
        if view.drawn is not None:
            return Move.draw(keeps_drawn(view))
        if view.cards_hidden:
            return blind_move(view)
        return Move.bid(self.bid(view))

    def _keep_going(self, iteration: int, deadline: float) -> bool:
        if self.budget.iterations is not None:
            return iteration < self.budget.iterations
        return iteration < MIN_ITERATIONS or time.perf_counter() < deadline

    def _deadline(self) -> float:
        return time.perf_counter() + (self.budget.seconds or 0.0)

    def play(self, view: SeatView) -> int:
        """The card with the best mean reward, each distinct card played out on the same deals."""
        candidates = distinct_cards(view.legal_cards, mask_of(view.hand), mask_of(view.unseen_cards()))
        if len(candidates) == 1:
            return candidates[0]
        values = self.play_values(view, candidates)
        return candidates[max(range(len(candidates)), key=values.__getitem__)]

    def play_values(self, view: SeatView, candidates: Sequence[int]) -> list[float]:
        """Each candidate card's mean reward over the same sampled deals (the coach compares them)."""
        deadline = self._deadline()
        sampler = Sampler(view, self.rng)
        scorer = Scorer(view)
        base = PlayState.from_view(view)
        seat = view.seat
        totals = [0.0] * len(candidates)
        iteration = 0
        while self._keep_going(iteration, deadline):
            iteration += 1
            state = base.copy()
            state.hands = sampler.deal_fitting_bids()
            exact = state.tricks_left <= max(EXACT_TRICKS, EXACT_CARDS // view.seats)
            for index, card in enumerate(candidates):
                child = state.copy()
                child.play(card)
                if exact:
                    totals[index] += maxn(child, scorer)[seat]
                else:
                    rollout(child)
                    totals[index] += scorer.rewards(child)[seat]
        return [total / iteration for total in totals]

    def bid(self, view: SeatView) -> int:
        """The bid with the best expected reward over sampled deals, others bidding as predicted."""
        candidates, predicted = self.bid_candidates(view)
        if len(candidates) <= 1:
            return candidates[0] if candidates else predicted
        values = self.bid_values(view, candidates)
        return candidates[max(range(len(candidates)), key=lambda i: values[i].reward)]

    def bid_candidates(self, view: SeatView) -> tuple[list[int], int]:
        """The bids worth searching (within two of the normal bid, and nil for a hand that may try
        it), and the normal player's bid."""
        hand = mask_of(view.hand)
        legal = view.legal_bids
        predicted = bid_for_hand(hand, view.mode, view.rules, legal, mate=mate_bid(view), tricks=view.tricks_per_hand)
        candidates = [b for b in legal if b > 0 and abs(b - predicted) <= 2]
        if 0 in legal and (predicted == 0 or nil_worth_trying(view.mode, hand, mate_bid(view))):
            candidates.append(0)
        return candidates, predicted

    def bid_values(self, view: SeatView, candidates: Sequence[int]) -> list[BidValue]:
        """Each candidate bid's mean reward, and the tricks the seat took on average with it, over
        the same sampled deals played out by the normal policy."""
        deadline = self._deadline()
        sampler = Sampler(view, self.rng)
        scorer = Scorer(view)
        seat = view.seat
        left_of_dealer = (view.dealer + 1) % view.seats
        totals = [0.0] * len(candidates)
        tricks = [0] * len(candidates)
        iteration = 0
        while self._keep_going(iteration, deadline):
            iteration += 1
            hands = sampler.deal_fitting_bids()
            bids = [b if b is not None else bid_for_hand(
                hands[s], view.mode, view.rules, predicted_legal(view.rules, hands[s], view.tricks_per_hand),
                tricks=view.tricks_per_hand) for s, b in enumerate(view.bids)]
            leader = first_leader(view.rules, hands, left_of_dealer)
            for index, candidate in enumerate(candidates):
                bids[seat] = candidate
                state = PlayState(view.rules, view.sides, hands[:], bids, view.blind,
                                  [0] * view.seats, view.bags, leader, view.tricks_per_hand, 0, False,
                                  deck=view.deck_mask)
                rollout(state)
                totals[index] += scorer.rewards(state)[seat]
                tricks[index] += state.won[seat]
        return [BidValue(bid, total / iteration, took / iteration)
                for bid, total, took in zip(candidates, totals, tricks, strict=True)]
