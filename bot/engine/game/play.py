"""Trick play: the legal cards, playing one, taking the trick, and the fast finish."""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine import fast_finish, play_rules
from bot.engine.cards import (
    BASE,
    CARD_LIMIT,
    FIRST_SPADE,
    NON_SPADE_MASK,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    Card,
    card_label,
    cards_of,
    held_copy,
)
from bot.engine.errors import EngineError, IllegalAction, IllegalCard, WrongPhase
from bot.engine.events import CardPlayed, FastFinished
from bot.engine.game.end import HandEnd
from bot.engine.game.state import Phase, TrickLog


def _trick_winner(plays: list[tuple[int, Card]], led_suit: int, place: tuple[int, ...], ties_win: bool) -> int:
    """Highest trump wins, else the highest card of the suit led (a card's place is its strength, of
    two decks ``place & BASE``). Two identical cards (six): the first played ranks higher, or the
    last with ``ties_win``."""
    best_seat, best_card = plays[0]
    best = place[best_card] & BASE
    best_trump = best >= FIRST_SPADE
    for seat, card in plays[1:]:
        at = place[card] & BASE
        if at >= FIRST_SPADE:
            if not best_trump or at > best or (ties_win and at == best):
                best_seat, best, best_trump = seat, at, True
        elif not best_trump and SUIT_OF[at] == led_suit and (at > best or (ties_win and at == best)):
            best_seat, best = seat, at
    return best_seat


class TrickPlay(HandEnd):
    """Plays cards onto the trick; a full trick is taken, the last one scores the hand."""

    __slots__ = ()

    def legal_mask(self, seat: int) -> int:
        if self._phase is not Phase.PLAYING or seat != self._turn:
            return 0
        hand = self._hands[seat]
        if not self._narrowed:  # the hot path: play_rules.plain_legal inlined (two calls a card saved)
            if self._trick:
                return hand & SUIT_MASKS[self._led_suit] or hand
            return hand & NON_SPADE_MASK or hand if self.rules.spades_must_break and not self._broken else hand
        return self._order.cards(play_rules.narrow(self.rules, self._plain_legal(hand), *self._trick_context()))

    def _plain_legal(self, hand: int) -> int:
        """Follow suit; don't lead a spade before they are broken: the rules every game plays by. On
        places (card_order.py), as the house rules of play reason."""
        return play_rules.plain_legal(self._order.places(hand), self._led_suit if self._trick else -1, self._broken,
                                      self.rules.spades_must_break)

    def _trick_context(self) -> tuple[bool, int, int]:
        """What the house rules of play look at: first trick?, the suit led (-1: none yet), the top
        spade's place (-1: none)."""
        led = self._led_suit if self._trick else -1
        place = self._place
        best = max((place[card] for _, card in self._trick if place[card] & BASE >= FIRST_SPADE),
                   key=lambda at: at & BASE, default=-1)
        return self._tricks_left == self.tricks_per_hand, led, best

    def _held(self, seat: int, cards: Sequence[Card]) -> Sequence[Card]:
        """Two decks: each card named as the copy the seat holds, the first copy while it holds both
        (the copies play alike, so either button or either code plays one; always the same one, so a
        replay from codes holds the same cards)."""
        if not self._twins:
            return cards
        hand = self._hands[seat]
        held = []
        for card in cards:
            if type(card) is int and 0 <= card < CARD_LIMIT:
                card = held_copy(hand, card)
                hand &= ~(1 << card)
            held.append(card)
        return held

    def legal_cards(self, seat: int) -> tuple[Card, ...]:
        return cards_of(self.legal_mask(seat))

    def play_note(self, seat: int) -> str | None:
        """Why a house rule of play takes cards away from the seat on turn now, in the words of its refusal."""
        legal = self.legal_mask(seat) if self._narrowed else 0
        if not legal:
            return None
        plain = self._plain_legal(self._hands[seat])
        dropped = plain & ~self._order.places(legal)
        if not dropped:
            return None
        return play_rules.refusal(self.rules, plain, *self._trick_context(), dropped.bit_length() - 1)

    def verify_play(self, seat: int, card: Card) -> None:
        self._check_turn(seat, Phase.PLAYING)
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < CARD_LIMIT:
            raise IllegalCard(f"{card!r} is not a card.")
        card = self._held(seat, (card,))[0]
        hand = self._hands[seat]
        if not hand >> card & 1:
            raise IllegalCard(f"You don't have the {card_label(card)}.")
        order = self._order
        if self._trick:
            led = self._led_suit
            if order.suit_of(card) != led and hand & order.suit_masks[led]:
                raise IllegalCard(f"You must follow {SUIT_NAMES[led]}.")
        elif (order.spades >> card & 1 and self.rules.spades_must_break and not self._broken
              and hand & order.non_spades):
            raise IllegalCard("Spades haven't been broken: lead another suit.")
        if self._narrowed:
            reason = play_rules.refusal(self.rules, self._plain_legal(hand), *self._trick_context(), self._place[card])
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
                and fast_finish.settled(self.rules, self._place_hands(), self._trick_leader, self._broken)):
            self.fast_finish()
        return event

    def _put(self, seat: int, card: Card) -> CardPlayed:
        """Put a legal card on the trick and take the trick when it is full; logs nothing."""
        # Fast path: the legal mask already encodes every play rule; verify_play only explains.
        if self._twins and type(card) is int and 0 <= card < CARD_LIMIT:
            card = held_copy(self._hands[seat], card)
        if type(card) is not int or card < 0 or not self.legal_mask(seat) >> card & 1:
            self.verify_play(seat, card)
            raise AssertionError(f"legal_mask and verify_play disagree on {card!r}")
        event = CardPlayed(seat, card)
        self._hands[seat] ^= 1 << card
        trick = self._trick
        place = self._place[card]
        if not trick:
            self._trick_leader = seat
            self._led_suit = SUIT_OF[place]
        trick.append((seat, card))
        if place & BASE >= FIRST_SPADE:
            self._broken = True
        if len(trick) < self.seats:
            self._turn = (seat + 1) % self.seats
            return event
        winner = _trick_winner(trick, self._led_suit, self._place, self.rules.identical == "last")
        self._tricks_won[winner] += 1
        self._log[-1].tricks.append(TrickLog(self._trick_leader, tuple(trick), winner))
        self._trick = []
        self._trick_leader = winner
        self._turn = winner
        self._tricks_left -= 1
        if not self._tricks_left:
            self._finish_hand()
        return event

    def _place_hands(self) -> list[int]:
        """The hands as masks of places (card_order.py), as the fast finish's search reasons."""
        order = self._order
        return [order.places(hand) for hand in self._hands] if order.moved else self._hands

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
        if not fast_finish.settled(self.rules, self._place_hands(), self._trick_leader, self._broken):
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
