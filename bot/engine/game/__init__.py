"""The game state machine: deal, blind nil decisions, bidding, play, scoring, across hands.

Each action comes in three forms, as in pokerkit: ``verify_x`` raises an :class:`EngineError`
whose message a player can read, ``can_x`` answers yes or no, and ``x`` acts and appends one
immutable event. Replaying the events through the same actions rebuilds the game exactly, so
stored games are re-verified on load instead of trusted.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bot.engine.errors import BadRecord, EngineError, IllegalAction
from bot.engine.events import (
    BidMade,
    CardPassed,
    CardPlayed,
    Dealt,
    Drew,
    Event,
    FastFinished,
    Forfeited,
    Revealed,
    event_from_json,
    event_to_json,
)
from bot.engine.game.deal import Dealing
from bot.engine.game.end import LAST_TRICK_BONUS
from bot.engine.game.state import Ending, HandLog, HandResult, Phase, TrickLog
from bot.engine.rules import Mode, Rules

__all__ = ["GAME_FORMAT", "LAST_TRICK_BONUS", "Ending", "Game", "HandLog", "HandResult", "Phase", "TrickLog"]

GAME_FORMAT = "spades-game/1"


class Game(Dealing):
    """A whole game of Spades in one mode under one rule set.

    Its jobs live in layers, each in its own module of this package: state and queries (state),
    hand scoring and game end (end), trick play (play), nil passing (passing), bidding (bidding),
    the deal and duo's draw (deal); this class adds creation and the record.
    """

    __slots__ = ()

    @classmethod
    def new(
        cls,
        game_id: str,
        mode: Mode | str,
        rules: Rules | None = None,
        seed: int | None = None,
        names: Sequence[str] | None = None,
    ) -> Game:
        """A new game; without a seed one is drawn, and the first dealer is drawn from the seed."""
        mode = Mode.parse(mode)
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        first_dealer = random.Random(f"{seed}/dealer").randrange(mode.seats)
        names = list(names) if names is not None else [f"Seat {i + 1}" for i in range(mode.seats)]
        return cls(game_id, mode, rules or Rules(), seed, first_dealer, names)

    def setup_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "mode": self.mode.value,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "first_dealer": self.first_dealer,
            "names": list(self._names),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "format": GAME_FORMAT,
            "setup": self.setup_json(),
            "events": [event_to_json(e) for e in self._events],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Game:
        """Rebuild a game by replaying its events; anything inconsistent raises :class:`BadRecord`."""
        try:
            if data.get("format") != GAME_FORMAT:
                raise BadRecord(f"not a {GAME_FORMAT} document")
            setup = data["setup"]
            game = cls(
                str(setup["game_id"]),
                Mode.parse(setup["mode"]),
                Rules.from_saved(setup["rules"]),
                int(setup["seed"]),
                int(setup["first_dealer"]),
                [str(n) for n in setup["names"]],
            )
            events = [event_from_json(e) for e in data["events"]]
        except (KeyError, TypeError, AttributeError) as error:
            raise BadRecord(f"damaged game data: {error!r}") from error
        except EngineError as error:
            raise BadRecord(f"damaged game data: {error}") from error
        game.replay(events)
        return game

    def replay(self, events: Sequence[Event]) -> None:
        start = len(self._events)
        for index, event in enumerate(events):
            if start + index < len(self._events):  # the game made it itself after the last action
                if self._events[start + index] != event:
                    raise BadRecord(f"event {index} ({event!r}) is not the forced bid the rules make")
                continue
            try:
                self.apply(event)
            except EngineError as error:
                raise BadRecord(f"event {index} ({event!r}) can't be replayed: {error}") from error

    def apply(self, event: Event) -> None:
        """Carry out a logged event through the same checks as a live action."""
        if isinstance(event, CardPlayed):
            self._events.append(self._put(event.seat, event.card))  # a logged fast finish follows if it was one
        elif isinstance(event, FastFinished):
            self.fast_finish(event.tricks)
        elif isinstance(event, CardPassed):
            self.pass_cards(event.seat, (event.card,))
        elif isinstance(event, BidMade):
            if event.forced:  # replay() finds them already made by the action before
                raise IllegalAction("Only the game itself makes a forced bid.")
            self.bid(event.seat, event.bid, blind=event.blind)
        elif isinstance(event, Dealt):
            self.deal(event.hands, event.set_aside, event.stock)
        elif isinstance(event, Drew):
            self.draw(event.seat, event.keep)
        elif isinstance(event, Revealed):
            self.reveal(event.seat)
        elif isinstance(event, Forfeited):
            self.forfeit(event.seat)
        else:
            self.cancel()
