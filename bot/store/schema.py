"""The numbered migrations shipped in `bot/store/migrations/`, read as package data.

Each schema version is one step written once per backend: `VNNN__name.sql` for SQLite and
`VNNN__name.postgresql.sql` for PostgreSQL, so version N means the same tables on both. Kept free
of any database driver; each backend applies its own files in order and records the version.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

DialectName = Literal["sqlite", "postgresql"]

_FILE_NAME = re.compile(r"V(\d{3})__(\w+?)(\.postgresql)?\.sql")


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema version: the SQL script that takes the previous version to this one."""

    version: int
    name: str
    script: str


def split_statements(script: str) -> tuple[str, ...]:
    """Split a SQLite script into statements, so they can run inside a transaction the caller controls.

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
def migrations(dialect: DialectName) -> tuple[Migration, ...]:
    """A backend's migrations in order; versions must run 1, 2, 3… with none missing."""
    found: list[Migration] = []
    for entry in resources.files("bot.store.migrations").iterdir():
        match = _FILE_NAME.fullmatch(entry.name)
        if match and (match[3] is not None) == (dialect == "postgresql"):
            found.append(Migration(int(match[1]), match[2], entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise RuntimeError(f"{dialect} migrations must be numbered 1..N without gaps, found {versions}")
    return tuple(found)


def latest_version() -> int:
    """The schema version this code writes (the same on every backend; a test checks)."""
    return len(migrations("sqlite"))
