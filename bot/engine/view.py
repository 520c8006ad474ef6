"""What one seat may know, and what everyone may. Discord renderers and computer players read only this.

Neither a seat's view, nor the table's view, nor a running game's public record holds another
seat's cards, and a seat's view not even its own cards while its blind nil decision is pending.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from bot.engine.bidding_rules import BLIND_BID_MAX
from bot.engine.cards import Card, cards_of, mask_of
from bot.engine.errors import IllegalAction
from bot.engine.events import BidMade
from bot.engine.game import Ending, Game, HandResult, Phase, TrickLog
from bot.engine.modes import sides_for
from bot.engine.record import export_record
from bot.engine.rules import Mode, Rules


class SeatView(NamedTuple):
    """Immutable; a NamedTuple because computer players build one per decision."""

    game_id: str
    mode: Mode
    rules: Rules
    seat: int
    seats: int
    names: tuple[str, ...]
    phase: Phase
    hand_number: int
    dealer: int
    turn: int | None
    hand: tuple[Card, ...]  # empty while cards_hidden
    cards_hidden: bool
    can_blind_nil: bool
    legal_bids: tuple[int, ...]
    legal_cards: tuple[Card, ...]
    play_note: str | None  # why a house rule of play holds back some of the seat's cards now
    to_pass: int  # nil_pass: cards the seat passes now (its turn to pass), else 0
    passed: tuple[Card, ...]  # nil_pass: the cards it passed to its partner this hand
    received: tuple[Card, ...]  # nil_pass: the cards its partner passed to it, once both chose
    bids: tuple[int | None, ...]
    blind: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    trick: tuple[tuple[int, Card], ...]
    trick_leader: int | None
    tricks: tuple[TrickLog, ...]  # completed tricks of this hand
    spades_broken: bool
    scores: tuple[int, ...]
    bags: tuple[int, ...]
    tricks_per_hand: int
    deck_mask: int  # the cards in play this game (jokers in, or some twos out, by mode and rules)
    drawn: Card | None  # duo: the card this seat is looking at in the draw, on its turn
    discards: tuple[Card, ...]  # duo: what this seat discarded in the draw
    blind_bids: tuple[int, ...] = ()  # trailing blind bids (1-7) the seat may make before looking

    @property
    def sides(self) -> int:
        """How many sides score apart; seat ``s`` is on side ``s % sides``."""
        return sides_for(self.mode, self.rules)

    @property
    def my_turn(self) -> bool:
        return self.turn == self.seat

    @property
    def played_mask(self) -> int:
        """Every card seen on the table this hand (completed tricks and the current one)."""
        return mask_of(c for t in self.tricks for _, c in t.plays) | mask_of(c for _, c in self.trick)

    def unseen_cards(self) -> tuple[Card, ...]:
        """Cards this seat can't see: in other hands, or set aside."""
        return cards_of(self.deck_mask & ~self.played_mask & ~mask_of(self.hand) & ~mask_of(self.discards))


def seat_view(game: Game, seat: int) -> SeatView:
    return _seat_view(game, seat, _shared(game))


def seat_views(game: Game, seats: Sequence[int]) -> tuple[SeatView, ...]:
    """`seat_view` of several seats at once (each person's view as a move is saved): what every
    seat sees alike is read from the game once."""
    shared = _shared(game)
    return tuple(_seat_view(game, seat, shared) for seat in seats)


def _shared(game: Game) -> dict[str, Any]:
    logs = game.hand_logs
    return {
        "game_id": game.game_id, "mode": game.mode, "rules": game.rules, "seats": game.seats, "names": game.names,
        "phase": game.phase, "hand_number": game.hand_number, "dealer": game.dealer, "turn": game.turn,
        "bids": tuple(game.bids), "blind": tuple(game.blind), "tricks_won": game.tricks_won,
        "hand_sizes": game.hand_sizes, "trick": game.trick, "trick_leader": game.trick_leader,
        "tricks": tuple(logs[-1].tricks) if logs and game.phase is not Phase.DEALING else (),
        "spades_broken": game.spades_broken, "scores": game.scores, "bags": game.bags,
        "tricks_per_hand": game.tricks_per_hand, "deck_mask": _deck_mask(game.deck()),
    }


@functools.lru_cache(maxsize=64)
def _deck_mask(deck: tuple[Card, ...]) -> int:
    """A mode's deck as a mask: one of a handful of decks, asked for in every view."""
    return mask_of(deck)


def _seat_view(game: Game, seat: int, shared: dict[str, Any]) -> SeatView:
    hidden = game.cards_hidden(seat)
    passed, received = game.passes(seat)
    return SeatView(
        seat=seat,
        hand=() if hidden else game.hand_of(seat),
        cards_hidden=hidden,
        can_blind_nil=hidden and game.can_bid(seat, 0, blind=True),
        legal_bids=game.legal_bids(seat),
        legal_cards=game.legal_cards(seat),
        play_note=game.play_note(seat),
        to_pass=game.cards_to_pass(seat),
        passed=passed,
        received=received,
        drawn=game.drawn_card(seat),
        discards=game.discards_of(seat),
        blind_bids=tuple(b for b in range(1, BLIND_BID_MAX + 1) if game.can_bid(seat, b, blind=True))
        if hidden and game.rules.blind_bids else (),
        **shared,
    )


class PublicHand(NamedTuple):
    """One hand as the table saw it: its bids, the tricks played so far and, once scored, its
    result; never its deal nor the card set aside (a :class:`HandLog` holds both)."""

    number: int
    dealer: int
    bids: tuple[BidMade, ...]
    tricks: tuple[TrickLog, ...]
    result: HandResult | None
    fast_finished: int  # how many of the last tricks played themselves (fast_finish)


class TableView(NamedTuple):
    """Everything public about a game, frozen: what the table, its summaries and the score chart
    are drawn from, so nothing posted in a channel is ever drawn from the game that holds every
    hand. No unplayed card and no seed (every deal follows from it)."""

    game_id: str
    mode: Mode
    rules: Rules
    seats: int
    names: tuple[str, ...]
    sides: int
    side_members: tuple[tuple[int, ...], ...]  # the seats of each side
    seat_sides: tuple[int, ...]  # the side of each seat
    phase: Phase
    hand_number: int
    dealer: int
    turn: int | None
    bids: tuple[int | None, ...]
    blind: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    trick: tuple[tuple[int, Card], ...]
    trick_leader: int | None
    spades_broken: bool
    scores: tuple[int, ...]
    bags: tuple[int, ...]
    ended: Ending | None
    winners: tuple[int, ...]
    places: tuple[int, ...]
    hands: tuple[PublicHand, ...]  # every hand dealt so far, the one in play (if any) last
    stock_left: int  # duo: cards still to draw

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def hands_played(self) -> int:
        """Hands scored so far."""
        return sum(1 for hand in self.hands if hand.result is not None)

    def side_of(self, seat: int) -> int:
        return self.seat_sides[seat]

    def side_seats(self, side: int) -> tuple[int, ...]:
        return self.side_members[side]


def table_view(game: Game, earlier: TableView | None = None) -> TableView:
    """The game as everyone at the table may see it (see :class:`TableView`).

    `earlier`, a view built before from this same game object (not a replay of it, which may have
    gone another way since), lends what never changes in it: the sides and the scored hands. A
    view then costs as little late in a long game as in its first hand.
    """
    if earlier is None:
        side_members = tuple(game.side_seats(side) for side in range(game.sides))
        seat_sides = tuple(game.side_of(seat) for seat in range(game.seats))
        scored: tuple[PublicHand, ...] = ()
    else:
        side_members, seat_sides, scored = earlier.side_members, earlier.seat_sides, earlier.hands
        if scored and scored[-1].result is None:  # only the last hand can be unscored
            scored = scored[:-1]
    return TableView(
        game_id=game.game_id,
        mode=game.mode,
        rules=game.rules,
        seats=game.seats,
        names=game.names,
        sides=game.sides,
        side_members=side_members,
        seat_sides=seat_sides,
        phase=game.phase,
        hand_number=game.hand_number,
        dealer=game.dealer,
        turn=game.turn,
        bids=tuple(game.bids),
        blind=tuple(game.blind),
        tricks_won=game.tricks_won,
        hand_sizes=game.hand_sizes,
        trick=game.trick,
        trick_leader=game.trick_leader,
        spades_broken=game.spades_broken,
        scores=game.scores,
        bags=game.bags,
        ended=game.ended,
        winners=game.winners,
        places=game.places(),
        hands=scored + tuple(PublicHand(log.number, log.dealer, tuple(log.bids), tuple(log.tricks), log.result,
                                        log.fast_finished)
                             for log in game.hand_logs[len(scored):]),
        stock_left=game.stock_left,
    )


# Keys of a record that are public while the game runs (not the seed: every deal follows from it).
_PUBLIC_KEYS = ("format", "game_id", "mode", "rules", "players", "hands", "final")
_PUBLIC_HAND_KEYS = ("number", "dealer", "deal", "set_aside", "draws", "bids", "passes", "tricks")


class RecordView(NamedTuple):
    """A record as one asker may see it, and whether it holds anything private to them (their own
    cards of the hand in play): such a record may be shown to the asker alone, never in public."""

    document: dict[str, Any]
    private: bool


def public_record(
    game: Game, players: Sequence[Mapping[str, Any]] | None = None, viewer: int | None = None
) -> dict[str, Any]:
    """The ``spades-record/1`` document for ``viewer`` (see :func:`record_for`)."""
    return record_for(game, players, viewer).document


def record_for(
    game: Game, players: Sequence[Mapping[str, Any]] | None = None, viewer: int | None = None
) -> RecordView:
    """The ``spades-record/1`` document ``viewer`` (the asking seat, if any) may see.

    A game that is over gives its full record: nobody holds a card any more. A running game keeps its
    scored hands whole, but of the hand in play only the bids and the cards already played, plus the
    viewer's own deal once the viewer may see it (which makes the view private); never the seed. Keys
    are copied by allow-list, so a secret added to :func:`export_record` later stays out until
    someone decides it is public.
    """
    if viewer is not None and not (isinstance(viewer, int) and 0 <= viewer < game.seats):
        raise IllegalAction(f"There is no seat {viewer!r} in this game.")
    full = export_record(game, players)
    if game.is_over:
        return RecordView(full, private=False)
    public = {key: full[key] for key in _PUBLIC_KEYS}
    hands = public["hands"]
    shown: tuple[str, ...] = ()
    if hands and "result" not in hands[-1]:
        current = hands[-1]
        shown = () if viewer is None or game.cards_hidden(viewer) else (str(viewer),)
        gave, got = game.passes(viewer) if viewer is not None and shown else ((), ())  # the partners' secret
        secret = {"deal": {seat: current["deal"][seat] for seat in shown}, "set_aside": [],
                  "draws": [d for d in current.get("draws", ()) if str(d["seat"]) in shown],
                  "passes": [p for p in current.get("passes", ()) if (p["from"] == viewer and gave)
                             or (p["to"] == viewer and got)]}
        hands[-1] = {key: secret[key] if key in secret else current[key] for key in _PUBLIC_HAND_KEYS
                     if key in current}
    return RecordView(public, private=bool(shown))
