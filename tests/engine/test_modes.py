"""The modes five and duo (RULES.md, "More modes"): their decks, deals, the draw, and their records."""

from __future__ import annotations

import json

import pytest

from bot.engine import (
    BadRecord,
    Drew,
    Game,
    IllegalAction,
    IllegalBid,
    NotYourTurn,
    Phase,
    RuleError,
    Rules,
    WrongPhase,
    card_code,
    export_record,
    parse_card,
    record_for,
    seat_view,
    start_hand,
)
from bot.engine.cards import STANDARD_DECK
from tests.engine.helpers import cards, deal, new_game, play_out, refused
from tests.record_check import check_record


def test_five_deals_ten_each_from_fifty_cards_without_the_red_twos():
    game = Game.new("g", "five", seed=11)
    game.deal()
    hands = [set(game.hand_of(s)) for s in range(5)]
    assert [len(h) for h in hands] == [10] * 5 and game.tricks_per_hand == 10
    held = set().union(*hands)
    assert len(held) == 50 and held.isdisjoint(cards("2D 2H"))
    assert game.legal_bids((game.dealer + 1) % 5) == tuple(range(11))
    assert game.hand_logs[-1].set_aside == ()


def test_five_refuses_a_deal_with_a_red_two():
    game = new_game("five")
    hands = [list(STANDARD_DECK[i * 10:(i + 1) * 10]) for i in range(5)]  # holds 2♦ (card 13)
    with pytest.raises(IllegalAction, match="not in this game's deck"):
        game.deal(hands, [])


def test_five_scores_each_player_alone():
    game = new_game("five")  # seat 0 bids and leads first
    deal(game, {0: "AS KS QS JS 10S 9S 8S 7S 6S 5S"})
    play_out(game, {0: 10, 1: 1, 2: 0, 3: 2, 4: 1})
    result = game.hand_logs[-1].result
    assert result is not None
    assert result.tricks_won == (10, 0, 0, 0, 0)
    assert result.hand_points == (100, -10, 100, -20, -10)
    assert game.scores == (100, -10, 100, -20, -10)


def duo_stock() -> list[int]:
    """A known stock: the spades from the ace down, then the rest of the deck in order."""
    spades = cards("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S")
    return spades + [c for c in STANDARD_DECK if c not in spades]


def test_duo_is_drawn_card_by_card_from_the_non_dealer():
    game = new_game("duo")  # dealer is seat 1: seat 0 draws first
    game.deal([(), ()], (), duo_stock())
    assert game.phase is Phase.DRAWING and game.turn == 0 and game.stock_left == 52
    assert game.drawn_card(0) == parse_card("AS") and game.drawn_card(1) is None
    game.draw(0, True)  # keeps A♠, discards K♠ unseen by bob
    assert game.hand_of(0) == (parse_card("AS"),) and game.discards_of(0) == (parse_card("KS"),)
    assert game.turn == 1 and game.drawn_card(1) == parse_card("QS")
    game.draw(1, False)  # discards Q♠, must keep J♠
    assert game.hand_of(1) == (parse_card("JS"),) and game.discards_of(1) == (parse_card("QS"),)
    assert seat_view(game, 0).discards == (parse_card("KS"),) and seat_view(game, 0).drawn == parse_card("10S")
    assert seat_view(game, 1).drawn is None and seat_view(game, 1).discards == (parse_card("QS"),)
    with refused(NotYourTurn, "It's alice's turn."):
        game.draw(1, True)
    with refused(WrongPhase, "The draw isn't finished yet."):
        game.bid(0, 3)
    while game.phase is Phase.DRAWING:
        seat = game.turn
        assert seat is not None
        game.draw(seat, True)
    assert game.hand_sizes == (13, 13) and len(game.hand_logs[-1].set_aside) == 26
    assert game.phase is Phase.BIDDING and game.turn == 0
    with refused(WrongPhase, "The draw is over."):
        game.draw(0, True)
    log = game.hand_logs[-1]
    assert log.deal == (game.hand_of(0), game.hand_of(1))
    assert len(log.draws) == 52 and log.draws[0] == (0, parse_card("AS"), True)


def test_duo_offers_no_blind_nil_however_far_behind():
    game = new_game("duo", Rules(blind_nil_deficit=0))
    game.deal()
    while game.phase is Phase.DRAWING:
        seat = game.turn
        assert seat is not None
        game.draw(seat, False)
    assert not game.cards_hidden(0) and not game.blind_nil_eligible(0)
    with refused(IllegalBid, "Blind nil needs you to be 0 points behind."):
        game.bid(0, 0, blind=True)


def test_duo_refuses_a_dealt_hand_and_a_short_stock():
    game = new_game("duo")
    with refused(IllegalAction, "In duo nothing is dealt: the hands come from the draw."):
        game.deal([STANDARD_DECK[:13], STANDARD_DECK[13:26]], STANDARD_DECK[26:])
    with refused(IllegalAction, "The stock must hold the whole deck."):
        game.deal([(), ()], (), duo_stock()[:50])
    with refused(IllegalAction, "solo deals the cards: only duo draws them from a stock."):
        new_game("solo").deal([(), (), (), ()], (), duo_stock())


def test_only_duo_has_a_draw():
    game = new_game("five")
    game.deal()
    with refused(WrongPhase, "There is no draw in five: the cards are dealt."):
        game.draw(0, True)


def test_a_draw_answer_must_be_yes_or_no():
    game = new_game("duo")
    game.deal()
    with refused(IllegalAction, "Keep the card or discard it: answer yes or no."):
        game.draw(0, 1)  # type: ignore[arg-type]


def play_duo_hand(game: Game) -> None:
    while game.phase is Phase.DRAWING:
        seat = game.turn
        assert seat is not None
        game.draw(seat, seat == 0)
    play_out(game, {0: 4, 1: 4})


def test_duo_record_holds_the_draw_and_replays():
    game = new_game("duo")
    game.deal([(), ()], (), duo_stock())
    play_duo_hand(game)
    record = json.loads(json.dumps(export_record(game)))
    check_record(record)
    hand = record["hands"][0]
    assert hand["draws"][:2] == [{"seat": 0, "card": "AS", "kept": True}, {"seat": 0, "card": "KS", "kept": False}]
    assert "AS" in hand["deal"]["0"] and "KS" in hand["set_aside"]
    replayed = new_game("duo")
    start_hand(replayed, hand)
    assert replayed.phase is Phase.BIDDING and replayed.hand_of(0) == game.hand_logs[0].deal[0]
    assert Game.from_json(game.to_json()).scores == game.scores
    assert Drew(0, True) in game.events


def test_a_running_duo_record_shows_each_player_only_their_own_draws():
    game = new_game("duo")
    game.deal([(), ()], (), duo_stock())
    game.draw(0, True)
    game.draw(1, True)
    mine = record_for(game, viewer=0)
    assert mine.private and mine.document["hands"][0]["draws"] == [
        {"seat": 0, "card": "AS", "kept": True}, {"seat": 0, "card": "KS", "kept": False}]
    assert record_for(game).document["hands"][0]["draws"] == []
    check_record(json.loads(json.dumps(mine.document)), public=True)


def test_a_damaged_draw_event_is_refused_on_load():
    game = new_game("duo")
    game.deal()
    game.draw(0, True)
    data = game.to_json()
    data["events"][1]["keep"] = "yes"
    with pytest.raises(BadRecord):
        Game.from_json(data)
    assert card_code(game.hand_of(0)[0]) in {d["card"] for d in export_record(game)["hands"][0]["draws"]}


def test_duo_refuses_trailing_blind_bids_and_makes_forced_bids_once_the_draw_is_over():
    with refused(RuleError, "blind_bids can't be played in duo: players see every card they draw; "
                            "use blind_bids=off."):
        Game.new("g", "duo", Rules(blind_bids=True))
    game = new_game("duo", Rules(bidding="mirrors"))
    game.deal([(), ()], (), duo_stock())
    while game.phase is Phase.DRAWING:
        assert game.hand_logs[-1].bids == []  # nobody bids before the draw is over
        seat = game.turn
        assert seat is not None
        game.draw(seat, True)
    spades = [sum(1 for c in game.hand_of(s) if c >= parse_card("2S")) for s in (0, 1)]
    assert game.phase is Phase.PLAYING  # under mirrors every bid is forced: the bot made both
    assert [(b.seat, b.bid, b.forced) for b in game.hand_logs[-1].bids] == [(0, spades[0], True), (1, spades[1], True)]


def test_in_duo_the_lowest_club_kept_in_the_draw_leads_under_two_clubs() -> None:
    """The first lead under first_lead=two_clubs goes by the cards held, which in duo are known only
    once the draw is over: the holder of the lowest club kept leads, whoever bid first."""
    for seed in range(6):
        game = Game.new(f"duo-lead-{seed}", "duo", Rules(first_lead="two_clubs"), seed=seed)
        game.deal()
        while game.phase is Phase.DRAWING:
            assert game.turn is not None
            game.draw(game.turn, seed % 2 == 0)
        while game.phase is Phase.BIDDING:
            assert game.turn is not None
            game.bid(game.turn, game.legal_bids(game.turn)[-1])
        clubs = {seat: [c for c in game.hand_of(seat) if c < 13] for seat in range(2)}
        holder = min((seat for seat in range(2) if clubs[seat]), key=lambda seat: min(clubs[seat]))
        assert game.turn == holder
