"""Card input as people type it, and rule options as admins type them."""

from __future__ import annotations

import pytest

from bot.engine import (
    BIG_JOKER,
    LITTLE_JOKER,
    CardParseError,
    Mode,
    RuleError,
    Rules,
    card_code,
    card_label,
    display_sorted,
    parse_card,
)
from tests.engine.helpers import refused


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("AS", "AS"), ("as", "AS"), ("A♠", "AS"), ("a♠️", "AS"), ("10h", "10H"), ("th", "10H"),
        ("T♥", "10H"), ("ace of spades", "AS"), ("queen of hearts", "QH"), ("Queen Of Hearts", "QH"),
        ("2c", "2C"), ("two of clubs", "2C"), ("jd", "JD"), ("K♦", "KD"), (" 9 s ", "9S"),
        ("BJ", "BJ"), ("lj", "LJ"), ("big joker", "BJ"), ("little joker", "LJ"), ("10 of diamonds", "10D"),
    ],
)
def test_parse_card_accepts_what_people_type(text, code):
    assert card_code(parse_card(text)) == code


@pytest.mark.parametrize("text", ["", "11h", "ZS", "ace", "ace of stars", "AS KS", "1 0h", "xyz"])
def test_parse_card_error_shows_the_accepted_forms(text):
    with pytest.raises(CardParseError) as error:
        parse_card(text)
    assert "AS, as, A♠, 10h" in str(error.value) and "ace of spades" in str(error.value)


def test_every_card_round_trips_through_code_and_label():
    for card in range(54):
        assert parse_card(card_code(card)) == card
        assert parse_card(card_label(card)) == card
    assert card_label(parse_card("10h")) == "10♥"
    assert card_code(BIG_JOKER) == "BJ" and card_code(LITTLE_JOKER) == "LJ"


def test_display_order_alternates_colours_high_to_low():
    hand = [parse_card(c) for c in "2C AH 3S KS 10D JC".split()]
    assert [card_label(c) for c in display_sorted(hand)] == ["K♠", "3♠", "A♥", "J♣", "2♣", "10♦"]


def test_rules_defaults_match_rules_md():
    assert Rules().to_dict() == {
        "target": 500, "nil": True, "blind_nil": True, "blind_nil_deficit": 100, "no_exact_total": False,
        "spades_must_break": True, "set_penalty": "minus", "nil_value": 100, "blind_nil_value": 200,
        "bag_limit": 10, "bag_penalty": 100, "nil_tricks_help_partner": False, "mercy": None,
        "leftover": "last", "jokers": False, "hints": "auto",
        # house rules: bidding and scoring
        "bidding": "standard", "min_bid": 1, "ten_for_200": False, "ten_for_200_loss": 200, "moon": False,
        "double_nil": "separate", "blind_bids": False, "overtricks": "bags", "double_back": False,
        "seven_bonus": False, "last_trick": False,
        "first_lead": "dealer_left", "first_trick": "free", "must_overtrump": False, "fast_finish": True,
        "nil_pass": "off", "trumps": "standard",
        "teams": "solo", "identical": "first",
    }


def test_rules_from_text_options():
    rules = Rules.from_options({"target": "200", "mercy": "250", "nil": "off", "set_penalty": "zero",
                                "leftover": "two_clubs"})
    assert (rules.target, rules.mercy, rules.nil, rules.set_penalty, rules.leftover) == (
        200, 250, False, "zero", "two_clubs")
    assert Rules.from_options({"mercy": "none"}, base=rules).mercy is None
    assert Rules.from_options({"TARGET": 300}).target == 300


@pytest.mark.parametrize("off", ["0", " 0 ", 0, "none", "off"])
def test_mercy_0_is_off_as_in_spades_new(off: object) -> None:
    assert Rules.from_options({"mercy": off}, base=Rules(mercy=200)).mercy is None


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"bogus": "1"}, "Unknown rule option “bogus”. Options are: target, nil, blind_nil"),
        ({"target": "20"}, "target can't be 20: it takes a number from 50 to 1000."),
        ({"target": "lots"}, "target can't be “lots”: it takes a number from 50 to 1000."),
        ({"nil": "maybe"}, "nil can't be “maybe”: it takes true or false."),
        ({"set_penalty": "double"}, "set_penalty can't be 'double': it takes minus or zero."),
        ({"leftover": "first"}, "leftover can't be 'first': it takes last or two_clubs."),
        ({"mercy": "10"}, "mercy can't be 10: it takes a number from 50 to 1000, or 0 (none) for off."),
        ({"bag_limit": "0"}, "bag_limit can't be 0: it takes a number from 1 to 100."),
    ],
)
def test_bad_options_are_refused_with_the_allowed_values(options, message):
    with pytest.raises(RuleError) as error:
        Rules.from_options(options)
    assert str(error.value).startswith(message)


def test_unknown_mode_lists_the_modes():
    with refused(RuleError, "Unknown mode “trio”: use one of cutthroat, solo, partners, duo, five, six."):
        Mode.parse("trio")
