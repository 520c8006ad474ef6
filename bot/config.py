"""Settings from the environment (and `.env` in the working directory), read once at start-up.

Every value is checked here, with its bounds, so a mistake is one clear line at start and never a
surprise later.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# seconds a kept connection to Discord may sit idle before it is closed rather than reused: the
# transport's default (why 15: bot/discord_ui/transport/http.py), set here with the other settings
IDLE_EXPIRY = 15.0


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


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")
TOKEN_GLOBAL_RATE = 50.0  # Discord's global limit for one bot token, shared by all its processes
MAX_SHARDS = 1024


@dataclass(frozen=True)
class Config:
    token: str
    database_url: str = "sqlite:///spades.db"
    dev_guild_id: int | None = None
    bot_move_delay: float = 1.0
    turn_timeout: float = 120.0
    hand_pause: float = 3.0
    lobby_timeout: float = 1800.0
    channel_lost_timeout: float = 600.0
    refresh_interval: float = 1.0
    log_level: str = "INFO"
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    game_seed: int | None = None  # tests: game ids and deals follow from it
    season_clock_offset: float = 0.0  # tests: seconds the clock that ends seasons runs ahead
    tournament_round_pause: float = 60.0  # seconds between a tournament round's standings and the next round
    api_base: str | None = None  # a REST proxy or a test server instead of Discord's API
    gateway_url: str | None = None
    global_rate: float = TOKEN_GLOBAL_RATE  # counted REST calls a second this process may make
    idle_expiry: float = IDLE_EXPIRY  # seconds a connection to Discord may idle before it is closed, not reused
    metrics_port: int | None = None  # /metrics and /healthz (bot.ops.serve); None: not served
    log_format: str = "text"  # or "json": one JSON object a line, for log collectors


    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        env = os.environ if env is None else env
        token = env.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise ConfigError("DISCORD_TOKEN is not set: put it in .env or the environment (see .env.example).")
        shard_count, shard_ids = _shards(env)
        database_url = env.get("DATABASE_URL", "").strip() or "sqlite:///spades.db"
        if shard_count is not None and shard_ids != tuple(range(shard_count)) and database_url.startswith("sqlite"):
            raise ConfigError("SHARD_IDS serving only some shards needs PostgreSQL (DATABASE_URL=postgresql://…): "
                              "a SQLite file serves one process.")
        return cls(
            token=token,
            database_url=database_url,
            dev_guild_id=_whole(env, "DEV_GUILD_ID", None, 1, 2**63),
            bot_move_delay=_seconds(env, "BOT_MOVE_DELAY", 1.0, 0, 60),
            turn_timeout=_seconds(env, "TURN_TIMEOUT", 120.0, 1, 3600),
            hand_pause=_seconds(env, "HAND_PAUSE", 3.0, 0, 30),
            lobby_timeout=_seconds(env, "LOBBY_TIMEOUT", 1800.0, 60, 7 * 24 * 3600),
            channel_lost_timeout=_seconds(env, "CHANNEL_LOST_TIMEOUT", 600.0, 10, 7 * 24 * 3600),
            refresh_interval=_seconds(env, "REFRESH_INTERVAL", 1.0, 0.05, 10),
            log_level=_log_level(env),
            shard_count=shard_count,
            shard_ids=shard_ids,
            game_seed=_whole(env, "GAME_SEED", None, 0, 2**63),
            season_clock_offset=_seconds(env, "SEASON_CLOCK_OFFSET", 0.0, 0, 10 * 365 * 24 * 3600),
            tournament_round_pause=_seconds(env, "TOURNAMENT_ROUND_PAUSE", 60.0, 0, 24 * 3600),
            api_base=env.get("DISCORD_API_BASE") or None,
            gateway_url=env.get("DISCORD_GATEWAY_URL") or None,
            global_rate=_global_rate(env, shard_count, shard_ids),
            idle_expiry=_seconds(env, "DISCORD_IDLE_EXPIRY", IDLE_EXPIRY, 0.1, 3600),
            metrics_port=_whole(env, "METRICS_PORT", None, 1, 65535),
            log_format=_log_format(env),
        )


def _seconds(env: Mapping[str, str], key: str, default: float, low: float, high: float) -> float:
    text = env.get(key, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{key} must be a number of seconds, got “{text[:40]}”.") from None
    if not low <= value <= high:  # also refuses nan and inf
        raise ConfigError(f"{key} must be between {low:g} and {high:g} seconds, got {text[:40]}.")
    return value


def _whole(env: Mapping[str, str], key: str, default: int | None, low: int, high: int) -> int | None:
    text = env.get(key, "").strip()
    if not text:
        return default
    if not (text.isascii() and text.isdigit()) or len(text) > 20 or not low <= int(text) <= high:
        raise ConfigError(f"{key} must be a whole number from {low} to {high}, got “{text[:40]}”.")
    return int(text)


def _global_rate(env: Mapping[str, str], shard_count: int | None, shard_ids: tuple[int, ...] | None) -> float:
    """This process's share of the token's global budget: `DISCORD_GLOBAL_RATE` as given (say,
    behind a REST proxy that pools the budget), or else Discord's 50/s split by shards served."""
    text = env.get("DISCORD_GLOBAL_RATE", "").strip()
    if not text:
        share = 1.0 if shard_count is None or shard_ids is None else len(shard_ids) / shard_count
        return TOKEN_GLOBAL_RATE * share
    try:
        rate = float(text)
    except ValueError:
        rate = float("nan")
    if not 1 <= rate <= 10_000:  # also refuses nan and inf
        raise ConfigError(f"DISCORD_GLOBAL_RATE must be requests per second from 1 to 10000, got “{text[:40]}”.")
    return rate


def _log_level(env: Mapping[str, str]) -> str:
    level = env.get("LOG_LEVEL", "").strip().upper() or "INFO"
    if level not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got “{level[:40]}”.")
    return level


def _log_format(env: Mapping[str, str]) -> str:
    text = env.get("LOG_FORMAT", "").strip().lower() or "text"
    if text not in LOG_FORMATS:
        raise ConfigError(f"LOG_FORMAT must be text or json, got “{text[:40]}”.")
    return text


def _shards(env: Mapping[str, str]) -> tuple[int | None, tuple[int, ...] | None]:
    count = _whole(env, "SHARD_COUNT", None, 1, MAX_SHARDS)
    ids_text = env.get("SHARD_IDS", "").strip()
    if count is None:
        if ids_text:
            raise ConfigError("SHARD_IDS needs SHARD_COUNT (e.g. SHARD_COUNT=4 SHARD_IDS=0,1).")
        return None, None
    if not ids_text:
        return count, tuple(range(count))
    ids: list[int] = []
    for part in ids_text.split(","):
        part = part.strip()
        if not (part.isascii() and part.isdigit()) or int(part) >= count:
            raise ConfigError(f"SHARD_IDS must list shard numbers from 0 to {count - 1}, got “{ids_text[:60]}”.")
        ids.append(int(part))
    if len(set(ids)) != len(ids):
        raise ConfigError(f"SHARD_IDS lists a shard twice: “{ids_text[:60]}”.")
    return count, tuple(sorted(ids))
