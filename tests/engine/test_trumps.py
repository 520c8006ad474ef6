"""The house rule `trumps` (RULES.md "Cards and play"): deuces high, and jokers and deuces. Which
card takes a trick, what follows suit, what breaks spades, and the decks; refusals word for word."""

from __future__ import annotations

import json

import pytest

from bot.engine import Game, IllegalCard, Mode, Phase, RuleError, Rules, export_record, parse_card, seat_view
from bot.engine.card_order import ORDERS
from bot.engine.cards import card_code, display_sorted
from tests.engine.helpers import cards, deal, new_game, play_out, random_game, refused
from tests.record_check import check_record

DEUCES = Rules(trumps="deuces_high", spades_must_break=False)
JOKERS_DEUCES = Rules(trumps="jokers_deuces", spades_must_break=False)


def bid_all(game: Game) -> None:
    while game.phase is Phase.BIDDING:
        seat = game.turn
        assert seat is not None
        game.bid(seat, 1)


def play(game: Game, *codes: str) -> None:
    for code in codes:
        seat = game.turn
        assert seat is not None
        game.play(seat, parse_card(code))


def winner(game: Game) -> int:
    return game.hand_logs[-1].tricks[-1].winner


# ---------------------------------------------------------------------------------- decks
@pytest.mark.parametrize(("mode", "size", "each", "out"), [
    ("cutthroat", 54, 18, set()), ("solo", 52, 13, {"2C", "2H"}), ("partners", 52, 13, {"2C", "2H"}),
    ("duo", 52, 13, {"2C", "2H"}),
])
def test_jokers_and_deuces_decks(mode: str, size: int, each: int, out: set[str]) -> None:
    game = Game.new("g", mode, Rules(trumps="jokers_deuces"), seed=5)
    deck = {card_code(c) for c in game.deck()}
    assert len(deck) == size and {"BJ", "LJ", "2D", "2S"} <= deck and not out & deck
    assert game.tricks_per_hand == each
    game.deal()
    if mode != "duo":
        assert game.hand_sizes == (each,) * game.seats
        assert game.hand_logs[-1].set_aside == (), "54 cards deal evenly: nothing is set aside"


def test_deuces_high_keeps_the_standard_deck_and_cutthroat_sets_one_card_aside() -> None:
    game = Game.new("g", "cutthroat", Rules(trumps="deuces_high"), seed=5)
    assert sorted(game.deck()) == list(range(52)) and game.tricks_per_hand == 17
    game.deal()
    assert len(game.hand_logs[-1].set_aside) == 1


def test_combinations_that_do_not_fit_are_refused_with_a_reason() -> None:
    with pytest.raises(RuleError, match="^trumps=jokers_deuces sets the top spades itself: use jokers=false.$"):
        Rules(trumps="jokers_deuces", jokers=True).check_mode(Mode.PARTNERS)
    with pytest.raises(RuleError, match="^trumps=deuces_high needs the four deuces, and five plays without some: "
                                        "use trumps=standard.$"):
        Rules(trumps="deuces_high").check_mode(Mode.FIVE)
    with pytest.raises(RuleError, match="trumps can't be 'aces_high'"):
        Rules(trumps="aces_high")
    for mode in (Mode.CUTTHROAT, Mode.SOLO, Mode.PARTNERS, Mode.DUO):
        Rules(trumps="deuces_high").check_mode(mode)
        Rules(trumps="jokers_deuces").check_mode(mode)


# ------------------------------------------------------------------------------- winners
@pytest.mark.parametrize(("rules", "hands", "won_by"), [
    (DEUCES, {0: "AS", 1: "2H", 2: "KS", 3: "3S"}, 1),  # the lowest of the deuces beats the ace
    (DEUCES, {0: "2H", 1: "2C", 2: "AS", 3: "3S"}, 1),
    (DEUCES, {0: "2C", 1: "2H", 2: "2D", 3: "AS"}, 2),
    (DEUCES, {0: "2D", 1: "2S", 2: "2C", 3: "2H"}, 1),  # 2♠ 2♦ 2♣ 2♥, highest first
    (JOKERS_DEUCES, {0: "AS", 1: "2D", 2: "KS", 3: "3S"}, 1),
    (JOKERS_DEUCES, {0: "2D", 1: "2S", 2: "AS", 3: "3S"}, 1),
    (JOKERS_DEUCES, {0: "2S", 1: "LJ", 2: "2D", 3: "AS"}, 1),
    (JOKERS_DEUCES, {0: "LJ", 1: "2S", 2: "BJ", 3: "2D"}, 2),  # big joker, little joker, 2♠, 2♦
])
def test_trick_winners(rules: Rules, hands: dict[int, str], won_by: int) -> None:
    game = new_game("partners", rules)
    deal(game, hands)
    bid_all(game)
    play(game, *(hands[s] for s in range(4)))
    assert winner(game) == won_by


# ---------------------------------------------------------------------- following suit
def test_the_two_of_diamonds_is_a_spade_it_trumps_a_diamond_lead_and_follows_spades() -> None:
    game = new_game("partners", JOKERS_DEUCES)
    # Seat 1's only "diamond" is the 2♦, a spade: it need not follow diamonds and trumps with it.
    deal(game, {0: "KD AS", 1: "2D 5H 6H 7H 8H 9H 10H JH QH KH AH 3C 4C", 2: "3D", 3: "4D"})
    bid_all(game)
    play(game, "KD")
    assert parse_card("5H") in game.legal_cards(1) and parse_card("2D") in game.legal_cards(1)
    play(game, "2D", "3D", "4D")
    assert winner(game) == 1
    game = new_game("partners", JOKERS_DEUCES)
    deal(game, {0: "AS", 1: "2D 5H 6H 7H 8H 9H 10H JH QH KH AH 3C 4C"})
    bid_all(game)
    play(game, "AS")
    assert game.legal_cards(1) == (parse_card("2D"),)
    with refused(IllegalCard, "You must follow spades."):
        game.play(1, parse_card("5H"))
    assert seat_view(game, 1).legal_cards == (parse_card("2D"),)


def test_a_diamond_lead_must_be_followed_with_a_real_diamond_not_the_two() -> None:
    game = new_game("solo", JOKERS_DEUCES)
    deal(game, {0: "KD", 1: "2D 5D 6H"})
    bid_all(game)
    play(game, "KD")
    legal = game.legal_cards(1)
    assert parse_card("5D") in legal and parse_card("2D") not in legal
    with refused(IllegalCard, "You must follow diamonds."):
        game.play(1, parse_card("2D"))


def test_under_deuces_high_the_two_of_clubs_is_a_spade_for_breaking_spades() -> None:
    game = new_game("solo", Rules(trumps="deuces_high"))
    deal(game, {0: "2C 5C 6H", 1: "3C", 2: "4C", 3: "7D 8D 9D 10D JD QD KD AD 3H 4H 5H 7H 8H"})
    bid_all(game)
    with refused(IllegalCard, "Spades haven't been broken: lead another suit."):
        game.play(0, parse_card("2C"))
    assert parse_card("2C") not in game.legal_cards(0)
    play(game, "5C", "3C", "4C")
    assert not game.spades_broken
    seat = game.turn
    assert seat == 3 and parse_card("7D") in game.legal_cards(3)  # void in clubs: anything goes


def test_a_deuce_played_on_a_side_suit_breaks_spades_and_takes_the_trick() -> None:
    game = new_game("solo", Rules(trumps="deuces_high"))
    deal(game, {0: "5C", 1: "2H 3D", 2: "4C", 3: "6C"})
    bid_all(game)
    play(game, "5C")
    game.play(1, parse_card("2H"))  # void in clubs: the 2♥ is a spade here, and it trumps
    play(game, "4C", "6C")
    assert winner(game) == 1 and game.spades_broken


# ----------------------------------------------------------------------------- bidding
def test_whiz_counts_the_deuces_as_spades() -> None:
    game = new_game("partners", Rules(trumps="deuces_high", bidding="whiz"))
    deal(game, {0: "2H 2C 2D AS KS 3H 4H 5H 6H 7H 8H 9H 10H"})
    assert game.legal_bids(0) == (0, 5)


# ------------------------------------------------------------------------ the whole hand
@pytest.mark.parametrize("trumps", ["deuces_high", "jokers_deuces"])
@pytest.mark.parametrize("mode", ["cutthroat", "solo", "partners", "duo"])
def test_seeded_games_under_each_order_make_valid_records(mode: str, trumps: str) -> None:
    game = random_game(Mode(mode), Rules(trumps=trumps, target=100), seed=11)
    check_record(json.loads(json.dumps(export_record(game))))
    assert Game.from_json(game.to_json()).to_json() == game.to_json()


def test_a_hand_shows_the_deuces_among_the_spades_by_strength() -> None:
    order = ORDERS["jokers_deuces"]
    hand = cards("AS 2D KD 2S BJ 3H")
    assert [card_code(c) for c in display_sorted(hand, order.place)] == ["BJ", "2S", "2D", "AS", "3H", "KD"]
    assert [card_code(c) for c in display_sorted(cards("2H 2C AS 3C"), ORDERS["deuces_high"].place)] == \
        ["2C", "2H", "AS", "3C"]


def test_play_out_under_jokers_and_deuces_scores_every_trick() -> None:
    game = new_game("partners", Rules(trumps="jokers_deuces"))
    game.deal()
    play_out(game, {0: 3, 1: 3, 2: 3, 3: 3})
    assert sum(game.hand_logs[-1].result.tricks_won) == 13  # type: ignore[union-attr]
