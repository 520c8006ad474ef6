"""Operators' commands: `python -m bot backup PATH` and `python -m bot migrate-to URL`.

Both read the database the bot would use (`DATABASE_URL`, from `.env` or the environment) unless
`--from` names another, and answer with one line: what was done, or why nothing was (exit code 2
for a refusal before anything was written, 1 for a copy that doesn't match its source).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from bot.ops.errors import OpsError, VerifyError
from bot.store import DEFAULT_DATABASE_URL, StoreError


def add_commands(commands: argparse._SubParsersAction[Any]) -> None:
    source_help = "the database to read (default: DATABASE_URL from .env or the environment, else sqlite:///spades.db)"
    backup = commands.add_parser("backup", help="copy the SQLite database, safely while the bot runs",
                                 description="Copy the SQLite database to a new file, consistent even while the bot "
                                             "writes to it. PostgreSQL: use pg_dump.")
    backup.add_argument("path", metavar="PATH", type=Path, help="the new file to write (never overwritten)")
    backup.add_argument("--from", dest="source", default=None, metavar="URL", help=source_help)
    migrate = commands.add_parser("migrate-to", help="move every game, rating, season and tournament to an empty "
                                                     "database (SQLite to PostgreSQL, or back)",
                                  description="Copy the whole database into an empty one of the other kind, then "
                                              "check every table's count and replay every game on both sides. "
                                              "Stop the bot first.")
    migrate.add_argument("target", metavar="URL",
                         help="the empty database to fill: postgresql://user:password@host/database, or sqlite:///x.db")
    migrate.add_argument("--from", dest="source", default=None, metavar="URL", help=source_help)


def default_source() -> str:
    """DATABASE_URL as the bot itself reads it (the environment, then .env), or the bot's default."""
    from bot.config import load_dotenv  # here: bot.config needs the transport, which counts for bot.ops.metrics

    load_dotenv()
    return os.environ.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run `backup` or `migrate-to`; the exit code."""
    out, err = out or sys.stdout, err or sys.stderr
    source = args.source or default_source()
    try:
        if args.command == "backup":
            from bot.ops.backup import backup

            done = backup(source, args.path)
            print(f"backed up {done.games:,} games (schema version {done.schema_version}, {done.size:,} bytes) "
                  f"to {done.path}", file=out)
        else:
            from bot.ops.migrate import migrate

            moved = asyncio.run(migrate(source, args.target))
            rows = ", ".join(f"{table} {count:,}" for table, count in moved.counts.items() if count)
            damaged = moved.games_damaged and f" ({moved.games_damaged} damaged in the source, copied as they were)"
            print(f"moved to {moved.target}: {rows or 'no rows'}; every table's count matches, "
                  f"{moved.games_replayed:,} games replay the same{damaged or ''}, "
                  f"{moved.tournaments:,} tournaments read the same", file=out)
    except VerifyError as error:
        print(f"error: {error}", file=err)
        return 1
    except (OpsError, StoreError) as error:
        print(f"error: {error}", file=err)
        return 2
    return 0
