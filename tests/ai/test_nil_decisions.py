"""Nil and blind nil: the normal player throws no hopeless blind nils, takes a good one when far
behind, bids open nil only where it can be made, and plays the nil hands sensibly; normal-v1 keeps
its old habits (the yardstick), easy never bids either."""

from __future__ import annotations

from bot.ai import BLIND_NIL, REVEAL, Move, make_player
from bot.ai.bidding import blind_nil_chance, wants_blind_nil
from bot.ai.habits import CURRENT, FIRST
from bot.ai.policy import normal_card
from bot.ai.sim import PlayState
from bot.engine import Game, Rules, SeatView, mask_of, parse_card, seat_view

SAFE_NIL = "2C 3C 4C 5C 2D 3D 4D 6D 2H 3H 5H 7H 2S"  # nothing above a seven, one low spade
GUARDED_QUEEN = "2C 3C 4C 5C 2D 3D 4D 6D 2H 3H 5H QH 2S"  # a queen with low cards to duck under it
STRONG = "AS KS QS JS 10S AH KH AD KD AC KC 2C 3C"


def cards(text: str) -> tuple[int, ...]:
    return tuple(sorted(parse_card(c) for c in text.split()))


def bidding_view(mode: str, scores: tuple[int, ...], mate_bid: int | None = None, hand: str | None = None,
                 target: int = 500) -> SeatView:
    """The view of the seat about to bid: blind nil still open to it unless ``hand`` is shown."""
    game = Game.new("nil-decisions", mode, Rules(target=target), seed=1)
    game.deal()
    view = seat_view(game, game.turn or 0)
    bids: list[int | None] = [None] * view.seats
    if mate_bid is not None:
        bids[(view.seat + 2) % 4] = mate_bid
    seat_scores = tuple(scores[(s - view.seat) % len(scores)] for s in range(view.seats))  # scores[0] is ours
    if hand is None:
        return view._replace(scores=seat_scores, bids=tuple(bids), hand=(), cards_hidden=True, can_blind_nil=True,
                             legal_bids=())
    return view._replace(scores=seat_scores, bids=tuple(bids), hand=cards(hand), cards_hidden=False,
                         can_blind_nil=False, legal_bids=tuple(range(view.tricks_per_hand + 1)))


def test_no_hopeless_blind_nil_however_far_behind():
    """Cutthroat and solo have no partner to cover; in partners a weak or unknown partner's bid leaves
    too little chance. 400 behind with the leader near the target is no reason to throw 200 more."""
    desperate = [("cutthroat", (50, 450, 300), None), ("solo", (50, 460, 200, 100), None),
                 ("partners", (50, 450, 50, 450), 3), ("partners", (50, 450, 50, 450), None)]
    for mode, scores, mate in desperate:
        view = bidding_view(mode, scores, mate)
        assert blind_nil_chance(view) < 0.35
        for level in ("normal", "hard", "easy"):
            assert make_player(level, seed=1, budget="2it").choose(view) == REVEAL, (mode, level)
        assert make_player("normal-v1").choose(view) == BLIND_NIL, mode  # the old habit, frozen


def test_blind_nil_when_far_behind_with_a_strong_partner():
    view = bidding_view("partners", (100, 420, 100, 420), mate_bid=6)
    assert blind_nil_chance(view) >= 0.35
    assert make_player("normal").choose(view) == BLIND_NIL
    assert make_player("hard", seed=1, budget="2it").choose(view) == BLIND_NIL
    assert make_player("easy").choose(view) == REVEAL


def test_no_blind_nil_when_the_game_is_still_open():
    """Only the rules' deficit behind, the leader far from the target: bid on the cards instead."""
    view = bidding_view("partners", (100, 250, 100, 250), mate_bid=6)
    assert not wants_blind_nil(view)
    assert make_player("normal").choose(view) == REVEAL


def test_open_nil_with_a_safe_hand_but_never_beside_a_partners_nil():
    assert make_player("normal").choose(bidding_view("partners", (0, 0, 0, 0), 4, SAFE_NIL)) == Move.bid(0)
    assert make_player("normal").choose(bidding_view("solo", (0, 0, 0, 0), None, SAFE_NIL)) == Move.bid(0)
    beside_nil = make_player("normal").choose(bidding_view("partners", (0, 0, 0, 0), 0, SAFE_NIL))
    assert beside_nil.kind == "bid" and beside_nil.value > 0
    # The first version bid nil beside its partner's nil, and outside partners only with no risk at all.
    assert make_player("normal-v1").choose(bidding_view("partners", (0, 0, 0, 0), 0, SAFE_NIL)) == Move.bid(0)
    assert make_player("normal").choose(bidding_view("solo", (0, 0, 0, 0), None, GUARDED_QUEEN)) == Move.bid(0)
    assert make_player("normal-v1").choose(bidding_view("solo", (0, 0, 0, 0), None, GUARDED_QUEEN)).value > 0
    strong = make_player("normal").choose(bidding_view("partners", (0, 0, 0, 0), 4, STRONG))
    assert strong.value >= 6


def trick_state(partners: bool, hands: dict[int, str], bids: tuple[int, ...], plays: list[str],
                leader: int) -> PlayState:
    """Seats' hands (the cards still to be played included), then the trick's plays so far."""
    seats = len(bids)
    masks = [mask_of(cards(hands.get(s, ""))) for s in range(seats)]
    state = PlayState(Rules(), 2 if partners else seats, masks, bids, (False,) * seats, [0] * seats, (0,) * seats,
                      leader, 13, 0, False, deck=mask_of(range(52)))
    for code in plays:
        state.play(parse_card(code))
    return state


def test_a_nil_bidder_forced_over_plays_its_lowest_card_while_others_may_still_go_higher():
    state = trick_state(False, {0: "5H 2C", 1: "9H KH", 2: "QH 3C", 3: "4D 5D"}, (3, 0, 4, 4), ["5H"], leader=0)
    assert normal_card(state, 1, CURRENT) == parse_card("9H")
    assert normal_card(state, 1, FIRST) == parse_card("KH")


def test_the_partner_of_a_nil_bidder_goes_over_it_cheaply():
    state = trick_state(True, {3: "2H 4C", 0: "9H 5C", 1: "5H 6C", 2: "10H AH"}, (0, 3, 5, 3),
                        ["2H", "9H", "5H"], leader=3)
    assert normal_card(state, 2, CURRENT) == parse_card("10H")
    assert normal_card(state, 2, FIRST) == parse_card("AH")


def test_partners_lead_low_into_an_opponents_clean_nil_before_their_own_tricks():
    state = trick_state(True, {0: "AH 2C 9D", 1: "5H 6C 7D", 2: "KH 3C 8D", 3: "4H 5C 6D"}, (4, 0, 4, 3), [],
                        leader=0)
    assert normal_card(state, 0, CURRENT) == parse_card("2C")
    assert normal_card(state, 0, FIRST) == parse_card("AH")
