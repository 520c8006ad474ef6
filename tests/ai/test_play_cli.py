"""`python -m bot play`: a scripted person plays a whole short game in the terminal."""

from __future__ import annotations

import argparse
import io

import pytest

from bot import play_cli
from bot.engine import EngineError


def scripted(answers: list[str], prompts: list[str] | None = None):
    """Answers the prompts: first the queued answers, then a bid of 2 and the first legal card."""

    def read(prompt: str) -> str:
        if prompts is not None:
            prompts.append(prompt)
        if answers:
            return answers.pop(0)
        if "bid" in prompt:
            return "2"
        if "Blind" in prompt:
            return "n"
        return prompt[prompt.index("(") + 1:prompt.index(")")].split()[0]

    return read


def args(**overrides) -> argparse.Namespace:
    values = {"mode": "cutthroat", "players": "easy,normal", "name": "Ann", "seat": 0, "seed": 8,
              "budget": "2it", "rule": ["target=100", "mercy=100"]}
    values.update(overrides)
    return argparse.Namespace(**values)


def test_a_whole_game_in_the_terminal():
    out = io.StringIO()
    game = play_cli.run(args(), scripted(["eighteen", "99", "3", "the joker", "ZZ"]), out)
    text = out.getvalue()
    assert game.is_over
    assert "isn't a bid you can make" in text
    assert "isn't a card" in text
    assert "your hand:" in text and "Game over" in text


def test_partners_with_a_hard_player():
    prompts: list[str] = []
    game = play_cli.run(args(mode="partners", players="hard,normal,easy", seat=2,
                             rule=["target=100", "blind_nil_deficit=0"]), scripted([], prompts), io.StringIO())
    assert game.is_over
    assert prompts[0].startswith("Blind nil?")  # asked before the cards are shown
    assert prompts[1].startswith("Your bid")


def test_wrong_number_of_players_is_refused():
    with pytest.raises(EngineError):
        play_cli.run(args(players="easy"), scripted([]), io.StringIO())
