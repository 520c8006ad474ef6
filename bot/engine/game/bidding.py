"""Bidding: the legal bids, blind decisions, and the bids the house rules force."""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine import nil_pass
from bot.engine.bidding_rules import BidContext, bid_refusal, blind_refusal, constrains, legal
from bot.engine.errors import EngineError, IllegalAction, IllegalBid, WrongPhase
from bot.engine.events import BidMade, Revealed
from bot.engine.game.passing import Passing
from bot.engine.game.state import Phase


class Bidding(Passing):
    """The bids, then passing (nil_pass) or play."""

    __slots__ = ()

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
            self.rules, self.tricks_per_hand, (self._hands[seat] & self._order.spades).bit_count(),
            tuple(bids[s] for s in self.side_seats(own) if s != seat),
            tuple(tuple(bids[s] for s in self.side_seats(side)) for side in range(self.sides) if side != own))

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
