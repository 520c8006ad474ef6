"""The game state machine: deal, blind nil decisions, bidding, play, scoring, across hands.

Each action comes in three forms, as in pokerkit: ``verify_x`` raises an :class:`EngineError`
whose message a player can read, ``can_x`` answers yes or no, and ``x`` acts and appends one
immutable event. Replaying the events through the same actions rebuilds the game exactly, so
stored games are re-verified on load instead of trusted.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from bot.engine import fast_finish, nil_pass, play_rules
from bot.engine.bidding_rules import BidContext, bid_refusal, blind_offered, blind_refusal, constrains, legal
from bot.engine.cards import (
    FIRST_SPADE,
    NON_SPADE_MASK,
    SPADE_MASK,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    TWO_OF_CLUBS,
    Card,
    card_label,
    cards_of,
    mask_of,
)
from bot.engine.contracts import moon_taken
from bot.engine.draw import Draw, DrawLog, check_stock, seeded_stock
from bot.engine.errors import (
    BadRecord,
    EngineError,
    IllegalAction,
    IllegalBid,
    IllegalCard,
    NotYourTurn,
    WrongPhase,
)
from bot.engine.events import (
    BidMade,
    Cancelled,
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
from bot.engine.modes import check_whole_deck, deck_for, tricks_for
from bot.engine.rules import Mode, Rules
from bot.engine.scoring import game_end, score_side

GAME_FORMAT = "spades-game/1"
LAST_TRICK_BONUS = 10  # house rule `last_trick`


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


def _trick_winner(plays: list[tuple[int, Card]], led_suit: int) -> int:
    """Highest trump wins, else the highest card of the suit led (card order is rank order)."""
    best_seat, best_card = plays[0]
    best_trump = best_card >= FIRST_SPADE
    for seat, card in plays[1:]:
        if card >= FIRST_SPADE:
            if not best_trump or card > best_card:
                best_seat, best_card, best_trump = seat, card, True
        elif not best_trump and SUIT_OF[card] == led_suit and card > best_card:
            best_seat, best_card = seat, card
    return best_seat


class Game:
    """A whole game of Spades in one mode under one rule set."""

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
        "_phase",
        "_seat_side",
        "_side_bags",
        "_side_scores",
        "_to_pass",
        "_trick",
        "_trick_leader",
        "_tricks_left",
        "_tricks_won",
        "_turn",
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
        self.sides = 2 if mode is Mode.PARTNERS else self.seats
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
        self._narrowed = play_rules.restricts_play(rules)
        self._to_pass = [0] * self.seats  # cards each seat still passes (nil_pass)
        self._escrow = [0] * self.seats  # cards a seat has passed, until its partner has too

    # ----------------------------------------------------------------- creation and persistence
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
        return (side, side + 2) if self.mode is Mode.PARTNERS else (side,)

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

    def legal_bids(self, seat: int) -> tuple[int, ...]:
        """The numeric bids the seat may make now (0 is nil); blind nil is :meth:`can_bid`."""
        if self._phase is not Phase.BIDDING or seat != self._turn or self._hidden[seat]:
            return ()
        low = 0 if self.rules.nil else 1
        forbidden = self._forbidden_bid(seat)
        bids: Sequence[int] = range(low, self.tricks_per_hand + 1)
        if constrains(self.rules):
            bids = legal(self._bid_context(seat), bids)
        return tuple(b for b in bids if b != forbidden)

    def _bid_context(self, seat: int) -> BidContext:
        bids = self.bids
        own = self.side_of(seat)
        return BidContext(
            self.rules, self.tricks_per_hand, (self._hands[seat] & SPADE_MASK).bit_count(),
            tuple(bids[s] for s in self.side_seats(own) if s != seat),
            tuple(tuple(bids[s] for s in self.side_seats(side)) for side in range(self.sides) if side != own))

    def legal_mask(self, seat: int) -> int:
        if self._phase is not Phase.PLAYING or seat != self._turn:
            return 0
        hand = self._hands[seat]
        if not self._narrowed:  # the hot path: play_rules.plain_legal inlined (two calls a card saved)
            if self._trick:
                return hand & SUIT_MASKS[self._led_suit] or hand
            return hand & NON_SPADE_MASK or hand if self.rules.spades_must_break and not self._broken else hand
        return play_rules.narrow(self.rules, self._plain_legal(hand), *self._trick_context())

    def _plain_legal(self, hand: int) -> int:
        """Follow suit; don't lead a spade before they are broken: the rules every game plays by."""
        return play_rules.plain_legal(hand, self._led_suit if self._trick else -1, self._broken,
                                      self.rules.spades_must_break)

    def _trick_context(self) -> tuple[bool, int, Card]:
        """What the house rules of play look at: first trick?, the suit led (-1: none yet), the top spade."""
        led = self._led_suit if self._trick else -1
        return self._tricks_left == self.tricks_per_hand, led, play_rules.highest_spade(self._trick)

    def legal_cards(self, seat: int) -> tuple[Card, ...]:
        return cards_of(self.legal_mask(seat))

    def play_note(self, seat: int) -> str | None:
        """Why a house rule of play takes cards away from the seat on turn now, in the words of its refusal."""
        legal = self.legal_mask(seat) if self._narrowed else 0
        if not legal:
            return None
        plain = self._plain_legal(self._hands[seat])
        dropped = plain & ~legal
        if not dropped:
            return None
        return play_rules.refusal(self.rules, plain, *self._trick_context(), dropped.bit_length() - 1)

    # ------------------------------------------------------------------------------ deal
    def deck(self) -> tuple[Card, ...]:
        return deck_for(self.mode, self.rules)

    def verify_deal(
        self, hands: Sequence[Sequence[Card]] | None = None, set_aside: Sequence[Card] | None = None,
        stock: Sequence[Card] = (),
    ) -> Dealt:
        """Check a deal (or draw the seeded one) and return the event it would log."""
        if self._phase is not Phase.DEALING:
            raise WrongPhase("The current hand isn't finished yet." if self._phase is not Phase.OVER
                             else "The game is over.")
        if hands is None:
            return self._seeded_deal(self.hand_number + 1)
        if self.mode.draws or stock:
            return self._verify_stock(hands, set_aside, stock)
        dealt = Dealt(tuple(tuple(sorted(h)) for h in hands), tuple(sorted(set_aside or ())))
        if len(dealt.hands) != self.seats:
            raise IllegalAction(f"A deal needs {self.seats} hands, got {len(dealt.hands)}.")
        for hand in dealt.hands:
            if len(hand) != self.tricks_per_hand:
                raise IllegalAction(f"Each hand needs {self.tricks_per_hand} cards, one has {len(hand)}.")
        check_whole_deck((*(c for hand in dealt.hands for c in hand), *dealt.set_aside), self.deck(),
                         "dealt twice", "The deal must use the whole deck, with the leftover set aside.")
        if (self.mode is Mode.CUTTHROAT and not self.rules.jokers and self.rules.leftover == "two_clubs"
                and dealt.set_aside != (TWO_OF_CLUBS,)):
            raise IllegalAction("With leftover=two_clubs the 2♣ is the card set aside.")
        return dealt

    def can_deal(self) -> bool:
        return self._phase is Phase.DEALING

    def _verify_stock(self, hands: Sequence[Sequence[Card]], set_aside: Sequence[Card] | None,
                      stock: Sequence[Card]) -> Dealt:
        if not self.mode.draws:
            raise IllegalAction(f"{self.mode} deals the cards: only duo draws them from a stock.")
        if len(hands) != self.seats or any(hands) or set_aside:
            raise IllegalAction("In duo nothing is dealt: the hands come from the draw.")
        check_stock(stock, self.deck())
        return Dealt(((),) * self.seats, (), tuple(stock))

    def deal(
        self, hands: Sequence[Sequence[Card]] | None = None, set_aside: Sequence[Card] | None = None,
        stock: Sequence[Card] = (),
    ) -> Dealt:
        """Deal the next hand: the seeded shuffle, or the hands given (tests, replays); in duo, lay
        the stock for the draw."""
        event = self.verify_deal(hands, set_aside, stock)
        number = self.hand_number + 1
        dealer = (self.first_dealer + number - 1) % self.seats
        self._log.append(HandLog(number, dealer, event.hands, event.set_aside))
        self._hands = [mask_of(h) for h in event.hands]
        self.bids = [None] * self.seats
        self.blind = [False] * self.seats
        self._tricks_won = [0] * self.seats
        self._trick = []
        self._broken = False
        self._tricks_left = self.tricks_per_hand
        needed = self.rules.blind_nil_deficit
        # Blind bids are not offered in duo: a player sees every card they draw.
        offered = blind_offered(self.rules) and not self.mode.draws
        self._eligible = [offered and self.deficit(s) >= needed for s in range(self.seats)]
        self._hidden = list(self._eligible)
        self._phase = Phase.BIDDING
        self._draw = None
        if event.stock:
            self._draw = Draw(event.stock, self.seats, self._log[-1].draws)
            self._phase = Phase.DRAWING
        self._turn = (dealer + 1) % self.seats
        self._trick_leader = play_rules.first_leader(self.rules, self._hands, self._turn)
        self._events.append(event)
        self._force_bid()
        return event

    def _seeded_deal(self, number: int) -> Dealt:
        rng = random.Random(f"{self.seed}/{number}")
        if self.mode.draws:
            return Dealt(((),) * self.seats, (), seeded_stock(self.deck(), rng))
        deck = list(self.deck())
        set_aside: tuple[Card, ...] = ()
        if self.mode is Mode.CUTTHROAT and not self.rules.jokers:
            if self.rules.leftover == "two_clubs":
                deck.remove(TWO_OF_CLUBS)
                set_aside = (TWO_OF_CLUBS,)
            rng.shuffle(deck)
            if not set_aside:
                set_aside = (deck.pop(),)
        else:
            rng.shuffle(deck)
        size = self.tricks_per_hand
        hands = tuple(tuple(sorted(deck[i * size:(i + 1) * size])) for i in range(self.seats))
        return Dealt(hands, set_aside)

    # -------------------------------------------------------------------------- draw
    def drawn_card(self, seat: int) -> Card | None:
        """The card the seat is looking at in the draw (its turn to keep or discard it), else None."""
        if self._draw is None or self._phase is not Phase.DRAWING or seat != self._turn:
            return None
        return self._draw.offered

    def discards_of(self, seat: int) -> tuple[Card, ...]:
        """The cards the seat discarded in this hand's draw (duo); only that seat may see them."""
        return cards_of(self._draw.discards[seat]) if self._draw is not None else ()

    @property
    def stock_left(self) -> int:
        """Cards still in the duo stock (0 once the draw is over, or in other modes)."""
        return self._draw.left if self._draw is not None else 0

    def verify_draw(self, seat: int, keep: bool) -> None:
        if not self.mode.draws:
            raise WrongPhase(f"There is no draw in {self.mode}: the cards are dealt.")
        self._check_turn(seat, Phase.DRAWING)
        if not isinstance(keep, bool):
            raise IllegalAction("Keep the card or discard it: answer yes or no.")

    def can_draw(self, seat: int, keep: bool) -> bool:
        try:
            self.verify_draw(seat, keep)
        except EngineError:
            return False
        return True

    def draw(self, seat: int, keep: bool) -> Drew:
        """The seat keeps the card it drew (and discards the next) or discards it (and keeps the next)."""
        self.verify_draw(seat, keep)
        draw = self._draw
        assert draw is not None
        self._hands[seat] |= 1 << draw.take(seat, keep)
        event = Drew(seat, keep)
        self._events.append(event)
        if not draw.done:
            self._turn = (seat + 1) % self.seats
            return event
        log = self._log[-1]
        log.deal = tuple(cards_of(hand) for hand in self._hands)
        log.set_aside = cards_of(draw.discarded)
        self._phase = Phase.BIDDING
        self._turn = (self.dealer + 1) % self.seats
        # The first lead can depend on the cards held (first_lead=two_clubs): known only now.
        self._trick_leader = play_rules.first_leader(self.rules, self._hands, self._turn)
        self._force_bid()
        return event

    # ----------------------------------------------------------------------- bidding
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

    def _forbidden_bid(self, seat: int) -> int | None:
        """With no_exact_total, the last bidder's bid that would make the total exactly the tricks."""
        if not self.rules.no_exact_total:
            return None
        others = [b for s, b in enumerate(self.bids) if s != seat]
        if any(b is None for b in others):
            return None
        return self.tricks_per_hand - sum(b for b in others if b is not None)

    def verify_bid(self, seat: int, bid: int, blind: bool = False) -> None:
        self._check_turn(seat, Phase.BIDDING)
        if isinstance(bid, bool) or not isinstance(bid, int):
            raise IllegalBid(f"A bid is a number from 0 to {self.tricks_per_hand}.")
        if blind:
            what = "blind nil" if bid == 0 else "a blind bid"
            never = blind_refusal(self.rules, bid)
            if never:
                raise IllegalBid(never)
            if bid == 0 and not self.rules.blind_nil:
                raise IllegalBid("Blind nil is off in this game.")
            if not self._eligible[seat]:
                need = self.rules.blind_nil_deficit
                raise IllegalBid(f"{what.capitalize()} needs you to be {need} points behind.")
            if not self._hidden[seat]:
                raise IllegalBid(f"You've seen your cards, so {what} is no longer possible.")
        elif self._hidden[seat]:
            raise IllegalBid("First choose: bid blind nil, or show your cards.")
        # `nil` switches the open nil bid only; blind nil has its own switch, and a seat whose cards
        # are hidden for it must be able to bid it.
        low = 0 if self.rules.nil or blind else 1
        if not low <= bid <= self.tricks_per_hand:
            if bid == 0:
                raise IllegalBid(f"Nil is off in this game: bid 1 to {self.tricks_per_hand}.")
            lowest = "0 (nil)" if low == 0 else "1"
            raise IllegalBid(f"Bids go from {lowest} to {self.tricks_per_hand}.")
        if bid == self._forbidden_bid(seat):
            raise IllegalBid(f"Bids can't total {self.tricks_per_hand}.")
        refused = bid_refusal(self._bid_context(seat), bid) if constrains(self.rules) else None
        if refused:
            raise IllegalBid(refused)

    def can_bid(self, seat: int, bid: int, blind: bool = False) -> bool:
        try:
            self.verify_bid(seat, bid, blind)
        except EngineError:
            return False
        return True

    def bid(self, seat: int, bid: int, blind: bool = False, forced: bool = False) -> BidMade:
        """``forced``: the game bids for a seat the house rules leave one bid (see :meth:`_force_bid`)."""
        self.verify_bid(seat, bid, blind)
        event = BidMade(seat, bid, blind, forced)
        self.bids[seat] = bid
        self.blind[seat] = blind
        self._hidden[seat] = False
        self._log[-1].bids.append(event)
        if len(self._log[-1].bids) == self.seats:
            teams = [self.side_seats(side) for side in range(self.sides)]
            self._to_pass = nil_pass.pass_counts(self.rules.nil_pass, teams, self.bids, self.blind)
            self._next_passer_or_play(self.dealer)
        else:
            self._turn = (seat + 1) % self.seats
        self._events.append(event)
        self._force_bid()
        return event

    def _force_bid(self) -> None:
        """Whiz, mirrors, suicide, min_bid: a bidder who can see their cards and has one bid left
        has it made at once, marked forced, so nobody waits on a choice that isn't one."""
        seat = self._turn
        if self._phase is not Phase.BIDDING or seat is None or self._hidden[seat] or not constrains(self.rules):
            return
        bids = self.legal_bids(seat)
        if len(bids) == 1:
            self.bid(seat, bids[0], forced=True)

    def verify_reveal(self, seat: int) -> None:
        if self._phase is not Phase.BIDDING:
            raise WrongPhase(self._phase_message(Phase.BIDDING))
        if not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise IllegalAction(f"There is no seat {seat!r} in this game.")
        if not self._hidden[seat]:
            raise IllegalAction("Your cards are already shown.")

    def can_reveal(self, seat: int) -> bool:
        try:
            self.verify_reveal(seat)
        except EngineError:
            return False
        return True

    def reveal(self, seat: int) -> Revealed:
        """The seat gives up blind nil and looks at its cards (allowed any time before its bid)."""
        self.verify_reveal(seat)
        event = Revealed(seat)
        self._hidden[seat] = False
        self._events.append(event)
        self._force_bid()
        return event

    # ----------------------------------------------------------------------- passing
    def cards_to_pass(self, seat: int) -> int:
        """How many cards the seat passes now (nil_pass): nonzero only on its turn to pass."""
        return self._to_pass[seat] if self._phase is Phase.PASSING and seat == self._turn else 0

    def passes(self, seat: int) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
        """The cards the seat passed this hand, and those it received (once both partners chose)."""
        if not self._log:
            return (), ()
        log = self._log[-1].passes
        gave = tuple(p.card for p in log if p.seat == seat)
        exchanged = self._phase is not Phase.PASSING
        got = tuple(p.card for p in log if exchanged and p.seat != seat and self._partner(p.seat) == seat)
        return gave, got

    def _partner(self, seat: int) -> int:
        return nil_pass.partner([self.side_seats(side) for side in range(self.sides)], seat)

    def verify_pass(self, seat: int, cards: Sequence[Card]) -> None:
        self._check_turn(seat, Phase.PASSING)
        if any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 54 for c in cards):
            raise IllegalCard("Those aren't cards.")
        reason = nil_pass.refusal(self._hands[seat], self._to_pass[seat], cards)
        if reason:
            raise IllegalCard(reason)

    def can_pass(self, seat: int, cards: Sequence[Card]) -> bool:
        try:
            self.verify_pass(seat, cards)
        except EngineError:
            return False
        return True

    def pass_cards(self, seat: int, cards: Sequence[Card]) -> tuple[CardPassed, ...]:
        """Put cards aside for the partner (one event each); they change hands once both have chosen."""
        self.verify_pass(seat, cards)
        events = tuple(CardPassed(seat, card) for card in cards)
        for event in events:
            self._hands[seat] ^= 1 << event.card
            self._escrow[seat] |= 1 << event.card
            self._to_pass[seat] -= 1
            self._log[-1].passes.append(event)
            self._events.append(event)
        if not self._to_pass[seat]:
            self._next_passer_or_play(seat)
        return events

    def _next_passer_or_play(self, after: int) -> None:
        """The next seat clockwise that still passes; when none is left the cards change hands and
        play begins (the first leader found again: a pass may move the 2♣)."""
        for step in range(1, self.seats + 1):
            seat = (after + step) % self.seats
            if self._to_pass[seat]:
                self._phase, self._turn = Phase.PASSING, seat
                return
        if any(self._escrow):
            for seat, cards in enumerate(self._escrow):
                self._hands[self._partner(seat)] |= cards
            self._escrow = [0] * self.seats
            self._trick_leader = play_rules.first_leader(self.rules, self._hands, (self.dealer + 1) % self.seats)
        self._phase, self._turn = Phase.PLAYING, self._trick_leader

    # -------------------------------------------------------------------------- play
    def verify_play(self, seat: int, card: Card) -> None:
        self._check_turn(seat, Phase.PLAYING)
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 54:
            raise IllegalCard(f"{card!r} is not a card.")
        hand = self._hands[seat]
        if not hand >> card & 1:
            raise IllegalCard(f"You don't have the {card_label(card)}.")
        if self._trick:
            led = self._led_suit
            if SUIT_OF[card] != led and hand & SUIT_MASKS[led]:
                raise IllegalCard(f"You must follow {SUIT_NAMES[led]}.")
        elif (card >= FIRST_SPADE and self.rules.spades_must_break and not self._broken
              and hand & NON_SPADE_MASK):
            raise IllegalCard("Spades haven't been broken: lead another suit.")
        if self._narrowed:
            reason = play_rules.refusal(self.rules, self._plain_legal(hand), *self._trick_context(), card)
            if reason:
                raise IllegalCard(reason)

    def can_play(self, seat: int, card: Card) -> bool:
        try:
            self.verify_play(seat, card)
        except EngineError:
            return False
        return True

    def play(self, seat: int, card: Card) -> CardPlayed:
        """Play a card; when it ends a trick and the rest of the hand is settled (``fast_finish``),
        the hand plays itself out at once, logged as one :class:`FastFinished` after the card."""
        event = self._put(seat, card)
        self._events.append(event)
        if (self.rules.fast_finish and not self._trick and self._phase is Phase.PLAYING
                and fast_finish.settled(self.rules, self._hands, self._trick_leader, self._broken)):
            self.fast_finish()
        return event

    def _put(self, seat: int, card: Card) -> CardPlayed:
        """Put a legal card on the trick and take the trick when it is full; logs nothing."""
        # Fast path: the legal mask already encodes every play rule; verify_play only explains.
        if type(card) is not int or card < 0 or not self.legal_mask(seat) >> card & 1:
            self.verify_play(seat, card)
            raise AssertionError(f"legal_mask and verify_play disagree on {card!r}")
        event = CardPlayed(seat, card)
        self._hands[seat] ^= 1 << card
        trick = self._trick
        if not trick:
            self._trick_leader = seat
            self._led_suit = SUIT_OF[card]
        trick.append((seat, card))
        if card >= FIRST_SPADE:
            self._broken = True
        if len(trick) < self.seats:
            self._turn = (seat + 1) % self.seats
            return event
        winner = _trick_winner(trick, self._led_suit)
        self._tricks_won[winner] += 1
        self._log[-1].tricks.append(TrickLog(self._trick_leader, tuple(trick), winner))
        self._trick = []
        self._trick_leader = winner
        self._turn = winner
        self._tricks_left -= 1
        if not self._tricks_left:
            self._finish_hand()
        return event

    def verify_fast_finish(self, tricks: int | None = None) -> None:
        """Between tricks, with fast_finish on: the rest of the hand must be settled (``tricks``, from
        a record, must be what is left)."""
        if self._phase is not Phase.PLAYING:
            raise WrongPhase(self._phase_message(Phase.PLAYING))
        if not self.rules.fast_finish:
            raise IllegalAction("fast_finish is off in this game.")
        if self._trick:
            raise IllegalAction("A hand can only play itself out between tricks.")
        if tricks is not None and tricks != self._tricks_left:
            raise IllegalAction(f"{self._tricks_left} tricks are left, not {tricks}.")
        if not fast_finish.settled(self.rules, self._hands, self._trick_leader, self._broken):
            raise IllegalAction("The rest of the hand isn't settled: the cards played can still change who wins.")

    def can_fast_finish(self) -> bool:
        try:
            self.verify_fast_finish()
        except EngineError:
            return False
        return True

    def fast_finish(self, tricks: int | None = None) -> FastFinished:
        """Play the settled rest of the hand: each seat its lowest legal card (any choice takes the
        same tricks), none of them logged but this one event."""
        self.verify_fast_finish(tricks)
        event = FastFinished(self._tricks_left)
        self._log[-1].fast_finished = self._tricks_left
        self._events.append(event)
        while self._phase is Phase.PLAYING:
            seat = self._turn
            assert seat is not None
            legal = self.legal_mask(seat)
            self._put(seat, (legal & -legal).bit_length() - 1)
        return event

    # ------------------------------------------------------------------- hand and game end
    def _finish_hand(self) -> None:
        rules = self.rules
        seats = self.seats
        hand_points = [0] * seats
        new_bags = [0] * seats
        last_winner = self._log[-1].tricks[-1].winner
        for side in range(self.sides):
            members = self.side_seats(side)
            result = score_side(
                rules,
                [self.bids[s] or 0 for s in members],
                [self.blind[s] for s in members],
                [self._tricks_won[s] for s in members],
                self._side_bags[side],
            )
            points = result.points + (LAST_TRICK_BONUS if rules.last_trick and last_winner in members else 0)
            self._side_scores[side] += points
            self._side_bags[side] = result.bags
            for s in members:
                hand_points[s] = points
                new_bags[s] = result.new_bags
        contract_made: list[bool | None] = [None] * seats
        nil_made: list[bool | None] = [None] * seats
        for s in range(seats):
            if self.bids[s] == 0:
                nil_made[s] = self._tricks_won[s] == 0
            else:
                team = self.side_seats(self.side_of(s))
                contract = sum(self.bids[m] or 0 for m in team if self.bids[m])
                taken = sum(self._tricks_won[m] for m in team
                            if self.bids[m] or rules.nil_tricks_help_partner)
                contract_made[s] = taken >= contract
        self._log[-1].result = HandResult(
            tuple(self._tricks_won), tuple(hand_points), self.bags, self.scores,
            tuple(new_bags), tuple(contract_made), tuple(nil_made),
        )
        self._turn = None
        self._phase = Phase.DEALING
        mooned = [side for side in range(self.sides) if moon_taken(
            rules, self.tricks_per_hand, [(self.bids[s] or 0, self._tricks_won[s]) for s in self.side_seats(side)])]
        if mooned:
            self._end(Ending.MOON, mooned)
        else:
            self._check_game_end()

    def _check_game_end(self) -> None:
        outcome = game_end(self.rules, self._side_scores)
        if outcome is not None:
            ending, winning_sides = outcome
            self._end(Ending(ending), winning_sides)

    def _end(self, ending: Ending, winning_sides: Sequence[int]) -> None:
        self._ended = ending
        self._winners = tuple(sorted(s for side in winning_sides for s in self.side_seats(side)))
        self._phase = Phase.OVER
        self._turn = None

    def verify_cancel(self) -> None:
        if self._phase is Phase.OVER:
            raise WrongPhase("The game is already over.")

    def cancel(self) -> Cancelled:
        """End the game with no result (nothing counts toward ratings)."""
        self.verify_cancel()
        event = Cancelled()
        self._end(Ending.CANCELLED, ())
        self._events.append(event)
        return event

    def verify_forfeit(self, seat: int) -> None:
        self.verify_cancel()
        if not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise IllegalAction(f"There is no seat {seat!r} in this game.")

    def forfeit(self, seat: int) -> Forfeited:
        """End the game: the forfeiting side loses; the best-placed other side wins."""
        self.verify_forfeit(seat)
        event = Forfeited(seat)
        loser = self.side_of(seat)
        others = [side for side in range(self.sides) if side != loser]
        top = max(self._side_scores[side] for side in others)
        self._end(Ending.FORFEIT, [side for side in others if self._side_scores[side] == top])
        self._events.append(event)
        return event

    def places(self) -> tuple[int, ...]:
        """Final place per seat (1 is first; ties share a place; a forfeiting side is last)."""
        # A forfeit ends the game, so it is the last event: no need to search them all (a table's
        # public view asks on every move).
        last = self._events[-1] if self._ended is Ending.FORFEIT else None
        forfeiter = self.side_of(last.seat) if isinstance(last, Forfeited) else None
        standings = [(side != forfeiter, score) for side, score in enumerate(self._side_scores)]
        side_places = [1 + sum(other > mine for other in standings) for mine in standings]
        return tuple(side_places[side] for side in self._seat_side)
