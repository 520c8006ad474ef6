"""nil_pass: partners of a nil bidder trade cards between the bidding and the first lead."""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine import nil_pass, play_rules
from bot.engine.cards import CARD_LIMIT, Card
from bot.engine.errors import EngineError, IllegalCard
from bot.engine.events import CardPassed
from bot.engine.game.play import TrickPlay
from bot.engine.game.state import Phase


class Passing(TrickPlay):
    """nil_pass between the bidding and the first lead; play starts once nobody has cards left to pass."""

    __slots__ = ()

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
        if any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < CARD_LIMIT for c in cards):
            raise IllegalCard("Those aren't cards.")
        cards = self._held(seat, cards)
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
        cards = self._held(seat, cards)
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
