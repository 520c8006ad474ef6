"""pytest fixtures for end-to-end tests against FakeDiscord.

Wire with `pytest_plugins = ["devkit.fake_discord.pytest_plugin"]` in the root conftest.
Fixtures:
- `fake_discord`: a started FakeDiscord that enforces Discord's rate limits (DISCORD_LIMITS), as
  the bot meets them in production; teardown fails the test if a protocol error was recorded, or if
  the bot went over a limit (a 429 the test didn't force: see `refusals`).
  `@pytest.mark.fake_discord(**options)` passes other options to FakeDiscord (over the limits),
  e.g. a tighter token: `@pytest.mark.fake_discord(global_rate=10)`, or none: `(**NO_LIMITS)`.
  `@pytest.mark.allow_429s(reason)`: a test whose set-up goes over the limits on purpose.
- `bot_runner`: async factory `await bot_runner(db_path=None, extra_env=None, **kw) -> BotProcess`
  that starts `python -m bot` against `fake_discord`; every process is killed at teardown.
  `readies=N` waits for N READYs (a process running N shards).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from .bot_process import BotProcess
from .ratelimits import DISCORD_LIMITS, EXEMPT_KINDS
from .records import RequestRecord
from .server import FakeDiscord

BotRunner = Callable[..., Awaitable[BotProcess]]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "fake_discord(**options): FakeDiscord options for the fake_discord fixture")
    config.addinivalue_line("markers", "allow_429s(reason): the fake_discord fixture lets the bot go over the limits")


@contextlib.asynccontextmanager
async def started_fake_discord(*, check_errors: bool = True, **kwargs: Any) -> AsyncIterator[FakeDiscord]:
    """Start a FakeDiscord; on exit stop it and raise if protocol errors were recorded."""
    fake = FakeDiscord(**kwargs)
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()
    if check_errors:
        fake.assert_no_errors()


def refusals(fake: FakeDiscord) -> str:
    """The rate-limit summary, then each 429 with what came before it: the counted calls of the
    second before, and the calls of its route's bucket in the bucket's period: what the bot sent unpaced."""
    lines = [repr(fake.rate_limit_summary())]
    for refused in (r for r in fake.requests if r.status == 429):
        limit = fake.limits.route_limit(refused.method, refused.template) if refused.template else None
        lines.append(f"429 on {refused.method} {refused.path} after:")
        lines += [f"  {r.at - refused.at:+.3f} {r.status} {r.method} {r.path}" for r in fake.requests
                  if (refused.at - 1.0 <= r.at <= refused.at and r.kind not in EXEMPT_KINDS)
                  or (limit is not None and refused.at - limit.period <= r.at <= refused.at
                      and _bucket_of(fake, r) == _bucket_of(fake, refused))]
    return "\n".join(lines)


def _bucket_of(fake: FakeDiscord, record: RequestRecord) -> tuple[str, str] | None:
    """The route bucket a request fell in, and the value of its major parameter."""
    limit = fake.limits.route_limit(record.method, record.template) if record.template else None
    if limit is None or record.template is None:
        return None
    names = record.template.split("/")
    values = record.path.removeprefix("/api/v10").split("/")
    major = next((v for n, v in zip(names, values, strict=False) if n == "{" + f"{limit.major}" + "}"), "")
    return limit.bucket, major


@pytest_asyncio.fixture
async def fake_discord(request: pytest.FixtureRequest) -> AsyncIterator[FakeDiscord]:
    marker = request.node.get_closest_marker("fake_discord")
    async with started_fake_discord(**{**DISCORD_LIMITS, **(marker.kwargs if marker is not None else {})}) as fake:
        yield fake
    if request.node.get_closest_marker("allow_429s") is None:
        assert fake.earned_429s() == 0, f"the bot went over Discord's rate limits:\n{refusals(fake)}"


@pytest_asyncio.fixture
async def bot_runner(fake_discord: FakeDiscord, tmp_path: Path) -> AsyncIterator[BotRunner]:
    processes: list[BotProcess] = []

    async def run(
        db_path: Path | str | None = None, extra_env: Mapping[str, str] | None = None, **kwargs: Any
    ) -> BotProcess:
        path = Path(db_path) if db_path is not None else tmp_path / "bot.sqlite3"
        wait_ready = kwargs.pop("wait_ready", True)
        timeout = kwargs.pop("timeout", 30.0)
        readies = kwargs.pop("readies", 1)
        bot = BotProcess(fake_discord, path, extra_env, **kwargs)
        processes.append(bot)  # registered before waiting so teardown kills it even on failure
        await bot.start()
        if wait_ready:
            await bot.wait_ready(timeout, readies=readies)
        return bot

    try:
        yield run
    finally:
        for bot in processes:
            bot.kill()
            with contextlib.suppress(Exception):
                await bot.wait_exit()
