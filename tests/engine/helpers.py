"""Building hand-made positions: explicit deals, a known dealer, names for readable errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

import pytest

from bot.engine import EngineError, Game, Mode, Phase, Rules, parse_card

NAMES = {3: ["alice", "bob", "carol"], 4: ["alice", "bob", "carol", "dave"]}


def cards(text: str) -> list[int]:
    return [parse_card(word) for word in text.split()]


def new_game(mode: str = "cutthroat", rules: Rules | None = None, dealer: int | None = None) -> Game:
    """A game whose first dealer is the seat *before* 0 unless given, so seat 0 bids and leads first."""
    m = Mode(mode)
    first = dealer if dealer is not None else m.seats - 1
    return Game("test", m, rules or Rules(), seed=7, first_dealer=first, names=NAMES[m.seats])


def deal(game: Game, fixed: Mapping[int, str], set_aside: str | None = None) -> None:
    """Deal the given cards to the given seats and the rest of the deck, in order, to the others."""
    hands = {seat: cards(text) for seat, text in fixed.items()}
    aside = cards(set_aside) if set_aside is not None else []
    used = {c for h in hands.values() for c in h} | set(aside)
    rest = [c for c in game.deck() if c not in used]
    for seat in range(game.seats):
        hand = hands.setdefault(seat, [])
        while len(hand) < game.tricks_per_hand:
            hand.append(rest.pop(0))
    aside += rest
    game.deal([hands[s] for s in range(game.seats)], aside)


Policy = Callable[[Game, int], int]


def lowest(game: Game, seat: int) -> int:
    return game.legal_cards(seat)[0]


def play_out(game: Game, bids: Mapping[int, int], policy: Policy = lowest) -> None:
    """Bid as given (revealing hidden cards first), then play the hand out with ``policy``."""
    while game.phase is Phase.BIDDING:
        seat = game.turn
        assert seat is not None
        if game.cards_hidden(seat):
            game.reveal(seat)
        game.bid(seat, bids[seat])
    while game.phase is Phase.PLAYING:
        seat = game.turn
        assert seat is not None
        game.play(seat, policy(game, seat))


@contextmanager
def refused(kind: type[EngineError], message: str) -> Iterator[None]:
    """The action must raise ``kind`` with exactly the message a player would read."""
    with pytest.raises(kind) as info:
        yield
    assert str(info.value) == message
