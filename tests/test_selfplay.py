"""The selfplay CLI: its JSON summary, per-player stats, and records that replay to the same scores."""

from __future__ import annotations

import json

import pytest

from bot.__main__ import main
from bot.engine import Game, Mode, Rules, parse_card


def run_cli(capsys, *args: str) -> dict:
    assert main(["selfplay", *args]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    return json.loads(lines[-1])


def replay(record: dict) -> Game:
    """Rebuild a game from its spades-record/1 document alone, through the engine's checked actions."""
    names = [p["name"] for p in record["players"]]
    game = Game(record["game_id"], Mode.parse(record["mode"]), Rules.from_options(record["rules"]), 0,
                record["hands"][0]["dealer"], names)
    for hand in record["hands"]:
        deal = [[parse_card(c) for c in hand["deal"][str(s)]] for s in range(game.seats)]
        game.deal(deal, [parse_card(c) for c in hand["set_aside"]])
        for bid in hand["bids"]:
            if game.cards_hidden(bid["seat"]) and not bid["blind"]:
                game.reveal(bid["seat"])
            game.bid(bid["seat"], bid["bid"], blind=bid["blind"])
        for trick in hand["tricks"]:
            for seat, card in trick["plays"]:
                game.play(seat, parse_card(card))
        assert list(game.hand_logs[-1].result.scores) == hand["result"]["scores"]
    return game


def test_random_summary_is_fast(capsys):
    summary = run_cli(capsys, "--players", "random,random,random", "--games", "100",
                      "--rule", "target=200", "--rule", "mercy=200")
    assert summary["games"] == 100
    assert summary["hands"] > 100
    assert summary["hands_per_second"] > 300
    assert len(summary["per_player"]) == 3


def test_per_player_stats_and_records_replay(capsys, tmp_path):
    out = tmp_path / "games.jsonl"
    summary = run_cli(capsys, "--players", "normal,easy,random", "--games", "4", "--duplicate",
                      "--rule", "target=150", "--rule", "mercy=150", "--out", str(out), "--seed", "3")
    assert summary["games"] == 12  # four deals, three rotations
    keys = {"level", "games", "wins", "win_rate", "win_rate_ci95", "points_per_hand", "bid_success_rate",
            "nils_tried", "nils_made", "bags_per_hand", "decision_ms_p50", "decision_ms_p99"}
    for player in summary["per_player"]:
        assert keys <= player.keys()
        assert player["games"] == 12
        low, high = player["win_rate_ci95"]
        assert low <= player["win_rate"] <= high
    assert sum(summary["wins"]) == pytest.approx(12)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 12
    for record in records:
        assert record["format"] == "spades-record/1"
        game = replay(record)
        assert list(game.scores) == record["final"]["scores"]
        assert list(game.winners) == record["final"]["winners"]
    # Duplicate: the three rotations of a deal see the same first hand.
    assert records[0]["hands"][0]["deal"] == records[1]["hands"][0]["deal"] == records[2]["hands"][0]["deal"]
    assert records[0]["players"][0]["id"] != records[1]["players"][0]["id"]


def test_a_later_rule_overrides_an_earlier_one(capsys):
    summary = run_cli(capsys, "--players", "easy,easy,easy", "--games", "2",
                      "--rule", "target=400", "--rule", "target=100")
    assert summary["rules"]["target"] == 100


def test_hard_with_an_iteration_budget(capsys):
    summary = run_cli(capsys, "--players", "hard,normal,normal", "--games", "1", "--budget", "3it",
                      "--rule", "target=100", "--mode", "cutthroat")
    hard = summary["per_player"][0]
    assert hard["decisions"] > 0 and hard["decision_ms_p99"] is not None
    assert summary["budget"] == "3it"


def test_bad_arguments_are_refused(capsys):
    assert main(["selfplay", "--players", "hard,normal"]) == 2
    assert main(["selfplay", "--players", "x,y,z"]) == 2
    assert main(["selfplay", "--budget", "soon", "--players", "hard,easy,easy"]) == 2
    assert "selfplay:" in capsys.readouterr().err
