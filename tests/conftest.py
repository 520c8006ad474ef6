"""Fixtures for the whole suite: the fake Discord server and the bot run as it ships."""

pytest_plugins = ["tests.fake_discord.pytest_plugin"]

# A real PostgreSQL server for the tests that need one (started once a session, only if used).
from tests.pg import (  # noqa: E402, F401
    pg_durable_server,
    pg_empty_url,
    pg_fresh_databases,
    pg_own_server,
    pg_server,
    pg_template,
    pg_url,
)
