"""Playing `python -m bot play` from a test: a scripted person answering the prompts, the command's
arguments, and one question asked of the seat on turn."""

from __future__ import annotations

import argparse
import io
import re
from collections.abc import Callable

from bot import play_cli
from bot.ai import Move
from bot.engine import Game

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def scripted(answers: list[str], prompts: list[str] | None = None,
             stop_after: int | None = None) -> Callable[[str], str]:
    """Answers the prompts: first the queued answers, then a bid of 2 and the first legal card.
    With ``stop_after``, input ends (EOF) after that many prompts."""

    asked = 0

    def read(prompt: str) -> str:
        nonlocal asked
        asked += 1
        assert asked < 5_000, f"the game keeps asking: {prompt!r}"
        if prompts is not None:
            prompts.append(prompt)
        if stop_after is not None and asked > stop_after:
            raise EOFError
        if answers:
            return answers.pop(0)
        if "blind nil" in prompt:
            return "n"
        if "bid" in prompt:
            return "2"
        plain = ANSI.sub("", prompt)
        return plain[plain.index("(") + 1:plain.index(")")].split()[0]

    return read


def args(**overrides: object) -> argparse.Namespace:
    """The command's arguments for a short cutthroat game as Ann against easy and normal, with `overrides`."""
    values = {"mode": "cutthroat", "players": ("easy", "normal"), "name": "Ann", "seat": 0, "seed": 8, "out": None,
              "budget": "2it", "rule": ["target=100", "mercy=100"]}
    values.update(overrides)
    return argparse.Namespace(**values)


def ask(game: Game, answers: list[str]) -> tuple[Move, str]:
    """The seat on turn is asked for its move in the terminal and answers `answers`: the move, and
    what was shown."""
    out = io.StringIO()
    seat = game.turn
    assert seat is not None
    move = play_cli.ask_human(game, seat, scripted(answers), out, play_cli.Style(colour=False))
    return move, out.getvalue()
