"""The selfplay CLI: its JSON summary, per-player stats, records that replay to the same scores,
runs that always end, and one clear line for bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest

from bot import selfplay
from bot.__main__ import main
from bot.engine import Game, Mode, Rules, parse_card, start_hand
from tests.record_check import check_record
from tests.selfplay_cli import run_cli


def run_process(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command, as a person runs it."""
    return subprocess.run([sys.executable, "-m", "bot", *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def replay(record: dict[str, Any]) -> Game:
    """Rebuild a game from its spades-record/1 document alone, through the engine's checked actions."""
    names = [p["name"] for p in record["players"]]
    game = Game(record["game_id"], Mode.parse(record["mode"]), Rules.from_options(record["rules"]), 0,
                record["hands"][0]["dealer"], names)
    for hand in record["hands"]:
        start_hand(game, hand)
        for bid in hand["bids"]:
            if game.cards_hidden(bid["seat"]) and not bid["blind"]:
                game.reveal(bid["seat"])
            game.bid(bid["seat"], bid["bid"], blind=bid["blind"])
        for passed in hand.get("passes", ()):
            game.pass_cards(passed["from"], [parse_card(c) for c in passed["cards"]])
        chosen = hand["fast_finish"]["from_trick"] - 1 if "fast_finish" in hand else len(hand["tricks"])
        for trick in hand["tricks"][:chosen]:
            for seat, card in trick["plays"]:
                game.play(seat, parse_card(card))
        result = game.hand_logs[-1].result  # the tricks that played themselves, played again by the engine
        assert result is not None and list(result.scores) == hand["result"]["scores"]
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


def test_progress_is_a_line_per_finished_game_on_stderr_and_quick_runs_stay_quiet(capsys, monkeypatch):
    monkeypatch.setattr(selfplay, "PROGRESS_INTERVAL", 0.0)  # every game is "slow"
    argv = ["selfplay", "--players", "easy,random,random", "--games", "2", "--duplicate", "--rule", "target=100"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out)  # stdout is the summary alone
    lines = err.splitlines()
    assert len(lines) == summary["games"] == 6
    for number, line in enumerate(lines, 1):
        said = re.fullmatch(rf"game {number}/6 done: winner (easy-0|random-1|random-2), (\d+) hands, \d+\.\d s", line)
        assert said is not None, line
    assert sum(int(re.findall(r"(\d+) hands", line)[0]) for line in lines) == summary["hands"]
    monkeypatch.setattr(selfplay, "PROGRESS_INTERVAL", float("inf"))
    assert main(argv) == 0
    assert capsys.readouterr().err == ""


def test_a_later_rule_overrides_an_earlier_one(capsys):
    summary = run_cli(capsys, "--players", "easy,easy,easy", "--games", "2",
                      "--rule", "target=400", "--rule", "target=100")
    assert summary["rules"]["target"] == 100


def test_one_level_fills_every_seat(capsys):
    summary = run_cli(capsys, "--players", "easy", "--mode", "solo", "--games", "1", "--rule", "target=100")
    assert summary["players"] == ["easy"] * 4 and summary["games"] == 1


def test_hard_with_an_iteration_budget(capsys):
    summary = run_cli(capsys, "--players", "hard,normal,normal", "--games", "1", "--budget", "3it",
                      "--rule", "target=100", "--mode", "cutthroat")
    hard = summary["per_player"][0]
    assert hard["decisions"] > 0 and hard["decision_ms_p99"] is not None
    assert summary["budget"] == "3it"


def test_the_defaults_play_ten_whole_games_to_500():
    finished = run_process("selfplay")
    assert finished.returncode == 0, finished.stderr
    summary = json.loads(finished.stdout)
    assert summary["games"] == 10 and summary["cancelled"] == 0
    assert summary["players"] == ["normal", "normal", "normal"]
    assert sum(summary["wins"]) == pytest.approx(10)


def test_a_runaway_game_is_cancelled_at_the_hand_cap_with_a_valid_record(capsys, tmp_path):
    out = tmp_path / "runaway.jsonl"
    summary = run_cli(capsys, "--players", "random,random,random", "--games", "2", "--max-hands", "6",
                      "--out", str(out))
    assert summary["cancelled"] == 2 and summary["hands"] == 12 and summary["wins"] == [0, 0, 0]
    for line in out.read_text().splitlines():
        record = json.loads(line)
        check_record(record)
        assert len(record["hands"]) == 6 and all("result" in hand for hand in record["hands"])
        assert record["final"]["ended"] == "cancelled" and record["final"]["winners"] == []


@pytest.mark.parametrize(("args", "says"), [
    (["--out", "no/such/folder/games.jsonl"], "can't write records to no/such/folder/games.jsonl"),
    (["--games", "-3"], "--games: must be at least 1, not -3"),
    (["--games", "0"], "--games: must be at least 1, not 0"),
    (["--games", "many"], "--games: takes a whole number"),
    (["--jobs", "0"], "--jobs: must be at least 1, not 0"),
    (["--max-hands", "0"], "--max-hands: must be at least 1"),
    (["--players", "hard,wizard,easy"], "unknown level “wizard”"),
    (["--players", "hard,normal"], "cutthroat has 3 seats: --players takes one level for every seat or 3 levels"),
    (["--mode", "partners", "--players", "easy,easy,easy"], "partners has 4 seats"),
    (["--rule", "target=5"], "target can't be 5: it takes a number from 50 to 1000"),
    (["--rule", "colour=red"], "Unknown rule option “colour”"),
    (["--mode", "solo", "--rule", "nil_pass=one_two"], "nil_pass is for partners, and solo has none"),
    (["--rule", "target"], "--rule takes KEY=VALUE"),
    (["--budget", "soon", "--players", "hard,easy,easy"], "A budget is seconds"),
    (["--mode", "bridge"], "invalid choice: 'bridge'"),
])
def test_bad_input_gets_one_clear_line_and_exit_code_2(args, says, tmp_path):
    finished = subprocess.run([sys.executable, "-m", "bot", "selfplay", *args], capture_output=True, text=True,
                              timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert finished.returncode == 2
    assert finished.stdout == ""
    lines = finished.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("python -m bot selfplay: "), finished.stderr
    assert says in lines[0]
    assert list(tmp_path.iterdir()) == []  # nothing written
