"""Reviews of a finished game from its record: bids against the hard player's, the costliest plays,
the nil and bag turning points, and the offline `python -m bot review`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main
from bot.ai import make_player
from bot.ai.review import COST_FLOOR, review_game, review_text, turning_points
from bot.engine import Game, Mode, Rules, card_label, export_record, parse_card
from bot.engine.names import named
from bot.selfplay import play_game


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    game = Game.new("review-me", Mode.CUTTHROAT, Rules(target=200), seed=21)
    play_game(game, [make_player(level, seed) for seed, level in enumerate(("normal", "easy", "normal"))])
    return export_record(game)


def test_a_review_covers_every_hand_and_names_real_costly_plays(record: dict[str, Any]) -> None:
    review = review_game(record, 1, seed=3, iterations=8)
    hands = record["hands"]
    assert [b.hand for b in review.bids] == [h["number"] for h in hands]
    assert [b.took for b in review.bids] == [h["result"]["tricks_won"][1] for h in hands]
    for bid_line, hand in zip(review.bids, hands, strict=True):
        made = next(b for b in hand["bids"] if b["seat"] == 1)
        assert bid_line.bid == made["bid"] and bid_line.blind == made["blind"]
    assert 0 < len(review.costly) <= 3
    assert [c.cost for c in review.costly] == sorted((c.cost for c in review.costly), reverse=True)
    for costly in review.costly:
        trick = hands[costly.hand - 1]["tricks"][costly.trick - 1]
        assert [1, card_label(costly.card)] in [[s, card_label(parse_card(c))] for s, c in trick["plays"]]
        assert costly.better != costly.card and costly.cost >= COST_FLOOR
    assert review_game(record, 1, seed=3, iterations=8) == review  # the same seed, the same review


def test_the_review_text_is_a_few_lines_per_part(record: dict[str, Any]) -> None:
    text = review_text(review_game(record, 0, seed=1, iterations=4))
    lines = text.splitlines()
    assert lines[0] == f"**Review of game `review-me`** for {named('Seat 1')}, by the hard computer player"
    assert lines.index("**Bids**") < lines.index("**Costliest plays**") < lines.index("**Turning points**")
    assert lines[2].startswith("Hand 1: you bid ")


def test_turning_points_name_nils_and_bag_penalties() -> None:
    record = {
        "mode": "cutthroat", "rules": {"bag_limit": 10, "bag_penalty": 100},
        "players": [{"seat": s, "name": n} for s, n in enumerate(("ann", "bob", "cy"))],
        "hands": [
            {"number": 1, "bids": [{"seat": 0, "bid": 5, "blind": False}, {"seat": 1, "bid": 0, "blind": False},
                                   {"seat": 2, "bid": 0, "blind": True}],
             "tricks": [{"leader": 0, "plays": [[0, "2H"], [1, "KH"], [2, "3H"]], "winner": 1}],
             "result": {"bags": [9, 0, 0]}},
            {"number": 2, "bids": [{"seat": 0, "bid": 4, "blind": False}],
             "tricks": [], "result": {"bags": [1, 0, 0]}},
        ],
    }
    assert turning_points(record, 0) == [
        f"Hand 1: {named('bob')}'s nil was set on trick 1, when {named('bob')} won with the K♥",
        f"Hand 1: {named('cy')}'s blind nil was made",
        "Hand 2: your bags reached 10, a 100-point penalty",
    ]
    assert turning_points(record, 1)[0] == "Hand 1: your nil was set on trick 1, when you won with the K♥"


def test_a_six_pairs_game_is_reviewed_with_its_twin_cards() -> None:
    game = Game.new("review-six", Mode.SIX, Rules(target=100, teams="pairs"), seed=8)
    play_game(game, [make_player("normal", seed) for seed in range(6)])
    record = export_record(game)
    review = review_game(record, 3, seed=1, iterations=3)
    assert [b.took for b in review.bids] == [h["result"]["tricks_won"][3] for h in record["hands"]][:len(review.bids)]
    assert review.costly
    for costly in review.costly:  # a card seat 3 played (either copy), and a different one better
        trick = record["hands"][costly.hand - 1]["tricks"][costly.trick - 1]
        assert [3, card_label(costly.card)] in [[s, card_label(parse_card(c))] for s, c in trick["plays"]]
        assert card_label(costly.better) != card_label(costly.card)


def test_turning_points_know_six_teams() -> None:
    # Six pairs: seat 0's partner is seat 3; in trios seats 0, 2 and 4 are a side.
    names = ("ann", "bob", "cy", "dee", "eve", "fay")
    plays = [[3, "KH"], [4, "2H"], [5, "3H"], [0, "4H"], [1, "5H"], [2, "6H"]]
    record = {
        "mode": "six", "rules": {"teams": "pairs", "bag_limit": 10, "bag_penalty": 100},
        "players": [{"seat": s, "name": n} for s, n in enumerate(names)],
        "hands": [
            {"number": 1, "bids": [{"seat": 3, "bid": 0, "blind": False}, {"seat": 4, "bid": 0, "blind": False}],
             "tricks": [{"leader": 3, "plays": plays, "winner": 3}], "result": {"bags": [9, 0, 0, 9, 0, 0]}},
            {"number": 2, "bids": [], "tricks": [], "result": {"bags": [1, 0, 0, 1, 0, 0]}},
        ],
    }
    assert turning_points(record, 0) == [
        "Hand 1: your partner's nil was set on trick 1, when your partner won with the K♥",
        f"Hand 1: {named('eve')}'s nil was made",
        "Hand 2: your side's bags reached 10, a 100-point penalty",
    ]
    assert turning_points(record, 1)[1] == "Hand 1: your partner's nil was made"
    trios = {**record, "rules": {"teams": "trios"}}
    assert turning_points(trios, 1)[:2] == [
        f"Hand 1: your teammate {named('dee')}'s nil was set on trick 1, "
        f"when your teammate {named('dee')} won with the K♥",
        f"Hand 1: {named('eve')}'s nil was made",
    ]


def test_review_from_the_command_line(tmp_path: Path, record: dict[str, Any],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert main(["review", str(path), "--seat", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Review of game review-me for Seat 3, by the hard computer player\n")
    assert "Costliest plays" in out and "**" not in out
    assert main(["review", str(tmp_path / "missing.json")]) == 2
    assert main(["review", str(path), "--seat", "5"]) == 2
    path.write_text('{"format": "something else"}')
    assert main(["review", str(path)]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert errors == [f"python -m bot review: can't read {tmp_path / 'missing.json'}: No such file or directory",
                      "python -m bot review: There is no seat 5 in that game.",
                      f"python -m bot review: {path} isn't a spades-record/1 game record"]
