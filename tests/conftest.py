"""Fixtures for the whole suite: the fake Discord server and the bot run as it ships.

Each run keeps its temporary files in a folder of its own, removed when the run ends: pytest's
shared /tmp/pytest-of-<user> keeps only the newest three runs, so a suite running beside this one
deleted the folders this one was using (a PostgreSQL test server's data among them).
"""

import shutil
import tempfile

import pytest

pytest_plugins = ["devkit.fake_discord.pytest_plugin"]

# Helper modules shared by test modules: pytest explains a failed `assert` in them as it does in the
# tests themselves only if it is told before they are imported.
pytest.register_assert_rewrite(
    "tests.ai.cli", "tests.e2e.helpers", "tests.engine.invariants", "tests.selfplay_cli", "tests.service.games",
    "tests.service.tournament_harness",
)

# A real PostgreSQL server for the tests that need one (started once a session, only if used).
from devkit.pg import (  # noqa: E402, F401
    pg_durable_server,
    pg_empty_url,
    pg_fresh_databases,
    pg_own_server,
    pg_server,
    pg_template,
    pg_url,
)

_OWN_BASETEMP = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    if config.option.basetemp is None:
        config.option.basetemp = config.stash[_OWN_BASETEMP] = tempfile.mkdtemp(prefix="spades-tests-")


def pytest_unconfigure(config: pytest.Config) -> None:
    if _OWN_BASETEMP in config.stash:
        shutil.rmtree(config.stash[_OWN_BASETEMP], ignore_errors=True)
