"""The numbered migrations shipped in `bot/store/migrations/`, read as package data.

Kept free of any database driver so every backend applies the same files in the same order.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from functools import cache
from importlib import resources

_FILE_NAME = re.compile(r"V(\d{3})__(\w+)\.sql")


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema version: the statements that take the previous version to this one."""

    version: int
    name: str
    statements: tuple[str, ...]


def split_statements(script: str) -> tuple[str, ...]:
    """Split a script into statements, so they can run inside a transaction the caller controls.

    (`executescript` would commit first.) `sqlite3.complete_statement` understands quotes and
    trigger bodies, so a `;` inside either does not end a statement.
    """
    statements: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            code = [line for line in pending.splitlines() if not line.lstrip().startswith("--")]
            if "".join(code).strip() != ";":
                statements.append(pending.strip())
            pending = ""
    if pending.strip(" \n\t;"):
        raise ValueError(f"unterminated SQL statement: {pending.strip()[:80]!r}")
    return tuple(statements)


@cache
def migrations() -> tuple[Migration, ...]:
    """All migrations in order; versions must run 1, 2, 3… with none missing."""
    found: list[Migration] = []
    for entry in resources.files("bot.store.migrations").iterdir():
        match = _FILE_NAME.fullmatch(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], split_statements(entry.read_text("utf-8"))))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..N without gaps, found {versions}")
    return tuple(found)


def latest_version() -> int:
    """The schema version this code writes."""
    return len(migrations())
