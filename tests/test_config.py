"""Settings are checked with their bounds at start: one clear line for each mistake."""

from __future__ import annotations

import pytest

from bot.config import Config, ConfigError
from bot.runtime import shard_set

BASE = {"DISCORD_TOKEN": "t"}


@pytest.mark.parametrize(("env", "said"), [
    ({"LOG_LEVEL": "chatty"}, "LOG_LEVEL must be one of DEBUG, INFO"),
    ({"BOT_MOVE_DELAY": "nan"}, "BOT_MOVE_DELAY must be between 0 and 60 seconds"),
    ({"BOT_MOVE_DELAY": "61"}, "BOT_MOVE_DELAY must be between 0 and 60 seconds"),
    ({"TURN_TIMEOUT": "abc"}, "TURN_TIMEOUT must be a number of seconds, got “abc”"),
    ({"TURN_TIMEOUT": "0"}, "TURN_TIMEOUT must be between 1 and 3600 seconds"),
    ({"HAND_PAUSE": "-1"}, "HAND_PAUSE must be between 0 and 30 seconds"),
    ({"DEV_GUILD_ID": "12a"}, "DEV_GUILD_ID must be a whole number"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "0,2"}, "SHARD_IDS must list shard numbers from 0 to 1"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "1,1"}, "SHARD_IDS lists a shard twice"),
    ({"SHARD_COUNT": "2", "SHARD_IDS": "1"}, "needs PostgreSQL"),
    ({"GAME_SEED": "x" * 500}, "GAME_SEED must be a whole number"),
    ({"DISCORD_GLOBAL_RATE": "0"}, "DISCORD_GLOBAL_RATE must be requests per second from 1 to 10000"),
    ({"DISCORD_GLOBAL_RATE": "fast"}, "DISCORD_GLOBAL_RATE must be requests per second"),
    ({"DISCORD_GLOBAL_RATE": "inf"}, "DISCORD_GLOBAL_RATE must be requests per second"),
    ({"DISCORD_IDLE_EXPIRY": "0"}, "DISCORD_IDLE_EXPIRY must be between 0.1 and 3600 seconds"),
])
def test_a_mistake_is_one_line_that_names_the_setting(env: dict[str, str], said: str) -> None:
    with pytest.raises(ConfigError, match=said) as refused:
        Config.from_env({**BASE, **env})
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 200


def test_a_process_serves_the_guilds_of_its_shards() -> None:
    config = Config.from_env({**BASE, "SHARD_COUNT": "2", "SHARD_IDS": "1",
                              "DATABASE_URL": "postgresql://spades@127.0.0.1/spades"})
    shards = shard_set(config)
    assert config.shard_ids == (1,) and shards is not None
    assert shards.owns(1 << 22) and not shards.owns(2 << 22)
    assert shard_set(Config.from_env(BASE)) is None  # unsharded: every guild
    assert Config.from_env({**BASE, "SHARD_COUNT": "3"}).shard_ids == (0, 1, 2)


def test_shard_processes_split_the_tokens_global_budget_unless_told_otherwise() -> None:
    postgres = {**BASE, "DATABASE_URL": "postgresql://spades@127.0.0.1/spades"}
    assert Config.from_env(BASE).global_rate == 50
    assert Config.from_env({**postgres, "SHARD_COUNT": "2", "SHARD_IDS": "1"}).global_rate == 25
    assert Config.from_env({**postgres, "SHARD_COUNT": "4", "SHARD_IDS": "0,1,2"}).global_rate == 37.5
    # Behind a REST proxy that pools the token's budget, each process is given its rate.
    assert Config.from_env({**postgres, "SHARD_COUNT": "2", "SHARD_IDS": "1", "DISCORD_GLOBAL_RATE": "50"}
                           ).global_rate == 50


def test_kept_connections_expire_after_15_idle_seconds_unless_told_otherwise() -> None:
    assert Config.from_env(BASE).idle_expiry == 15.0
    assert Config.from_env({**BASE, "DISCORD_IDLE_EXPIRY": "2.5"}).idle_expiry == 2.5
