"""Every /spades command that exists is in the README's command table and in /spades help, and
neither names one that doesn't: a new user reads them to learn what the bot can do."""

from __future__ import annotations

import re
from pathlib import Path

from bot.discord_ui.client import spades_group
from bot.discord_ui.table.help_text import HELP_TEXT

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_and_help_list_exactly_the_commands_that_exist() -> None:
    existing = {command.name for command in spades_group().commands}
    assert "record" in existing and "new" in existing
    table = re.findall(r"^\| `/spades (\w+)` \|", README.read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert sorted(table) == sorted(existing)
    helped = set(re.findall(r"`(?:/spades )?(\w+)`", HELP_TEXT.split("**Commands:**", 1)[1]))
    assert helped == existing
