"""The selfplay command run from a test, shared by the selfplay tests: its summary read back."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.__main__ import main


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    """`python -m bot selfplay ARGS` run in this process; its JSON summary (the last line it prints)."""
    assert main(["selfplay", *args]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    summary: dict[str, Any] = json.loads(lines[-1])
    return summary
