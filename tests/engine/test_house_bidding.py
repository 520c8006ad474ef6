"""The house rules of bidding, the moon and the last trick, played through the game (RULES.md
"House rules"): what each allows, what it refuses and in which words, and the bids it forces."""

from __future__ import annotations

import json

import pytest

from bot.engine import BadRecord, Ending, Game, IllegalBid, Mode, Phase, RuleError, Rules, export_record
from tests.engine.helpers import deal, new_game, play_out, refused

# Four seats, 13 cards each; "S" counts spades.
ALL_SPADES = "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"
THREE_SPADES = "AS KS QS AH KH QH JH 10H 9H 8H 7H 6H 5H"
NO_SPADES = "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C"


def test_whiz_bids_your_spades_or_nil():
    game = new_game("solo", Rules(bidding="whiz"))
    deal(game, {0: THREE_SPADES})
    assert game.legal_bids(0) == (0, 3)
    with refused(IllegalBid, "Whiz: bid your spades (3) or nil."):
        game.bid(0, 4)
    game.bid(0, 3)
    assert game.bids[0] == 3


def test_whiz_forces_nil_without_spades_and_says_so_in_the_record():
    game = new_game("solo", Rules(bidding="whiz"))
    deal(game, {0: THREE_SPADES, 1: NO_SPADES})
    game.bid(0, 0)
    assert game.bids[1] == 0 and game.hand_logs[0].bids[1].forced, "seat 1 had one bid left: the game made it"
    record = export_record(game)
    assert record["hands"][0]["bids"][1] == {"seat": 1, "bid": 0, "blind": False, "forced": True}
    assert "forced" not in record["hands"][0]["bids"][0]


def test_mirrors_bids_everyone_at_once():
    game = new_game("partners", Rules(bidding="mirrors"))
    deal(game, {0: ALL_SPADES})
    assert game.phase is Phase.PLAYING
    assert game.bids == [13, 0, 0, 0]
    assert all(b.forced for b in game.hand_logs[0].bids)


def test_forced_bids_replay_and_a_forged_one_is_refused():
    game = new_game("partners", Rules(bidding="mirrors"))
    deal(game, {0: THREE_SPADES})
    data = json.loads(json.dumps(game.to_json()))
    assert Game.from_json(data).bids == game.bids
    forged = [e for e in data["events"] if e["type"] == "bid"]
    forged[0]["bid"] = 4
    with pytest.raises(BadRecord, match="forced bid"):
        Game.from_json(data)
    without = {**data, "events": [e for e in data["events"] if e["type"] != "bid"]}
    assert Game.from_json(without).bids == game.bids, "the deal alone makes the forced bids again"


def test_no_blind_bids_under_whiz():
    game = new_game("solo", Rules(bidding="whiz", blind_nil_deficit=0))
    deal(game, {0: THREE_SPADES})
    assert not game.cards_hidden(0), "nobody is asked to bid blind"
    with refused(IllegalBid, "No blind bids under whiz."):
        game.bid(0, 0, blind=True)


def test_suicide_one_nil_a_team():
    game = new_game("partners", Rules(bidding="suicide"))
    deal(game, {})
    with refused(IllegalBid, "Suicide: bid nil or at least 4."):
        game.bid(0, 2)
    game.bid(0, 5)
    game.bid(1, 0)
    assert game.bids[2] == 0, "seat 0 didn't bid nil, so its partner had to: forced"
    assert game.hand_logs[0].bids[-1].forced
    with refused(IllegalBid, "Suicide: your team already has its nil, so bid at least 4."):
        game.bid(3, 0)
    assert game.legal_bids(3) == tuple(range(4, 14))


def test_suicide_is_for_team_modes():
    with pytest.raises(RuleError, match="team modes"):
        Rules(bidding="suicide").check_mode(Mode.SOLO)
    with pytest.raises(RuleError, match="team modes"):
        Rules(double_nil="double").check_mode(Mode.CUTTHROAT)
    # Its first bidder of a team who doesn't bid nil leaves the second nothing but nil.
    with pytest.raises(RuleError, match="suicide needs nil=on"):
        Rules(bidding="suicide", nil=False).check_mode(Mode.PARTNERS)


def test_whiz_and_mirrors_need_nil_and_no_least_bid():
    with pytest.raises(RuleError, match="needs nil=on"):
        Rules(bidding="mirrors", nil=False).check_mode(Mode.SOLO)
    with pytest.raises(RuleError, match="min_bid=1"):
        Rules(bidding="whiz", min_bid=4).check_mode(Mode.SOLO)


def test_fredieu_nil_or_at_least_four():
    game = new_game("solo", Rules(bidding="fredieu"))
    deal(game, {})
    assert game.legal_bids(0) == (0, *range(4, 14))
    with refused(IllegalBid, "Fredieu: bid nil or at least 4."):
        game.bid(0, 3)


def test_min_bid_alone_and_for_a_team():
    solo = new_game("solo", Rules(min_bid=4))
    deal(solo, {})
    with refused(IllegalBid, "The least bid is 4 (or nil)."):
        solo.bid(0, 3)
    team = new_game("partners", Rules(min_bid=4))
    deal(team, {})
    team.bid(0, 1)  # the first of a team isn't held to it
    team.bid(1, 0)
    with refused(IllegalBid, "Your team's contract must be at least 4: bid 3 or more."):
        team.bid(2, 2)
    with refused(IllegalBid, "Your team's contract must be at least 4: bid 3 or more."):
        team.bid(2, 0)
    team.bid(2, 3)
    team.bid(3, 0)  # a team of nils has no contract to hold


@pytest.mark.parametrize(("bids", "refused_bid", "message", "allowed"), [
    pytest.param([(1, 0), (2, 6), (3, 0)], (0, 7), "No moon after another team's double nil.", 6,
                 id="no moon (6 + 7) after a double nil"),
    pytest.param([(1, 6), (2, 0), (3, 7)], (0, 0), "No double nil after another team's moon.", 1,
                 id="no double nil after a moon (6 + 7)"),
])
def test_moon_and_double_nil_exclude_each_other(bids, refused_bid, message, allowed):
    game = new_game("partners", Rules(moon=True), dealer=0)
    deal(game, {})
    for seat, bid in bids:
        game.bid(seat, bid)
    seat, bid = refused_bid
    with refused(IllegalBid, message):
        game.bid(seat, bid)
    game.bid(seat, allowed)


def test_taking_the_moon_wins_the_game_at_once():
    game = new_game("solo", Rules(moon=True, last_trick=True))
    deal(game, {0: ALL_SPADES})
    play_out(game, {0: 13, 1: 1, 2: 1, 3: 1})
    assert game.is_over and game.ended is Ending.MOON and game.winners == (0,)
    result = game.hand_logs[0].result
    assert result is not None and result.hand_points[0] == 130 + 10, "13 made, and the last trick"
    assert Game.from_json(json.loads(json.dumps(game.to_json()))).ended is Ending.MOON


def test_last_trick_scores_ten():
    game = new_game("solo", Rules(last_trick=True))
    deal(game, {0: ALL_SPADES})
    play_out(game, {0: 10, 1: 1, 2: 1, 3: 1})
    result = game.hand_logs[0].result
    assert result is not None
    assert result.hand_points == (103 + 10, -10, -10, -10)
    assert not game.is_over


def test_trailing_blind_bids():
    game = new_game("solo", Rules(blind_bids=True, blind_nil_deficit=0))
    deal(game, {})
    assert game.cards_hidden(0)
    with refused(IllegalBid, "Blind bids go from 1 to 7."):
        game.bid(0, 8, blind=True)
    game.bid(0, 5, blind=True)
    assert (game.bids[0], game.blind[0]) == (5, True)
    game.reveal(1)
    with refused(IllegalBid, "You've seen your cards, so a blind bid is no longer possible."):
        game.bid(1, 3, blind=True)


def test_blind_numbers_need_the_option():
    game = new_game("solo", Rules(blind_nil_deficit=0))
    deal(game, {})
    with refused(IllegalBid, "A blind bid can only be blind nil (0)."):
        game.bid(0, 3, blind=True)


def test_ten_for_200_loss_is_100_or_200():
    with pytest.raises(RuleError, match="100 or 200"):
        Rules(ten_for_200_loss=150)
