"""What `/spades record` may show of a running game: nothing a seat could not see at the table.

Seeded random whole games are stopped at many points and every seat (and an outsider) asks for the
record. The serialized document is read back and every card code in it collected by walking the
structure, so "AS" can't be mistaken for part of a name.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import (
    BIG_JOKER,
    Game,
    IllegalAction,
    Mode,
    Phase,
    Rules,
    card_code,
    cards_of,
    export_record,
    parse_card,
    public_record,
    record_for,
)
from tests.engine.helpers import deal, fit_mode, new_game, random_game, rule_sets
from tests.record_check import check_record

CARD_CODES = {card_code(card) for card in range(BIG_JOKER + 1)}


def strings(node: Any) -> Iterator[str]:
    """Every string in a JSON document, keys included."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings(item)


def keys(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from keys(value)
    elif isinstance(node, list):
        for item in node:
            yield from keys(item)


def codes_in(document: dict[str, Any]) -> set[str]:
    return {text for text in strings(document) if text in CARD_CODES}


def played_this_hand(game: Game) -> set[str]:
    tricks = game.hand_logs[-1].tricks
    return {card_code(c) for t in tricks for _, c in t.plays} | {card_code(c) for _, c in game.trick}


def every_copy(game: Game, codes: Counter[str]) -> set[str]:
    """The codes of which every copy in the deck is among ``codes`` (one copy each but in six)."""
    deck = Counter(card_code(c) for c in game.deck())
    return {code for code, count in codes.items() if count >= deck[code]}


def current_draws(document: dict[str, Any]) -> list[Any]:
    return list(document["hands"][-1].get("draws", []))


def check_public_records(game: Game) -> None:
    """Every viewer's public record at this point of the game, against what the engine knows."""
    full = export_record(game)
    check_record(json.loads(json.dumps(full)))
    for viewer in (None, *range(game.seats)):
        shown = record_for(game, viewer=viewer)
        document = json.loads(json.dumps(shown.document))
        check_record(document, public=True)
        if game.is_over:
            assert document == json.loads(json.dumps(full)) and not shown.private
            continue
        assert "seed" not in set(keys(document))
        # Scored hands are public and hold the same 52 cards again; search all the rest.
        seen = codes_in({**document, "hands": [h for h in document["hands"] if "result" not in h]})
        logs = game.hand_logs
        in_play = bool(logs) and logs[-1].result is None
        # Codes, counted: in six two cards share a code, and a code is secret while every copy is.
        secret: Counter[str] = Counter()
        for seat in range(game.seats):
            if seat != viewer or game.cards_hidden(seat):
                secret.update(card_code(c) for c in cards_of(game.hand_mask(seat)))
        if viewer is not None:  # nil_pass: the cards the viewer gave its partner are no secret to it
            secret -= Counter(card_code(c) for c in game.passes(viewer)[0])
        if in_play:
            # Duo: the viewer's own discards are theirs to see, in their own draws.
            own_discards = game.discards_of(viewer) if viewer is not None else ()
            secret.update(card_code(c) for c in logs[-1].set_aside if c not in own_discards)
            for seat in range(game.seats):
                if seat != viewer:
                    secret.update(card_code(c) for c in game.discards_of(seat))
            own_draws = [{"seat": d.seat, "card": card_code(d.card), "kept": d.kept}
                         for d in logs[-1].draws if d.seat == viewer]
            assert current_draws(document) == own_draws, "a viewer sees only their own draws"
            assert played_this_hand(game) <= seen, "every card played so far is in the record"
            current = document["hands"][-1]
            assert current["set_aside"] == []
            if viewer is None or game.cards_hidden(viewer):
                assert current["deal"] == {}
            else:
                assert current["deal"] == {str(viewer): [card_code(c) for c in logs[-1].deal[viewer]]}
            assert [[t["plays"], t["winner"]] for t in current["tricks"]] == [
                *([[[s, card_code(c)] for s, c in t.plays], t.winner] for t in logs[-1].tricks),
                *([[[[s, card_code(c)] for s, c in game.trick], None]] if game.trick else []),
            ]
        else:  # between hands nothing is secret but the seed
            assert {k: v for k, v in full.items() if k != "seed"} == document
        hidden = every_copy(game, secret)
        assert not seen & hidden, f"viewer {viewer} is shown {sorted(seen & hidden)}"
        # A record fit for the channel names no card anyone still holds, its own holder's included.
        held = every_copy(game, Counter(card_code(c) for seat in range(game.seats)
                                        for c in cards_of(game.hand_mask(seat))))
        assert shown.private or not seen & held, f"viewer {viewer} is shown {sorted(seen & held)} in public"
        # Every scored hand is shown whole.
        for shown, whole in zip(document["hands"], full["hands"], strict=True):
            if "result" in whole:
                assert shown == whole


def sampled_checks(seed: int) -> Any:
    """Check every point of the first hand, then about one point in twelve (a game has ~600)."""
    rng = random.Random(seed)

    def on_step(game: Game) -> None:
        if game.hand_number <= 1 or game.is_over or rng.random() < 1 / 12:
            check_public_records(game)

    return on_step


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(list(Mode)), rules=rule_sets, seed=st.integers(0, 2**32))
def test_a_running_games_public_record_shows_only_public_cards(mode, rules, seed):
    random_game(mode, fit_mode(mode, rules), seed, on_step=sampled_checks(seed))


def test_the_unfinished_trick_is_in_both_records_without_a_winner():
    game = new_game()
    deal(game, {0: "AH KH", 1: "2H 3H"}, set_aside="7D")
    for bid in (3, 4, 5):
        game.bid(game.turn or 0, bid)
    game.play(0, parse_card("AH"))
    game.play(1, parse_card("2H"))
    unfinished = {"leader": 0, "plays": [[0, "AH"], [1, "2H"]], "winner": None}
    full = export_record(game)
    assert full["hands"][-1]["tricks"] == [unfinished] and "result" not in full["hands"][-1]
    assert full["final"] is None
    check_record(full)
    shown = public_record(game, viewer=1)
    assert shown["hands"][-1]["tricks"] == [unfinished]
    assert shown["hands"][-1]["deal"] == {"1": full["hands"][-1]["deal"]["1"]}
    assert shown["hands"][-1]["set_aside"] == [] and "seed" not in shown
    check_record(shown, public=True)
    # The same record without redaction is refused by the checker as a public one.
    with pytest.raises(AssertionError):
        check_record(full, public=True)


def test_a_seat_deciding_on_blind_nil_is_not_shown_its_own_cards():
    game = Game.new("blind", Mode.CUTTHROAT, Rules(blind_nil_deficit=0), seed=11)
    game.deal()
    first = game.turn
    assert first is not None and game.cards_hidden(first)
    assert public_record(game, viewer=first)["hands"][0]["deal"] == {}
    assert not record_for(game, viewer=first).private
    game.reveal(first)
    assert public_record(game, viewer=first)["hands"][0]["deal"] == {
        str(first): [card_code(c) for c in game.hand_of(first)]}
    assert record_for(game, viewer=first).private


def test_a_finished_or_cancelled_game_shows_everything():
    game = Game.new("over", Mode.SOLO, Rules(), seed=5)
    game.deal()
    game.cancel()
    assert game.phase is Phase.OVER
    assert public_record(game, viewer=None) == export_record(game)
    assert len(public_record(game)["hands"][0]["deal"]) == 4


def test_a_viewer_who_is_not_a_seat_is_refused():
    game = Game.new("seats", Mode.CUTTHROAT, Rules(), seed=5)
    game.deal()
    with pytest.raises(IllegalAction, match="no seat 3"):
        public_record(game, viewer=3)
    with pytest.raises(IllegalAction, match="no seat -1"):
        public_record(game, viewer=-1)


def test_the_checker_catches_a_seat_that_shows_a_void_and_then_plays_that_suit():
    """An outsider's record can still prove a renege: failing to follow means holding none."""
    game = new_game()
    deal(game, {0: "AH KH", 1: "2C 3S"}, set_aside="7D")
    for bid in (3, 4, 5):
        game.bid(game.turn or 0, bid)
    game.play(0, parse_card("AH"))
    record = public_record(game)
    record["hands"][-1]["tricks"] = [
        {"leader": 0, "plays": [[0, "AH"], [1, "2C"], [2, "4H"]], "winner": 0},
        {"leader": 0, "plays": [[0, "KH"], [1, "5H"]], "winner": None},
    ]
    with pytest.raises(AssertionError, match="reneged"):
        check_record(record, public=True)
