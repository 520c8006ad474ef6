"""The house rules of cards and play (RULES.md "Cards and play"), each in a hand-built position;
refusals are checked word for word as players read them."""

from __future__ import annotations

import pytest

from bot.engine import (
    BIG_JOKER,
    LITTLE_JOKER,
    Game,
    IllegalAction,
    IllegalCard,
    Mode,
    Phase,
    RuleError,
    Rules,
    parse_card,
    seat_view,
)
from bot.engine.cards import card_code
from tests.engine.helpers import cards, deal, deal_hands, new_game, play_out, refused


def bid_all(game: Game, bid: int = 1) -> None:
    while game.phase is Phase.BIDDING:
        seat = game.turn
        assert seat is not None
        game.bid(seat, bid)


def play(game: Game, *codes: str) -> None:
    for code in codes:
        seat = game.turn
        assert seat is not None
        game.play(seat, parse_card(code))


# --------------------------------------------------------------------------------- jokers
@pytest.mark.parametrize("mode", ["solo", "partners"])
def test_jokers_in_four_seat_modes_replace_the_two_of_clubs_and_of_diamonds(mode: str) -> None:
    game = Game.new("g", mode, Rules(jokers=True), seed=3)
    deck = {card_code(c) for c in game.deck()}
    assert len(deck) == 52 and {"BJ", "LJ"} <= deck and not {"2C", "2D"} & deck
    game.deal()
    assert game.tricks_per_hand == 13 and game.hand_sizes == (13, 13, 13, 13)
    assert {card_code(c) for s in range(4) for c in game.hand_of(s)} == deck


def test_a_four_seat_joker_deal_with_the_two_of_clubs_is_refused() -> None:
    game = new_game("solo", Rules(jokers=True))
    hands = [cards("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC")] + [[] for _ in range(3)]
    rest = [c for c in game.deck() if c not in hands[0]]
    for seat in (1, 2, 3):
        hands[seat] = rest[(seat - 1) * 13:seat * 13]
    with pytest.raises(IllegalAction, match="is not in this game's deck"):
        game.deal(hands)


def test_in_partners_the_big_joker_beats_the_little_joker_beats_the_ace_of_spades() -> None:
    game = new_game("partners", Rules(jokers=True, spades_must_break=False))
    deal(game, {0: "AS", 1: "LJ", 2: "KS", 3: "BJ"})
    bid_all(game)
    play(game, "AS", "LJ", "KS", "BJ")
    assert game.hand_logs[-1].tricks[0].winner == 3
    assert seat_view(game, 0).deck_mask == sum(1 << c for c in game.deck())
    assert LITTLE_JOKER in game.deck() and BIG_JOKER in game.deck()


def test_jokers_are_played_in_the_classic_modes_and_refused_where_the_rules_deal_none() -> None:
    for mode in (Mode.CUTTHROAT, Mode.SOLO, Mode.PARTNERS):
        Rules(jokers=True).check_mode(mode)
    for mode in (Mode.DUO, Mode.FIVE):  # RULES.md gives these modes their own decks, without jokers
        with pytest.raises(RuleError, match=f"jokers isn't played in {mode.value}"):
            Rules(jokers=True).check_mode(mode)


# ----------------------------------------------------------------------------- first lead
def test_two_clubs_first_lead_goes_to_the_holder_of_the_two_of_clubs_after_the_usual_bidding() -> None:
    game = new_game("solo", Rules(first_lead="two_clubs"))
    deal(game, {0: "3C 4C", 2: "2C"})
    assert game.turn == 0, "bidding still starts left of the dealer"
    bid_all(game)
    assert game.turn == 2 and game.trick_leader == 2
    play_out(game, {})
    second = game.hand_logs[-1]
    assert second.tricks[0].leader == 2


def test_without_the_two_of_clubs_the_lowest_club_dealt_leads() -> None:
    game = new_game("partners", Rules(first_lead="two_clubs", jokers=True))
    deal(game, {1: "3C"})
    bid_all(game)
    assert game.turn == 1
    game = new_game("cutthroat", Rules(first_lead="two_clubs", leftover="two_clubs"))
    deal(game, {2: "3C"}, set_aside="2C")
    bid_all(game)
    assert game.turn == 2


def test_each_hand_finds_its_own_first_leader() -> None:
    game = new_game("solo", Rules(first_lead="two_clubs", target=1000))
    deal(game, {3: "2C"})
    bid_all(game)
    assert game.turn == 3
    play_out(game, {})
    deal(game, {1: "2C"})
    bid_all(game)
    assert game.turn == 1


# ---------------------------------------------------------------------------- first trick
def test_no_spades_on_the_first_trick_unless_nothing_else() -> None:
    game = new_game("solo", Rules(first_trick="no_spades", spades_must_break=False))
    deal(game, {0: "AS 5H KS", 1: "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS 2D 3D", 2: "2H"})
    bid_all(game)
    with refused(IllegalCard, "On the first trick you can't play a spade while you hold another suit."):
        game.play(0, parse_card("AS"))
    legal = game.legal_cards(0)
    assert parse_card("5H") in legal and not {parse_card("AS"), parse_card("KS")} & set(legal)
    assert seat_view(game, 0).play_note == "On the first trick you can't play a spade while you hold another suit."
    game.play(0, parse_card("5H"))
    with refused(IllegalCard, "On the first trick you can't play a spade while you hold another suit."):
        game.play(1, parse_card("QS"))
    game.play(1, parse_card("2D"))
    play(game, "2H")
    game.play(3, game.legal_cards(3)[0])
    assert game.hand_logs[-1].tricks[0].winner == 0
    game.play(0, parse_card("AS"))  # the second trick is free


def test_no_spades_lets_a_hand_of_only_spades_play_one() -> None:
    game = new_game("cutthroat", Rules(first_trick="no_spades"))
    spades = "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"
    deal(game, {0: "2H 3H", 1: spades + " 4H 5H 6H 7H"})
    bid_all(game)
    game.play(0, parse_card("2H"))
    game.play(1, parse_card("4H"))
    assert game.play_note(1) is None


def test_lowest_club_on_the_first_trick() -> None:
    game = new_game("solo", Rules(first_trick="lowest_club"))
    deal(game, {0: "5C 9C AH", 1: "3C KC 6C 7C 10C JC QC AC", 2: "2H 3H", 3: "2C 4C 8C"})
    bid_all(game)
    with refused(IllegalCard, "On the first trick you must play your lowest club, 5♣."):
        game.play(0, parse_card("AH"))
    with refused(IllegalCard, "On the first trick you must play your lowest club, 5♣."):
        game.play(0, parse_card("9C"))
    assert seat_view(game, 0).play_note == "On the first trick you must play your lowest club, 5♣."
    game.play(0, parse_card("5C"))
    with refused(IllegalCard, "On the first trick you must play your lowest club, 3♣."):
        game.play(1, parse_card("KC"))
    game.play(1, parse_card("3C"))
    game.play(2, parse_card("3H"))  # no club: any card
    with refused(IllegalCard, "On the first trick you must play your lowest club, 2♣."):
        game.play(3, parse_card("4C"))
    game.play(3, parse_card("2C"))
    assert game.turn == 0
    game.play(0, parse_card("AH"))  # the second trick is free


def test_lowest_club_does_not_bind_a_trick_led_in_another_suit() -> None:
    # The leader holds no club: the others follow the suit led as usual.
    game = new_game("solo", Rules(first_trick="lowest_club"))
    no_clubs = "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD"
    deal(game, {0: no_clubs, 1: "2C 3C 2H"})
    bid_all(game)
    game.play(0, parse_card("5D"))
    assert game.play_note(1) is None
    game.play(1, parse_card("3C"))


# ---------------------------------------------------------------------------- overtrump
def test_must_overtrump_a_spade_on_a_side_suit_trick() -> None:
    game = new_game("solo", Rules(must_overtrump=True))
    deal_hands(game, "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
               "9S JS QS KS AS 2C 3C 4C 5C 6C 7C 8C 9C",
               "10S 2S AC 2D 3D 4D 5D 6D 7D 8D 9D 10D JD",
               "10C JC QC KC QD KD AD 3S 4S 5S 6S 7S 8S")
    bid_all(game)
    play(game, "5H", "9S")
    with refused(IllegalCard, "You can beat the 9♠, so you must: play a higher spade."):
        game.play(2, parse_card("3D"))
    with refused(IllegalCard, "You can beat the 9♠, so you must: play a higher spade."):
        game.play(2, parse_card("2S"))
    assert seat_view(game, 2).play_note == "You can beat the 9♠, so you must: play a higher spade."
    game.play(2, parse_card("10S"))
    assert game.play_note(3) is None
    game.play(3, parse_card("QD"))  # can't beat the 10♠: anything goes
    assert game.hand_logs[-1].tricks[0].winner == 2


def test_no_overtrump_without_a_spade_on_the_trick_or_when_following() -> None:
    game = new_game("solo", Rules(must_overtrump=True))
    deal_hands(game, "2H 3H 4H 5H 6H 7H 8H 10H JH QH KH AH 2C",
               "9H AS 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC",
               "10S 3D AC 2D 4D 5D 6D 7D 8D 9D 10D JD QD",
               "KD AD 2S 3S 4S 5S 6S 7S 8S 9S JS QS KS")
    bid_all(game)
    play(game, "5H", "9H", "3D")  # seat 1 follows; seat 2 discards with no spade yet on the trick
    assert game.play_note(3) is None
    game.play(3, parse_card("KD"))


def test_the_house_rules_of_play_hold_for_every_card_of_a_played_out_hand() -> None:
    rules = Rules(first_trick="lowest_club", must_overtrump=True, first_lead="two_clubs", jokers=True)
    game = Game.new("g", "partners", rules, seed=11)
    game.deal()
    play_out(game, {0: 3, 1: 3, 2: 3, 3: 3})
    record = game.hand_logs[-1]
    first = record.tricks[0]
    assert first.plays[0][1] == min(c for hand in record.deal for c in hand if c < 13)
    rebuilt = Game.from_json(game.to_json())
    assert rebuilt.hand_logs[-1].tricks == record.tricks
