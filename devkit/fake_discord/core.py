"""The state of a FakeDiscord: its world's tables, its gateway, its recorded errors and the wake-up
event the wait helpers sleep on.

Every other part of the fake is a mixin over this class, so it holds the one `__init__` and the
few things all of them call (`notify`, `record_error`, the URLs).
"""

from __future__ import annotations

import asyncio
import logging
from abc import abstractmethod
from collections import Counter
from collections.abc import Mapping

from aiohttp import web

from .gateway import FakeGateway
from .jsontypes import JSON
from .models import FakeChannel, FakeGuild, FakeInteraction, FakeMessage, FakeUser, new_snowflake, new_token
from .ratelimits import ROUTE_LIMITS, RateLimiter, RouteLimit
from .records import FailureRule, ProtocolError, RequestRecord, Route
from .spec import discord_spec

log = logging.getLogger(__name__)


class DiscordCore:
    """The fake's state and the calls every part needs; the parts above add one job each."""

    def __init__(
        self,
        *,
        bot_name: str = "Spades Bot",
        token: str | None = None,
        ack_window: float = 3.0,
        heartbeat_interval_ms: int = 41250,
        compress_gateway: bool = False,
        recommended_shards: int = 1,
        max_concurrency: int = 1,
        token_lifetime: float = 900.0,
        nonce_window: float = 300.0,
        rest_latency: float = 0.0,
        global_rate: int | None = None,
        route_limits: bool | Mapping[tuple[str, str], RouteLimit] = False,
        check_spec: bool = True,
    ) -> None:
        self.application_id = new_snowflake()
        self.bot_user = FakeUser(new_snowflake(), bot_name.lower().replace(" ", "_"), bot_name, bot=True)
        self.app_owner = FakeUser(new_snowflake(), "app_owner", "App Owner")
        self.token = token or f"{self.bot_user.id}.fake.{new_token()}"
        self.application_flags = (1 << 15) | (1 << 19) | (1 << 23)
        self.ack_window = ack_window
        self.recommended_shards = recommended_shards  # GET /gateway/bot `shards`
        self.max_concurrency = max_concurrency  # GET /gateway/bot `session_start_limit.max_concurrency`
        self.token_lifetime = token_lifetime  # seconds an interaction token works for webhook calls
        self.nonce_window = nonce_window  # seconds an enforced nonce stays unique
        # Seconds each REST answer takes to reach the bot (the request takes effect at once), as
        # Discord's own round trip does; 0 keeps tests quick, the load bench can model a real one.
        self.rest_latency = rest_latency
        # Discord's rate limits (see ratelimits.py), off unless asked for (**DISCORD_LIMITS, as the
        # pytest fixture does for every end-to-end test of the bot). `global_rate` requests a
        # second (None: no global limit); `route_limits` True for ROUTE_LIMITS, False for none, or a
        # table of one's own. Calls are counted either way.
        routes = ROUTE_LIMITS if route_limits is True else (route_limits or None)
        self.limits = RateLimiter(global_rate, routes)
        self.users: dict[int, FakeUser] = {u.id: u for u in (self.bot_user, self.app_owner)}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.dm_channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}
        self.global_commands: dict[int, JSON] = {}
        self.guild_commands: dict[int, dict[int, JSON]] = {}
        self.command_syncs = 0
        self.errors: list[ProtocolError] = []
        self.ack_latencies: list[float] = []
        self.requests: list[RequestRecord] = []
        self.ban_hits = 0  # calls answered with a ban page (`ban`)
        self._banned_until = self._ban_seconds = 0.0
        self.request_counts: Counter[str] = Counter()  # "METHOD /route/{template}" -> requests served
        self.gateway = FakeGateway(self)
        self.gateway.heartbeat_interval_ms = heartbeat_interval_ms
        self.gateway.compress = compress_gateway
        self._failures: list[FailureRule] = []
        self._nonces: dict[tuple[int, int, str], tuple[FakeMessage, float]] = {}
        self._routes: list[Route] = []
        self._changed = asyncio.Event()
        self._resume_baseline = 0
        self._runner: web.AppRunner | None = None
        self.spec = discord_spec()  # Discord's OpenAPI spec: every request is checked against it
        self.check_spec = check_spec  # off only where the fake's own CPU is measured (the load bench)
        self.spec_checks = 0  # requests checked against it, and the seconds that took (its cost)
        self.spec_seconds = 0.0
        self.max_active_threads = 1000  # per server, as Discord's limit
        self.port = 0
        self._register_routes()

    # ================================================================== lifecycle

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """Value for DISCORD_API_BASE / discord.http.Route.BASE."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """Value for DISCORD_GATEWAY_URL / DiscordWebSocket.DEFAULT_GATEWAY."""
        return f"ws://127.0.0.1:{self.port}/gateway"

    # ================================================================== errors & notifications

    def record_error(
        self,
        kind: str,
        message: str,
        *,
        code: int | None = None,
        method: str | None = None,
        path: str | None = None,
    ) -> None:
        error = ProtocolError(kind, message, code, method, path)
        log.warning("fake discord protocol error: %s", error)
        self.errors.append(error)
        self.notify()

    def take_errors(self, code: int | None = None, kind: str | None = None) -> list[ProtocolError]:
        """Remove and return recorded errors (optionally only one code/kind), for expected-error tests."""
        taken = [e for e in self.errors if (code is None or e.code == code) and (kind is None or e.kind == kind)]
        self.errors = [e for e in self.errors if e not in taken]
        return taken

    def clear_errors(self) -> None:
        self.errors.clear()

    def assert_no_errors(self) -> None:
        if self.errors:
            lines = "\n".join(f"  - {e}" for e in self.errors)
            raise AssertionError(f"fake Discord recorded {len(self.errors)} protocol error(s):\n{lines}")

    def notify(self) -> None:
        """Wake every wait helper so it re-checks its condition."""
        self._changed.set()
        self._changed = asyncio.Event()

    def bot_guilds(self) -> list[FakeGuild]:
        return [g for g in self.guilds.values() if self.bot_user.id in g.members]

    @abstractmethod
    def _register_routes(self) -> None:
        """Fill the REST route table; the top class holds it, since it names the handlers of every part."""
