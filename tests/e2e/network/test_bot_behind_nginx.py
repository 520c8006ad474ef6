"""A whole game with the bot's REST calls going over TLS through a real nginx that closes each
kept connection after 3 requests, behind a relay that forgets connections idle for 2 s without a
word (as NAT gateways and load balancers do), with a quiet spell in the middle: nothing lost,
doubled or stuck, every interaction answered in time, no ERROR in the bot's log."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import pytest_asyncio
import trustme

from devkit.fake_discord import FakeDiscord
from devkit.nginx import NginxFactory, nginx_ca, nginx_factory  # noqa: F401
from devkit.relay import Relay, RelayFactory, relay_factory  # noqa: F401
from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import Spades, game_over_message
from tests.e2e.helpers.table import start_game
from tests.record_check import check_record

FORGET_AFTER = 2.0  # the relay's idle timeout
IDLE_EXPIRY = 1.0  # the bot's, set below it as an operator would


@dataclass
class Edge:
    relay: Relay
    env: dict[str, str]  # the bot's: its REST calls through the relay and nginx, over TLS


@pytest_asyncio.fixture
async def edge(fake_discord: FakeDiscord, nginx_factory: NginxFactory,  # noqa: F811
               relay_factory: RelayFactory, nginx_ca: trustme.CA, tmp_path: Path) -> Edge:  # noqa: F811
    fake_port = urlsplit(fake_discord.api_base).port
    assert fake_port is not None
    nginx = nginx_factory(fake_port, keepalive_timeout=60.0, keepalive_requests=3)
    relay = await relay_factory(nginx.https_port, forget_after=FORGET_AFTER)
    authority = tmp_path / "ca.pem"
    nginx_ca.cert_pem.write_to_path(str(authority))
    return Edge(relay, {"DISCORD_API_BASE": f"https://localhost:{relay.port}/api/v10",
                        "SSL_CERT_FILE": str(authority), "DISCORD_IDLE_EXPIRY": str(IDLE_EXPIRY)})


@pytest.fixture
def bot_env(edge: Edge) -> dict[str, str]:
    return edge.env


async def test_a_whole_game_through_nginx_and_a_forgetful_relay_with_a_quiet_spell(spades: Spades, edge: Edge) -> None:
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=100, mercy=100)
    await table.play_moves(3 + 3 * 6)  # the bids and six tricks
    # A quiet spell: every connection the relay holds is forgotten (those nginx closed after 3 calls,
    # or discord.py's connector after its idle expiry, are gone already; the fast path's stay open).
    await asyncio.sleep(FORGET_AFTER + 1.5)
    await table.play_moves()
    await game_over_message(spades, channel)

    assert len([m for m in channel.messages.values() if m.content.startswith("## 🏆")]) == 1
    record = await spades.record(alice, channel)
    check_record(record)
    assert record_moves(record) == table.acknowledged()
    assert spades.bot is not None and " ERROR " not in spades.bot.log_text()
    assert fake.count_429s() == 0
