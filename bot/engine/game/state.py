"""A game's state and what anyone may ask of it; the layers above (end, play, passing, bidding,
deal, then the package's Game) each add one job's actions to it.

The state lives in one class with ``__slots__`` (every layer has empty slots) so the hot path reads
plain slots, as before the split; each layer only calls layers below it, which keeps ``mypy
--strict`` able to check every call without protocols.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from bot.engine import play_rules
from bot.engine.card_order import card_order
from bot.engine.cards import Card, cards_of
from bot.engine.draw import Draw, DrawLog
from bot.engine.errors import BadRecord, EngineError, IllegalAction, NotYourTurn, WrongPhase
from bot.engine.events import BidMade, CardPassed, Event
from bot.engine.modes import sides_for, tricks_for
from bot.engine.rules import Mode, Rules


class Phase(StrEnum):
    DEALING = "dealing"  # between hands: the next action is a deal
    DRAWING = "drawing"  # duo: the hands are drawn from the stock before the bidding
    BIDDING = "bidding"
    PASSING = "passing"  # nil_pass: partners of a nil bidder trade cards before the first lead
    PLAYING = "playing"
    OVER = "over"


class Ending(StrEnum):
    TARGET = "target"
    MERCY = "mercy"
    CANCELLED = "cancelled"
    FORFEIT = "forfeit"
    MOON = "moon"  # a side bid every trick and took them all (house rule `moon`)


class TrickLog(NamedTuple):
    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int


class HandResult(NamedTuple):
    """One hand's outcome; per-seat tuples, a partnership's figures repeated for both members."""

    tricks_won: tuple[int, ...]
    hand_points: tuple[int, ...]
    bags: tuple[int, ...]
    scores: tuple[int, ...]
    new_bags: tuple[int, ...]
    contract_made: tuple[bool | None, ...]  # None for a nil bidder
    nil_made: tuple[bool | None, ...]  # None unless the seat bid nil


@dataclass(slots=True)
class HandLog:
    number: int
    dealer: int
    deal: tuple[tuple[Card, ...], ...]
    set_aside: tuple[Card, ...]
    bids: list[BidMade] = field(default_factory=list)
    draws: list[DrawLog] = field(default_factory=list)  # duo: every card drawn, in order
    tricks: list[TrickLog] = field(default_factory=list)
    result: HandResult | None = None
    passes: list[CardPassed] = field(default_factory=list)
    fast_finished: int = 0  # how many of the last tricks played themselves (fast_finish)


class GameState:
    """The state of a whole game of Spades in one mode under one rule set, and its queries."""

    __slots__ = (
        "_broken",
        "_draw",
        "_eligible",
        "_ended",
        "_escrow",
        "_events",
        "_hands",
        "_hidden",
        "_led_suit",
        "_log",
        "_names",
        "_narrowed",
        "_order",
        "_phase",
        "_place",
        "_seat_side",
        "_side_bags",
        "_side_scores",
        "_to_pass",
        "_trick",
        "_trick_leader",
        "_tricks_left",
        "_tricks_won",
        "_turn",
        "_twins",
        "_winners",
        "bids",
        "blind",
        "first_dealer",
        "game_id",
        "mode",
        "rules",
        "seats",
        "seed",
        "sides",
        "tricks_per_hand",
    )

    def __init__(
        self,
        game_id: str,
        mode: Mode,
        rules: Rules,
        seed: int,
        first_dealer: int,
        names: Sequence[str],
    ) -> None:
        rules.check_mode(mode)
        self.game_id = game_id
        self.mode = mode
        self.rules = rules
        self.seed = seed
        self.seats = mode.seats
        if not 0 <= first_dealer < self.seats:
            raise BadRecord(f"first dealer {first_dealer} is not a seat")
        if len(names) != self.seats:
            raise EngineError(f"{mode} needs {self.seats} players, got {len(names)} names")
        self.first_dealer = first_dealer
        self.sides = sides_for(mode, rules)
        self._seat_side = tuple(s % self.sides for s in range(self.seats))
        self.tricks_per_hand = tricks_for(mode, rules)
        self._names = list(names)
        self._events: list[Event] = []
        self._log: list[HandLog] = []
        self._phase = Phase.DEALING
        self._turn: int | None = None
        self._hands = [0] * self.seats
        self._hidden = [False] * self.seats
        self._eligible = [False] * self.seats
        self.bids: list[int | None] = [None] * self.seats
        self.blind = [False] * self.seats
        self._tricks_won = [0] * self.seats
        self._trick: list[tuple[int, Card]] = []
        self._trick_leader = 0
        self._led_suit = 0
        self._tricks_left = 0
        self._broken = False
        self._draw: Draw | None = None
        self._side_scores = [0] * self.sides
        self._side_bags = [0] * self.sides
        self._ended: Ending | None = None
        self._winners: tuple[int, ...] = ()
        self._order = card_order(rules)
        self._place = self._order.place  # read per card played: one lookup saved
        # Anything but the standard rules of play and order leaves the inlined hot path (play.py).
        self._narrowed = play_rules.restricts_play(rules) or not self._order.standard
        self._to_pass = [0] * self.seats  # cards each seat still passes (nil_pass)
        self._escrow = [0] * self.seats  # cards a seat has passed, until its partner has too
        self._twins = mode is Mode.SIX  # two decks: a card named may be either copy

    # ----------------------------------------------------------------------------- queries
    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._events)

    @property
    def event_count(self) -> int:
        return len(self._events)

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def turn(self) -> int | None:
        """The seat expected to act (bid or play), or None between hands and after the game."""
        return self._turn

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._names)

    def rename(self, seat: int, name: str) -> None:
        """Change a seat's display name (a computer player taking over); not a rules event."""
        self._names[seat] = name

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def ended(self) -> Ending | None:
        return self._ended

    @property
    def winners(self) -> tuple[int, ...]:
        return self._winners

    @property
    def hand_number(self) -> int:
        return len(self._log)

    @property
    def hands_played(self) -> int:
        """Hands scored so far."""
        return sum(1 for hand in self._log if hand.result is not None)

    @property
    def hand_logs(self) -> tuple[HandLog, ...]:
        return tuple(self._log)

    @property
    def dealer(self) -> int:
        """The dealer of the current hand (or of the next one, between hands)."""
        number = self.hand_number + 1 if self._phase is Phase.DEALING else max(self.hand_number, 1)
        return (self.first_dealer + number - 1) % self.seats

    def side_of(self, seat: int) -> int:
        return self._seat_side[seat]

    def side_seats(self, side: int) -> tuple[int, ...]:
        return tuple(range(side, self.seats, self.sides))

    @property
    def scores(self) -> tuple[int, ...]:
        """Per seat; partners share their team's score."""
        scores = self._side_scores
        return tuple(scores[side] for side in self._seat_side)

    @property
    def bags(self) -> tuple[int, ...]:
        bags = self._side_bags
        return tuple(bags[side] for side in self._seat_side)

    @property
    def tricks_won(self) -> tuple[int, ...]:
        return tuple(self._tricks_won)

    @property
    def trick(self) -> tuple[tuple[int, Card], ...]:
        """The cards on the current trick, in play order."""
        return tuple(self._trick)

    @property
    def trick_leader(self) -> int | None:
        return self._trick_leader if self._phase is Phase.PLAYING else None

    @property
    def spades_broken(self) -> bool:
        return self._broken

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(hand.bit_count() for hand in self._hands)

    def hand_of(self, seat: int) -> tuple[Card, ...]:
        """A seat's cards. Only for code that may see them: players get :meth:`view`."""
        return cards_of(self._hands[seat])

    def hand_mask(self, seat: int) -> int:
        return self._hands[seat]

    def cards_hidden(self, seat: int) -> bool:
        """True while a blind-nil-eligible seat has not yet decided: its cards must stay unseen."""
        return self._hidden[seat]

    def blind_nil_eligible(self, seat: int) -> bool:
        return self._eligible[seat]

    def deficit(self, seat: int) -> int:
        """How far the seat (its team) is behind the leading opponent."""
        own = self.side_of(seat)
        best_other = max(score for side, score in enumerate(self._side_scores) if side != own)
        return best_other - self._side_scores[own]

    # ------------------------------------------------------------------------------ turns
    def _check_turn(self, seat: int, phase: Phase) -> None:
        if self._phase is not phase:
            raise WrongPhase(self._phase_message(phase))
        if not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise IllegalAction(f"There is no seat {seat!r} in this game.")
        if seat != self._turn:
            turn = self._turn if self._turn is not None else 0
            raise NotYourTurn(f"It's {self._names[turn]}'s turn.", turn)

    def _phase_message(self, wanted: Phase) -> str:
        if self._phase is Phase.OVER:
            return "The game is over."
        if self._phase is Phase.DEALING:
            return "The next hand hasn't been dealt yet."
        if self._phase is Phase.DRAWING:
            return "The draw isn't finished yet."
        if wanted is Phase.DRAWING:
            return "The draw is over."
        if self._phase is Phase.PASSING:
            return "Partners are passing cards first."
        if wanted is not Phase.BIDDING and self._phase is Phase.BIDDING:
            return "Bidding isn't finished yet."
        if wanted is Phase.PASSING:
            return "There are no cards to pass now."
        return "Bidding is over: play a card."
