"""Nil passing: after the bidding, the partners of a nil bidder trade cards (1 each, 2 for a blind
nil), each choosing before seeing what comes; the pass is the two partners' secret until the hand
is over."""

from __future__ import annotations

import json

from bot.engine import (
    Game,
    IllegalCard,
    NotYourTurn,
    Phase,
    RuleError,
    Rules,
    WrongPhase,
    export_record,
    parse_card,
    record_for,
    seat_view,
)
from tests.engine.helpers import cards, deal, new_game, play_out, refused
from tests.record_check import check_record

PASSING = Rules(nil_pass="one_two", target=1000)


def bid_round(game: Game, *bids: int) -> None:
    for bid in bids:
        seat = game.turn
        assert seat is not None
        game.bid(seat, bid)


def test_a_nil_makes_its_team_trade_one_card_each_before_the_first_lead() -> None:
    game = new_game("partners", PASSING)
    deal(game, {0: "AS 2H", 2: "3C 4D"})
    bid_round(game, 0, 4, 3, 4)  # alice (seat 0) bids nil; carol (seat 2) is her partner
    assert game.phase is Phase.PASSING and game.turn == 0
    assert game.cards_to_pass(0) == 1 and game.cards_to_pass(2) == 0 and game.legal_cards(0) == ()
    with refused(IllegalCard, "You pass 1 card now, not 2."):
        game.pass_cards(0, cards("AS 2H"))
    with refused(IllegalCard, "You don't have the 3♣."):
        game.pass_cards(0, cards("3C"))
    with refused(WrongPhase, "Partners are passing cards first."):
        game.play(0, parse_card("2H"))
    game.pass_cards(0, cards("AS"))
    assert game.turn == 2
    # Carol chooses before seeing what comes: the ace is with nobody yet.
    view = seat_view(game, 2)
    assert view.to_pass == 1 and parse_card("AS") not in view.hand and view.received == ()
    assert seat_view(game, 0).passed == (parse_card("AS"),)
    with refused(NotYourTurn, "It's carol's turn."):
        game.pass_cards(0, cards("2H"))
    game.pass_cards(2, cards("3C"))
    assert game.phase is Phase.PLAYING and game.turn == 0  # left of the dealer leads, as ever
    assert parse_card("AS") in game.hand_of(2) and parse_card("3C") in game.hand_of(0)
    assert seat_view(game, 2).received == (parse_card("AS"),) and seat_view(game, 0).received == (parse_card("3C"),)
    assert game.hand_sizes == (13, 13, 13, 13)
    with refused(WrongPhase, "There are no cards to pass now."):
        game.pass_cards(0, cards("2H"))


def test_a_blind_nil_trades_two_cards_each_and_both_teams_may_pass() -> None:
    game = new_game("partners", PASSING.with_options(blind_nil_deficit=0))
    deal(game, {})
    for looker in (0, 2, 3):  # seat 1 bids blind nil without looking
        game.reveal(looker)
    game.bid(0, 0)  # nil
    game.bid(1, 0, blind=True)  # blind nil
    game.bid(2, 4)
    game.bid(3, 4)
    assert game.phase is Phase.PASSING
    counts = []
    while game.phase is Phase.PASSING:
        seat = game.turn
        assert seat is not None
        counts.append((seat, game.cards_to_pass(seat)))
        game.pass_cards(seat, game.hand_of(seat)[:1])  # one at a time is fine
    assert counts == [(0, 1), (1, 2), (1, 1), (2, 1), (3, 2), (3, 1)]
    record = export_record(game)
    assert [(p["from"], p["to"], len(p["cards"])) for p in record["hands"][0]["passes"]] == [
        (0, 2, 1), (1, 3, 2), (2, 0, 1), (3, 1, 2)]


def test_no_nil_no_passing_and_the_rule_off_no_passing() -> None:
    game = new_game("partners", PASSING)
    deal(game, {})
    bid_round(game, 3, 3, 3, 3)
    assert game.phase is Phase.PLAYING
    game = new_game("partners")
    deal(game, {})
    bid_round(game, 0, 3, 3, 3)
    assert game.phase is Phase.PLAYING


def test_nil_pass_is_for_partners() -> None:
    with refused(RuleError, "nil_pass is for partners, and solo has none: use nil_pass=off."):
        Game.new("g", "solo", PASSING)


def test_a_passed_two_of_clubs_takes_the_first_lead_with_it() -> None:
    game = new_game("partners", PASSING.with_options(first_lead="two_clubs"))
    deal(game, {0: "2C", 2: "3C"})
    bid_round(game, 0, 3, 3, 3)
    game.pass_cards(0, cards("2C"))
    game.pass_cards(2, cards("3C"))
    assert game.turn == 2 and game.trick_leader == 2


def test_the_pass_is_the_partners_secret_until_the_hand_is_over() -> None:
    game = new_game("partners", PASSING)
    deal(game, {0: "AS", 2: "3C"})
    bid_round(game, 0, 4, 3, 4)
    game.pass_cards(0, cards("AS"))

    def passes(viewer: int | None) -> list[object]:
        document = json.loads(json.dumps(record_for(game, viewer=viewer).document))
        check_record(document, public=True)
        return list(document["hands"][-1].get("passes", []))

    assert passes(0) == [{"from": 0, "to": 2, "cards": ["AS"]}]
    assert passes(2) == [] and passes(1) == [] and passes(None) == []  # carol hasn't received it yet
    game.pass_cards(2, cards("3C"))
    both = [{"from": 0, "to": 2, "cards": ["AS"]}, {"from": 2, "to": 0, "cards": ["3C"]}]
    assert passes(0) == both and passes(2) == both
    assert passes(1) == [] and passes(3) == [] and passes(None) == []
    play_out(game, {})
    record = json.loads(json.dumps(export_record(game)))
    check_record(record)
    assert record["hands"][0]["passes"] == both
    assert json.loads(json.dumps(record_for(game, viewer=1).document))["hands"][0]["passes"] == both
    rebuilt = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert export_record(rebuilt) == export_record(game)
