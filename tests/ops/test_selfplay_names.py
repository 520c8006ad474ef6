"""selfplay's summary names each player, so two players of one level are told apart by more than
their order, with the names its records and progress lines use; and `make selfplay` runs levels the
README lists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.ai import LEVELS
from tests.selfplay_cli import run_cli

ROOT = Path(__file__).resolve().parents[2]


def test_two_players_of_one_level_are_told_apart_by_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    summary = run_cli(capsys, "--players", "normal,easy,normal", "--games", "3", "--duplicate", "--seed", "2",
                      "--rule", "target=150", "--rule", "mercy=150", "--out", str(out))
    names = [player["name"] for player in summary["per_player"]]
    assert names == ["normal-0", "easy-1", "normal-2"]
    assert [player["level"] for player in summary["per_player"]] == ["normal", "easy", "normal"]
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for record in records:  # the same names at every seat they sat in
        assert sorted(p["name"] for p in record["players"]) == sorted(names)
    won = {name: 0.0 for name in names}
    for record in records:
        winners = [p["name"] for p in record["players"] if p["seat"] in record["final"]["winners"]]
        for name in winners:
            won[name] += 1 / len(winners)
    assert [round(won[name], 6) for name in names] == [round(w, 6) for w in summary["wins"]]


def test_make_selfplay_uses_levels_the_readme_lists() -> None:
    line = next(line for line in (ROOT / "Makefile").read_text().splitlines() if "bot selfplay" in line)
    used = set(re.search(r"--players (\S+)", line)[1].split(","))  # type: ignore[index]
    readme = (ROOT / "README.md").read_text()
    listed = set(re.findall(r"^- \*\*([\w-]+)\*\*", readme.split("## Computer players", 1)[1], re.MULTILINE))
    assert used <= listed and used <= set(LEVELS)
