"""Settings from the environment (and `.env` in the working directory), read once at start-up."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


class ConfigError(Exception):
    """A setting is missing or malformed; the message is the one line the operator sees."""


def load_dotenv(path: Path = Path(".env")) -> None:
    """Put KEY=VALUE lines of ``path`` into the environment; real environment variables win."""
    if not path.is_file():
        return
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        os.environ.setdefault(key.strip(), value)


@dataclass(frozen=True)
class Config:
    token: str
    database_url: str = "sqlite:///spades.db"
    dev_guild_id: int | None = None
    bot_move_delay: float = 1.0
    turn_timeout: float = 120.0
    log_level: str = "INFO"
    api_base: str | None = None  # a REST proxy or a test server instead of Discord's API
    gateway_url: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        env = os.environ if env is None else env
        token = env.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise ConfigError("DISCORD_TOKEN is not set: put it in .env or the environment (see .env.example).")
        return cls(
            token=token,
            database_url=env.get("DATABASE_URL", "sqlite:///spades.db"),
            dev_guild_id=_guild_id(env),
            bot_move_delay=_float(env, "BOT_MOVE_DELAY", 1.0),
            turn_timeout=_float(env, "TURN_TIMEOUT", 120.0),
            log_level=env.get("LOG_LEVEL", "INFO").upper(),
            api_base=env.get("DISCORD_API_BASE") or None,
            gateway_url=env.get("DISCORD_GATEWAY_URL") or None,
        )


def _float(env: Mapping[str, str], key: str, default: float) -> float:
    text = env.get(key, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{key} must be a number of seconds, got “{text}”.") from None
    if value < 0:
        raise ConfigError(f"{key} can't be negative.")
    return value


def _guild_id(env: Mapping[str, str]) -> int | None:
    text = env.get("DEV_GUILD_ID", "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise ConfigError(f"DEV_GUILD_ID must be a server id (digits), got “{text}”.")
    return int(text)
