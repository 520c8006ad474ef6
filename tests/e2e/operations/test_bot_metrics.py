"""`METRICS_PORT` as an operator uses it: `/healthz` says 503 until the bot is ready and 200 after,
and `/metrics`, scraped around a real game, shows the figures moving: interactions answered,
REST calls, saves, games per mode, the REST budget and the gateway. The log, as `LOG_FORMAT=json`
writes it, is one JSON object a line, and says who the bot is once it is ready."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from devkit.fake_discord import BotProcess, FakeDiscord
from devkit.fake_discord.pytest_plugin import BotRunner
from tests.e2e.helpers.server import Spades
from tests.e2e.helpers.table import start_game

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def get(port: int, path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{port}{path}") as response:
        return response.status, await response.text()


async def first_answer(port: int, path: str) -> tuple[int, str]:
    """The first answer once the port listens (the bot process is starting)."""
    for _ in range(600):
        try:
            return await get(port, path)
        except aiohttp.ClientConnectionError:
            await asyncio.sleep(0.02)
    raise AssertionError(f"nothing listened on port {port}")


async def healthy(port: int) -> str:
    """/healthz's text once it answers 200: the bot is ready once READY came, and the servers in it
    (discord.py waits a moment for them)."""
    for _ in range(500):
        status, text = await get(port, "/healthz")
        if status == 200:
            return text
        await asyncio.sleep(0.02)
    raise AssertionError(f"/healthz still answers {status}: {text}")


async def scrape(port: int) -> Samples:
    status, text = await get(port, "/metrics")
    assert status == 200
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of `name`'s samples whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(value for (sample, have), value in samples.items() if sample == name and wanted <= have)


async def test_healthz_is_503_until_ready_and_metrics_move_during_a_game(
        fake_discord: FakeDiscord, bot_runner: BotRunner, tmp_path: Path) -> None:
    port = free_port()

    async def run(db_path: Path, extra_env: dict[str, str]) -> BotProcess:
        return await bot_runner(db_path=db_path, extra_env=extra_env, wait_ready=False)

    spades = Spades(fake_discord, run, tmp_path / "spades.sqlite3")
    fake_discord.rest_latency = 2.0  # the token check takes 2 s: the bot listens, and isn't ready
    bot = await spades.start_bot({"METRICS_PORT": str(port), "LOG_FORMAT": "json"})
    status, text = await first_answer(port, "/healthz")
    assert (status, text) == (503, "the store is not open\n")
    fake_discord.rest_latency = 0.0
    await bot.wait_ready()
    assert await healthy(port) == "ok\n"
    await fake_discord.wait_until(lambda: "logged in as" in bot.log_text(), 10, "the start-up line")
    whole_lines = bot.log_text().rpartition("\n")[0].splitlines()[2:]  # after the harness's header
    said = [entry["message"] for entry in map(json.loads, whole_lines) if entry["logger"] == "bot"]
    assert any(line.startswith("logged in as spades_bot in 1 server, serving shard 0 of 1, store sqlite:///")
               for line in said), said

    before = await scrape(port)
    players = [spades.member(name) for name in ("Alice", "Bob", "Carol")]
    channel = spades.channel("spades")
    table = await start_game(spades, channel, players, target=50, mercy=50)
    during = await scrape(port)
    assert total(during, "spades_games", mode="cutthroat", status="playing") == 1
    await table.play_moves()
    await spades.fake.wait_for_message(channel, lambda m: m.content.startswith("## 🏆"))
    after = await scrape(port)

    assert total(after, "spades_games", mode="cutthroat") == 0  # finished: no longer running
    clicks = total(after, "spades_interactions_total", kind="button:card", outcome="ok")
    assert clicks >= 10, "every card played by a click was answered and counted"
    assert total(after, "spades_interactions_total", kind="/spades new", outcome="ok") == 1
    assert total(after, "spades_interactions_total", outcome="failed") == 0
    answered = total(after, "spades_interactions_total", outcome="ok") - total(before, "spades_interactions_total")
    acks = total(after, "spades_interaction_ack_seconds_count") - total(before, "spades_interaction_ack_seconds_count")
    assert answered >= 20 and acks >= answered
    assert total(after, "spades_interaction_ack_seconds_bucket", le="2.5") == total(
        after, "spades_interaction_ack_seconds_count"), "every answer well within Discord's 3 seconds"
    callbacks = {status: total(after, "spades_rest_calls_total", kind="POST interactions/callback", status=status)
                 for status in ("200", "204")}  # discord.py asks for the answer back (200), the fast path doesn't
    assert callbacks["200"] > 0 and callbacks["204"] > 0 and sum(callbacks.values()) >= answered
    assert total(after, "spades_rest_calls_total", kind="PATCH webhooks/messages", status="200") > total(
        before, "spades_rest_calls_total", kind="PATCH webhooks/messages", status="200")
    assert total(after, "spades_rest_calls_total", kind="POST channels/messages", status="200") > 0  # the DMs
    saves = total(after, "spades_store_save_seconds_count") - total(before, "spades_store_save_seconds_count")
    assert saves >= clicks, "each move saved once at least"
    assert total(after, "spades_rest_budget_calls_total") > total(before, "spades_rest_budget_calls_total")
    assert 0 < total(after, "spades_rest_budget_rate") < 50  # under the token's 50 a second
    assert total(after, "spades_rest_429s_total") == 0
    assert total(after, "spades_gateway_events_total", event="connect") == 1
    assert total(after, "spades_gateway_latency_seconds", shard="0") >= 0
    assert total(after, "spades_log_errors_total") == 0


async def test_a_process_serving_two_shards_is_healthy_once_both_are_ready(
        fake_discord: FakeDiscord, bot_runner: BotRunner, tmp_path: Path) -> None:
    port = free_port()
    env = {"SHARD_COUNT": "2", "METRICS_PORT": str(port)}
    bot = await bot_runner(db_path=tmp_path / "spades.sqlite3", extra_env=env, readies=2)
    assert await healthy(port) == "ok\n"
    samples = await scrape(port)
    assert {dict(labels)["shard"] for name, labels in samples if name == "spades_gateway_latency_seconds"} == {"0", "1"}
    assert total(samples, "spades_gateway_events_total", event="connect") == 2
    await fake_discord.wait_until(lambda: "logged in as" in bot.log_text(), 10, "the start-up line")
    assert "logged in as spades_bot in 0 servers, serving shards 0, 1 of 2, store sqlite:///" in bot.log_text()
