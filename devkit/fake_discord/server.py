"""FakeDiscord: an aiohttp server speaking the bot-facing part of Discord API v10, plus a test API.

A test builds a small world (users, guilds, channels), lets the real bot connect through the
real discord.py client, then plays users: slash commands, autocomplete, button clicks, modals.
Everything the bot sends is stored (messages, edits, files, interaction responses) and
anything Discord would reject is answered like Discord does AND recorded in `errors`, which
the pytest fixture asserts empty at teardown, so a bot that swallows HTTP errors still fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson
from aiohttp import BodyPartReader, web

from . import models as m
from .gateway import (
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MEMBERS,
    INTENT_GUILD_MESSAGES,
    INTENT_GUILDS,
    FakeGateway,
)
from .models import (
    JSON,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeResponse,
    FakeRole,
    FakeUser,
    Overwrite,
    new_snowflake,
    new_token,
    utcnow,
)
from .ratelimits import OTHER, ROUTE_LIMITS, Call, RateLimiter, RouteLimit, Storm, kind_of
from .spec import Miss, Operation, discord_spec
from .transcript import messages_seen, render_transcript
from .validation import (
    Problems,
    errors_to_discord,
    validate_choices,
    validate_command,
    validate_message,
    validate_modal,
    validate_nonce,
    validate_token_auth,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

ATTACHMENT_SIZE_LIMIT = 25 * 1024 * 1024
CREATE_FLAGS_ALLOWED = (
    m.FLAG_SUPPRESS_EMBEDS | m.FLAG_EPHEMERAL | m.FLAG_SUPPRESS_NOTIFICATIONS | m.FLAG_IS_COMPONENTS_V2
)
EDIT_FLAGS_ALLOWED = m.FLAG_SUPPRESS_EMBEDS | m.FLAG_IS_COMPONENTS_V2
DM_PERMISSIONS = (
    m.VIEW_CHANNEL
    | m.SEND_MESSAGES
    | m.EMBED_LINKS
    | m.ATTACH_FILES
    | m.READ_MESSAGE_HISTORY
    | m.ADD_REACTIONS
    | m.USE_EXTERNAL_EMOJIS
    | m.USE_APPLICATION_COMMANDS
)
# Which initial-response types Discord accepts for each interaction type.
ALLOWED_CALLBACKS: dict[int, set[int]] = {
    m.INTERACTION_PING: {m.CALLBACK_PONG},
    m.INTERACTION_APPLICATION_COMMAND: {
        m.CALLBACK_CHANNEL_MESSAGE,
        m.CALLBACK_DEFERRED_CHANNEL_MESSAGE,
        m.CALLBACK_MODAL,
    },
    m.INTERACTION_MESSAGE_COMPONENT: {
        m.CALLBACK_CHANNEL_MESSAGE,
        m.CALLBACK_DEFERRED_CHANNEL_MESSAGE,
        m.CALLBACK_DEFERRED_UPDATE_MESSAGE,
        m.CALLBACK_UPDATE_MESSAGE,
        m.CALLBACK_MODAL,
    },
    m.INTERACTION_AUTOCOMPLETE: {m.CALLBACK_AUTOCOMPLETE_RESULT},
    m.INTERACTION_MODAL_SUBMIT: {
        m.CALLBACK_CHANNEL_MESSAGE,
        m.CALLBACK_DEFERRED_CHANNEL_MESSAGE,
        m.CALLBACK_DEFERRED_UPDATE_MESSAGE,
        m.CALLBACK_UPDATE_MESSAGE,
    },
}


class FakeDiscordTimeout(AssertionError):
    """A wait helper gave up; the message says what was awaited and what the fake saw."""


@dataclass
class ProtocolError:
    """Something the bot did that real Discord would reject (or that the fake cannot serve)."""

    kind: str
    message: str
    code: int | None = None
    method: str | None = None
    path: str | None = None

    def __str__(self) -> str:
        where = f" [{self.method} {self.path}]" if self.method else ""
        code = f" (code {self.code})" if self.code is not None else ""
        return f"{self.kind}{where}{code}: {self.message}"


@dataclass
class RequestRecord:
    """One REST request the fake served, for assertions on traffic."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    status: int = 0
    template: str | None = None
    at: float = field(default_factory=time.monotonic)
    kind: str = ""  # see ratelimits.kind_of: callback, webhook_edit, channel_post, dm_post...


@dataclass
class Upload:
    """A `files[n]` part of a multipart request."""

    filename: str
    data: bytes
    content_type: str | None


@dataclass
class Req:
    """A parsed REST request handed to route handlers."""

    method: str
    path: str
    params: dict[str, str]
    query: Mapping[str, str]
    body: Any
    files: dict[int, Upload]
    record: RequestRecord
    operation: Operation  # the operation of Discord's spec this request calls
    path_values: dict[str, str]  # that operation's path parameters by their names in the spec


Handler = Callable[[Req], Awaitable[web.Response]]


@dataclass
class _Route:
    method: str
    template: str
    regex: re.Pattern[str]
    handler: Handler
    auth: bool


DEFAULT_FAILURE_MESSAGES = {
    400: "400: Bad Request",
    401: "401: Unauthorized",
    403: "Missing Permissions",
    404: "404: Not Found",
    500: "500: Internal Server Error",
    502: "502: Bad Gateway",
    503: "503: Service Unavailable",
    504: "504: Gateway Timeout",
}


@dataclass(eq=False)
class FailureRule:
    """An injected fault: matching REST calls get `status`/`code` instead of being served.

    Active for `times` requests and/or until `time.monotonic()` reaches `until` (whichever ends
    first; neither: until `cancel()`). `hits` counts the requests it answered.
    """

    method: str
    pattern: str
    regex: re.Pattern[str]
    status: int
    code: int
    message: str
    remaining: int | None = None
    until: float | None = None
    hits: int = 0
    cancelled: bool = False

    @property
    def active(self) -> bool:
        if self.cancelled or (self.remaining is not None and self.remaining <= 0):
            return False
        return self.until is None or time.monotonic() < self.until

    def cancel(self) -> None:
        self.cancelled = True

    def matches(self, method: str, path: str) -> bool:
        return self.method in ("*", method) and bool(self.regex.match(path))


def _template_regex(template: str) -> re.Pattern[str]:
    """`/channels/{channel_id}/messages` -> regex; `*` matches anything (for rate-limit patterns)."""
    out = ""
    for token in re.split(r"(\{[^}]+\}|\*)", template):
        if token == "*":
            out += ".*"
        elif token.startswith("{") and token.endswith("}"):
            out += f"(?P<{token[1:-1]}>[^/]+)"
        else:
            out += re.escape(token)
    return re.compile(f"^{out}$")


def _json_response(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    # discord.py only parses JSON when Content-Type is exactly application/json (no charset).
    all_headers = {"Content-Type": "application/json"}
    all_headers.update(headers or {})
    return web.Response(body=orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS), status=status, headers=all_headers)


def _no_content() -> web.Response:
    return web.Response(status=204)


def _truthy(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true")


class FakeDiscord:
    """The fake Discord: one bot application, a world of users/guilds, REST + gateway servers."""

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
        self._routes: list[_Route] = []
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

    async def start(self) -> None:
        app = web.Application(client_max_size=ATTACHMENT_SIZE_LIMIT * 2)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/gateway/", self.gateway.handle)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._serve_attachment)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._api)
        app.router.add_route("*", "/{tail:.*}", self._outside_api)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        address = self._runner.addresses[0]
        self.port = int(address[1])

    async def stop(self) -> None:
        if self.spec_checks:
            mean_ms = 1000 * self.spec_seconds / self.spec_checks
            log.info("checked %d requests against Discord's spec: %.3f ms each", self.spec_checks, mean_ms)
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

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

    # ================================================================== world building

    def create_user(self, name: str, *, bot: bool = False) -> FakeUser:
        user = FakeUser(new_snowflake(), name.lower().replace(" ", "_"), name, bot=bot)
        self.users[user.id] = user
        return user

    def create_guild(
        self,
        name: str,
        owner: FakeUser,
        *,
        bot_permissions: int = m.DEFAULT_BOT_PERMISSIONS,
        everyone_permissions: int = m.DEFAULT_EVERYONE_PERMISSIONS,
        add_bot: bool = True,
        shard: int | None = None,
        shard_count: int | None = None,
    ) -> FakeGuild:
        """A guild owned by `owner`; the bot joins it with a managed role holding `bot_permissions`.

        `shard=k, shard_count=n` gives it an id that Discord routes to shard k of n
        (`(guild_id >> 22) % n == k`), so a test can place guilds on the shards it runs.
        """
        if (shard is None) != (shard_count is None):
            raise ValueError("give both shard and shard_count, or neither")
        placement = None if shard is None or shard_count is None else (shard, shard_count)
        guild = FakeGuild(new_snowflake(placement), name, owner)
        guild.roles[guild.id] = FakeRole(guild.id, "@everyone", everyone_permissions, position=0)
        self.guilds[guild.id] = guild
        guild.members[owner.id] = FakeMember(owner, guild)
        if add_bot:
            role = FakeRole(
                new_snowflake(),
                self.bot_user.global_name or "bot",
                bot_permissions,
                1,
                True,
                self.bot_user.id,
            )
            guild.roles[role.id] = role
            guild.members[self.bot_user.id] = FakeMember(self.bot_user, guild, roles=[role.id])
            self.gateway.dispatch("GUILD_CREATE", guild.gateway_payload(), guild_id=guild.id)
        self.notify()
        return guild

    def bot_guilds(self) -> list[FakeGuild]:
        return [g for g in self.guilds.values() if self.bot_user.id in g.members]

    def bot_role(self, guild: FakeGuild) -> FakeRole:
        for role in guild.roles.values():
            if role.bot_id == self.bot_user.id:
                return role
        raise LookupError(f"the bot has no role in {guild}")

    def create_channel(self, guild: FakeGuild, name: str, *, topic: str | None = None) -> FakeChannel:
        channel = FakeChannel(
            new_snowflake(), m.CHANNEL_GUILD_TEXT, name, guild, position=len(guild.channels), topic=topic
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        self._dispatch_guild_event("CHANNEL_CREATE", guild, channel.to_payload(), INTENT_GUILDS)
        return channel

    def add_member(self, guild: FakeGuild, user: FakeUser, *, roles: Iterable[FakeRole] = ()) -> FakeMember:
        member = FakeMember(user, guild, roles=[r.id for r in roles])
        guild.members[user.id] = member
        self._dispatch_guild_event(
            "GUILD_MEMBER_ADD",
            guild,
            {**member.to_payload(), "guild_id": str(guild.id)},
            INTENT_GUILD_MEMBERS,
        )
        return member

    def remove_member(self, guild: FakeGuild, user: FakeUser) -> None:
        guild.members.pop(user.id, None)
        payload = {"guild_id": str(guild.id), "user": user.to_payload()}
        self._dispatch_guild_event("GUILD_MEMBER_REMOVE", guild, payload, INTENT_GUILD_MEMBERS)

    def create_role(self, guild: FakeGuild, name: str, permissions: int = 0) -> FakeRole:
        role = FakeRole(new_snowflake(), name, permissions, position=len(guild.roles))
        guild.roles[role.id] = role
        payload = {"guild_id": str(guild.id), "role": role.to_payload()}
        self._dispatch_guild_event("GUILD_ROLE_CREATE", guild, payload, INTENT_GUILDS)
        return role

    def set_role_permissions(self, guild: FakeGuild, role: FakeRole, permissions: int) -> None:
        role.permissions = permissions
        payload = {"guild_id": str(guild.id), "role": role.to_payload()}
        self._dispatch_guild_event("GUILD_ROLE_UPDATE", guild, payload, INTENT_GUILDS)

    def add_role(self, guild: FakeGuild, user: FakeUser, role: FakeRole) -> None:
        member = guild.members.get(user.id) or self.add_member(guild, user)
        if role.id not in member.roles:
            member.roles.append(role.id)
        payload = {**member.to_payload(), "guild_id": str(guild.id)}
        self._dispatch_guild_event("GUILD_MEMBER_UPDATE", guild, payload, INTENT_GUILD_MEMBERS)

    def grant_manage_guild(self, guild: FakeGuild, user: FakeUser) -> FakeRole:
        """Give `user` the Manage Server permission through a 'Manager' role."""
        role = next((r for r in guild.roles.values() if r.name == "Manager"), None)
        if role is None:
            role = self.create_role(guild, "Manager", m.MANAGE_GUILD)
        self.add_role(guild, user, role)
        return role

    def set_channel_overwrite(
        self, channel: FakeChannel, target: FakeRole | FakeUser, *, allow: int = 0, deny: int = 0
    ) -> None:
        kind = 1 if isinstance(target, FakeUser) else 0
        channel.overwrites[target.id] = Overwrite(target.id, kind, allow, deny)
        if channel.guild is not None:
            self._dispatch_guild_event("CHANNEL_UPDATE", channel.guild, channel.to_payload(), INTENT_GUILDS)

    def remove_channel_overwrite(self, channel: FakeChannel, target: FakeRole | FakeUser) -> None:
        """Delete the overwrite of `target` in `channel` (CHANNEL_UPDATE is dispatched)."""
        if channel.overwrites.pop(target.id, None) is not None and channel.guild is not None:
            self._dispatch_guild_event("CHANNEL_UPDATE", channel.guild, channel.to_payload(), INTENT_GUILDS)

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and `user` (created on first use, like Discord)."""
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(new_snowflake(), m.CHANNEL_DM, recipient=user)
            self.dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def permissions_for(self, user: FakeUser, channel: FakeChannel) -> int:
        """Discord's permission algorithm: roles, owner/admin, then channel overwrites (a thread's
        are its parent channel's)."""
        if channel.parent is not None:
            channel = channel.parent
        guild = channel.guild
        if guild is None:
            return DM_PERMISSIONS
        member = guild.members.get(user.id)
        if member is None:
            return 0
        if guild.owner.id == user.id:
            return m.ALL_PERMISSIONS
        perms = guild.everyone.permissions
        for role_id in member.roles:
            role = guild.roles.get(role_id)
            if role is not None:
                perms |= role.permissions
        if perms & m.ADMINISTRATOR:
            return m.ALL_PERMISSIONS
        everyone = channel.overwrites.get(guild.id)
        if everyone is not None:
            perms = (perms & ~everyone.deny) | everyone.allow
        allow = deny = 0
        for role_id in member.roles:
            ow = channel.overwrites.get(role_id)
            if ow is not None and ow.type == 0:
                allow |= ow.allow
                deny |= ow.deny
        perms = (perms & ~deny) | allow
        own = channel.overwrites.get(user.id)
        if own is not None and own.type == 1:
            perms = (perms & ~own.deny) | own.allow
        if not perms & m.VIEW_CHANNEL:
            return 0
        return perms

    def _dispatch_guild_event(self, event: str, guild: FakeGuild, payload: JSON, intent: int) -> None:
        if self.bot_user.id in guild.members:
            self.gateway.dispatch(event, payload, intent=intent, guild_id=guild.id)
        self.notify()

    # ================================================================== commands registry

    def registered_commands(self, guild: FakeGuild | None = None) -> list[JSON]:
        scope = self.global_commands if guild is None else self.guild_commands.get(guild.id, {})
        return list(scope.values())

    def find_command(self, name: str, guild: FakeGuild | None = None, *, type: int = 1) -> JSON | None:
        """A command visible in `guild` (guild commands first, then global), by name and type."""
        scopes = [self.guild_commands.get(guild.id, {})] if guild is not None else []
        scopes.append(self.global_commands)
        for scope in scopes:
            for cmd in scope.values():
                if cmd["name"] == name and cmd.get("type", 1) == type:
                    return cmd
        return None

    # ================================================================== user actions

    def _check_can_use(self, user: FakeUser, channel: FakeChannel, command: JSON | None) -> None:
        if channel.guild is not None:
            if user.id not in channel.guild.members:
                raise PermissionError(f"{user} is not a member of {channel.guild}")
            perms = self.permissions_for(user, channel)
            if not perms & m.VIEW_CHANNEL or not perms & m.USE_APPLICATION_COMMANDS:
                raise PermissionError(f"{user} cannot use application commands in {channel}")
            if command is None:
                return
            contexts = command.get("contexts")
            if contexts is not None and 0 not in contexts:
                raise PermissionError(f"/{command['name']} is not available in guilds (contexts={contexts})")
            required = command.get("default_member_permissions")
            if required is not None and not perms & m.ADMINISTRATOR:
                bits = int(required)
                if bits == 0 or perms & bits != bits:
                    raise PermissionError(f"{user} lacks default_member_permissions={required} for /{command['name']}")
        elif command is not None:
            if command.get("guild_id"):
                raise PermissionError(f"/{command['name']} is a guild command, not usable in DMs")
            contexts = command.get("contexts")
            allowed = (1 in contexts) if contexts is not None else command.get("dm_permission") is not False
            if not allowed:
                raise PermissionError(f"/{command['name']} is not available in DMs")

    def _resolve_value(self, otype: int, value: Any, channel: FakeChannel, resolved: JSON) -> Any:
        guild = channel.guild
        if otype == 3:
            return str(value)
        if otype == 4:
            if isinstance(value, bool) or int(value) != value:
                raise ValueError(f"integer option got {value!r}")
            return int(value)
        if otype == 5:
            return bool(value)
        if otype == 10:
            return float(value)
        if otype in (6, 9) and isinstance(value, FakeMember | FakeUser):
            user = value.user if isinstance(value, FakeMember) else value
            resolved.setdefault("users", {})[str(user.id)] = user.to_payload()
            member = guild.members.get(user.id) if guild is not None else None
            if member is not None:
                perms = self.permissions_for(user, channel)
                resolved.setdefault("members", {})[str(user.id)] = member.to_payload(with_user=False, permissions=perms)
            return str(user.id)
        if otype in (8, 9) and isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.to_payload()
            return str(value.id)
        if otype == 7 and isinstance(value, FakeChannel):
            resolved.setdefault("channels", {})[str(value.id)] = {
                "id": str(value.id),
                "name": value.name,
                "type": value.type,
                "permissions": str(self.permissions_for(self.bot_user, value)),
            }
            return str(value.id)
        raise ValueError(f"cannot send {value!r} as an option of type {otype}")

    @staticmethod
    def _infer_type(value: Any) -> int:
        if isinstance(value, bool):
            return 5
        if isinstance(value, int):
            return 4
        if isinstance(value, float):
            return 10
        if isinstance(value, FakeUser | FakeMember):
            return 6
        if isinstance(value, FakeChannel):
            return 7
        if isinstance(value, FakeRole):
            return 8
        return 3

    def _build_options(
        self,
        command: JSON | None,
        subcommand: str | None,
        values: Mapping[str, Any],
        channel: FakeChannel,
        *,
        focused: str | None,
    ) -> tuple[list[JSON], JSON]:
        """Nest subcommand groups/subcommands and type every option from the registered definition."""
        resolved: JSON = {}
        root: list[JSON] = []
        target = root
        defs: list[JSON] | None = None if command is None else list(command.get("options") or [])
        path = subcommand.split() if subcommand else []
        for depth, part in enumerate(path):
            if defs is not None:
                found = next((d for d in defs if d["name"] == part and d["type"] in (1, 2)), None)
                if found is None:
                    raise ValueError(f"no subcommand {part!r} in the registered command")
                otype = found["type"]
                defs = list(found.get("options") or [])
            else:
                otype = 1 if depth == len(path) - 1 else 2
            node: JSON = {"name": part, "type": otype, "options": []}
            target.append(node)
            target = node["options"]
        if defs is not None and any(d["type"] in (1, 2) for d in defs):
            raise ValueError("this command needs a subcommand (e.g. subcommand='play')")
        for name, value in values.items():
            definition = None if defs is None else next((d for d in defs if d["name"] == name), None)
            if defs is not None and definition is None:
                raise ValueError(f"option {name!r} is not in the registered command")
            otype = definition["type"] if definition is not None else self._infer_type(value)
            opt: JSON = {"name": name, "type": otype}
            if name == focused:
                opt["value"] = value if isinstance(value, str) else str(value)
                opt["focused"] = True
            else:
                opt["value"] = self._resolve_value(otype, value, channel, resolved)
                choices = (definition or {}).get("choices")
                if choices and opt["value"] not in [c["value"] for c in choices]:
                    raise ValueError(f"{value!r} is not one of the choices of option {name!r}")
            target.append(opt)
        if defs is not None and focused is None:
            missing = [d["name"] for d in defs if d.get("required") and d["name"] not in values]
            if missing:
                raise ValueError(f"missing required option(s) {missing}")
        if focused is not None:
            definition = None if defs is None else next((d for d in defs if d["name"] == focused), None)
            if focused not in values:
                raise ValueError(f"focused option {focused!r} needs a (partial) value in options")
            if defs is not None and not (definition or {}).get("autocomplete"):
                raise ValueError(f"option {focused!r} does not have autocomplete enabled")
        return root, resolved

    def _interaction_payload(self, inter: FakeInteraction) -> JSON:
        channel = inter.channel
        guild = channel.guild
        payload: JSON = {
            "id": str(inter.id),
            "application_id": str(self.application_id),
            "type": inter.type,
            "data": inter.data,
            "token": inter.token,
            "version": 1,
            "channel": channel.to_payload(),
            "channel_id": str(channel.id),
            "locale": "en-US",
            "entitlements": [],
            "authorizing_integration_owners": inter.integration_owners(),
            "context": 0 if guild is not None else 1,
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
            "app_permissions": str(self.permissions_for(self.bot_user, channel)),
        }
        if guild is not None:
            member = guild.members[inter.user.id]
            payload["guild_id"] = str(guild.id)
            payload["guild"] = {"id": str(guild.id), "locale": "en-US", "features": []}
            payload["guild_locale"] = "en-US"
            payload["member"] = member.to_payload(permissions=self.permissions_for(inter.user, channel))
        else:
            payload["user"] = inter.user.to_payload()
        if inter.message is not None:
            payload["message"] = inter.message.to_payload(self.base_url)
        return payload

    async def _dispatch_interaction(self, inter: FakeInteraction) -> FakeInteraction:
        """Send INTERACTION_CREATE to the sessions of the guild's shard (shard 0 for DMs)."""
        if self.gateway.session is None:
            raise RuntimeError("the bot never identified on the gateway; it cannot receive interactions")
        inter.payload = self._interaction_payload(inter)
        self.interactions[inter.id] = inter
        self._interactions_by_token[inter.token] = inter
        inter.dispatched_at = time.monotonic()
        inter.token_expires_at = inter.dispatched_at + self.token_lifetime
        guild = inter.channel.guild
        sessions = self.gateway.dispatch("INTERACTION_CREATE", inter.payload, guild_id=guild.id if guild else None)
        inter.delivered_to = [s for s in sessions if s.connected]
        inter.buffered_for = [s for s in sessions if not s.connected]
        self.notify()
        await asyncio.sleep(0)
        return inter

    def _new_interaction(
        self, itype: int, user: FakeUser, channel: FakeChannel, data: JSON, **kwargs: Any
    ) -> FakeInteraction:
        return FakeInteraction(
            id=new_snowflake(),
            token=new_token("aW50ZXJhY3Rpb24"),
            type=itype,
            user=user,
            channel=channel,
            data=data,
            **kwargs,
        )

    async def send_slash_command(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        strict: bool = True,
        check_permissions: bool = True,
    ) -> FakeInteraction:
        """Run `/name [subcommand] option:value` as `user`; `subcommand` may be 'group sub'.

        Option types come from the command the bot registered (strict=False guesses them
        for unregistered commands). Raises PermissionError when Discord would not let the
        user run it (default_member_permissions, DM contexts, channel permissions).
        """
        command = self.find_command(name, channel.guild)
        if command is None and strict:
            raise LookupError(f"/{name} is not registered (global or in {channel.guild}); did the bot sync?")
        if check_permissions:
            self._check_can_use(user, channel, command)
        opts, resolved = self._build_options(command, subcommand, options or {}, channel, focused=None)
        data: JSON = {
            "id": str(command["id"] if command else new_snowflake()),
            "name": name,
            "type": 1,
            "options": opts,
        }
        if resolved:
            data["resolved"] = resolved
        if command is not None and command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        inter = self._new_interaction(m.INTERACTION_APPLICATION_COMMAND, user, channel, data, command_name=name)
        return await self._dispatch_interaction(inter)

    async def send_autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        focused: str,
        strict: bool = True,
    ) -> FakeInteraction:
        """The user is typing option `focused` (its partial value is in `options`); expects type 8."""
        command = self.find_command(name, channel.guild)
        if command is None and strict:
            raise LookupError(f"/{name} is not registered; did the bot sync?")
        opts, resolved = self._build_options(command, subcommand, options or {}, channel, focused=focused)
        data: JSON = {
            "id": str(command["id"] if command else new_snowflake()),
            "name": name,
            "type": 1,
            "options": opts,
        }
        if resolved:
            data["resolved"] = resolved
        if command is not None and command.get("guild_id"):
            data["guild_id"] = command["guild_id"]
        inter = self._new_interaction(m.INTERACTION_AUTOCOMPLETE, user, channel, data, command_name=name)
        return await self._dispatch_interaction(inter)

    def _check_can_click(self, user: FakeUser, message: FakeMessage, custom_id: str, ctype: int) -> JSON:
        if message.deleted:
            raise LookupError(f"{message} was deleted")
        if message.visible_to is not None and message.visible_to.id != user.id:
            raise PermissionError(f"{user} cannot see the ephemeral {message}")
        comp = message.find_component(custom_id)
        if comp is None:
            raise LookupError(f"no component {custom_id!r} on {message}; it has {message.custom_ids()}")
        if comp.get("type") != ctype:
            raise LookupError(f"component {custom_id!r} has type {comp.get('type')}, not {ctype}")
        if comp.get("disabled"):
            raise PermissionError(f"component {custom_id!r} is disabled")
        return comp

    async def click_button(self, user: FakeUser, message: FakeMessage, custom_id: str) -> FakeInteraction:
        """Click a (non-link, enabled) button on a message, ephemeral ones included."""
        self._check_can_click(user, message, custom_id, 2)
        data: JSON = {"custom_id": custom_id, "component_type": 2}
        inter = self._new_interaction(m.INTERACTION_MESSAGE_COMPONENT, user, message.channel, data, message=message)
        return await self._dispatch_interaction(inter)

    async def select_option(
        self, user: FakeUser, message: FakeMessage, custom_id: str, values: list[str]
    ) -> FakeInteraction:
        """Pick `values` in a string select menu."""
        comp = self._check_can_click(user, message, custom_id, 3)
        allowed = [o["value"] for o in comp.get("options", [])]
        if any(v not in allowed for v in values):
            raise ValueError(f"{values} not all in the select's options {allowed}")
        if not comp.get("min_values", 1) <= len(values) <= comp.get("max_values", 1):
            raise ValueError(f"{len(values)} values chosen, outside min_values/max_values")
        data: JSON = {"custom_id": custom_id, "component_type": 3, "values": values}
        inter = self._new_interaction(m.INTERACTION_MESSAGE_COMPONENT, user, message.channel, data, message=message)
        return await self._dispatch_interaction(inter)

    async def submit_modal(
        self, user: FakeUser, interaction: FakeInteraction, values: Mapping[str, Any]
    ) -> FakeInteraction:
        """Fill and submit the modal the bot answered `interaction` with.

        `values` maps custom_id to a str (text input, radio), a bool (checkbox) or a list
        of str (selects, checkbox groups). Empty required text inputs raise ValueError,
        as the Discord client would not let the user submit.
        """
        response = interaction.response
        if response is None or response.type != m.CALLBACK_MODAL:
            raise LookupError(f"{interaction} was not answered with a modal")
        if user.id != interaction.user.id:
            raise PermissionError("only the user who opened a modal can submit it")
        modal = response.data
        known: set[str] = set()

        def submitted(inner: JSON) -> JSON:
            cid = inner["custom_id"]
            known.add(cid)
            out: JSON = {"type": inner["type"], "id": inner.get("id", 0), "custom_id": cid}
            value = values.get(cid)
            if inner["type"] == 4:
                text = "" if value is None else str(value)
                if not text and inner.get("required", True):
                    raise ValueError(f"text input {cid!r} is required")
                out["value"] = text
            elif isinstance(value, list) or inner["type"] in (3, 5, 6, 7, 8, 19, 22):
                out["values"] = list(value or [])
            else:
                out["value"] = value
            return out

        components: list[JSON] = []
        for comp in modal.get("components", []):
            if comp.get("type") == 1:
                row = [submitted(c) for c in comp["components"] if "custom_id" in c]
                components.append({"type": 1, "id": comp.get("id", 0), "components": row})
            elif comp.get("type") == 18 and "custom_id" in comp.get("component", {}):
                components.append({"type": 18, "id": comp.get("id", 0), "component": submitted(comp["component"])})
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"the modal has no input(s) {sorted(unknown)}; it has {sorted(known)}")
        data: JSON = {"custom_id": modal["custom_id"], "components": components}
        inter = self._new_interaction(
            m.INTERACTION_MODAL_SUBMIT,
            user,
            interaction.channel,
            data,
            message=interaction.message,
            parent=interaction,
        )
        return await self._dispatch_interaction(inter)

    async def send_user_message(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """A human posts in a channel (the bot receives MESSAGE_CREATE if it has the intent)."""
        msg = FakeMessage(new_snowflake(), channel, user, content=content)
        msg.history.append(msg.snapshot())
        channel.messages[msg.id] = msg
        self.messages[msg.id] = msg
        self._dispatch_message("MESSAGE_CREATE", msg)
        await asyncio.sleep(0)
        return msg

    def delete_message(self, message: FakeMessage) -> None:
        """Delete a message out from under the bot (a moderator, or a user dismissing an ephemeral)."""
        message.deleted = True
        if not message.ephemeral:
            self._dispatch_message_delete(message)
        self.notify()

    # ================================================================== what a person sees

    def visible_messages(self, user: FakeUser, channel: FakeChannel, *, since: int | None = None) -> list[FakeMessage]:
        """What `user` sees in `channel`: public messages and their own ephemerals, not deleted,
        oldest first; `since` a `checkpoint()`. Empty if they cannot view the channel."""
        return messages_seen(self, user, [channel], since=since)

    def messages_for(
        self, user: FakeUser, since: int | None = None, *, include_deleted: bool = False
    ) -> list[FakeMessage]:
        """Messages created after `since` that `user` sees anywhere (public ones in channels they
        can view, ephemerals shown to them, DMs to them), excluding their own, oldest first.
        `include_deleted` also counts those deleted since (they did appear)."""
        seen = messages_seen(self, user, since=since, include_deleted=include_deleted)
        return [msg for msg in seen if msg.author.id != user.id]

    def new_messages_for(self, user: FakeUser, since: int, *, include_deleted: bool = False) -> int:
        """How many messages reached `user` since checkpoint `since` (see `messages_for`)."""
        return len(self.messages_for(user, since, include_deleted=include_deleted))

    def transcript(
        self,
        user: FakeUser,
        channel: FakeChannel | None = None,
        *,
        since: int | None = None,
        width: int = 100,
        actions: bool = True,
    ) -> str:
        """A readable plain-text transcript of what `user` sees in `channel` (everywhere, DMs
        included, when None): each message with its time offset, author, content with edits
        applied, buttons as [Label] or (Label) when disabled, V2 layouts, attachments, and
        ephemerals marked; with `actions`, the user's own commands, clicks and modals too."""
        return render_transcript(self, user, channel, since=since, width=width, actions=actions)

    # ================================================================== wait helpers

    def checkpoint(self) -> int:
        """A marker: pass as `after=` to wait only for messages created from now on."""
        return new_snowflake()

    async def wait_until(
        self,
        condition: Callable[[], T | None],
        timeout: float = 5.0,
        what: str = "condition",
        describe: Callable[[], str] | None = None,
    ) -> T:
        """Re-check `condition` on every fake state change until it returns a truthy value."""
        deadline = time.monotonic() + timeout
        while True:
            result = condition()
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                extra = f"\n{describe()}" if describe is not None else ""
                errors = "".join(f"\n  recorded error: {e}" for e in self.errors)
                raise FakeDiscordTimeout(f"timed out after {timeout}s waiting for {what}{extra}{errors}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.1))

    async def wait_for_response(self, interaction: FakeInteraction, timeout: float = 5.0) -> FakeResponse:
        """The interaction's initial response (type 4/5/6/7/8/9)."""
        return await self.wait_until(
            lambda: interaction.response, timeout, f"a response to {interaction}", self._describe_gateway
        )

    async def wait_for_original(
        self,
        interaction: FakeInteraction,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
    ) -> FakeMessage:
        """The @original message once it is no longer a 'thinking' placeholder (and matches)."""

        def check() -> FakeMessage | None:
            msg = interaction.original
            if msg is None or msg.loading or msg.deleted:
                return None
            return msg if predicate is None or predicate(msg) else None

        return await self.wait_until(
            check,
            timeout,
            f"the original response of {interaction}",
            lambda: f"original: {interaction.original}",
        )

    async def wait_for_followup(
        self,
        interaction: FakeInteraction,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
    ) -> FakeMessage:
        def check() -> FakeMessage | None:
            for msg in interaction.followups:
                if not msg.deleted and (predicate is None or predicate(msg)):
                    return msg
            return None

        return await self.wait_until(
            check, timeout, f"a follow-up to {interaction}", lambda: f"follow-ups: {interaction.followups}"
        )

    def _message_finder(
        self,
        channel: Callable[[], FakeChannel | None],
        predicate: Callable[[FakeMessage], bool] | None,
        after: FakeMessage | int | None,
        include_ephemeral: bool,
    ) -> Callable[[], FakeMessage | None]:
        after_id = after.id if isinstance(after, FakeMessage) else (after or 0)

        def check() -> FakeMessage | None:
            ch = channel()
            if ch is None:
                return None
            for msg in list(ch.messages.values()):
                if msg.id <= after_id or msg.deleted or msg.loading:
                    continue
                if msg.ephemeral and not include_ephemeral:
                    continue
                if predicate is None or predicate(msg):
                    return msg
            return None

        return check

    def _describe_gateway(self) -> str:
        gw = self.gateway
        sessions = ", ".join(repr(s) for s in gw.live_sessions())
        return (
            f"gateway: connected={gw.connected} identifies={gw.identify_count} resumes={gw.resume_count} "
            f"intents={gw.intents} sessions=[{sessions}]"
        )

    @staticmethod
    def _describe_channel(channel: FakeChannel | None) -> str:
        if channel is None:
            return "no such channel yet"
        recent = list(channel.messages.values())[-10:]
        return "recent messages:\n" + "\n".join(f"  {msg}" for msg in recent)

    async def wait_for_message(
        self,
        channel: FakeChannel,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
        *,
        after: FakeMessage | int | None = None,
        include_ephemeral: bool = False,
    ) -> FakeMessage:
        """First (oldest) live message in `channel` matching `predicate`, created after `after`."""
        check = self._message_finder(lambda: channel, predicate, after, include_ephemeral)
        return await self.wait_until(check, timeout, f"a message in {channel}", lambda: self._describe_channel(channel))

    async def wait_for_dm(
        self,
        user: FakeUser,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
        *,
        after: FakeMessage | int | None = None,
    ) -> FakeMessage:
        """A message the bot sent to `user` in their DM channel."""
        check = self._message_finder(lambda: self.dm_channels.get(user.id), predicate, after, False)
        return await self.wait_until(
            check,
            timeout,
            f"a DM to {user}",
            lambda: self._describe_channel(self.dm_channels.get(user.id)),
        )

    async def wait_for_commands(self, guild: FakeGuild | None = None, timeout: float = 5.0) -> list[JSON]:
        """Wait until the bot registered at least one command (globally, or in `guild`)."""
        return await self.wait_until(
            lambda: self.registered_commands(guild), timeout, f"command registration ({guild or 'global'})"
        )

    async def wait_for_ready(
        self, timeout: float = 5.0, *, count: int = 1, shard: int | None = None, shard_count: int | None = None
    ) -> None:
        """Wait until READY was sent `count` times in total (one per IDENTIFY), or, with `shard`,
        `count` times to sessions of that shard (of `shard_count` when given)."""
        if shard is None:
            await self.wait_until(lambda: self.gateway.ready_count >= count, timeout, f"READY #{count}")
            return
        await self.wait_until(
            lambda: self.gateway.ready_count_for(shard, shard_count) >= count,
            timeout,
            f"READY #{count} on shard {shard}",
            self._describe_gateway,
        )

    async def wait_for_resume(self, timeout: float = 5.0) -> None:
        """Wait for a successful RESUME after the last `drop_gateway` / `send_gateway_reconnect`."""
        baseline = self._resume_baseline
        await self.wait_until(lambda: self.gateway.resume_count > baseline, timeout, "a gateway RESUME")

    # ================================================================== failure injection

    def fail_dms_for(self, user: FakeUser, closed: bool = True) -> None:
        """DMs to `user` fail with 403 / 50007 'Cannot send messages to this user'."""
        user.dms_closed = closed

    def rate_limit_next(
        self,
        method: str,
        route_pattern: str,
        *,
        retry_after: float = 0.05,
        is_global: bool = False,
        scope: str = "user",
        times: int = 1,
    ) -> None:
        """Answer the next `times` matching requests with a Discord-shaped 429.

        `route_pattern` is a path under /api/v10 with `{placeholders}` for one segment and
        `*` for anything, e.g. '/channels/{channel_id}/messages'; method '*' matches all.
        """
        pattern = route_pattern.removeprefix("/api/v10")
        self.limits.limit_next(method.upper(), _template_regex(pattern), retry_after, is_global, scope, times)

    def force_429(self, scope: str = "global", seconds: float = 5.0, *, retry_after: float | None = None) -> Storm:
        """For `seconds`, answer every call that counts against the global limit (not interaction
        callbacks or webhooks) with a 429 of `scope` ("global", or "user"/"shared" for a route's).

        `retry_after` None: each 429 says to wait until the storm is over (discord.py retries once,
        then succeeds); shorter, the client retries until it gives up (discord.py: after 5 tries,
        HTTPException 429). `storm.cancel()` ends it early; `storm.hits` counts its 429s.
        """
        return self.limits.storm(seconds, scope, retry_after)

    def force_429_on_message(
        self,
        message: FakeMessage | int,
        seconds: float = 10.0,
        *,
        scope: str = "shared",
        retry_after: float | None = None,
    ) -> Storm:
        """For `seconds`, 429 every REST call that reads or changes `message`: channel GET/PATCH/DELETE
        and reactions, and interaction webhook GET/PATCH/DELETE by id or as @original (interaction
        callbacks, UPDATE_MESSAGE included, are never refused). See `force_429` for `retry_after`."""
        message_id = message.id if isinstance(message, FakeMessage) else message
        return self.limits.storm(seconds, scope, retry_after, message_id=message_id)

    def force_429_on_token(
        self,
        interaction: FakeInteraction | str,
        seconds: float = 10.0,
        *,
        scope: str = "user",
        retry_after: float | None = None,
    ) -> Storm:
        """For `seconds`, 429 every webhook call made with the interaction's token (follow-ups, edits,
        deletes, gets; not its callback). See `force_429` for `retry_after`."""
        token = interaction.token if isinstance(interaction, FakeInteraction) else interaction
        return self.limits.storm(seconds, scope, retry_after, token=token)

    @property
    def calls_by_kind(self) -> Counter[str]:
        """Every REST request received, by kind (ratelimits.kind_of), 429'd ones included."""
        return self.limits.calls

    @property
    def global_calls(self) -> int:
        """REST requests that counted against the global limit (every one but interaction endpoints)."""
        return self.limits.global_calls

    def count_429s(self, scope: str | None = None) -> int:
        """429s answered (by any limit or forced), of one scope ("global", "user", "shared") or all."""
        return sum(self.limits.limited.values()) if scope is None else self.limits.limited[scope]

    def earned_429s(self) -> int:
        """429s the limits answered because the bot went over them (forced ones left out)."""
        return self.count_429s() - self.limits.forced

    def rate_limit_summary(self) -> dict[str, Any]:
        """Calls by kind, globally counted calls, 429s by scope and counted calls per interaction."""
        return self.limits.summary(len(self.interactions))

    def fail_requests(
        self,
        method: str,
        route_pattern: str,
        status: int,
        code: int = 0,
        message: str | None = None,
        *,
        times: int | None = None,
        seconds: float | None = None,
    ) -> FailureRule:
        """Answer matching REST calls with a Discord-shaped error `{"message", "code"}` and `status`.

        For the next `times` matching requests and/or for `seconds` from now (whichever ends
        first; with neither, until `rule.cancel()` or `clear_failures()`). `route_pattern` is as
        for `rate_limit_next`. These answers are expected, so they are not protocol errors.
        Note discord.py itself retries 500, 502, 504 (and 524) up to 5 tries in all, sleeping
        1, 3, 5, 7 s between them, then raises DiscordServerError; 503 is raised at once.
        """
        if times is not None and times < 1:
            raise ValueError("times must be at least 1")
        pattern = route_pattern.removeprefix("/api/v10")
        rule = FailureRule(
            method.upper(),
            pattern,
            _template_regex(pattern),
            status,
            code,
            message if message is not None else DEFAULT_FAILURE_MESSAGES.get(status, f"{status}: Error"),
            remaining=times,
            until=None if seconds is None else time.monotonic() + seconds,
        )
        self._failures.append(rule)
        return rule

    def clear_failures(self) -> None:
        """Cancel every `fail_requests` rule."""
        for rule in self._failures:
            rule.cancel()
        self._failures.clear()

    def _take_failure(self, method: str, path: str) -> FailureRule | None:
        self._failures = [r for r in self._failures if r.active]
        for rule in self._failures:
            if rule.matches(method, path):
                rule.hits += 1
                if rule.remaining is not None:
                    rule.remaining -= 1
                return rule
        return None

    def revoke_bot_permissions(self, channel: FakeChannel, permissions: int = m.SEND_MESSAGES) -> None:
        """Deny the bot `permissions` in `channel` through a member overwrite (CHANNEL_UPDATE is dispatched)."""
        own = channel.overwrites.get(self.bot_user.id)
        allow, deny = (own.allow, own.deny) if own is not None else (0, 0)
        self.set_channel_overwrite(channel, self.bot_user, allow=allow & ~permissions, deny=deny | permissions)

    def restore_bot_permissions(self, channel: FakeChannel, permissions: int = m.SEND_MESSAGES) -> None:
        """Undo `revoke_bot_permissions`: the bot's overwrite stops denying `permissions` (and goes if empty)."""
        own = channel.overwrites.get(self.bot_user.id)
        if own is None:
            return
        if own.allow == 0 and own.deny & ~permissions == 0:
            self.remove_channel_overwrite(channel, self.bot_user)
        else:
            self.set_channel_overwrite(channel, self.bot_user, allow=own.allow, deny=own.deny & ~permissions)

    def expire_token(self, interaction: FakeInteraction) -> None:
        """End the interaction token's life now, as if `token_lifetime` (15 minutes) had passed."""
        interaction.token_expires_at = time.monotonic()

    async def drop_gateway(self, code: int = 4000, *, shard: int | None = None) -> None:
        """Close the bot's websocket (the newest session's, or shard `shard`'s) without invalidating
        the session: it should RESUME."""
        self._resume_baseline = self.gateway.resume_count
        await self.gateway.drop(code, shard=shard)
        self.notify()

    def send_gateway_reconnect(self, *, shard: int | None = None) -> None:
        """Send op 7 RECONNECT: the bot should reconnect and RESUME."""
        self._resume_baseline = self.gateway.resume_count
        self.gateway.send_reconnect(shard=shard)

    def invalidate_session(self, resumable: bool = False, *, shard: int | None = None) -> None:
        """Send op 9 INVALID_SESSION; the bot should IDENTIFY again (or RESUME if resumable)."""
        self._resume_baseline = self.gateway.resume_count
        self.gateway.invalidate(resumable, shard=shard)

    # ================================================================== message helpers

    def _dispatch_message(self, event: str, msg: FakeMessage) -> None:
        if msg.ephemeral:
            return
        channel = msg.channel
        intent = INTENT_DIRECT_MESSAGES if channel.is_dm else INTENT_GUILD_MESSAGES
        payload = msg.to_payload(self.base_url)
        mentioned = f"<@{self.bot_user.id}>" in msg.content
        without_content = None
        if msg.author.id != self.bot_user.id and not channel.is_dm and not mentioned:
            # Sessions without the Message Content intent see other people's messages empty.
            without_content = {**payload, "content": "", "embeds": [], "attachments": [], "components": []}
        guild_id = channel.guild.id if channel.guild is not None else None
        self.gateway.dispatch(event, payload, intent=intent, guild_id=guild_id, without_content=without_content)
        self.notify()

    def _dispatch_message_delete(self, msg: FakeMessage) -> None:
        payload: JSON = {"id": str(msg.id), "channel_id": str(msg.channel.id)}
        guild_id = None
        if msg.channel.guild is not None:
            guild_id = msg.channel.guild.id
            payload["guild_id"] = str(guild_id)
        intent = INTENT_DIRECT_MESSAGES if msg.channel.is_dm else INTENT_GUILD_MESSAGES
        self.gateway.dispatch("MESSAGE_DELETE", payload, intent=intent, guild_id=guild_id)

    def _new_attachments(self, body: JSON, files: Mapping[int, Upload]) -> list[FakeAttachment]:
        described = {
            int(a["id"]): a
            for a in body.get("attachments") or []
            if isinstance(a, dict) and str(a.get("id", "")).isdigit() and int(a["id"]) in files
        }
        out: list[FakeAttachment] = []
        for index, upload in sorted(files.items()):
            info = described.get(index, {})
            out.append(
                FakeAttachment(
                    new_snowflake(),
                    info.get("filename") or upload.filename,
                    upload.data,
                    upload.content_type,
                    info.get("description"),
                )
            )
        return out

    def _create_message(
        self,
        channel: FakeChannel,
        body: JSON,
        files: Mapping[int, Upload],
        *,
        interaction: FakeInteraction | None = None,
        msg_type: int = 0,
        placeholder_flags: int | None = None,
    ) -> FakeMessage | Problems:
        """Validate and store a message the bot sends; returns the problems if invalid.

        `placeholder_flags` creates the empty 'thinking' message of a deferred response.
        """
        if placeholder_flags is None:
            problems = validate_message(body, attachments_count=len(files), creating=True)
            if problems:
                return problems
            flags = int(body.get("flags") or 0) & CREATE_FLAGS_ALLOWED
        else:
            flags = placeholder_flags
        if interaction is None:
            flags &= ~m.FLAG_EPHEMERAL
        msg = FakeMessage(
            new_snowflake(),
            channel,
            self.bot_user,
            content=body.get("content") or "",
            embeds=list(body.get("embeds") or []),
            components=list(body.get("components") or []),
            flags=flags,
            attachments=self._new_attachments(body, files),
            type=msg_type,
            tts=bool(body.get("tts")),
            message_reference=body.get("message_reference"),
            nonce=body.get("nonce"),
        )
        if interaction is not None:
            msg.interaction = interaction
            msg.webhook_id = self.application_id
            msg.application_id = self.application_id
            if msg.ephemeral:
                msg.visible_to = interaction.user
        msg.history.append(msg.snapshot())
        channel.messages[msg.id] = msg
        self.messages[msg.id] = msg
        self._dispatch_message("MESSAGE_CREATE", msg)
        return msg

    def _edit_message(self, msg: FakeMessage, body: JSON, files: Mapping[int, Upload]) -> Problems:
        """PATCH semantics: only present keys change; `attachments` lists the ones to keep."""
        was_loading = msg.loading
        content = (body.get("content") or "") if "content" in body else msg.content
        embeds = list(body.get("embeds") or []) if "embeds" in body else msg.embeds
        components = list(body.get("components") or []) if "components" in body else msg.components
        flags = msg.flags & ~m.FLAG_LOADING
        if body.get("flags") is not None:
            flags = (flags & ~EDIT_FLAGS_ALLOWED) | (int(body["flags"]) & EDIT_FLAGS_ALLOWED)
            if msg.flags & m.FLAG_IS_COMPONENTS_V2 and not flags & m.FLAG_IS_COMPONENTS_V2:
                return [("flags", "IS_COMPONENTS_V2 cannot be removed from a message once it is sent.")]
        if "attachments" in body:
            keep = {
                str(a.get("id"))
                for a in body.get("attachments") or []
                if isinstance(a, dict) and not (str(a.get("id", "")).isdigit() and int(a["id"]) in files)
            }
            attachments = [a for a in msg.attachments if str(a.id) in keep]
        else:
            attachments = list(msg.attachments)
        attachments += self._new_attachments(body, files)
        merged = {"content": content, "embeds": embeds, "components": components, "flags": flags}
        problems = validate_message(merged, attachments_count=len(attachments), creating=True)
        if problems:
            return problems
        msg.content, msg.embeds, msg.components, msg.flags = content, embeds, components, flags
        msg.attachments = attachments
        if not was_loading:
            msg.edited_at = utcnow()
        msg.history.append(msg.snapshot())
        self._dispatch_message("MESSAGE_UPDATE", msg)
        return []

    # ================================================================== REST plumbing

    def _register_routes(self) -> None:
        add = self._add_route
        add("GET", "/gateway", self._get_gateway, auth=False)
        add("GET", "/gateway/bot", self._get_gateway_bot)
        add("GET", "/users/@me", self._get_me)
        add("GET", "/users/@me/guilds", self._get_my_guilds)
        add("POST", "/users/@me/channels", self._create_dm)
        add("GET", "/users/{user_id}", self._get_user)
        add("GET", "/oauth2/applications/@me", self._get_application)
        add("GET", "/applications/@me", self._get_application)
        for prefix in ("/applications/{application_id}", "/applications/{application_id}/guilds/{guild_id}"):
            add("GET", f"{prefix}/commands", self._list_commands)
            add("PUT", f"{prefix}/commands", self._put_commands)
            add("POST", f"{prefix}/commands", self._post_command)
            add("GET", f"{prefix}/commands/{{command_id}}", self._get_command)
            add("PATCH", f"{prefix}/commands/{{command_id}}", self._patch_command)
            add("DELETE", f"{prefix}/commands/{{command_id}}", self._delete_command)
        add("GET", "/applications/{application_id}/guilds/{guild_id}/commands/permissions", self._empty_list)
        add("GET", "/channels/{channel_id}", self._get_channel)
        add("PATCH", "/channels/{channel_id}", self._patch_channel)
        add("POST", "/channels/{channel_id}/messages/{message_id}/threads", self._start_thread)
        add("GET", "/channels/{channel_id}/messages", self._list_messages)
        add("POST", "/channels/{channel_id}/messages", self._post_message)
        add("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message)
        add("PATCH", "/channels/{channel_id}/messages/{message_id}", self._patch_message)
        add("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message)
        add("POST", "/channels/{channel_id}/typing", self._typing)
        add("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", self._add_reaction)
        add(
            "DELETE",
            "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
            self._remove_reaction,
        )
        add("GET", "/guilds/{guild_id}", self._get_guild)
        add("GET", "/guilds/{guild_id}/channels", self._get_guild_channels)
        add("GET", "/guilds/{guild_id}/roles", self._get_guild_roles)
        add("GET", "/guilds/{guild_id}/members", self._list_members)
        add("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member)
        add("POST", "/interactions/{interaction_id}/{token}/callback", self._interaction_callback, auth=False)
        add("POST", "/webhooks/{application_id}/{token}", self._webhook_execute, auth=False)
        add("GET", "/webhooks/{application_id}/{token}/messages/{message_id}", self._webhook_get, auth=False)
        add(
            "PATCH",
            "/webhooks/{application_id}/{token}/messages/{message_id}",
            self._webhook_edit,
            auth=False,
        )
        add(
            "DELETE",
            "/webhooks/{application_id}/{token}/messages/{message_id}",
            self._webhook_delete,
            auth=False,
        )

    def _add_route(self, method: str, template: str, handler: Handler, *, auth: bool = True) -> None:
        self._routes.append(_Route(method, template, _template_regex(template), handler, auth))

    def _match(self, method: str, path: str) -> tuple[_Route | None, dict[str, str]]:
        for route in self._routes:
            if route.method != method:
                continue
            found = route.regex.match(path)
            if found:
                return route, found.groupdict()
        return None, {}

    def _call(self, method: str, path: str, route: _Route, params: dict[str, str]) -> Call:
        """The request as the rate limiter sees it: its kind, and the message and token it names."""
        channel = self.channels.get(int(params["channel_id"])) if params.get("channel_id", "").isdigit() else None
        kind = kind_of(method, route.template, channel is not None and channel.is_dm)
        token = params.get("token") if route.template.startswith("/webhooks/") else None
        mid = params.get("message_id", "")
        message_id = int(mid) if mid.isdigit() else None
        if mid == "@original" and token is not None:
            inter = self._interactions_by_token.get(token)
            message_id = inter.original.id if inter is not None and inter.original is not None else None
        return Call(method, path, route.template, params, kind, message_id, token)

    def _error(
        self,
        req: Req | None,
        status: int,
        code: int,
        message: str,
        *,
        record: bool = False,
        kind: str = "rest",
        problems: Problems | None = None,
    ) -> web.Response:
        """A Discord-shaped error; `record=True` also makes the test fail at teardown."""
        body: JSON = {"message": message, "code": code}
        if problems:
            body["errors"] = errors_to_discord(problems)
            details = "; ".join(f"{p}: {msg}" for p, msg in problems)
            message = f"{message}: {details}"
        if record:
            self.record_error(
                kind,
                message,
                code=code,
                method=req.method if req else None,
                path=req.path if req else None,
            )
        return _json_response(body, status)

    def _invalid_form(self, req: Req, problems: Problems) -> web.Response:
        return self._error(req, 400, 50035, "Invalid Form Body", record=True, kind="validation", problems=problems)

    async def _parse_body(self, request: web.Request) -> tuple[Any, dict[int, Upload]]:
        files: dict[int, Upload] = {}
        if request.content_type == "multipart/form-data":
            body: Any = None
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue
                name = part.name or ""
                if name == "payload_json":
                    body = orjson.loads(await part.text())
                elif name.startswith("files[") and name.endswith("]"):
                    data = await part.read(decode=False)
                    files[int(name[6:-1])] = Upload(
                        part.filename or "file", bytes(data), part.headers.get("Content-Type")
                    )
                else:
                    raise ValueError(f"unexpected multipart field {name!r}")
            return body, files
        if not request.can_read_body:
            return None, files
        raw = await request.read()
        if not raw:
            return None, files
        if request.content_type != "application/json":
            raise ValueError(f"unexpected Content-Type {request.content_type!r}")
        return orjson.loads(raw), files

    async def _api(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        record = RequestRecord(method, path, dict(request.query), None)
        self.requests.append(record)
        response = await self._handle_api(request, method, path, record)
        record.status = response.status
        self.request_counts[f"{method} {record.template or path}"] += 1
        self.notify()
        if self.rest_latency > 0:
            await asyncio.sleep(self.rest_latency)
        return response

    def ban(self, seconds: float) -> None:
        """Answer every REST call for `seconds` as Cloudflare does an IP it banned: a 429 in HTML,
        with a Retry-After and none of Discord's headers. `ban_hits` counts the calls so answered."""
        self._banned_until = time.monotonic() + seconds
        self._ban_seconds = seconds

    async def _handle_api(self, request: web.Request, method: str, path: str, record: RequestRecord) -> web.Response:
        if time.monotonic() < self._banned_until:
            self.ban_hits += 1
            return web.Response(status=429, content_type="text/html", headers={"Retry-After": str(round(
                self._ban_seconds))}, text="<!DOCTYPE html><html><head><title>Access denied | discord.com used "
                                           "Cloudflare to restrict access</title></head><body>Error 1015: You are "
                                           "being rate limited.</body></html>")
        found = self.spec.operation(method, path)
        if isinstance(found, Miss):
            self.limits.calls[OTHER] += 1
            what = f"{found.message} (not in Discord's API specification)"
            self.record_error("route", what, method=method, path=path)
            return _json_response({"message": found.message, "code": 0}, found.status)
        operation, path_values = found
        route, params = self._match(method, path)
        if route is None:
            self.limits.calls[OTHER] += 1
            what = f"Discord has this route ({operation.operation_id}); the fake does not serve it"
            self.record_error("route", what, method=method, path=path)
            return _json_response({"message": "404: Not Found", "code": 0}, 404)
        record.template = route.template
        call = self._call(method, path, route, params)
        record.kind = call.kind
        authorized = not route.auth or request.headers.get("Authorization") == f"Bot {self.token}"
        refused, headers = self.limits.admit(call, authorized)
        if not authorized:
            return _json_response({"message": "401: Unauthorized", "code": 0}, 401)
        if refused is not None:
            return refused
        req = Req(method, path, params, request.query, None, {}, record, operation, path_values)
        response = await self._serve(request, route, req)
        if response.status >= 500:
            self.limits.refund(call)
        else:
            response.headers.update(headers)
        return response

    async def _serve(self, request: web.Request, route: _Route, req: Req) -> web.Response:
        method, path, record = req.method, req.path, req.record
        try:
            req.body, req.files = await self._parse_body(request)
        except ValueError as exc:
            return self._error(req, 400, 50109, f"The request body contains invalid JSON: {exc}", record=True)
        record.body = req.body
        problems = self._check_against_spec(request, req) if self.check_spec else []
        if problems:
            return self._invalid_form(req, problems)
        failure = self._take_failure(method, path)
        if failure is not None:
            return _json_response({"message": failure.message, "code": failure.code}, failure.status)
        try:
            return await route.handler(req)
        except Exception as exc:
            # 400, not 500: discord.py retries 5xx with multi-second sleeps.
            self.record_error("fake", f"handler crashed: {exc!r}\n{traceback.format_exc()}", method=method, path=path)
            return _json_response({"message": f"fake discord crashed: {exc!r}", "code": 0}, 400)

    def _check_against_spec(self, request: web.Request, req: Req) -> Problems:
        """Parameters and body against Discord's spec, and the token routes' no-bot-token rule."""
        started = time.perf_counter()
        problems = validate_token_auth(req.operation.template, request.headers.get("Authorization"))
        content_type = request.content_type if request.can_read_body else "application/json"
        problems += self.spec.check(req.operation, req.path_values, req.query, req.body, content_type)
        self.spec_checks += 1
        self.spec_seconds += time.perf_counter() - started
        return problems

    async def _outside_api(self, request: web.Request) -> web.StreamResponse:
        self.record_error("route", "request outside /api/v10", method=request.method, path=request.path)
        return _json_response({"message": "404: Not Found", "code": 0}, 404)

    async def _serve_attachment(self, request: web.Request) -> web.StreamResponse:
        channel = self.channels.get(int(request.match_info["channel_id"]))
        attachment_id = int(request.match_info["attachment_id"])
        if channel is not None:
            for msg in channel.messages.values():
                for att in msg.attachments:
                    if att.id == attachment_id:
                        ctype = att.content_type or "application/octet-stream"
                        return web.Response(body=att.data, headers={"Content-Type": ctype})
        return web.Response(status=404)

    # ------------------------------------------------------------------ lookups

    def _channel(self, req: Req) -> FakeChannel | web.Response:
        channel = self.channels.get(int(req.params["channel_id"]))
        if channel is None:
            return self._error(req, 404, 10003, "Unknown Channel")
        if channel.guild is not None and self.bot_user.id not in channel.guild.members:
            return self._error(req, 403, 50001, "Missing Access")
        if channel.guild is not None and not self.permissions_for(self.bot_user, channel) & m.VIEW_CHANNEL:
            return self._error(req, 403, 50001, "Missing Access")
        return channel

    def _channel_message(self, req: Req, channel: FakeChannel) -> FakeMessage | web.Response:
        msg = channel.messages.get(int(req.params["message_id"]))
        if msg is None or msg.deleted or msg.ephemeral:
            return self._error(req, 404, 10008, "Unknown Message")
        return msg

    def _guild(self, req: Req) -> FakeGuild | web.Response:
        guild = self.guilds.get(int(req.params["guild_id"]))
        if guild is None:
            return self._error(req, 404, 10004, "Unknown Guild")
        if self.bot_user.id not in guild.members:
            return self._error(req, 403, 50001, "Missing Access")
        return guild

    # ------------------------------------------------------------------ misc routes

    async def _get_gateway(self, req: Req) -> web.Response:
        return _json_response({"url": self.gateway_url})

    async def _get_gateway_bot(self, req: Req) -> web.Response:
        limit = {
            "total": 1000,
            "remaining": 999,
            "reset_after": 14400000,
            "max_concurrency": self.max_concurrency,
        }
        shards = self.recommended_shards
        return _json_response({"url": self.gateway_url, "shards": shards, "session_start_limit": limit})

    async def _get_me(self, req: Req) -> web.Response:
        payload = {**self.bot_user.to_payload(), "verified": True, "mfa_enabled": False, "email": None}
        return _json_response(payload)

    async def _get_my_guilds(self, req: Req) -> web.Response:
        out: list[JSON] = [
            {
                "id": str(g.id),
                "name": g.name,
                "icon": None,
                "owner": False,
                "permissions": "0",
                "features": [],
            }
            for g in self.bot_guilds()
        ]
        return _json_response(out)

    async def _get_user(self, req: Req) -> web.Response:
        user = self.users.get(int(req.params["user_id"]))
        if user is None:
            return self._error(req, 404, 10013, "Unknown User")
        return _json_response(user.to_payload())

    async def _get_application(self, req: Req) -> web.Response:
        return _json_response(
            {
                "id": str(self.application_id),
                "name": self.bot_user.global_name,
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "hook": True,
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "bot": self.bot_user.to_payload(),
                "owner": self.app_owner.to_payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": self.application_flags,
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.bot_guilds()),
                "integration_types_config": {"0": {}},
            }
        )

    async def _empty_list(self, req: Req) -> web.Response:
        return _json_response([])

    async def _create_dm(self, req: Req) -> web.Response:
        body = req.body if isinstance(req.body, dict) else {}
        user = self.users.get(int(body.get("recipient_id") or 0))
        if user is None:
            return self._error(req, 400, 50035, "Invalid Form Body: unknown recipient_id", record=True)
        return _json_response(self.dm_channel(user).to_payload())

    # ------------------------------------------------------------------ commands

    def _command_scope(self, req: Req) -> dict[int, JSON] | web.Response:
        if int(req.params["application_id"]) != self.application_id:
            return self._error(req, 403, 50001, "Missing Access (wrong application id)", record=True)
        if "guild_id" in req.params:
            guild = self._guild(req)
            if isinstance(guild, web.Response):
                self.record_error("rest", "command registration in an unknown guild", path=req.path)
                return guild
            return self.guild_commands.setdefault(guild.id, {})
        return self.global_commands

    def _normalize_command(self, cmd: JSON, scope: dict[int, JSON], guild_id: str | None) -> JSON:
        ctype = cmd.get("type", 1)
        perms = cmd.get("default_member_permissions")
        existing = next((c for c in scope.values() if c["name"] == cmd["name"] and c["type"] == ctype), None)
        out: JSON = {
            "id": existing["id"] if existing else str(new_snowflake()),
            "application_id": str(self.application_id),
            "version": str(new_snowflake()),
            "type": ctype,
            "name": cmd["name"],
            "name_localizations": cmd.get("name_localizations"),
            "description": cmd.get("description", ""),
            "description_localizations": cmd.get("description_localizations"),
            "options": cmd.get("options") or [],
            # Discord answers with permissions as a string, whatever type was sent.
            "default_member_permissions": None if perms is None else str(perms),
            "dm_permission": cmd.get("dm_permission", True),
            "contexts": cmd.get("contexts"),
            "integration_types": cmd.get("integration_types") or [0],
            "nsfw": cmd.get("nsfw", False),
        }
        if guild_id is not None:
            out["guild_id"] = guild_id
        return out

    def _check_command_set(self, commands: list[Any]) -> Problems:
        problems: Problems = []
        for i, cmd in enumerate(commands):
            problems.extend((f"{i}.{p}" if p else str(i), msg) for p, msg in validate_command(cmd))
        valid = [c for c in commands if isinstance(c, dict)]
        keys = [(c.get("type", 1), c.get("name")) for c in valid]
        for key in set(keys):
            if keys.count(key) > 1:
                problems.append(("", f"Application command names must be unique: {key[1]!r}"))
        for ctype, limit in ((1, 100), (2, 5), (3, 5)):
            count = sum(1 for c in valid if c.get("type", 1) == ctype)
            if count > limit:
                problems.append(("", f"Maximum number of type {ctype} application commands reached ({limit})"))
        return problems

    async def _list_commands(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        return _json_response(list(scope.values()))

    async def _put_commands(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        if not isinstance(req.body, list):
            return self._invalid_form(req, [("", "Bulk overwrite needs a JSON array")])
        problems = self._check_command_set(req.body)
        if problems:
            return self._invalid_form(req, problems)
        guild_id = req.params.get("guild_id")
        new = [self._normalize_command(c, scope, guild_id) for c in req.body]
        scope.clear()
        scope.update({int(c["id"]): c for c in new})
        self.command_syncs += 1
        return _json_response(new)

    async def _post_command(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        problems = validate_command(req.body)
        if problems:
            return self._invalid_form(req, problems)
        cmd = self._normalize_command(req.body, scope, req.params.get("guild_id"))
        created = int(cmd["id"]) not in scope
        scope[int(cmd["id"])] = cmd
        self.command_syncs += 1
        return _json_response(cmd, 201 if created else 200)

    async def _get_command(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        cmd = scope.get(int(req.params["command_id"]))
        if cmd is None:
            return self._error(req, 404, 10063, "Unknown application command")
        return _json_response(cmd)

    async def _patch_command(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        cmd = scope.get(int(req.params["command_id"]))
        if cmd is None:
            return self._error(req, 404, 10063, "Unknown application command", record=True)
        merged = {**cmd, **(req.body or {})}
        problems = validate_command(merged)
        if problems:
            return self._invalid_form(req, problems)
        merged["version"] = str(new_snowflake())
        scope[int(cmd["id"])] = merged
        self.command_syncs += 1
        return _json_response(merged)

    async def _delete_command(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        if scope.pop(int(req.params["command_id"]), None) is None:
            return self._error(req, 404, 10063, "Unknown application command", record=True)
        self.command_syncs += 1
        return _no_content()

    # ------------------------------------------------------------------ channels & messages

    async def _get_channel(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        return _json_response(channel.to_payload())

    async def _patch_channel(self, req: Req) -> web.Response:
        """Only what the bot does to a channel: archive (or reopen) a thread, rename it."""
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        if not channel.is_thread:
            return self._error(req, 403, 50013, "Missing Permissions", record=True)
        body = req.body if isinstance(req.body, dict) else {}
        own = channel.owner_id == self.bot_user.id
        if not own and not self.permissions_for(self.bot_user, channel) & m.MANAGE_THREADS:
            return self._error(req, 403, 50013, "Missing Permissions")
        if "name" in body:
            channel.name = str(body["name"])[:100]
        self._set_archived(channel, bool(body.get("archived", channel.archived)))
        return _json_response(channel.to_payload())

    async def _start_thread(self, req: Req) -> web.Response:
        """A public thread from a message: its id is the message's; one per message; it needs
        Create Public Threads in the channel; a server has at most `max_active_threads` open."""
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        msg = self._channel_message(req, channel)
        if isinstance(msg, web.Response):
            return msg
        if channel.is_dm or channel.is_thread or channel.guild is None:
            return self._error(req, 400, 50024, "Cannot execute action on this channel type")
        if not self.permissions_for(self.bot_user, channel) & m.CREATE_PUBLIC_THREADS:
            return self._error(req, 403, 50013, "Missing Permissions")
        if msg.id in self.channels:
            return self._error(req, 400, 160004, "A thread has already been created for this message")
        guild = channel.guild
        if sum(1 for t in guild.threads if not t.archived) >= self.max_active_threads:
            return self._error(req, 400, 160006, "Maximum number of active threads reached")
        body = req.body if isinstance(req.body, dict) else {}
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            return self._invalid_form(req, [("name", "Must be between 1 and 100 in length.")])
        thread = FakeChannel(msg.id, m.CHANNEL_PUBLIC_THREAD, name, guild, parent=channel, owner_id=self.bot_user.id)
        guild.threads.append(thread)
        self.channels[thread.id] = thread
        self._dispatch_guild_event("THREAD_CREATE", guild, {**thread.to_payload(), "newly_created": True},
                                   INTENT_GUILDS)
        return _json_response(thread.to_payload(), status=201)

    def _archived(self, req: Req) -> web.Response:
        """Discord refuses to edit a message of an archived thread (a post reopens the thread)."""
        return self._error(req, 400, 50083, "Thread is archived", record=True)

    def _set_archived(self, thread: FakeChannel, archived: bool) -> None:
        if thread.archived == archived or thread.guild is None:
            return
        thread.archived = archived
        self._dispatch_guild_event("THREAD_UPDATE", thread.guild, thread.to_payload(), INTENT_GUILDS)

    def threads_of(self, channel: FakeChannel) -> list[FakeChannel]:
        """The threads started in a channel, oldest first."""
        guild = channel.guild
        return [] if guild is None else [t for t in guild.threads if t.parent is channel]

    async def _list_messages(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        limit = max(1, min(100, int(req.query.get("limit", 50))))
        msgs = channel.visible_messages()
        if "before" in req.query:
            msgs = [x for x in msgs if x.id < int(req.query["before"])]
            msgs = msgs[-limit:]
        elif "after" in req.query:
            msgs = [x for x in msgs if x.id > int(req.query["after"])][:limit]
        elif "around" in req.query:
            pivot = int(req.query["around"])
            older = [x for x in msgs if x.id <= pivot][-((limit + 1) // 2) :]
            newer = [x for x in msgs if x.id > pivot][: limit - len(older)]
            msgs = older + newer
        else:
            msgs = msgs[-limit:]
        return _json_response([x.to_payload(self.base_url) for x in reversed(msgs)])

    async def _get_message(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        msg = self._channel_message(req, channel)
        if isinstance(msg, web.Response):
            return msg
        return _json_response(msg.to_payload(self.base_url))

    async def _post_message(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        if channel.is_dm:
            assert channel.recipient is not None
            if channel.recipient.dms_closed:
                return self._error(req, 403, 50007, "Cannot send messages to this user")
        else:
            perms = self.permissions_for(self.bot_user, channel)
            send = m.SEND_MESSAGES_IN_THREADS if channel.is_thread else m.SEND_MESSAGES
            if not perms & send or (req.files and not perms & m.ATTACH_FILES):
                return self._error(req, 403, 50013, "Missing Permissions")
        if channel.archived:  # Discord reopens an archived thread for whoever may post in it
            self._set_archived(channel, False)
        body = req.body if isinstance(req.body, dict) else {}
        nonce = body.get("nonce")
        if nonce is not None:
            problems = validate_nonce(nonce)
            if problems:
                return self._invalid_form(req, problems)
            if body.get("enforce_nonce"):
                earlier = self._nonce_message(channel, str(nonce))
                if earlier is not None:
                    if earlier.deleted:
                        return self._error(req, 404, 10008, "Unknown Message")
                    return _json_response(earlier.to_payload(self.base_url))
        result = self._create_message(channel, body, req.files)
        if not isinstance(result, FakeMessage):
            return self._invalid_form(req, result)
        if nonce is not None and body.get("enforce_nonce"):
            self._nonces[(channel.id, self.bot_user.id, str(nonce))] = (result, time.monotonic())
        return _json_response(result.to_payload(self.base_url))

    def _nonce_message(self, channel: FakeChannel, nonce: str) -> FakeMessage | None:
        """The bot's message created with this enforced nonce in `channel` within `nonce_window`."""
        expired = time.monotonic() - self.nonce_window
        while self._nonces:  # oldest first: drop what has aged out of the window
            key, (_, at) = next(iter(self._nonces.items()))
            if at > expired:
                break
            del self._nonces[key]
        found = self._nonces.get((channel.id, self.bot_user.id, nonce))
        return None if found is None else found[0]

    async def _patch_message(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        msg = self._channel_message(req, channel)
        if isinstance(msg, web.Response):
            return msg
        if msg.author.id != self.bot_user.id:
            return self._error(req, 403, 50005, "Cannot edit a message authored by another user", record=True)
        if channel.archived:
            return self._archived(req)
        problems = self._edit_message(msg, req.body if isinstance(req.body, dict) else {}, req.files)
        if problems:
            return self._invalid_form(req, problems)
        return _json_response(msg.to_payload(self.base_url))

    async def _delete_message(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        msg = self._channel_message(req, channel)
        if isinstance(msg, web.Response):
            return msg
        own = msg.author.id == self.bot_user.id
        if not own and not self.permissions_for(self.bot_user, channel) & m.MANAGE_MESSAGES:
            return self._error(req, 403, 50013, "Missing Permissions")
        msg.deleted = True
        self._dispatch_message_delete(msg)
        return _no_content()

    async def _typing(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        return _no_content()

    async def _add_reaction(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        msg = self._channel_message(req, channel)
        if isinstance(msg, web.Response):
            return msg
        msg.reactions.setdefault(req.params["emoji"], set()).add(self.bot_user.id)
        return _no_content()

    async def _remove_reaction(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        msg = self._channel_message(req, channel)
        if isinstance(msg, web.Response):
            return msg
        msg.reactions.get(req.params["emoji"], set()).discard(self.bot_user.id)
        return _no_content()

    # ------------------------------------------------------------------ guilds

    async def _get_guild(self, req: Req) -> web.Response:
        guild = self._guild(req)
        if isinstance(guild, web.Response):
            return guild
        payload = guild.base_payload()
        if _truthy(req.query.get("with_counts")):
            payload["approximate_member_count"] = len(guild.members)
            payload["approximate_presence_count"] = 0
        return _json_response(payload)

    async def _get_guild_channels(self, req: Req) -> web.Response:
        guild = self._guild(req)
        if isinstance(guild, web.Response):
            return guild
        return _json_response([c.to_payload() for c in guild.channels])

    async def _get_guild_roles(self, req: Req) -> web.Response:
        guild = self._guild(req)
        if isinstance(guild, web.Response):
            return guild
        return _json_response([r.to_payload() for r in guild.roles.values()])

    async def _list_members(self, req: Req) -> web.Response:
        guild = self._guild(req)
        if isinstance(guild, web.Response):
            return guild
        limit = max(1, min(1000, int(req.query.get("limit", 1))))
        after = int(req.query.get("after", 0))
        members = sorted((mb for mb in guild.members.values() if mb.user.id > after), key=lambda mb: mb.user.id)
        return _json_response([mb.to_payload() for mb in members[:limit]])

    async def _get_member(self, req: Req) -> web.Response:
        guild = self._guild(req)
        if isinstance(guild, web.Response):
            return guild
        member = guild.members.get(int(req.params["user_id"]))
        if member is None:
            return self._error(req, 404, 10007, "Unknown Member")
        return _json_response(member.to_payload())

    # ------------------------------------------------------------------ interactions

    async def _interaction_callback(self, req: Req) -> web.Response:
        inter = self.interactions.get(int(req.params["interaction_id"]))
        if inter is None or inter.token != req.params["token"]:
            return self._error(req, 404, 10062, "Unknown interaction", record=True, kind="interaction")
        if inter.response is not None:
            return self._error(
                req, 400, 40060, "Interaction has already been acknowledged.", record=True, kind="interaction"
            )
        latency = time.monotonic() - inter.dispatched_at
        if latency > self.ack_window:
            return self._error(
                req,
                404,
                10062,
                f"Unknown interaction (acknowledged after {latency:.2f}s > {self.ack_window}s)",
                record=True,
                kind="interaction",
            )
        body = req.body if isinstance(req.body, dict) else {}
        ctype = body.get("type")
        data = body.get("data") or {}
        if not isinstance(ctype, int) or ctype not in ALLOWED_CALLBACKS.get(inter.type, set()):
            problems = [("type", f"callback type {ctype!r} is not valid for interaction type {inter.type}")]
            return self._invalid_form(req, problems)
        problems = []
        if ctype == m.CALLBACK_AUTOCOMPLETE_RESULT:
            problems = validate_choices(data)
        elif ctype == m.CALLBACK_MODAL:
            problems = validate_modal(data)
        if problems:
            return self._invalid_form(req, problems)

        message: FakeMessage | None = None
        if ctype == m.CALLBACK_CHANNEL_MESSAGE:
            msg_type = 20 if inter.type == m.INTERACTION_APPLICATION_COMMAND else 0
            result = self._create_message(inter.channel, data, req.files, interaction=inter, msg_type=msg_type)
            if not isinstance(result, FakeMessage):
                return self._invalid_form(req, result)
            message = result
        elif ctype == m.CALLBACK_DEFERRED_CHANNEL_MESSAGE:
            flags = m.FLAG_LOADING | (int(data.get("flags") or 0) & m.FLAG_EPHEMERAL)
            msg_type = 20 if inter.type == m.INTERACTION_APPLICATION_COMMAND else 0
            result = self._create_message(
                inter.channel, {}, {}, interaction=inter, msg_type=msg_type, placeholder_flags=flags
            )
            assert isinstance(result, FakeMessage)
            message = result
        elif ctype in (m.CALLBACK_UPDATE_MESSAGE, m.CALLBACK_DEFERRED_UPDATE_MESSAGE):
            target = inter.message
            if target is None or target.deleted:
                return self._error(req, 404, 10008, "Unknown Message", record=True, kind="interaction")
            if ctype == m.CALLBACK_UPDATE_MESSAGE:
                problems = self._edit_message(target, data, req.files)
                if problems:
                    return self._invalid_form(req, problems)
            message = target

        inter.response = FakeResponse(ctype, data, latency, message)
        inter.original = message
        self.ack_latencies.append(latency)
        info: JSON = {"id": str(inter.id), "type": inter.type}
        resource: JSON = {"type": ctype}
        if message is not None:
            info["response_message_id"] = str(message.id)
            info["response_message_loading"] = message.loading
            info["response_message_ephemeral"] = message.ephemeral
            if ctype != m.CALLBACK_DEFERRED_UPDATE_MESSAGE:
                resource["message"] = message.to_payload(self.base_url)
        if not _truthy(req.query.get("with_response")):
            return web.Response(status=204)  # as Discord answers when the callback's result isn't asked for
        return _json_response({"interaction": info, "resource": resource})

    def _webhook_interaction(self, req: Req) -> FakeInteraction | web.Response:
        inter = self._interactions_by_token.get(req.params["token"])
        if inter is None or int(req.params["application_id"]) != self.application_id:
            return self._error(req, 404, 10015, "Unknown Webhook", record=True, kind="interaction")
        if not inter.channel.is_dm and inter.channel.id not in self.channels:
            return self._error(req, 404, 10003, "Unknown Channel")  # deleted since the interaction
        if inter.token_expired:
            return self._error(
                req,
                401,
                50027,
                f"Invalid Webhook Token (interaction tokens live {self.token_lifetime:g}s)",
                record=True,
                kind="interaction",
            )
        if inter.response is None:
            return self._error(
                req,
                404,
                10015,
                "Unknown Webhook (follow-up or @original used before the interaction was acknowledged)",
                record=True,
                kind="interaction",
            )
        return inter

    def _webhook_message(self, req: Req, inter: FakeInteraction) -> FakeMessage | web.Response:
        mid = req.params["message_id"]
        if mid == "@original":
            msg = inter.original
            if msg is None:
                assert inter.response is not None
                return self._error(
                    req,
                    404,
                    10008,
                    f"Unknown Message (no original message after a type {inter.response.type} response)",
                    record=True,
                    kind="interaction",
                )
        else:
            candidates = [*inter.followups, *([inter.original] if inter.original else [])]
            msg = next((x for x in candidates if str(x.id) == mid), None)
            if msg is None:
                return self._error(
                    req,
                    404,
                    10008,
                    "Unknown Message (not created by this token)",
                    record=True,
                    kind="interaction",
                )
        if msg.deleted:
            return self._error(req, 404, 10008, "Unknown Message")
        return msg

    async def _webhook_execute(self, req: Req) -> web.Response:
        inter = self._webhook_interaction(req)
        if isinstance(inter, web.Response):
            return inter
        body = req.body if isinstance(req.body, dict) else {}
        original = inter.original
        assert inter.response is not None
        if (
            inter.response.type == m.CALLBACK_DEFERRED_CHANNEL_MESSAGE
            and original is not None
            and original.loading
            and not original.deleted
        ):
            # Discord: the first follow-up after a 'thinking' defer replaces the placeholder
            # (keeping the defer's ephemerality, whatever the follow-up asked for).
            problems = self._edit_message(original, body, req.files)
            if problems:
                return self._invalid_form(req, problems)
            msg = original
        else:
            result = self._create_message(inter.channel, body, req.files, interaction=inter)
            if not isinstance(result, FakeMessage):
                return self._invalid_form(req, result)
            msg = result
        inter.followups.append(msg)
        if not _truthy(req.query.get("wait")):
            return _no_content()
        return _json_response(msg.to_payload(self.base_url))

    async def _webhook_get(self, req: Req) -> web.Response:
        inter = self._webhook_interaction(req)
        if isinstance(inter, web.Response):
            return inter
        msg = self._webhook_message(req, inter)
        if isinstance(msg, web.Response):
            return msg
        return _json_response(msg.to_payload(self.base_url))

    async def _webhook_edit(self, req: Req) -> web.Response:
        inter = self._webhook_interaction(req)
        if isinstance(inter, web.Response):
            return inter
        msg = self._webhook_message(req, inter)
        if isinstance(msg, web.Response):
            return msg
        if msg.channel.archived and not msg.ephemeral:
            return self._archived(req)
        problems = self._edit_message(msg, req.body if isinstance(req.body, dict) else {}, req.files)
        if problems:
            return self._invalid_form(req, problems)
        return _json_response(msg.to_payload(self.base_url))

    async def _webhook_delete(self, req: Req) -> web.Response:
        inter = self._webhook_interaction(req)
        if isinstance(inter, web.Response):
            return inter
        msg = self._webhook_message(req, inter)
        if isinstance(msg, web.Response):
            return msg
        msg.deleted = True
        if not msg.ephemeral:
            self._dispatch_message_delete(msg)
        return _no_content()
