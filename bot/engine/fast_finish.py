"""Fast finish (RULES.md, "Finishing a hand"): is the rest of a hand settled, so that nobody's choice
of card can change who takes each remaining trick?

Exact, never a guess: a cheap sufficient condition first (the leader holds the top of every suit it
holds, and nobody can ruff it), then, for the last few tricks only, a search of every legal way to
play them out. Cards of one hand that no other hand's card separates are one choice (they beat and
lose to exactly the same cards), and positions reached twice are looked up, so the search stays
small. A position the search doesn't reach is simply not settled yet: the hand goes on.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from bot.engine.cards import FIRST_SPADE, NON_SPADE_MASK, SECOND_COPY, SPADE_MASK, SUIT_MASKS, SUIT_OF, Card, fold
from bot.engine.play_rules import narrow, plain_legal
from bot.engine.rules import Rules

SEARCH_TRICKS = 3  # the search looks at this many remaining tricks at most: 4 cost a third of the
# engine's speed in partners (bench/bench_engine.py), 3 under a fifth

Winners = tuple[int, ...]


def settled(rules: Rules, hands: Sequence[int], leader: int, broken: bool) -> bool:
    """Between tricks: whether each remaining trick goes to the same seat whatever anyone plays."""
    tricks = hands[leader].bit_count()
    if tricks <= 1 or _leader_holds_the_top(hands, leader):
        return True
    if tricks > SEARCH_TRICKS or any(hand >> SECOND_COPY for hand in hands):
        return False  # two decks (six): only the test above; searching six hands with twins cost a fifth of its speed
    search = _Search(rules, len(hands))
    if search.line(hands, leader, broken, low=True) != search.line(hands, leader, broken, low=False):
        return False  # most open positions end here, before the search
    return search.winners(tuple(hands), leader, broken) is not None


def _leader_holds_the_top(hands: Sequence[int], leader: int) -> bool:
    """Every card the leader holds beats every other card of its suit, and no other hand can ruff a
    side suit: the leader takes every trick, leading whatever it likes. (Two decks: a twin of the
    leader's card in another hand counts as beating it, which only waits for a surer position.)"""
    remaining = 0
    for hand in hands:
        remaining |= hand
    mine = hands[leader]
    others = remaining ^ mine
    if others & SPADE_MASK and mine & NON_SPADE_MASK:
        return False
    mine, others = fold(mine), fold(others)
    for suit_mask in SUIT_MASKS:
        held = mine & suit_mask
        if held and others & suit_mask >= held & -held:
            return False
    return True


class _Search:
    """Every legal way to play the remaining tricks; ``winners`` is None as soon as two differ."""

    def __init__(self, rules: Rules, seats: int) -> None:
        self.rules = rules
        self.seats = seats
        self.must_break = rules.spades_must_break
        self.narrowed = rules.must_overtrump  # first_trick never applies: a trick has been played
        self.seen: dict[tuple[tuple[int, ...], int, bool], Winners | None] = {}

    def winners(self, hands: tuple[int, ...], leader: int, broken: bool) -> Winners | None:
        key = (hands, leader, broken)
        if key in self.seen:
            return self.seen[key]
        found: Winners | None = ()
        if hands[leader]:
            # This trick first, every way it can be played (cheap, and most open positions end here),
            # then the tricks after it.
            ways = set(self._tricks(hands, leader, broken))
            winner = next(iter(ways))[0]
            found = None
            if all(way[0] == winner for way in ways):
                lines: set[Winners] = set()
                for _, after, still_broken in ways:
                    rest = self.winners(after, winner, still_broken)
                    if rest is None:
                        break
                    lines.add(rest)
                    if len(lines) > 1:
                        break
                else:
                    found = (winner, *lines.pop())
        self.seen[key] = found
        return found

    def line(self, hands: Sequence[int], leader: int, broken: bool, low: bool) -> Winners:
        """The winners when everyone always plays their lowest (or highest) legal card."""
        hands = list(hands)
        winners: list[int] = []
        while hands[leader]:
            led = best = -1
            winner = leader
            for position in range(self.seats):
                seat = (leader + position) % self.seats
                legal = self._legal(hands[seat], led, broken, best)
                card = (legal & -legal).bit_length() - 1 if low else legal.bit_length() - 1
                hands[seat] ^= 1 << card
                broken = broken or card >= FIRST_SPADE
                if position == 0:
                    led, best = SUIT_OF[card], card
                elif card > best and (card >= FIRST_SPADE or SUIT_OF[card] == led):
                    best, winner = card, seat
            winners.append(winner)
            leader = winner
        return tuple(winners)

    def _tricks(self, hands: tuple[int, ...], leader: int, broken: bool) -> Iterator[tuple[int, tuple[int, ...], bool]]:
        """Each distinct way to play one trick: its winner, the hands after it, spades broken after it."""
        remaining = 0
        for hand in hands:
            remaining |= hand
        seats = self.seats
        state = list(hands)

        def play(position: int, led: int, best: Card, best_seat: int, broken: bool,
                 ) -> Iterator[tuple[int, tuple[int, ...], bool]]:
            if position == seats:
                yield best_seat, tuple(state), broken
                return
            seat = (leader + position) % seats
            hand = hands[seat]
            legal = self._legal(hand, led, broken, best)
            previous = -1
            while legal:
                bit = legal & -legal
                legal ^= bit
                card = bit.bit_length() - 1
                if previous >= 0 and SUIT_OF[previous] == SUIT_OF[card]:
                    between = ((1 << card) - 1) & ~((2 << previous) - 1)
                    if not between & remaining & ~hand:
                        previous = card
                        continue  # the same choice as the card below it
                previous = card
                state[seat] = hand ^ bit
                spade = card >= FIRST_SPADE
                if position == 0:
                    yield from play(1, SUIT_OF[card], card, seat, broken or spade)
                elif card > best and (spade or SUIT_OF[card] == led):
                    yield from play(position + 1, led, card, seat, broken or spade)
                else:
                    yield from play(position + 1, led, best, best_seat, broken or spade)
            state[seat] = hand

        yield from play(0, -1, -1, leader, broken)

    def _legal(self, hand: int, led: int, broken: bool, best: Card) -> int:
        legal = plain_legal(hand, led, broken, self.must_break)
        if self.narrowed:
            return narrow(self.rules, legal, False, led, best if best >= FIRST_SPADE else -1)
        return legal


def summary(names: Sequence[str], winners: Sequence[int]) -> str:
    """What the table says when tricks play themselves: "The last 3 tricks play themselves: alice
    takes 2, bob 1." (``winners``: the seat that took each of them, in order)."""
    counts: dict[int, int] = {}
    for seat in winners:
        counts[seat] = counts.get(seat, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], winners.index(item[0])))
    if len(winners) == 1:
        return f"The last trick plays itself: {names[winners[0]]} takes it."
    taken = ", ".join(f"{names[seat]} {count}" if i else f"{names[seat]} takes {count}"
                      for i, (seat, count) in enumerate(ranked))
    return f"The last {len(winners)} tricks play themselves: {taken}."
