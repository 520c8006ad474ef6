"""Six players from two decks (RULES.md, "More modes"): the deck, the teams, two identical cards on
one trick under ``identical``, a copy named either way, team scoring, and the record's codes."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bot.engine import Game, IllegalCard, Mode, Phase, RuleError, Rules, card_code, export_record, parse_card
from bot.engine.cards import SECOND_COPY
from bot.engine.record import start_hand
from tests.engine.helpers import deal, new_game, play_out, refused
from tests.record_check import check_record


def six(teams: str = "pairs", **options: object) -> Game:
    return new_game("six", Rules(teams=teams, **options))  # type: ignore[arg-type]


def test_two_decks_without_their_two_of_clubs_deal_17_each() -> None:
    game = six()
    game.deal()
    codes = Counter(card_code(c) for seat in range(6) for c in game.hand_of(seat))
    assert game.tricks_per_hand == 17 and all(len(game.hand_of(s)) == 17 for s in range(6))
    assert len(codes) == 51 and set(codes.values()) == {2} and "2C" not in codes


@pytest.mark.parametrize(("teams", "sides"), [
    ("solo", [(0,), (1,), (2,), (3,), (4,), (5,)]),
    ("pairs", [(0, 3), (1, 4), (2, 5)]),
    ("trios", [(0, 2, 4), (1, 3, 5)]),
])
def test_teams_sit_as_rules_md_says(teams: str, sides: list[tuple[int, ...]]) -> None:
    game = six(teams)
    assert [game.side_seats(side) for side in range(game.sides)] == sides
    assert all(game.side_of(seat) == side for side, members in enumerate(sides) for seat in members)


@pytest.mark.parametrize(("identical", "winner"), [("first", 1), ("last", 3)])
def test_of_two_identical_cards_on_a_trick_the_first_or_the_last_played_wins(identical: str, winner: int) -> None:
    game = six("solo", identical=identical, spades_must_break=False)
    deal(game, {0: "KH", 1: "AH", 2: "2H", 3: "AH", 4: "3H", 5: "4H"})
    play_out_bids(game)
    for seat, code in enumerate(["KH", "AH", "2H", "AH", "3H", "4H"]):
        game.play(seat, parse_card(code))
    assert game.hand_logs[-1].tricks[0].winner == winner


CLUBS = "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC"


@pytest.mark.parametrize(("identical", "winner"), [("first", 2), ("last", 4)])
def test_two_identical_spades_ruffing_a_trick_follow_identical_too(identical: str, winner: int) -> None:
    game = six("solo", identical=identical)
    # Seats 2 and 4 hold no heart: each ruffs with its 3♠.
    deal(game, {0: "KH", 1: "AH", 2: f"3S {CLUBS} 2D 3D 4D 5D", 3: "2H", 4: f"3S {CLUBS} 6D 7D 8D 9D", 5: "5H"})
    play_out_bids(game)
    for seat, code in enumerate(["KH", "AH", "3S", "2H", "3S", "5H"]):
        game.play(seat, parse_card(code))
    assert game.hand_logs[-1].tricks[0].winner == winner


def test_a_seat_holding_both_copies_plays_either_by_naming_the_card_and_keeps_the_other() -> None:
    game = six("solo")
    deal(game, {0: "QD QD 5C"})
    play_out_bids(game)
    queen = parse_card("QD")
    assert [card_code(c) for c in game.legal_cards(0)].count("QD") == 2  # one button a physical card
    game.play(0, queen + SECOND_COPY)  # the second copy's button: the first copy is played, the other kept
    assert [card_code(c) for c in game.hand_of(0)].count("QD") == 1
    assert game.trick == ((0, queen),)


def test_a_card_not_held_in_either_copy_is_refused() -> None:
    game = six("solo")
    deal(game, {0: "QD 5C"})
    play_out_bids(game)
    held = Counter(card_code(c) for c in game.hand_of(0))
    missing = next(code for code in ("AS", "KS", "QS", "JS") if not held[code])
    with refused(IllegalCard, f"You don't have the {missing[:-1]}♠."):
        game.play(0, parse_card(missing))


@pytest.mark.parametrize("teams", ["pairs", "trios"])
def test_a_teams_contract_is_its_members_non_nil_bids_and_they_share_the_score(teams: str) -> None:
    game = six(teams, fast_finish=False)
    game.deal()
    bids = {0: 2, 1: 3, 2: 1, 3: 0, 4: 2, 5: 2}
    play_out(game, bids)
    result = game.hand_logs[-1].result
    assert result is not None
    won = result.tricks_won
    for side in range(game.sides):
        members = game.side_seats(side)
        contract = sum(bids[s] for s in members if bids[s])
        taken = sum(won[s] for s in members if bids[s])
        nil = sum((100 if won[s] == 0 else -100) for s in members if bids[s] == 0)
        made = 10 * contract + (taken - contract) if taken >= contract else -10 * contract
        assert {result.hand_points[s] for s in members} == {made + nil}


def test_the_record_names_each_copy_by_its_code_and_replays_to_the_same_hands() -> None:
    game = six("pairs", fast_finish=False)
    game.deal()
    play_out(game, {0: 3, 1: 3, 2: 3, 3: 3, 4: 2, 5: 2}, policy=lambda g, s: g.legal_cards(s)[-1])
    record = json.loads(json.dumps(export_record(game)))
    check_record(record)
    hand = record["hands"][0]
    assert Counter(c for seat in hand["deal"].values() for c in seat).most_common(1)[0][1] == 2
    again = Game("again", Mode.SIX, Rules.from_options(record["rules"]), seed=1, first_dealer=hand["dealer"],
                 names=game.names)
    start_hand(again, hand)
    assert [again.hand_of(s) for s in range(6)] == [tuple(sorted(h)) for h in game.hand_logs[0].deal]
    rebuilt = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert rebuilt.to_json() == game.to_json() and rebuilt.scores == game.scores


@pytest.mark.parametrize(("mode", "options", "message"), [
    (Mode.PARTNERS, {"teams": "pairs"}, "teams is for six; partners has its own seating: use teams=solo."),
    (Mode.FIVE, {"identical": "last"}, "identical is for six's two decks; five plays one: use identical=first."),
    (Mode.SIX, {"jokers": True}, "jokers isn't played in six: use jokers=false."),
    (Mode.SIX, {"teams": "trios", "nil_pass": "one_two"},
     "nil_pass in six is for teams=pairs (one partner to pass to): use nil_pass=off."),
    (Mode.SIX, {"teams": "trios", "double_nil": "double"},
     "double_nil=double is for teams of two: use double_nil=separate with teams=trios."),
    (Mode.SIX, {"bidding": "suicide"},
     "bidding=suicide is for team modes (one nil a team): use another bidding style."),
])
def test_six_options_are_refused_where_they_do_not_fit(mode: Mode, options: dict[str, object], message: str) -> None:
    with pytest.raises(RuleError) as error:
        Rules.from_options(options).check_mode(mode)
    assert str(error.value) == message


def play_out_bids(game: Game) -> None:
    """Everyone bids 1, so play begins with seat 0's lead."""
    while game.phase is Phase.BIDDING:
        seat = game.turn
        assert seat is not None
        game.bid(seat, 1)
