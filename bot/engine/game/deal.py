"""The deal, and duo's draw from the stock."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.engine import play_rules
from bot.engine.bidding_rules import blind_offered
from bot.engine.cards import BASE, CARD_LIMIT, TWO_OF_CLUBS, Card, as_copies, cards_of, mask_of
from bot.engine.draw import Draw, check_stock, seeded_stock
from bot.engine.errors import EngineError, IllegalAction, WrongPhase
from bot.engine.events import Dealt, Drew
from bot.engine.game.bidding import Bidding
from bot.engine.game.state import HandLog, Phase
from bot.engine.modes import check_whole_deck, deck_for, sets_aside


class Dealing(Bidding):
    """Deals each hand (or lays duo's stock and runs the draw), then the bidding."""

    __slots__ = ()

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
        dealt = self._as_dealt(hands, set_aside or ())
        if len(dealt.hands) != self.seats:
            raise IllegalAction(f"A deal needs {self.seats} hands, got {len(dealt.hands)}.")
        for hand in dealt.hands:
            if len(hand) != self.tricks_per_hand:
                raise IllegalAction(f"Each hand needs {self.tricks_per_hand} cards, one has {len(hand)}.")
        check_whole_deck((*(c for hand in dealt.hands for c in hand), *dealt.set_aside), self.deck(),
                         "dealt twice", "The deal must use the whole deck, with the leftover set aside.")
        if (sets_aside(self.mode, self.rules) and self.rules.leftover == "two_clubs"
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

    def _as_dealt(self, hands: Sequence[Sequence[Card]], set_aside: Sequence[Card]) -> Dealt:
        """Each hand sorted. Two decks: which copy a seat holds is settled here, the first copy of a
        card to the first seat holding it, as a record's codes (which name no copy) read back."""
        if self._twins and all(type(c) is int and 0 <= c < CARD_LIMIT for hand in hands for c in hand):
            cards = iter(as_copies(c & BASE for hand in hands for c in hand))
            hands = [[next(cards) for _ in hand] for hand in hands]
        return Dealt(tuple(tuple(sorted(h)) for h in hands), tuple(sorted(set_aside)))

    def _seeded_deal(self, number: int) -> Dealt:
        rng = random.Random(f"{self.seed}/{number}")
        if self.mode.draws:
            return Dealt(((),) * self.seats, (), seeded_stock(self.deck(), rng))
        deck = list(self.deck())
        set_aside: tuple[Card, ...] = ()
        if sets_aside(self.mode, self.rules):
            if self.rules.leftover == "two_clubs":
                deck.remove(TWO_OF_CLUBS)
                set_aside = (TWO_OF_CLUBS,)
            rng.shuffle(deck)
            if not set_aside:
                set_aside = (deck.pop(),)
        else:
            rng.shuffle(deck)
        size = self.tricks_per_hand
        return self._as_dealt([deck[i * size:(i + 1) * size] for i in range(self.seats)], set_aside)

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
