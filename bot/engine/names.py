"""A person's name inside a sentence written below the Discord layer (a refusal, a hint, a review).

Names are wrapped in Unicode's isolates: they keep a right-to-left name from reordering the words
around it, and they tell the Discord layer which parts of a sentence are names, to be shown exactly
as written (never as markdown, a link or a mention: `bot.discord_ui.safe_text.quoted_parts`).
"""

from __future__ import annotations

NAME_START, NAME_END = chr(0x2068), chr(0x2069)  # never sent: the Discord layer takes them out


def named(name: str) -> str:
    """`name`, marked as a name inside a sentence."""
    return f"{NAME_START}{name}{NAME_END}"
