"""Names and other text people chose, made safe to show in the bot's own messages.

A display name (or a season's, or what someone typed) is shown as written: never as markdown, a
disguised link, a mention, an emoji or a heading; it can't break the layout of the line around it
or close a code block. `shown` is for markdown text, `in_code` for text inside a code block, where
backslashes show as they are. Pictures draw names as they are (see `chart.printable_text`).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from bot.engine.names import NAME_END, NAME_START

# The characters Discord's markdown reads anywhere: a backslash before any of them shows it as it is.
_MARKUP = re.compile(r"[\\*_~|`\[\]<:@]")
# What is markup only at the start of a line (a heading, a quote, a list, small text), where a name
# may stand: the first character escaped, or the dot of "1.".
_LINE_START = re.compile(r"^(?:[-#>+]|\d+(?=\.))")
# Direction marks, embeddings, overrides and isolates (never sent: taken out of names).
_BIDI = dict.fromkeys([0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
_PARTS = re.compile(f"“([^”]*)”|{NAME_START}([^{NAME_END}]*){NAME_END}")
BACKTICK_LOOKALIKE = "‵"  # U+2035, the reversed prime: it looks like a backtick but can't close a code block


def _plain(text: str) -> str:
    """One line of visible text: control and direction-changing characters out (they could reorder
    or split what is around the name), runs of spaces as one."""
    text = text.translate(_BIDI)
    text = "".join(" " if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text)
    return " ".join(text.split())


@functools.lru_cache(maxsize=4096)
def shown(name: str) -> str:
    """`name` in markdown text: every markup character escaped (`@` too, so `@everyone` and `<@id>`
    are no mentions), so Discord shows exactly the characters of the name. Remembered: the same few
    names are shown in every render (working one out takes some 5 µs)."""
    text = _MARKUP.sub(r"\\\g<0>", _plain(name))
    return _LINE_START.sub(lambda m: m[0] + "\\" if m[0][0].isdigit() else "\\" + m[0], text)


def in_code(name: str) -> str:
    """`name` inside a code block, where nothing is markup but a backtick could end the block."""
    return _plain(name).replace("`", BACKTICK_LOOKALIKE)


def quoted_parts(text: str) -> str:
    """A message (a refusal) with what people chose escaped: names the service marked (`named`),
    and what someone typed, said back inside “…”."""

    def escape(match: re.Match[str]) -> str:
        typed, name = match.group(1), match.group(2)
        return f"“{shown(typed)}”" if typed is not None else shown(name)

    return _PARTS.sub(escape, text)
