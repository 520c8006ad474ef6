"""Words and numbers as every message writes them: numbers with a real minus sign, a number
joined to its word, places, mode titles, and a long list kept inside one message."""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine import Mode

MODE_TITLES = {Mode.CUTTHROAT: "Cutthroat", Mode.SOLO: "Solo", Mode.PARTNERS: "Partners", Mode.DUO: "Duo",
               Mode.FIVE: "Five", Mode.SIX: "Six"}
PROVISIONAL_GAMES = 5  # a rating means little before this many games: it is shown as provisional
def ordinal(place: int) -> str:
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


NBSP = "\u00a0"  # joins a number to its word: Discord wraps lines at spaces, never inside "0 bags"
SEP = f"{NBSP}· "  # between the parts of a line: a wrapped line ends with it rather than starting with it
MINUS = "\u2212"


def number(value: float, spec: str = "") -> str:
    """A number as players read it, `spec` as for format() ("+d", ".1f"): negatives with a real minus
    sign (−10), as typeset, never a hyphen. Display only: what players type is read with an ASCII '-'."""
    return format(value, spec).replace("-", MINUS)


MESSAGE_LIMIT = 2000  # characters in a Discord message


def within_limit(lines: Sequence[str], items: Sequence[str], after: Sequence[str] = (), separator: str = "\n",
                 limit: int = MESSAGE_LIMIT) -> str:
    """`lines`, then as many whole `items` as fit in one message (joined by `separator`) with
    "… and N more" for the rest, then `after`: a long list never cuts a name in half."""

    def text(kept: Sequence[str]) -> str:
        missing = len(items) - len(kept)
        listed = separator.join([*kept, *([f"… and {missing} more"] if missing else [])])
        return "\n".join([*lines, *([listed] if listed else []), *after])

    kept = list(items)
    while kept and len(text(kept)) > limit:
        kept.pop()
    return text(kept)


def plural(count: int, word: str) -> str:
    return f"{number(count)}{NBSP}{word}{'' if count == 1 else 's'}"


def points(score: int) -> str:
    return f"{number(score)}{NBSP}pts"
