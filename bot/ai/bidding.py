"""Bidding from honours and suit lengths, calibrated per mode.

Cutthroat is valued differently from four-handed play: 17 or 18 cards each and only two opponents
make long suits common (a side king is often ruffed on the second round) and spade length worth
more, and with no partner nobody covers a nil.
"""

from __future__ import annotations

from typing import NamedTuple

from bot.ai.base import BLIND_NIL, REVEAL, Move
from bot.ai.habits import CURRENT, Habits
from bot.ai.house_bidding import blind_bid, nil_rather, sensible_bids
from bot.engine import Mode, Rules, SeatView
from bot.engine.cards import BASE, FIRST_SPADE, PLACES, SPADE_MASK, SUIT_MASKS, cards_of, fold
from bot.engine.modes import tricks_for


class Calibration(NamedTuple):
    ace: float  # a side ace in a short suit
    king: float  # a guarded side king
    queen: float  # a twice-guarded side queen
    long_side: int  # side-suit length at which honours start being ruffed
    spade_par: float  # spades an average hand holds; each one above it is worth ``spade_extra``
    spade_extra: float
    ruff: float  # a ruff from a void or singleton with spades to spare
    slope: float  # expected tricks = offset + slope * honour count, fitted on normal self-play
    offset: float
    margin: float  # bid this far under the expectation so about four contracts in five are made
    top_spade: int  # the highest trump's card index (the big joker when jokers are in)


CALIBRATION = {
    "cutthroat": Calibration(0.95, 0.65, 0.25, 6, 4.3, 0.85, 0.5, 1.35, 1.54, 1.1, 51),
    "cutthroat_jokers": Calibration(0.9, 0.6, 0.2, 6, 5.0, 0.85, 0.5, 1.37, 1.86, 1.2, 53),
    "solo": Calibration(1.0, 0.75, 0.3, 5, 3.25, 0.9, 0.6, 0.98, 0.69, 0.6, 51),
    "partners": Calibration(1.0, 0.75, 0.3, 5, 3.25, 0.9, 0.6, 0.86, 1.0, 0.5, 51),
    # Fitted on normal self-play like the others: five has 10 cards each and four opponents to ruff
    # a side king; in duo both hands are chosen card by card and every trick is one of two players'.
    "five": Calibration(1.0, 0.6, 0.2, 4, 2.6, 0.9, 0.6, 0.74, 0.47, 0.4, 51),
    "duo": Calibration(1.0, 0.75, 0.3, 6, 4.0, 0.9, 0.6, 0.79, 2.4, 0.5, 51),
    # Jokers in four-seat play: 15 spades in 52 cards, so more spades a hand and two tops above A♠.
    "solo_jokers": Calibration(1.0, 0.75, 0.3, 5, 3.75, 0.9, 0.6, 0.98, 0.69, 0.6, 53),
    "partners_jokers": Calibration(1.0, 0.75, 0.3, 5, 3.75, 0.9, 0.6, 0.86, 1.0, 0.5, 53),
    # Six: 17 cards each from two decks, five others to ruff a side honour or match it with its
    # twin, 26 spades in 102 cards (4.3 a hand). Not fitted on self-play yet: cutthroat's length
    # values with smaller honours and a lower offset, since a trick is shared six ways.
    "six": Calibration(0.8, 0.5, 0.15, 5, 4.3, 0.8, 0.5, 1.0, 0.5, 0.5, 51),
}


# Cutthroat bids half a trick closer to the expectation: the first margins made 19 contracts in 20 and
# took more than a bag a hand; these win more often against them (bench/bench_ai.py, normal vs normal-v1).
CLOSER_CALIBRATION = {name: cal._replace(margin=cal.margin - 0.5) if name.startswith("cutthroat") else cal
                      for name, cal in CALIBRATION.items()}


def calibration(mode: Mode, rules: Rules, habits: Habits = CURRENT) -> Calibration:
    table = CLOSER_CALIBRATION if habits.closer_cutthroat_bids else CALIBRATION
    # The other trump orders also put more spades in a hand, and tops above the A♠, like the jokers.
    if rules.trumps == "standard":
        return table[f"{mode.value}_jokers" if rules.jokers else mode.value]
    # The other trump orders put more spades in a hand, and tops above the A♠, like the jokers; the
    # computer players see cards as places (bot/ai/places.py), the top one the last place.
    more_spades = f"{mode.value}_jokers"
    return table[more_spades if more_spades in table else mode.value]._replace(top_spade=PLACES - 1)


def honour_count(hand: int, cal: Calibration) -> float:
    """Tricks from honours, spade length and ruffs, before the mode's calibration."""
    total = 0.0
    spades = hand & SPADE_MASK
    spade_count = spades.bit_count()
    spades = fold(spades)  # two decks: an honour held twice counts once
    # Spade honours, from the top: the n-th highest trump is a trick if guarded by n-1 spades
    # or the honours above it are ours.
    top = cal.top_spade
    held_above = 0
    for card in range(top, top - 4, -1):
        if not spades >> card & 1:
            continue
        missing_above = (top - card) - held_above
        if missing_above == 0:
            total += 1.0
        elif spade_count > missing_above:
            total += 0.9 if missing_above == 1 else 0.6
        held_above += 1
    honours_counted = held_above
    extra_length = max(0.0, spade_count - max(cal.spade_par, honours_counted))
    total += extra_length * cal.spade_extra
    spare_spades = max(0, spade_count - honours_counted - 1)
    for suit in range(3):
        cards = hand & SUIT_MASKS[suit]
        length = cards.bit_count()
        cards = fold(cards)
        base = suit * 13
        if cards >> (base + 12) & 1:
            total += cal.ace if length < cal.long_side else cal.ace * 0.7
        if cards >> (base + 11) & 1 and length >= 2:
            total += cal.king if length < cal.long_side - 1 else cal.king * 0.5
        elif cards >> (base + 11) & 1:
            total += 0.2
        if cards >> (base + 10) & 1 and length >= 3 and length < cal.long_side:
            total += cal.queen
        if length <= 1 and spare_spades > 0:
            ruffs = min(spare_spades, 2 - length)
            total += ruffs * cal.ruff
            spare_spades -= ruffs
    return total


def nil_risk(hand: int, cards_per_hand: int) -> float:
    """How dangerous a nil is: high spades, spade length, and side honours without low guards."""
    risk = 0.0
    spades = hand & SPADE_MASK
    for card in cards_of(spades):
        r = (card & BASE) - FIRST_SPADE
        risk += 0.0 if r < 6 else (r - 5) * 0.35
    risk += max(0, spades.bit_count() - (3 if cards_per_hand >= 17 else 2)) * 0.8
    for suit in range(3):
        cards = hand & SUIT_MASKS[suit]
        length = cards.bit_count()
        cards = fold(cards)
        lows = sum(1 for r in range(5) if cards >> (suit * 13 + r) & 1)
        for r in range(8, 13):
            if cards >> (suit * 13 + r) & 1:
                risk += (r - 7) * (0.35 if lows == 0 else 0.15) * (1.0 if length < 5 else 0.7)
    return risk


def nearest_legal(bid: int, legal: tuple[int, ...]) -> int:
    """The wanted bid, or the closest legal one (lower first: a bag costs less than a set)."""
    if bid in legal:
        return bid
    return min(legal, key=lambda b: (abs(b - bid), b > bid, b))


def mate_bid(view: SeatView) -> int | None:
    """The partner's bid when it is already made (teams of two: partners, six's pairs), else ``None``."""
    if view.sides * 2 != view.seats:
        return None
    return view.bids[(view.seat + view.sides) % view.seats]


def normal_bid(view: SeatView, habits: Habits = CURRENT) -> int:
    """The normal player's bid for the seat's own hand."""
    return bid_for_hand(sum(1 << c for c in view.hand), view.mode, view.rules, view.legal_bids, habits,
                        mate_bid(view), view.tricks_per_hand)


def bid_for_hand(hand: int, mode: Mode, rules: Rules, legal: tuple[int, ...], habits: Habits = CURRENT,
                 mate: int | None = None, tricks: int = 13) -> int:
    """Bid the expected tricks less a safety margin, or nil with a safe hand; respects the total
    rule, nil being off and the house rules through ``legal`` (``house_bidding``: no long shots).
    Also how the hard player predicts others' bids. ``mate`` is the partner's bid when already made."""
    cal = calibration(mode, rules, habits)
    honours = honour_count(hand, cal)
    if 0 in legal and wants_nil(mode, hand, honours, habits, mate):
        return 0
    expected = cal.offset + cal.slope * honours
    wanted = max(1, round(expected - cal.margin))
    bid = nearest_legal(wanted, sensible_bids(legal, rules, tricks, mate, expected) or legal)
    cards = 17 if mode in (Mode.CUTTHROAT, Mode.SIX) else 13
    return 0 if nil_rather(bid, wanted, legal, nil_risk(hand, cards)) else bid


# Nil only below this risk (``nil_risk``): about four nils in five are then made by rule-based play
# against today's rule-based defenders (measured with bench/bench_ai.py --nil-chances).
NIL_RISK_LIMIT = {Mode.CUTTHROAT: 1.25, Mode.SOLO: 1.5, Mode.PARTNERS: 1.75, Mode.FIVE: 1.75, Mode.DUO: 1.0,
                  Mode.SIX: 1.25}


def cards_per_hand(mode: Mode) -> int:
    """The cards a hand holds without jokers: how crowded a nil is."""
    return tricks_for(mode, Rules())


def wants_nil(mode: Mode, hand: int, honours: float, habits: Habits = CURRENT, mate: int | None = None) -> bool:
    cards = cards_per_hand(mode)
    if not habits.careful_nil:
        return honours < 1.5 and nil_risk(hand, cards) < (1.5 if mode is Mode.PARTNERS else 0.3)
    if honours >= 1.5 or mate == 0:  # one nil a side: nobody would be left to cover it
        return False
    limit = NIL_RISK_LIMIT[mode] - (0.5 if mate is not None and mate <= 2 else 0.0)  # a weak cover
    return nil_risk(hand, cards) < limit


def nil_worth_trying(mode: Mode, hand: int, mate: int | None) -> bool:
    """Whether the hard player should weigh nil at all: only hands the normal player's risk limit
    allows, so that a lucky run of sampled deals can't talk it into a nil that is set one time in three."""
    return mate != 0 and nil_risk(hand, cards_per_hand(mode)) < NIL_RISK_LIMIT[mode]


# The chance that a blind nil is made with rule-based play all round (bench/bench_ai.py
# --nil-chances): in partners by the partner's bid when it is known (7 or more alike), else unknown.
BLIND_NIL_CHANCE = {Mode.CUTTHROAT: 0.11, Mode.SOLO: 0.21, Mode.FIVE: 0.25, Mode.DUO: 0.0, Mode.SIX: 0.11}
BLIND_NIL_CHANCE_BY_MATE = (0.07, 0.13, 0.18, 0.23, 0.27, 0.30, 0.38, 0.50)
BLIND_NIL_CHANCE_MATE_UNKNOWN = 0.20
BLIND_NIL_FLOOR = 0.35  # below this a blind nil is a hopeless throw, however far behind


def blind_nil_chance(view: SeatView) -> float:
    if view.mode is not Mode.PARTNERS:
        return BLIND_NIL_CHANCE[view.mode]
    mate = mate_bid(view)
    if mate is None:
        return BLIND_NIL_CHANCE_MATE_UNKNOWN
    return BLIND_NIL_CHANCE_BY_MATE[min(mate, len(BLIND_NIL_CHANCE_BY_MATE) - 1)]


def wants_blind_nil(view: SeatView, habits: Habits = CURRENT) -> bool:
    """Blind nil only with a real chance (``BLIND_NIL_FLOOR``) and only when far behind: 200 points,
    or the leader within 100 of the target (the rules' own deficit is met, or it couldn't be bid).
    The first version threw it whenever 200 behind with the leader near the target, chance or not."""
    if not view.can_blind_nil:
        return False
    if not habits.blind_nil_by_chance:
        mine = view.scores[view.seat]
        best = max(s for i, s in enumerate(view.scores) if i != view.seat)
        return best - mine >= 200 and best >= view.rules.target - 120
    return desperate(view) and blind_nil_chance(view) >= BLIND_NIL_FLOOR


def desperate(view: SeatView) -> bool:
    """Far enough behind for a gamble: 200 points, or the leader within 100 of the target."""
    mine = view.scores[view.seat]
    best = max(s for i, s in enumerate(view.scores) if i != view.seat)
    return best - mine >= 200 or best >= view.rules.target - 100


def blind_move(view: SeatView, habits: Habits = CURRENT) -> Move:
    """A seat asked to choose before seeing its cards: blind nil, a trailing blind bid, or a look."""
    if wants_blind_nil(view, habits):
        return BLIND_NIL
    tricks = blind_bid(view, desperate(view))
    return Move.blind(tricks) if tricks is not None else REVEAL
