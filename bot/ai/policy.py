"""Rule-based card play on a ``PlayState``: the easy and normal players, and the hard player's rollouts.

A policy reads only the seat's own hand and what is public (bids, tricks, cards played), so the same
code is fair whether it runs on a seat's view or inside a determinized deal.
"""

from __future__ import annotations

from functools import cache

from bot.ai.habits import CURRENT, Habits
from bot.ai.sim import EVERY_CARD, PlayState
from bot.engine.cards import (
    BASE,
    FIRST_SPADE,
    NON_SPADE_MASK,
    SECOND_COPY,
    SPADE_MASK,
    SUIT_MASKS,
    Card,
    fold,
    stronger,
)

SIDE_SUITS = (0, 1, 2)


def low(mask: int) -> Card:
    """The weakest card of a mask (two decks: the first copy held of the lowest card)."""
    if mask >> SECOND_COPY:
        mask = _held(mask, fold(mask) & -fold(mask))
    return (mask & -mask).bit_length() - 1


def high(mask: int) -> Card:
    """The strongest card of a mask (two decks: the first copy held of the highest card)."""
    if mask >> SECOND_COPY:
        return _held(mask, 1 << fold(mask).bit_length() - 1).bit_length() - 1
    return mask.bit_length() - 1


def _held(mask: int, bit: int) -> int:
    """Of both copies of the card ``bit``, the one bit ``mask`` holds (the first if both)."""
    return mask & bit or bit << SECOND_COPY


def rank(card: Card) -> int:
    """Rank within the suit, jokers ranking above the ace of spades."""
    card &= BASE
    return card - 39 if card >= FIRST_SPADE else card % 13


def team_mates(state: PlayState, seat: int) -> tuple[int, ...]:
    """The other seats of the seat's side (none without teams)."""
    return _seats_around(seat, state.sides, state.seats)[0]


def winners_of(state: PlayState, legal: int) -> int:
    """The legal cards that would take the lead of the current trick."""
    best = state.best
    if best < 0:
        return legal
    if best & BASE >= FIRST_SPADE:
        return legal & SPADE_MASK & stronger(best)
    return (legal & SUIT_MASKS[state.led] & stronger(best)) | (legal & SPADE_MASK)


def highest_danger(mask: int) -> Card:
    """The card a ducking seat most wants rid of: the highest rank, spades before side suits."""
    spades = mask & SPADE_MASK
    if spades:
        return high(spades)
    best = -1
    for suit in SIDE_SUITS:
        cards = mask & SUIT_MASKS[suit]
        if cards:
            card = high(cards)
            if best < 0 or (card & BASE) % 13 > (best & BASE) % 13:
                best = card
    return best


def cheapest(mask: int) -> Card:
    """The card a seat least minds losing: the lowest side-suit rank, spades only when nothing else."""
    side = mask & NON_SPADE_MASK
    if not side:
        return low(mask)
    best = -1
    for suit in SIDE_SUITS:
        cards = mask & SUIT_MASKS[suit]
        if cards:
            card = low(cards)
            if best < 0 or (card & BASE) % 13 < (best & BASE) % 13:
                best = card
    return best


def _outside(state: PlayState, seat: int) -> int:
    """Cards still out that this seat doesn't hold (in other hands or set aside)."""
    return EVERY_CARD & ~state.played & ~state.hands[seat]


def _is_boss(card: Card, outside: int) -> bool:
    suit_mask = SPADE_MASK if card & BASE >= FIRST_SPADE else SUIT_MASKS[(card & BASE) // 13]
    return not outside & suit_mask & stronger(card)


def contract_need(state: PlayState, seat: int) -> int:
    """Tricks the seat's contract still needs (its side's, in team modes); nil bidders are left out."""
    bids, won = state.bids, state.won
    mates = team_mates(state, seat)
    if mates:
        contract = bids[seat] + sum(bids[s] for s in mates if bids[s])
        taken = won[seat] + sum(won[s] for s in mates if bids[s] or state.rules.nil_tricks_help_partner)
        return contract - taken
    return bids[seat] - won[seat]


def opponents(state: PlayState, seat: int) -> tuple[int, ...]:
    """In seat order without teams; clockwise from the seat with teams (the order partners always
    used: the first clean nil found is the one attacked)."""
    return _seats_around(seat, state.sides, state.seats)[1]


@cache
def _seats_around(seat: int, sides: int, seats: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A seat's team-mates and opponents, worked out once: rollouts ask for them at every card (six's
    search plays about a hundred cards a deal), and they depend on the table alone."""
    mates = tuple(s for s in range(seat % sides, seats, sides) if s != seat)
    if sides == seats:
        return mates, tuple(s for s in range(seats) if s != seat)
    return mates, tuple((seat + k) % seats for k in range(1, seats) if k % sides)


def _should_set(state: PlayState, seat: int) -> bool:
    """Take spare tricks when that is likely to set an opponent and a bag costs little."""
    if state.rules.bag_limit - state.bags[seat] <= 2:
        return False
    spare = state.tricks_left
    needy = False
    others = opponents(state, seat)
    for s in range(state.seats):
        if state.bids[s]:
            need = state.bids[s] - state.won[s]
            if need > 0:
                spare -= need
                if s in others:
                    needy = True
    return needy and spare <= 1


def normal_card(state: PlayState, seat: int, habits: Habits = CURRENT) -> Card:
    """Cover and duck by need: make the contract cheaply, then duck bags, keep a nil clean,
    attack an opponent's nil, and take spare tricks when that sets someone."""
    legal = state.legal(seat)
    if not legal & (legal - 1):
        return high(legal)
    bid = state.bids[seat]
    mates = team_mates(state, seat)
    # The team-mate to cover: one with a clean nil, else the first (trios have two).
    mate = next((s for s in mates if state.bids[s] == 0 and state.won[s] == 0), mates[0] if mates else -1)
    if bid == 0 and state.won[seat] == 0:
        return _duck(state, seat, legal, under=habits.nil_play)
    if mate >= 0 and state.bids[mate] == 0 and state.won[mate] == 0:
        return _cover_nil(state, seat, legal, mate, habits.nil_play)
    if state.best >= 0:
        victim = _clean_nil_opponent(state, seat)
        if victim >= 0 and state.best_seat == victim:
            losers = legal & ~winners_of(state, legal)
            if losers:  # never take a trick off a nil bidder who is winning it
                return highest_danger(losers)
    if (habits.nil_attack and (mates or contract_need(state, seat) <= 0)
            and _clean_nil_opponent(state, seat, still_to_play=True) >= 0):
        return _under_nil(state, legal)
    if contract_need(state, seat) > 0 or _should_set(state, seat):
        return _take(state, seat, legal, mate)
    if state.best >= 0 and _clean_nil_opponent(state, seat, still_to_play=True) >= 0:
        return low(legal & SUIT_MASKS[state.led] or legal)  # keep the trick low for the nil bidder
    return _duck(state, seat, legal, attack=True)


def _under_nil(state: PlayState, legal: int) -> Card:
    """Before an opponent's clean nil plays: lead or follow low, so the nil bidder has to go under;
    void, throw away a high card rather than ruff the trick out of the nil bidder's way."""
    if state.best < 0:
        return cheapest(legal)
    follow = legal & SUIT_MASKS[state.led]
    if follow:
        return low(follow)
    losers = legal & ~winners_of(state, legal)
    return highest_danger(losers) if losers else low(legal)


def _clean_nil_opponent(state: PlayState, seat: int, still_to_play: bool = False) -> int:
    """An opponent whose nil is still intact (optionally one yet to play to this trick), or -1."""
    played = {s for s, _ in state.trick}
    for s in opponents(state, seat):
        if state.bids[s] == 0 and state.won[s] == 0 and (not still_to_play or s not in played):
            return s
    return -1


def _duck(state: PlayState, seat: int, legal: int, attack: bool = False, under: bool = False) -> Card:
    """Lose the trick if possible. Forced to win, a nil bidder (``under``) or a seat attacking one
    plays its lowest winner while a later seat may still go over; otherwise sheds its highest."""
    if state.best < 0:
        side = legal & NON_SPADE_MASK
        return cheapest(side or legal)
    winners = winners_of(state, legal)
    losers = legal & ~winners
    if losers:
        return highest_danger(losers)
    if attack or under:
        last = len(state.trick) == state.seats - 1
        return high(winners) if last else low(winners)
    return high(winners)


def _cover_nil(state: PlayState, seat: int, legal: int, mate: int, cheaply: bool = False) -> Card:
    """Partners: play over a nil partner's card, or high before the partner plays. ``cheaply``:
    over the partner's card the lowest winner is enough (a later seat going higher only helps)."""
    if state.best < 0:
        outside = _outside(state, seat)
        for suit in SIDE_SUITS:
            cards = legal & SUIT_MASKS[suit]
            if cards and _is_boss(high(cards), outside):
                return high(cards)
        return high(legal & NON_SPADE_MASK or legal)
    winners = winners_of(state, legal)
    if winners and state.best_seat == mate:
        return low(winners) if cheaply else high(winners)
    if winners and not any(s == mate for s, _ in state.trick):
        return high(winners)
    return cheapest(legal)


def _take(state: PlayState, seat: int, legal: int, mate: int) -> Card:
    outside = _outside(state, seat)
    if state.best < 0:
        return _lead_to_take(state, legal, outside)
    winners = winners_of(state, legal)
    if not winners:
        return cheapest(legal)
    last = len(state.trick) == state.seats - 1
    if state.best_seat == mate and mate >= 0 and (last or _is_boss(state.best, outside)):
        return cheapest(legal)
    if last:
        return low(winners)
    if state.best & BASE >= FIRST_SPADE or winners & SPADE_MASK == winners:
        return low(winners)  # ruffing, or over-ruffing: the lowest trump that wins
    bosses = [c for c in _cards(winners) if _is_boss(c, outside)]
    if bosses:
        return bosses[0]
    return cheapest(legal)


def _lead_to_take(state: PlayState, legal: int, outside: int) -> Card:
    best_suit, best_out = -1, -1
    for suit in SIDE_SUITS:
        cards = legal & SUIT_MASKS[suit]
        if cards and _is_boss(high(cards), outside):
            out = (outside & SUIT_MASKS[suit]).bit_count()
            if out > best_out:
                best_suit, best_out = suit, out
    if best_suit >= 0:
        return high(legal & SUIT_MASKS[best_suit])
    spades = legal & SPADE_MASK
    if spades and _is_boss(high(spades), outside):
        return high(spades)
    shortest, length = -1, 99
    for suit in SIDE_SUITS:
        cards = legal & SUIT_MASKS[suit]
        if cards and cards.bit_count() < length:
            shortest, length = suit, cards.bit_count()
    if shortest >= 0:
        return low(legal & SUIT_MASKS[shortest])
    return low(legal)


def _cards(mask: int) -> list[Card]:
    out = []
    while mask:
        bit = mask & -mask
        out.append(bit.bit_length() - 1)
        mask ^= bit
    return out


def easy_card(state: PlayState, seat: int) -> Card:
    """Plain play: win as cheaply as possible while tricks are needed, otherwise play low."""
    legal = state.legal(seat)
    winners = winners_of(state, legal)
    need = state.bids[seat] - state.won[seat]
    if state.best < 0:
        return high(legal & NON_SPADE_MASK or legal) if need > 0 else cheapest(legal)
    if need > 0 and winners:
        return low(winners)
    return cheapest(legal & ~winners or legal)
