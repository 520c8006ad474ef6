"""The Docker image and compose file as the docs run them (Docker itself can't run here): read the
Dockerfile and `.env.example` as `docker run --env-file .env` combines them, and parse compose.yaml."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from aiohttp import web

from bot.ops.serve import Health, app
from bot.store import parse_sqlite_url

ROOT = Path(__file__).resolve().parents[2]


def _instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n\s*", " ", (ROOT / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def _env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines as `docker run --env-file` reads them (comments and blank lines skipped)."""
    pairs = [line.split("=", 1) for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return {key: value for key, value in pairs}


def test_docker_run_with_the_example_env_file_keeps_the_database_on_the_volume() -> None:
    env: dict[str, str] = {}
    workdir = PurePosixPath("/")
    user = "root"
    for instruction, argument in _instructions():
        if instruction == "ENV":
            env.update(dict(re.findall(r"(\w+)=(\S+)", argument)))
        elif instruction == "WORKDIR":
            workdir = workdir / argument
        elif instruction == "USER":
            user = argument
        elif instruction == "COPY":
            assert all((ROOT / source).exists() for source in argument.split()[:-1]), argument
    env.update(_env_file(ROOT / ".env.example"))  # --env-file wins over the image's ENV
    database = PurePosixPath(parse_sqlite_url(env["DATABASE_URL"])[0])
    where = workdir / database  # a relative path is relative to the working folder
    assert where.parent == PurePosixPath("/data"), where
    assert user == "spades" and f"chown {user}:{user} /data" in (ROOT / "Dockerfile").read_text()


def _uncommented(text: str) -> str:
    """compose.yaml with its commented-out settings (`# key: value` lines) switched on."""
    return re.sub(r"(?m)^( *)# ( *(?:[\w-]+|<<): ?.*)$", r"\1\2", text)


def test_compose_runs_the_bot_on_its_postgresql_and_a_second_shard_can_be_switched_on() -> None:
    text = (ROOT / "compose.yaml").read_text()
    compose: dict[str, Any] = yaml.safe_load(text)
    services = compose["services"]
    assert set(services) == {"postgres", "bot"}
    bot = services["bot"]
    assert bot["build"] == "." and bot["env_file"] == ".env"
    assert bot["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert re.fullmatch(r"postgresql://spades:\$\{POSTGRES_PASSWORD\}@postgres:5432/spades",
                        bot["environment"]["DATABASE_URL"])
    assert services["postgres"]["volumes"] == ["pg-data:/var/lib/postgresql/data"] and "pg-data" in compose["volumes"]

    sharded = yaml.safe_load(_uncommented(text))["services"]
    assert set(sharded) == {"postgres", "bot", "bot-2"}
    shards = {name: (s["environment"]["SHARD_COUNT"], s["environment"]["SHARD_IDS"]) for name, s in sharded.items()
              if name != "postgres"}
    assert shards == {"bot": ("2", "0"), "bot-2": ("2", "1")}
    assert sharded["bot-2"]["environment"]["DATABASE_URL"] == bot["environment"]["DATABASE_URL"]
    assert sharded["bot-2"]["depends_on"] == bot["depends_on"]


def _image_health_check() -> list[str]:
    [argument] = [argument for instruction, argument in _instructions() if instruction == "HEALTHCHECK"]
    command: list[str] = json.loads(argument.split(" CMD ", 1)[1])
    return command


async def test_the_images_health_check_asks_healthz_and_fails_until_the_bot_is_ready() -> None:
    """The HEALTHCHECK's own command, run against the bot's /healthz: exit 1 while it answers 503,
    0 once 200; and compose.yaml checks the same way."""
    health = Health()
    runner = web.AppRunner(app(health))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    command = _image_health_check()

    async def check() -> int:
        proc = await asyncio.create_subprocess_exec(
            *command, env={**os.environ, "METRICS_PORT": str(port)},
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        return await asyncio.wait_for(proc.wait(), 30)

    try:
        assert command[:2] == ["python", "-c"]
        command[0] = sys.executable
        assert await check() == 1  # 503: the store is not open
        health.store_open = True
        health.problem = lambda: None  # type: ignore[method-assign]  # as a ready bot's
        assert await check() == 0
    finally:
        await runner.cleanup()
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]["bot"]["healthcheck"]
    assert compose["test"] == ["CMD", *_image_health_check()]
