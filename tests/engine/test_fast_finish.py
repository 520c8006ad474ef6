"""Fast finish: a hand plays itself out once nobody's card can change who takes each trick left, and
never before; the record says so, and replays."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import (
    BadRecord,
    FastFinished,
    Game,
    IllegalAction,
    Mode,
    Phase,
    Rules,
    card_code,
    export_record,
    mask_of,
)
from bot.engine.fast_finish import settled, summary
from tests.engine.helpers import cards, deal_hands, new_game, random_game, refused
from tests.record_check import check_record


def hands(*texts: str) -> list[int]:
    return [mask_of(cards(text)) for text in texts]


def test_the_last_trick_is_always_settled() -> None:
    assert settled(Rules(), hands("2H", "AS", "3D"), 0, broken=False)


def test_a_leader_holding_the_top_of_every_suit_it_holds_takes_the_rest() -> None:
    # Alice, leading, holds the top hearts and the top spades, and nobody else has a spade to ruff
    # with: every trick is hers, whatever anyone plays.
    assert settled(Rules(), hands("AH KH AS QS", "2H 3H 4D 5D", "6H 7C 8C 9C"), 0, broken=True)
    # Give Bob a low spade: he can ruff a heart once he is out of hearts, so it is not settled.
    assert not settled(Rules(), hands("AH KH QH AS", "2H 3S 4D 5D", "6H 7C 8C 9C"), 0, broken=True)


def test_the_search_sees_that_whatever_is_led_the_same_seat_wins() -> None:
    # Bob leads Q♠ or J♠, Alice takes it with A♠ or K♠ whichever she plays, then leads and wins again.
    rules = Rules()
    assert settled(rules, hands("AS KS", "QS JS", "2H 3H"), 1, broken=True)
    # Here Carol may keep her 3♣ to win the club Alice leads next, or throw it away: open.
    assert not settled(rules, hands("AS 2C", "QS 4H", "5H 3C"), 1, broken=True)


def test_must_overtrump_can_settle_what_a_free_choice_would_not() -> None:
    # Alice leads a heart. Bob, void, may ruff with the 9♠ or discard; if he discards, Carol may
    # play her 10♠ or her club as she likes: open, with the rule or without.
    position = hands("2H 3H", "9S 4D", "10S 2C")
    assert not settled(Rules(), position, 0, broken=True)
    assert not settled(Rules(must_overtrump=True), position, 0, broken=True)
    # Bob holds only spades, so he ruffs. Free, Carol may overtrump or keep her 10♠; made to
    # overtrump, she takes this trick and Bob the next with his last spade, whatever is played.
    position = hands("2H 3H", "9S 4S", "10S 2C")
    assert not settled(Rules(), position, 0, broken=True)
    assert settled(Rules(must_overtrump=True), position, 0, broken=True)


def test_a_settled_hand_plays_itself_out_in_one_event() -> None:
    game = new_game("solo")
    deal_hands(game, "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S",
               "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
               "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D",
               "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C")
    for seat in range(4):
        game.bid(seat, 3)
    # Alice leads a spade (she has nothing else): she holds every spade and takes every trick.
    event = game.play(0, cards("2S")[0])
    assert game.phase is Phase.PLAYING  # the first trick isn't done: no finish in the middle of one
    assert not game.can_fast_finish()
    with refused(IllegalAction, "A hand can only play itself out between tricks."):
        game.fast_finish()
    for seat in (1, 2, 3):
        game.play(seat, game.legal_cards(seat)[0])
    hand = game.hand_logs[-1]
    assert hand.result is not None and hand.fast_finished == 12
    assert hand.result.tricks_won == (13, 0, 0, 0)
    assert isinstance(game.events[-1], FastFinished) and game.events[-1].tricks == 12
    assert sum(1 for t in hand.tricks for _ in t.plays) == 52
    assert event.card == cards("2S")[0]
    record = export_record(game)
    assert record["hands"][0]["fast_finish"] == {"from_trick": 2}
    check_record(json.loads(json.dumps(record)))
    rebuilt = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert rebuilt.hand_logs[-1].tricks == hand.tricks and rebuilt.scores == game.scores
    assert {"type": "fast_finish", "tricks": 12} in game.to_json()["events"]


def test_with_fast_finish_off_every_card_is_played_by_hand() -> None:
    game = new_game("cutthroat", Rules(fast_finish=False))
    game.deal()
    for bidder in (0, 1, 2):
        game.bid(bidder, 4)
    while game.phase is Phase.PLAYING:
        seat = game.turn
        assert seat is not None
        game.play(seat, game.legal_cards(seat)[0])
        if len(game.hand_logs[-1].tricks) == 16 and not game.trick:
            with refused(IllegalAction, "fast_finish is off in this game."):
                game.fast_finish()
    assert game.hand_logs[-1].fast_finished == 0
    assert not any(isinstance(e, FastFinished) for e in game.events)


def test_a_record_that_finishes_a_hand_too_early_is_refused() -> None:
    game = new_game("cutthroat")
    game.deal()
    for bidder in (0, 1, 2):
        game.bid(bidder, 4)
    for _ in range(3):
        seat = game.turn
        assert seat is not None
        game.play(seat, game.legal_cards(seat)[0])
    data = game.to_json()
    data["events"].append({"type": "fast_finish", "tricks": 16})
    with pytest.raises(BadRecord, match="isn't settled"):
        Game.from_json(data)
    data["events"][-1] = {"type": "fast_finish", "tricks": 3}
    with pytest.raises(BadRecord, match="16 tricks are left, not 3"):
        Game.from_json(data)


def test_a_game_saved_before_fast_finish_existed_plays_on_without_it() -> None:
    game = Game.new("old", "cutthroat", Rules(fast_finish=False), seed=5)
    data = game.to_json()
    del data["setup"]["rules"]["fast_finish"]
    assert Game.from_json(data).rules.fast_finish is False


def test_the_table_line_names_who_takes_what() -> None:
    names = ["alice", "bob", "carol"]
    assert summary(names, [0, 1, 0]) == "The last 3 tricks play themselves: alice takes 2, bob 1."
    assert summary(names, [2]) == "The last trick plays itself: carol takes it."
    assert summary(names, [1, 1]) == "The last 2 tricks play themselves: bob takes 2."


def _winners_from(game: Game, rng: random.Random) -> tuple[int, ...]:
    """Play the rest of the current hand with random legal cards; who won each trick."""
    start = len(game.hand_logs[-1].tricks)
    while game.phase is Phase.PLAYING:
        seat = game.turn
        assert seat is not None
        game.play(seat, rng.choice(game.legal_cards(seat)))
    return tuple(t.winner for t in game.hand_logs[-1].tricks[start:])


def _played_by_hand(game: Game, events: list[dict[str, object]]) -> list[dict[str, object]]:
    """The same events with every fast finish spelt out as the cards it played."""
    spelt: list[dict[str, object]] = []
    hand = 0
    for event in events:
        hand += event["type"] == "deal"
        if event["type"] != "fast_finish":
            spelt.append(event)
            continue
        for trick in game.hand_logs[hand - 1].tricks[-int(str(event["tricks"])):]:
            spelt += [{"type": "play", "seat": seat, "card": card_code(card)} for seat, card in trick.plays]
    return spelt


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(list(Mode)), seed=st.integers(0, 2**32),
       overtrump=st.booleans(), must_break=st.booleans())
def test_tricks_that_played_themselves_go_the_same_way_whatever_is_played(mode, seed, overtrump, must_break):
    """Independent of the search: from each fast finish, random play-outs take the same tricks."""
    rules = Rules(target=200, must_overtrump=overtrump, spades_must_break=must_break)
    game = random_game(mode, rules, seed)
    events = game.to_json()["events"]
    rng = random.Random(seed)
    finishes = [i for i, e in enumerate(events) if e["type"] == "fast_finish"]
    assert finishes or game.hands_played == 0
    for index in finishes[:3]:
        data = game.to_json()
        data["setup"]["rules"]["fast_finish"] = False
        data["events"] = _played_by_hand(game, events[:index])
        hand = len([e for e in events[:index] if e["type"] == "deal"])
        expected = tuple(t.winner for t in game.hand_logs[hand - 1].tricks[-events[index]["tricks"]:])
        for _ in range(4):
            assert _winners_from(Game.from_json(data), rng) == expected
