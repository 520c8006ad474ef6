"""A running game's public view, as the Discord layer gets it: built once per accepted action, and
never stale (a move, a seat taken over, a game put back after a failed save all show)."""

from __future__ import annotations

import random

from bot.ai.drive import drive, random_moves
from bot.engine import Game, Mode, Phase, Rules, table_view
from bot.service import LiveGame
from bot.store import Seat

NAMES = ("alice", "bob", "carol")


def running(until_cards_left: int) -> LiveGame:
    """A cutthroat game of random moves, stopped with this many cards left in the hands (every card
    played by hand: no fast finish, so the last card of a hand is a move)."""
    seats = [Seat(i, name, user_id=i + 1) for i, name in enumerate(NAMES)]
    rules = Rules(fast_finish=False)
    live = LiveGame("ab12", 1, 2, Mode.CUTTHROAT, rules, 1, seats, 120.0, status="playing")
    game = live.game = Game.new("ab12", Mode.CUTTHROAT, rules, seed=3, names=list(NAMES))
    drive(game, random_moves(random.Random(3)),
          until=lambda g: g.phase is Phase.PLAYING and sum(g.hand_sizes) == until_cards_left)
    return live


def test_a_game_not_started_has_no_view() -> None:
    live = LiveGame("ab12", 1, 2, Mode.CUTTHROAT, Rules(), 1, [], 120.0)
    assert live.table_view() is None and not live.started


def test_the_view_is_built_once_per_action_and_follows_every_move() -> None:
    live = running(until_cards_left=5)
    game = live.game
    assert game is not None
    first = live.table_view()
    assert first is live.table_view()  # a table, a mention and a summary drawn at once share it
    drive(game, random_moves(random.Random(4)), until=lambda g: g.hand_number == 2 and g.phase is Phase.PLAYING)
    moved = live.table_view()
    assert moved == table_view(game) and moved != first
    assert moved is not None and [h.result is not None for h in moved.hands] == [True, False]


def test_a_seat_taken_over_is_named_at_once() -> None:
    live = running(until_cards_left=20)
    before = live.table_view()
    live.seats[1] = Seat(1, "bob (bot)", bot_level="normal", left_user_id=2, left_name="bob")
    live.name_seats()  # what the service does when a computer player takes over: no event
    after = live.table_view()
    assert before is not None and after is not None
    assert before.names[1] == "bob" and after.names[1] == "bob (bot)"


def test_a_game_put_back_after_a_failed_save_shows_as_it_was() -> None:
    """The last card of a hand scores it; its save fails and the game is rebuilt without it (as the
    outbox does): the view must not keep the scored hand of the game it had seen."""
    live = running(until_cards_left=1)
    game = live.game
    assert game is not None and game.turn is not None
    live.table_view()
    game.play(game.turn, game.legal_cards(game.turn)[0])
    scored = live.table_view()
    assert scored is not None and scored.hands[-1].result is not None
    rewound = Game(game.game_id, game.mode, game.rules, game.seed, game.first_dealer, game.names)
    rewound.replay(game.events[:-1])
    live.game = rewound
    shown = live.table_view()
    assert shown == table_view(rewound)
    assert shown is not None and shown.hands[-1].result is None and len(shown.trick) == 2
