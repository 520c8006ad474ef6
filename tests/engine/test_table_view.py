"""The table's view: everything public about a game, frozen, and nothing a seat still holds.

The Discord layer draws every channel message from it, so a card it holds would be shown to the
whole channel.
"""

from __future__ import annotations

import random
from enum import Enum

import pytest

from bot.ai.drive import drive, random_moves
from bot.engine import (
    CardPlayed,
    Dealt,
    Game,
    Mode,
    Rules,
    TableView,
    seat_view,
    seat_views,
    table_view,
)
from bot.engine.cards import SUIT_OF
from tests.engine.helpers import random_game


def cards_shown(view: TableView) -> list[int]:
    """Every card the view holds: its hands' tricks and the trick on the table."""
    return [c for hand in view.hands for t in hand.tricks for _, c in t.plays] + [c for _, c in view.trick]


def frozen(value: object) -> bool:
    """Immutable all the way down: tuples of numbers, text, enums, and the rules (a frozen dataclass)."""
    if isinstance(value, tuple):
        return all(frozen(item) for item in value)
    return value is None or isinstance(value, int | str | Enum | Rules)


def stop_mid_hand(mode: Mode, seed: int, hand: int = 2, tricks: int = 3) -> Game:
    """A seeded game of random moves, stopped with `tricks` tricks and one card played of hand `hand`."""
    game = Game.new("view", mode, Rules(target=1000), seed=seed)

    def far_enough(game: Game) -> bool:
        return game.hand_number == hand and len(game.hand_logs[-1].tricks) == tricks and len(game.trick) == 1

    drive(game, random_moves(random.Random(seed)), until=far_enough)
    assert far_enough(game)
    return game


@pytest.mark.parametrize("mode", list(Mode))
def test_the_view_holds_only_cards_already_played(mode: Mode) -> None:
    game = stop_mid_hand(mode, seed=3)
    view = table_view(game)
    played = [e.card for e in game.events if isinstance(e, CardPlayed)]
    played += [c for log in game.hand_logs if log.fast_finished  # the tricks that played themselves
               for t in log.tricks[-log.fast_finished:] for _, c in t.plays]
    assert sorted(cards_shown(view)) == sorted(played)
    current = [c for t in view.hands[-1].tricks for _, c in t.plays] + [c for _, c in view.trick]
    for seat in range(game.seats):
        held = game.hand_of(seat)
        assert len(held) == game.tricks_per_hand - 3 - (seat == view.trick[0][0])
        assert not set(held) & set(current), f"seat {seat}'s unplayed cards are in the view"
    assert not set(game.hand_logs[-1].set_aside) & set(current)
    assert view.hand_sizes == tuple(len(game.hand_of(s)) for s in range(game.seats))


@pytest.mark.parametrize("mode", [Mode.CUTTHROAT, Mode.PARTNERS])
def test_the_view_is_the_same_whatever_the_unplayed_cards_and_the_seed(mode: Mode) -> None:
    """Two games alike in all that was seen but who holds which unplayed card (two of one suit
    swapped between seats, so every play stays legal) and the seed: their views, reprs included,
    are equal; so the view holds nothing of a seat's hand nor of the seed."""
    game = stop_mid_hand(mode, seed=5)
    x, y = 0, 1
    a, b = next((a, b) for a in game.hand_of(x) for b in game.hand_of(y) if SUIT_OF[a] == SUIT_OF[b])
    dealt = next(e for e in reversed(game.events) if isinstance(e, Dealt))
    hands = [list(h) for h in dealt.hands]
    hands[x][hands[x].index(a)], hands[y][hands[y].index(b)] = b, a
    swapped = Dealt(tuple(tuple(sorted(h)) for h in hands), dealt.set_aside)
    twin = Game(game.game_id, game.mode, game.rules, game.seed + 1, game.first_dealer, game.names)
    twin.replay([swapped if e is dealt else e for e in game.events])
    assert twin.hand_of(x) != game.hand_of(x) and twin.hand_of(y) != game.hand_of(y)
    assert table_view(twin) == table_view(game)
    assert repr(table_view(twin)) == repr(table_view(game))


def test_the_view_is_frozen_and_does_not_follow_the_game() -> None:
    game = stop_mid_hand(Mode.CUTTHROAT, seed=7)
    view = table_view(game)
    before = repr(view)
    with pytest.raises(AttributeError):
        view.turn = 0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        view.hands[-1].tricks = ()  # type: ignore[misc]
    assert isinstance(view.hands[-1].tricks, tuple) and isinstance(view.hands[-1].bids, tuple)
    assert frozen(view)  # nothing in it can change, let alone change with the game
    drive(game, random_moves(random.Random(1)), until=lambda g: g.hand_number == 3)  # this hand, and a deal
    assert repr(view) == before
    assert table_view(game) != view


def check_against(game: Game) -> None:
    """Each field of the view says what the game says."""
    view = table_view(game)
    assert (view.game_id, view.mode, view.rules, view.seats, view.names, view.sides) == (
        game.game_id, game.mode, game.rules, game.seats, game.names, game.sides)
    assert [view.side_of(s) for s in range(game.seats)] == [game.side_of(s) for s in range(game.seats)]
    assert [view.side_seats(s) for s in range(game.sides)] == [game.side_seats(s) for s in range(game.sides)]
    assert (view.phase, view.hand_number, view.dealer, view.turn) == (
        game.phase, game.hand_number, game.dealer, game.turn)
    assert (view.bids, view.blind) == (tuple(game.bids), tuple(game.blind))
    assert (view.tricks_won, view.hand_sizes, view.trick, view.trick_leader, view.spades_broken) == (
        game.tricks_won, game.hand_sizes, game.trick, game.trick_leader, game.spades_broken)
    assert (view.scores, view.bags) == (game.scores, game.bags)
    assert (view.is_over, view.winners, view.places, view.ended, view.hands_played) == (
        game.is_over, game.winners, game.places(), game.ended, game.hands_played)
    assert [(h.number, h.dealer, list(h.bids), list(h.tricks), h.result) for h in view.hands] == [
        (log.number, log.dealer, log.bids, log.tricks, log.result) for log in game.hand_logs]


@pytest.mark.parametrize(("mode", "seed"), [(Mode.CUTTHROAT, 1), (Mode.SOLO, 2), (Mode.PARTNERS, 3),
                                            (Mode.PARTNERS, 4)])
def test_the_view_says_what_the_game_says_at_every_step(mode: Mode, seed: int) -> None:
    """Built afresh, and from the view of the step before (which lends its scored hands)."""
    rules = Rules(target=150, mercy=150, blind_nil_deficit=0)
    earlier: list[TableView] = []

    def check(game: Game) -> None:
        check_against(game)
        view = table_view(game, earlier[-1] if earlier else None)
        assert view == table_view(game)
        earlier.append(view)

    random_game(mode, rules, seed, on_step=check)
    assert earlier[-1].hands_played >= 1  # scored hands were lent on


def test_a_forfeited_game_shows_its_ending_and_the_forfeiting_side_last() -> None:
    game = stop_mid_hand(Mode.PARTNERS, seed=9)
    game.forfeit(1)
    view = table_view(game)
    check_against(game)
    assert view.is_over and view.ended is not None and view.ended.value == "forfeit"
    assert view.winners == (0, 2) and view.places == (1, 2, 1, 2)


@pytest.mark.parametrize(("mode", "rules"), [(Mode.CUTTHROAT, Rules(target=150, mercy=150)),
                                             (Mode.PARTNERS, Rules(target=150, nil_pass="one_two")),
                                             (Mode.DUO, Rules(target=150)), (Mode.FIVE, Rules(target=150))])
def test_seats_viewed_together_see_what_each_sees_alone(mode: Mode, rules: Rules) -> None:
    """`seat_views` (a move's views, the shared parts read once) is `seat_view` of each seat, at every step."""
    def check(game: Game) -> None:
        seats = list(range(game.seats))
        assert seat_views(game, seats) == tuple(seat_view(game, seat) for seat in seats)

    random_game(mode, rules, 5, on_step=check)
