"""What an operator reads of a running bot, short of a whole game (tests/e2e/operations/test_bot_metrics.py plays
one): the JSON log, the start-up line without a password, the settings' one-line mistakes, the
health check's reasons, and how REST calls and interactions are told apart in /metrics."""

from __future__ import annotations

import asyncio
import datetime
import itertools
import json
import logging
import os
import re
import socket
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from prometheus_client import REGISTRY

from bot.config import Config, ConfigError
from bot.discord_ui.transport import fastpath
from bot.ops import metrics
from bot.ops.logs import JsonLines, masked_url, ready_line
from bot.ops.serve import Health

BASE = {"DISCORD_TOKEN": "t"}


@pytest.mark.parametrize(("env", "said"), [
    ({"METRICS_PORT": "0"}, "METRICS_PORT must be a whole number from 1 to 65535, got “0”."),
    ({"METRICS_PORT": "http"}, "METRICS_PORT must be a whole number from 1 to 65535, got “http”."),
    ({"METRICS_PORT": "65536"}, "METRICS_PORT must be a whole number from 1 to 65535"),
    ({"LOG_FORMAT": "xml"}, "LOG_FORMAT must be text or json, got “xml”."),
])
def test_a_bad_metrics_port_or_log_format_is_one_line(env: dict[str, str], said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        Config.from_env({**BASE, **env})


def test_metrics_are_off_and_the_log_is_text_unless_asked() -> None:
    assert (Config.from_env(BASE).metrics_port, Config.from_env(BASE).log_format) == (None, "text")
    config = Config.from_env({**BASE, "METRICS_PORT": "9100", "LOG_FORMAT": "JSON"})
    assert (config.metrics_port, config.log_format) == (9100, "json")


def _record(message: str, *args: Any, exc_info: Any = None) -> logging.LogRecord:
    return logging.LogRecord("bot.service", logging.ERROR, __file__, 1, message, args, exc_info)


def test_a_json_log_line_is_one_object_with_the_exception_inside() -> None:
    try:
        raise ValueError("the deck has 51 cards")
    except ValueError:
        record = _record("game %s: saving failed", "abc123", exc_info=sys.exc_info())
    line = JsonLines().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert set(entry) == {"time", "level", "logger", "message", "exception"}
    assert (entry["level"], entry["logger"], entry["message"]) == ("ERROR", "bot.service", "game abc123: saving failed")
    assert entry["exception"].startswith("Traceback")
    assert entry["exception"].endswith("ValueError: the deck has 51 cards")
    assert entry["time"].endswith("+00:00")
    assert abs(time.time() - datetime.datetime.fromisoformat(entry["time"]).timestamp()) < 60


def test_a_json_log_line_without_an_exception_has_no_exception_field() -> None:
    entry = json.loads(JsonLines().format(_record("quote \" and ünïcode")))
    assert "exception" not in entry and entry["message"] == "quote \" and ünïcode"


@pytest.mark.parametrize(("url", "shown"), [
    ("sqlite:///spades.db", "sqlite:///spades.db"),
    ("sqlite:////data/spades.db", "sqlite:////data/spades.db"),
    ("postgresql://spades:s3cr@t@db:5432/spades", "postgresql://spades:***@db:5432/spades"),
    ("postgresql://spades@db/spades", "postgresql://spades@db/spades"),
    ("postgres://:hunter2@db/spades", "postgres://:***@db/spades"),
    ("postgresql://db/spades?sslmode=require&password=hunter2", "postgresql://db/spades?sslmode=require&password=***"),
])
def test_the_store_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert masked_url(url) == shown


def test_the_ready_line_says_who_where_which_shards_and_which_store() -> None:
    client = SimpleNamespace(user="Spades#1234", guilds=[object()] * 3)
    line = ready_line(client, 4, (0, 1), "postgresql://spades:hunter2@db/spades")  # type: ignore[arg-type]
    assert line == "logged in as Spades#1234 in 3 servers, serving shards 0, 1 of 4, store postgresql://spades:***@db/spades"
    alone = SimpleNamespace(user="Spades#1234", guilds=[object()])
    assert ready_line(alone, None, None, "sqlite:///spades.db") == (  # type: ignore[arg-type]
        "logged in as Spades#1234 in 1 server, serving shard 0 of 1, store sqlite:///spades.db")


async def test_a_taken_metrics_port_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "DISCORD_TOKEN": "t", "METRICS_PORT": str(port),
               "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10"}
        env.pop("DATABASE_URL", None)
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=tmp_path, env=env,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2
    assert err.decode().splitlines() == [f"error: METRICS_PORT {port} can't be served: address already in use."]
    assert list(tmp_path.iterdir()) == []  # refused before anything else


@pytest.mark.parametrize(("method", "url", "kind"), [
    ("POST", "https://127.0.0.1:8443/api/v10/interactions/1234567890/aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDpzZWNyZXQ/callback",
     "POST interactions/callback"),
    ("PATCH", "https://127.0.0.1:8443/api/v10/webhooks/111/aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDpzZWNyZXQ/messages/@original",
     "PATCH webhooks/messages"),
    ("POST", "http://127.0.0.1:8080/api/v10/webhooks/111/aW50ZXJhY3Rpb246MTIz?wait=1&with_components=1",
     "POST webhooks"),
    ("DELETE", "/api/v10/channels/222/messages/333", "DELETE channels/messages"),
    ("POST", "/api/v10/users/@me/channels", "POST users/channels"),
    ("PUT", "/api/v10/applications/111/guilds/222/commands", "PUT applications/guilds/commands"),
])
def test_a_rest_call_is_counted_by_its_route_without_ids_or_tokens(method: str, url: str, kind: str) -> None:
    assert metrics.rest_kind(method, url) == kind


def test_the_fast_paths_calls_are_counted_as_their_urls_read() -> None:
    """The fast path names its frequent calls' kinds itself rather than reading every URL: the same
    kinds, so its calls and discord.py's add up under one label."""
    webhook = f"https://127.0.0.1:8443/api/v10/webhooks/111/{TOKEN}"
    assert metrics.rest_kind("PATCH", f"{webhook}/messages/@original") == fastpath._EDIT
    assert metrics.rest_kind("DELETE", f"{webhook}/messages/222") == fastpath._DELETE
    assert metrics.rest_kind("POST", f"{webhook}?wait=1&with_components=1") == fastpath._FOLLOW_UP
    assert metrics.rest_kind("POST", f"https://127.0.0.1:8443/api/v10/interactions/333/{TOKEN}/callback?"
                             "with_response=1") == fastpath._CALLBACK


def _value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


_increment = itertools.count()
TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDpzZWNyZXQ"  # an interaction's token, as Discord writes them


def _snowflake(seconds_ago: float) -> int:
    """A Discord id made `seconds_ago` (its increment tells apart two made in the same millisecond)."""
    return int(((time.time() - seconds_ago) - metrics.DISCORD_EPOCH) * 1000) << 22 | next(_increment) & 0xFFF


def _click(custom_id: str, seconds_ago: float = 0.0) -> Any:
    return SimpleNamespace(id=_snowflake(seconds_ago), type=discord.InteractionType.component,
                           data={"custom_id": custom_id, "component_type": 2})


def test_each_interaction_has_one_outcome_by_its_kind() -> None:
    metrics.use_button_kinds(["card", "bid"])
    before = {outcome: _value("spades_interactions_total", kind="button:card", outcome=outcome)
              for outcome in ("ok", "refused", "failed")}
    acks = _value("spades_interaction_ack_seconds_count")
    answered, refused, failed = _click("spades:card:g1:AS"), _click("spades:card:g1:KS"), _click("spades:card:g1:QS")
    for click in (answered, refused, failed):
        metrics.interaction_received(click)
    metrics.rest_answered("POST", f"/api/v10/interactions/{answered.id}/{TOKEN}/callback", 204, {})
    metrics.interaction_refused(refused, True)
    metrics.rest_answered("POST", f"/api/v10/interactions/{refused.id}/{TOKEN}/callback", 200, {})  # told why
    metrics.interaction_refused(failed, False)
    after = {outcome: _value("spades_interactions_total", kind="button:card", outcome=outcome)
             for outcome in ("ok", "refused", "failed")}
    assert {outcome: after[outcome] - before[outcome] for outcome in after} == {"ok": 1, "refused": 1, "failed": 1}
    assert _value("spades_interaction_ack_seconds_count") == acks + 2


def test_a_forged_button_kind_adds_no_label_and_an_unanswered_click_is_counted_once_its_window_is_over() -> None:
    metrics.use_button_kinds(["card"])
    assert metrics.interaction_kind(_click("spades:x" * 50)) == "button:other"
    before = _value("spades_interactions_total", kind="button:other", outcome="unanswered")
    metrics.interaction_received(_click("spades:forged:1", seconds_ago=5))  # never answered
    metrics.interaction_received(_click("spades:card:g1:AS"))  # the next arrival sweeps it
    assert _value("spades_interactions_total", kind="button:other", outcome="unanswered") == before + 1


def test_a_429_is_counted_by_its_scope() -> None:
    before = {scope: _value("spades_rest_429s_total", scope=scope) for scope in ("user", "global", "edge")}
    metrics.rest_answered("PATCH", "/api/v10/channels/1/messages/2", 429, {"x-ratelimit-scope": "user"})
    metrics.rest_answered("POST", "/api/v10/channels/1/messages", 429, {"x-ratelimit-global": "true"})
    metrics.rest_answered("GET", "/api/v10/users/@me", 429, {"content-type": "text/html"})  # Cloudflare's page
    assert {scope: _value("spades_rest_429s_total", scope=scope) - before[scope] for scope in before} == {
        "user": 1, "global": 1, "edge": 1}


async def test_health_names_what_is_missing_until_the_store_and_every_gateway_are_up() -> None:
    health = Health()
    assert health.problem() == "the store is not open"
    health.store_open = True
    assert health.problem() == "the gateway is not ready"
    client = discord.Client(intents=discord.Intents.none())
    health.client = client
    assert health.problem() == "the gateway is not ready"  # not logged in yet
    await client._async_setup_hook()  # what logging in sets up: the ready flag
    client._ready.set()  # READY came
    client.ws = SimpleNamespace(open=True)  # type: ignore[assignment]
    assert health.problem() is None
    client.ws = SimpleNamespace(open=False)  # type: ignore[assignment]
    assert health.problem() == "the gateway connection is lost"


def test_errors_in_the_log_are_counted_by_logger_and_lesser_records_are_not() -> None:
    logger = logging.getLogger("tests.ops.counted")
    logger.propagate = False
    logger.addHandler(metrics.ErrorCount())
    logger.warning("a warning")
    logger.error("an error")
    logger.critical("worse")
    assert _value("spades_log_errors_total", logger="tests.ops.counted") == 2


def test_every_setting_and_metric_is_documented_for_operators() -> None:
    root = Path(__file__).resolve().parents[2]
    operations = (root / "docs" / "operations.md").read_text(encoding="utf-8")
    config = (root / "bot" / "config.py").read_text(encoding="utf-8")
    settings = set(re.findall(r'env(?:\.get\(|, )"([A-Z_]+)"', config))
    assert {"METRICS_PORT", "LOG_FORMAT", "DISCORD_TOKEN", "SHARD_IDS"} <= settings
    assert [s for s in sorted(settings) if f"| `{s}`" not in operations and f"`, `{s}`" not in operations] == []
    example = (root / ".env.example").read_text(encoding="utf-8")
    assert "# METRICS_PORT=9100" in example and "# LOG_FORMAT=text" in example
    source = (root / "bot" / "ops" / "metrics.py").read_text(encoding="utf-8")
    names = set(re.findall(r'"(spades_\w+)"', source))
    assert len(names) >= 13
    kinds = {"Counter": "_total", "CounterMetricFamily": "_total"}  # exposed with the suffix
    for name in names:
        made_by = re.search(rf'(\w+)\("{name}"', source)
        assert made_by is not None
        shown = name + kinds.get(made_by[1], "")
        assert f"| `{shown}` |" in operations, f"{shown} is not in docs/operations.md's table of metrics"
