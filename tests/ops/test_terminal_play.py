"""What a newcomer to `python -m bot play` tripped on: who the partner is, a record of the game to
review, help for every option, and card help that fits the game and the terminal."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from bot import play_cli
from bot.__main__ import main
from bot.selfplay import UsageError
from tests.ai.cli import args, scripted


def test_partners_says_who_plays_with_you() -> None:
    out = io.StringIO()
    play_cli.run(args(mode="partners", players=("hard", "normal", "easy"), rule=[]), scripted(["quit"]), out)
    assert "Partners Spades to 500: Ann and normal-bot-2 against hard-bot-1 and easy-bot-3." in out.getvalue()
    out = io.StringIO()
    play_cli.run(args(mode="partners", players=("easy",), seat=1, rule=[]), scripted(["quit"]), out)
    assert ": easy-bot-0 and easy-bot-2 against Ann and easy-bot-3." not in out.getvalue()
    assert ": Ann and easy-bot-3 against easy-bot-0 and easy-bot-2." in out.getvalue()


def test_a_terminal_game_writes_a_record_that_can_be_reviewed(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    out = io.StringIO()
    game = play_cli.run(args(out=str(path)), scripted([]), out)
    assert game.is_over and f"The game's record is in {path}" in out.getvalue()
    record = json.loads(path.read_text())
    assert record["format"] == "spades-record/1" and record["final"]["scores"] == list(game.scores)
    assert record["players"] == [{"seat": 0, "name": "Ann", "kind": "human", "id": "terminal"},
                                 {"seat": 1, "name": "easy-bot-1", "kind": "bot", "id": "easy"},
                                 {"seat": 2, "name": "normal-bot-2", "kind": "bot", "id": "normal"}]
    assert main(["review", str(path)]) == 0
    reviewed = capsys.readouterr().out
    assert "Review of game terminal-8 for Ann" in reviewed, reviewed[:300]


def test_a_game_left_early_still_leaves_its_record_and_a_bad_path_costs_nothing(tmp_path: Path) -> None:
    path = tmp_path / "left.json"
    play_cli.run(args(out=str(path)), scripted(["n", "3", "quit"]), io.StringIO())
    record = json.loads(path.read_text())
    assert record["final"] is None and {"seat": 0, "bid": 3, "blind": False} in record["hands"][0]["bids"]

    asked: list[str] = []
    with pytest.raises(UsageError, match="can't write records to"):
        play_cli.run(args(out=str(tmp_path / "no-folder" / "x.json")), scripted([], asked), io.StringIO())
    assert asked == []


def test_every_option_of_play_has_help() -> None:
    parser = argparse.ArgumentParser()
    play_cli.add_arguments(parser)
    options = [action for action in parser._actions if action.option_strings and action.dest != "help"]
    assert {action.dest for action in options} >= {"mode", "name", "seed", "out"}
    assert [action.dest for action in options if not action.help] == []


def test_card_help_names_jokers_only_when_dealt_and_wraps_between_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    for rules, jokers in ((["target=100"], False), (["target=100", "jokers=true"], True)):
        out = io.StringIO()
        play_cli.run(args(rule=rules), scripted(["?", "quit"]), out)
        lines = out.getvalue().splitlines()
        start = next(n for n, line in enumerate(lines) if line.startswith("Type cards as"))
        intro = " ".join(lines[start:start + 2])
        help_start = next(n for n, line in enumerate(lines) if line.startswith("Cards can be typed as"))
        asked = " ".join(lines[help_start:help_start + 2])
        for text in (intro, asked):
            assert ("BJ (big joker)" in text) is jokers and ("LJ (little joker)" in text) is jokers
            assert "ace of spades, queen of hearts" in text  # the words came back whole
        assert all(len(line) <= 80 for line in lines[:start + 3] + lines[help_start:help_start + 2])
