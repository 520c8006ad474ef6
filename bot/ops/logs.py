"""The bot's log as an operator reads it: text for people, or `LOG_FORMAT=json` (one JSON object a
line) for log collectors; every error also counted for `/metrics`; and the one line that says who
the bot is once it is ready."""

from __future__ import annotations

import datetime
import json
import logging
from collections.abc import Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit

import discord

from bot.ops.metrics import ErrorCount

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonLines(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, and the exception's
    text when there is one (a traceback stays inside its one line)."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.datetime.fromtimestamp(record.created, datetime.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False)


def set_up(level: str, log_format: str) -> None:
    """The root logger's one handler (standard error) in the chosen format, and the error count."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level, handlers=[handler, ErrorCount()], force=True)


def masked_url(database_url: str) -> str:
    """The database URL with its password, if any, shown as `***`, in the user part or the query
    (`?password=`, as libpq also takes it): the start-up line goes to logs that others read."""
    parts = urlsplit(database_url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if parts.password is None and not any(key.lower() == "password" for key, _ in query):
        return database_url
    netloc = parts.netloc
    if parts.password is not None:
        netloc = f"{parts.username or ''}:***@{netloc.rpartition('@')[2]}"
    masked = urlencode([(key, "***" if key.lower() == "password" else value) for key, value in query], safe="*")
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{masked}" if masked else "")


def ready_line(client: discord.Client, shard_count: int | None, shard_ids: Sequence[int] | None,
               database_url: str) -> str:
    """`logged in as Spades#1234 in 3 servers, serving shards 0, 1 of 4, store sqlite:///spades.db`."""
    count, ids = (1, [0]) if shard_count is None or shard_ids is None else (shard_count, list(shard_ids))
    servers = len(client.guilds)
    return (f"logged in as {client.user} in {servers} server{'' if servers == 1 else 's'}, serving "
            f"shard{'' if len(ids) == 1 else 's'} {', '.join(map(str, ids))} of {count}, "
            f"store {masked_url(database_url)}")
