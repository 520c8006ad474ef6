"""Playing a game on by itself: the one loop that deals each hand when it is due and asks a chooser
for every decision (a bid, blind nil or a look at the cards, a card). Self-play, the terminal game,
the benchmarks and the tests all drive games through it rather than each through a loop of its own.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence

from bot.ai.base import BLIND_NIL, REVEAL, ComputerPlayer, Move, apply_move
from bot.engine import Game, Phase, seat_view

Choose = Callable[[Game, int], Move]  # the move for this seat, whose turn it is
Moved = Callable[[Game, int, Move], None]


def turns(game: Game, until: Callable[[Game], bool] | None = None, max_hands: int | None = None) -> Iterator[int]:
    """The seat that must decide, at each decision until the game ends or ``until(game)`` holds,
    dealing each hand when it is due; the caller acts before asking for the next. A game that has
    played ``max_hands`` hands without ending is cancelled instead of dealt again."""
    while not game.is_over and not (until is not None and until(game)):
        if game.phase is Phase.DEALING:
            if max_hands is not None and game.hand_number >= max_hands:
                game.cancel()
                return
            game.deal()
            continue
        seat = game.turn
        assert seat is not None
        yield seat


def drive(game: Game, choose: Choose, *, until: Callable[[Game], bool] | None = None,
          max_hands: int | None = None, moved: Moved | None = None) -> Game:
    """Play ``game`` on (see `turns`), making the move ``choose(game, seat)`` returns at each
    decision through the engine's checked actions; ``moved`` sees the game after each move."""
    for seat in turns(game, until, max_hands):
        move = choose(game, seat)
        apply_move(game, seat, move)
        if moved is not None:
            moved(game, seat, move)
    return game


def computer_players(players: Sequence[ComputerPlayer]) -> Choose:
    """Each seat's computer player chooses, seeing only its own seat's view."""
    return lambda game, seat: players[seat].choose(seat_view(game, seat))


def random_moves(rng: random.Random, blind_nil: float = 0.0) -> Choose:
    """Random legal moves from the engine's own lists: fast, and every rule's corner comes up. A
    hidden hand bids blind nil with chance ``blind_nil`` where it may (else its cards are looked at)."""

    def choose(game: Game, seat: int) -> Move:
        if game.cards_hidden(seat):
            wants = blind_nil > 0 and rng.random() < blind_nil
            return BLIND_NIL if wants and game.can_bid(seat, 0, blind=True) else REVEAL
        if game.phase is Phase.DRAWING:
            return Move.draw(rng.random() < 0.5)
        if game.phase is Phase.BIDDING:
            return Move.bid(rng.choice(game.legal_bids(seat)))
        if game.phase is Phase.PASSING:
            return Move.pass_card(rng.choice(game.hand_of(seat)))
        return Move.play(rng.choice(game.legal_cards(seat)))

    return choose
