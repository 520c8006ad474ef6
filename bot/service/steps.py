"""The play path as a step: an engine action tried on a game, and what it owes, worked out with no I/O.

A step is what the async shell (`bot.service.play`) then carries out, in order: save the events
from `before` on with the posts the changes owe and the next timer, finish the game if it is
over, publish the changes, arm the timer. Nothing here awaits, so the rules of what an action
owes can be read (and tested) apart from saving and timers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.engine import EngineError, Game, NotYourTurn, Phase
from bot.engine.names import named
from bot.service.changes import Change, GameCancelled, HandDealt, HandScored, TrickWon
from bot.service.context import Pace
from bot.service.deadlines import ComputerMove, NextDeal, Remind, Takeover, Timer
from bot.service.errors import Refusal
from bot.service.live import LiveGame
from bot.store import Post

GAME_OVER_POST = Post("game_over", {})


@dataclass(frozen=True, slots=True)
class Step:
    """What an accepted action owes: the game's events from `before` on, to save; the changes to
    publish, in order; the posts some of them owe Discord (by index), saved with the events so a
    crash can't lose them; whether the game is over; and the timer to arm next."""

    before: int
    changes: list[Change]
    owed: list[tuple[int, Post]]
    game_over: bool
    timer: Timer | None

    @property
    def posts(self) -> list[Post]:
        """Every post to save with the events, the game-over post last."""
        return [post for _, post in self.owed] + ([GAME_OVER_POST] if self.game_over else [])


def post_for(change: Change) -> Post | None:
    """What a change owes Discord if the process dies before it is published."""
    if isinstance(change, HandScored):
        return Post("hand_scored", {"hand": change.hand_number, "table": change.table_message_id})
    if isinstance(change, HandDealt):
        return Post("hand_dealt", {"hand": change.hand_number})
    if isinstance(change, GameCancelled):
        return Post("cancelled", {"reason": change.reason})
    return None


def hidden_seats(game: Game) -> tuple[int, ...]:
    return tuple(s for s in range(game.seats) if game.cards_hidden(s))


def next_timer(live: LiveGame, now: float, pace: Pace, keep: Timer | None = None) -> Timer | None:
    """Who must act next and by when: the next deal, a computer player's move, or a person's
    reminder (``keep``: a saved reminder or takeover, honoured after a restart)."""
    game = live.game
    if game is None or game.is_over or live.status != "playing":
        return None
    if game.phase is Phase.DEALING:
        return NextDeal(now + pace.hand_pause)
    if game.turn is None:
        return None
    if live.seats[game.turn].is_bot:
        return ComputerMove(now + pace.bot_move_delay)
    if isinstance(keep, Remind | Takeover):
        return keep
    return Remind(now + live.turn_timeout)


def _step(live: LiveGame, before: int, changes: list[Change], now: float, pace: Pace) -> Step:
    game = live.game
    assert game is not None
    owed = [(index, post) for index, change in enumerate(changes) if (post := post_for(change)) is not None]
    return Step(before, changes, owed, game.is_over, next_timer(live, now, pace))


def act(live: LiveGame, action: Callable[[], object], extra: Sequence[Change], now: float, pace: Pace) -> Step:
    """Try an engine action; if it ended a hand, deal the next one too (unless hands pause).
    A move the rules don't allow is refused and changes nothing."""
    game = live.game
    assert game is not None
    before = game.event_count
    hand_index = len(game.hand_logs) - 1
    tricks_before = len(game.hand_logs[hand_index].tricks) if hand_index >= 0 else 0
    try:
        action()
    except NotYourTurn as error:
        raise Refusal(f"It's {named(live.seats[error.seat].name)}'s turn.") from None
    except EngineError as error:
        raise Refusal(str(error)) from None
    changes: list[Change] = list(extra)
    hand = game.hand_logs[hand_index]
    changes.extend(TrickWon(t) for t in hand.tricks[tricks_before:])
    if hand.result is not None:
        changes.append(HandScored(hand.number, live.table_message_id))
        if not game.is_over and pace.hand_pause <= 0:
            game.deal()
            changes.append(HandDealt(game.hand_number, hidden_seats(game)))
    return _step(live, before, changes, now, pace)


def deal(live: LiveGame, now: float, pace: Pace) -> Step:
    """Deal the hand that is due."""
    game = live.game
    assert game is not None
    before = game.event_count
    game.deal()
    return _step(live, before, [HandDealt(game.hand_number, hidden_seats(game))], now, pace)
