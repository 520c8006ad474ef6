"""In-memory Discord objects held by the fake server, and their JSON payloads.

The payload builders mimic what Discord API v10 returns so that discord.py parses them
exactly as it would parse real data (snowflakes as strings, permissions as strings...).
"""

from __future__ import annotations

import itertools
import math
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from .jsontypes import JSON

if TYPE_CHECKING:
    from .sessions import GatewaySession

DISCORD_EPOCH_MS = 1420070400000

# Permission bits, as in the permissions page of Discord's developer documentation.
CREATE_INSTANT_INVITE = 1 << 0
KICK_MEMBERS = 1 << 1
BAN_MEMBERS = 1 << 2
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
CONNECT = 1 << 20
SPEAK = 1 << 21
CHANGE_NICKNAME = 1 << 26
MANAGE_ROLES = 1 << 28
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1

DEFAULT_EVERYONE_PERMISSIONS = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_EXTERNAL_EMOJIS
    | CONNECT
    | SPEAK
    | CHANGE_NICKNAME
    | USE_APPLICATION_COMMANDS
    | SEND_MESSAGES_IN_THREADS
)
DEFAULT_BOT_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_EXTERNAL_EMOJIS
    | SEND_MESSAGES_IN_THREADS
    | CREATE_PUBLIC_THREADS
)

# Message flags.
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_IS_COMPONENTS_V2 = 1 << 15

# Channel types.
CHANNEL_GUILD_TEXT = 0
CHANNEL_DM = 1
CHANNEL_PUBLIC_THREAD = 11

# Interaction types.
INTERACTION_PING = 1
INTERACTION_APPLICATION_COMMAND = 2
INTERACTION_MESSAGE_COMPONENT = 3
INTERACTION_AUTOCOMPLETE = 4
INTERACTION_MODAL_SUBMIT = 5

# Interaction callback types.
CALLBACK_PONG = 1
CALLBACK_CHANNEL_MESSAGE = 4
CALLBACK_DEFERRED_CHANNEL_MESSAGE = 5
CALLBACK_DEFERRED_UPDATE_MESSAGE = 6
CALLBACK_UPDATE_MESSAGE = 7
CALLBACK_AUTOCOMPLETE_RESULT = 8
CALLBACK_MODAL = 9

_snowflake_lock = threading.Lock()
_last_snowflake = 0
_increment = itertools.count()


def new_snowflake(shard: tuple[int, int] | None = None) -> int:
    """A unique, increasing, time-based id so discord.py's `created_at` values are realistic.

    With `shard=(shard_id, shard_count)` the id is one whose guild would live on that shard,
    `(id >> 22) % shard_count == shard_id`: its timestamp is moved up to `shard_count - 1` ms on.
    """
    global _last_snowflake
    with _snowflake_lock:
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = (now_ms << 22) | (next(_increment) & 0xFFF)
        if candidate <= _last_snowflake:
            candidate = _last_snowflake + 1
        if shard is not None:
            shard_id, shard_count = shard
            if shard_count < 1 or not 0 <= shard_id < shard_count:
                raise ValueError(f"shard {shard_id} of {shard_count} does not exist")
            ms = candidate >> 22
            candidate = ((ms + (shard_id - ms) % shard_count) << 22) | (candidate & 0x3FFFFF)
        _last_snowflake = candidate
        return candidate


def snowflake_time(snowflake: int) -> datetime:
    """When a snowflake was made (its timestamp bits)."""
    return datetime.fromtimestamp(((snowflake >> 22) + DISCORD_EPOCH_MS) / 1000, UTC)


def new_token(prefix: str = "") -> str:
    """An opaque random token (interaction tokens, bot tokens)."""
    return prefix + secrets.token_urlsafe(32)


def iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.isoformat()


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(eq=False)
class FakeUser:
    """A Discord user (humans and the bot alike)."""

    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    dms_closed: bool = False

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def to_payload(self) -> JSON:
        return {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }

    def __repr__(self) -> str:
        return f"<FakeUser {self.username} id={self.id}>"


@dataclass(eq=False)
class FakeRole:
    """A guild role; `id == guild.id` is @everyone."""

    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    bot_id: int | None = None

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def to_payload(self) -> JSON:
        payload: JSON = {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }
        if self.bot_id is not None:
            payload["tags"] = {"bot_id": str(self.bot_id)}
        return payload


@dataclass(eq=False)
class FakeMember:
    """A user's membership in a guild (roles, nickname)."""

    user: FakeUser
    guild: FakeGuild
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: datetime = field(default_factory=utcnow)

    def to_payload(self, *, with_user: bool = True, permissions: int | None = None) -> JSON:
        payload: JSON = {
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": iso(self.joined_at),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            payload["user"] = self.user.to_payload()
        if permissions is not None:
            payload["permissions"] = str(permissions)
        return payload


@dataclass(eq=False)
class FakeGuild:
    """A guild (server) with roles, channels and members."""

    id: int
    name: str
    owner: FakeUser
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: list[FakeChannel] = field(default_factory=list)
    threads: list[FakeChannel] = field(default_factory=list)
    members: dict[int, FakeMember] = field(default_factory=dict)
    created_at: datetime = field(default_factory=utcnow)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def member(self, user: FakeUser) -> FakeMember | None:
        return self.members.get(user.id)

    def base_payload(self) -> JSON:
        """GET /guilds/{id} style payload (no channels or members)."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner.id),
            "region": "deprecated",
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.to_payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "max_members": 500000,
            "max_video_channel_users": 25,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "incidents_data": None,
        }

    def gateway_payload(self) -> JSON:
        """GUILD_CREATE payload: the full guild incl. channels and every member."""
        payload = self.base_payload()
        payload.update(
            {
                "joined_at": iso(self.created_at),
                "large": False,
                "unavailable": False,
                "member_count": len(self.members),
                "voice_states": [],
                "members": [m.to_payload() for m in self.members.values()],
                "channels": [c.to_payload(include_guild_id=False) for c in self.channels],
                "threads": [t.to_payload(include_guild_id=False) for t in self.threads if not t.archived],
                "presences": [],
                "stage_instances": [],
                "guild_scheduled_events": [],
                "soundboard_sounds": [],
                "embedded_activities": [],
                "lazy": True,
            }
        )
        return payload

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name} id={self.id}>"


@dataclass
class Overwrite:
    """A channel permission overwrite (type 0 role, 1 member)."""

    id: int
    type: int
    allow: int = 0
    deny: int = 0

    def to_payload(self) -> JSON:
        return {"id": str(self.id), "type": self.type, "allow": str(self.allow), "deny": str(self.deny)}


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel or a DM channel between the bot and one user."""

    id: int
    type: int
    name: str | None = None
    guild: FakeGuild | None = None
    recipient: FakeUser | None = None
    position: int = 0
    topic: str | None = None
    overwrites: dict[int, Overwrite] = field(default_factory=dict)
    messages: dict[int, FakeMessage] = field(default_factory=dict)
    parent: FakeChannel | None = None  # a thread's channel
    owner_id: int | None = None  # who started a thread
    archived: bool = False  # a thread's state: archived threads reopen when someone posts in them

    @property
    def is_dm(self) -> bool:
        return self.type == CHANNEL_DM

    @property
    def is_thread(self) -> bool:
        return self.type == CHANNEL_PUBLIC_THREAD

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def visible_messages(self) -> list[FakeMessage]:
        """Messages a channel history fetch would return (no deleted, no ephemeral), oldest first."""
        return [m for m in self.messages.values() if not m.deleted and not m.ephemeral]

    def last_visible_id(self) -> str | None:
        """Newest first, so a channel full of ephemeral replies doesn't make every interaction slower."""
        for message in reversed(self.messages.values()):
            if not message.deleted and not message.ephemeral:
                return str(message.id)
        return None

    def to_payload(self, *, include_guild_id: bool = True) -> JSON:
        last_id = self.last_visible_id()
        if self.is_dm:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": CHANNEL_DM,
                "last_message_id": last_id,
                "recipients": [self.recipient.to_payload()],
                "flags": 0,
            }
        if self.is_thread:
            assert self.parent is not None
            thread: JSON = {
                "id": str(self.id),
                "type": self.type,
                "name": self.name,
                "parent_id": str(self.parent.id),
                "owner_id": str(self.owner_id),
                "last_message_id": last_id,
                "rate_limit_per_user": 0,
                "message_count": len(self.visible_messages()),
                "member_count": 1,
                "flags": 0,
                "thread_metadata": {"archived": self.archived, "auto_archive_duration": 1440,
                                    "archive_timestamp": iso(utcnow()), "locked": False},
            }
            if include_guild_id and self.guild is not None:
                thread["guild_id"] = str(self.guild.id)
            return thread
        payload: JSON = {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [o.to_payload() for o in self.overwrites.values()],
            "parent_id": None,
            "topic": self.topic,
            "nsfw": False,
            "last_message_id": last_id,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if include_guild_id and self.guild is not None:
            payload["guild_id"] = str(self.guild.id)
        return payload

    def __repr__(self) -> str:
        return f"<FakeChannel {self.name or 'DM'} id={self.id}>"


@dataclass(eq=False)
class FakeAttachment:
    """An uploaded file; the bytes are kept so tests can inspect them."""

    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None

    def to_payload(self, base_url: str, channel_id: int) -> JSON:
        url = f"{base_url}/attachments/{channel_id}/{self.id}/{self.filename}"
        payload: JSON = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": url,
            "proxy_url": url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            payload["description"] = self.description
        return payload


@dataclass(eq=False)
class FakeMessage:
    """A message as the fake stores it; `history` has one snapshot per version (creation + edits)."""

    id: int
    channel: FakeChannel
    author: FakeUser
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    flags: int = 0
    attachments: list[FakeAttachment] = field(default_factory=list)
    type: int = 0
    tts: bool = False
    created_at: datetime = field(default_factory=utcnow)
    edited_at: datetime | None = None
    deleted: bool = False
    webhook_id: int | None = None
    application_id: int | None = None
    interaction: FakeInteraction | None = None
    visible_to: FakeUser | None = None
    message_reference: JSON | None = None
    reactions: dict[str, set[int]] = field(default_factory=dict)
    history: list[JSON] = field(default_factory=list)
    nonce: str | int | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is the 'Bot is thinking...' placeholder of a deferred response."""
        return bool(self.flags & FLAG_LOADING)

    @property
    def edits(self) -> list[JSON]:
        """Snapshots after each edit (history without the creation snapshot)."""
        return self.history[1:]

    @property
    def text(self) -> str:
        """Content plus every embed/text-display string, for loose assertions."""
        parts = [self.content]
        for embed in self.embeds:
            parts.extend(str(embed.get(k, "")) for k in ("title", "description"))
            for f in embed.get("fields", []):
                parts.extend([str(f.get("name", "")), str(f.get("value", ""))])
            parts.append(str((embed.get("footer") or {}).get("text", "")))
            parts.append(str((embed.get("author") or {}).get("name", "")))
        for comp in iter_components(self.components):
            if comp.get("type") == 10:
                parts.append(str(comp.get("content", "")))
        return "\n".join(p for p in parts if p)

    def all_components(self) -> list[JSON]:
        """Every component, nested ones included, depth first."""
        return list(iter_components(self.components))

    def find_component(self, custom_id: str) -> JSON | None:
        for comp in iter_components(self.components):
            if comp.get("custom_id") == custom_id:
                return comp
        return None

    def buttons(self) -> list[JSON]:
        return [c for c in iter_components(self.components) if c.get("type") == 2]

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in iter_components(self.components) if "custom_id" in c]

    def snapshot(self) -> JSON:
        return {
            "content": self.content,
            "embeds": [dict(e) for e in self.embeds],
            "components": list(self.components),
            "flags": self.flags,
            "attachments": [a.filename for a in self.attachments],
            "edited_at": iso(self.edited_at),
        }

    def to_payload(self, base_url: str) -> JSON:
        channel = self.channel
        payload: JSON = {
            "id": str(self.id),
            "channel_id": str(channel.id),
            "author": self.author.to_payload(),
            "content": self.content,
            "timestamp": iso(self.created_at),
            "edited_timestamp": iso(self.edited_at),
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.to_payload(base_url, channel.id) for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "reactions": [
                {"count": len(users), "me": False, "emoji": {"id": None, "name": emoji}, "burst_count": 0}
                for emoji, users in self.reactions.items()
                if users
            ],
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if channel.guild is not None:
            payload["guild_id"] = str(channel.guild.id)
            member = channel.guild.member(self.author)
            if member is not None and self.webhook_id is None:
                payload["member"] = member.to_payload(with_user=False)
        if self.webhook_id is not None:
            payload["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            payload["application_id"] = str(self.application_id)
        if self.message_reference is not None:
            payload["message_reference"] = self.message_reference
        if self.nonce is not None:
            payload["nonce"] = self.nonce
        inter = self.interaction
        if inter is not None:
            meta: JSON = {
                "id": str(inter.id),
                "type": inter.type,
                "user": inter.user.to_payload(),
                "authorizing_integration_owners": inter.integration_owners(),
            }
            if inter.type == INTERACTION_APPLICATION_COMMAND:
                meta["name"] = inter.command_name
                meta["command_type"] = 1
            if inter.type == INTERACTION_MESSAGE_COMPONENT and inter.message is not None:
                meta["interacted_message_id"] = str(inter.message.id)
            payload["interaction_metadata"] = meta
        return payload

    def __repr__(self) -> str:
        flags = " ephemeral" if self.ephemeral else ""
        return f"<FakeMessage id={self.id} by={self.author.username}{flags} content={self.content[:60]!r}>"


def iter_components(components: list[JSON]) -> Iterator[JSON]:
    """Depth-first walk over (possibly nested, components V2) message components."""
    for comp in components:
        if not isinstance(comp, dict):
            continue
        yield comp
        children = comp.get("components")
        if isinstance(children, list):
            yield from iter_components(children)
        accessory = comp.get("accessory")
        if isinstance(accessory, dict):
            yield accessory
        inner = comp.get("component")
        if isinstance(inner, dict):
            yield inner


@dataclass
class FakeResponse:
    """The initial response to an interaction (what the bot POSTed to /callback)."""

    type: int
    data: JSON
    latency: float
    message: FakeMessage | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(int(self.data.get("flags") or 0) & FLAG_EPHEMERAL)

    @property
    def choices(self) -> list[JSON]:
        """Autocomplete choices (type 8)."""
        return list(self.data.get("choices") or [])

    @property
    def modal(self) -> JSON | None:
        """The modal definition (type 9)."""
        return self.data if self.type == CALLBACK_MODAL else None


@dataclass(eq=False)
class FakeInteraction:
    """An interaction the fake dispatched, plus everything the bot answered to it."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    data: JSON
    payload: JSON = field(default_factory=dict)
    message: FakeMessage | None = None
    command_name: str | None = None
    dispatched_at: float = 0.0
    response: FakeResponse | None = None
    original: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    parent: FakeInteraction | None = None
    token_expires_at: float = math.inf  # time.monotonic() after which webhook calls get 401 / 50027
    delivered_to: list[GatewaySession] = field(default_factory=list)  # sessions connected at dispatch
    buffered_for: list[GatewaySession] = field(default_factory=list)  # disconnected: replayed on RESUME

    @property
    def guild(self) -> FakeGuild | None:
        return self.channel.guild

    @property
    def token_expired(self) -> bool:
        return time.monotonic() >= self.token_expires_at

    @property
    def shards(self) -> list[tuple[int, int] | None]:
        """The (shard_id, shard_count) of each session it was delivered to live (None: unsharded)."""
        return [s.shard for s in self.delivered_to]

    @property
    def responded(self) -> bool:
        return self.response is not None

    @property
    def ack_latency(self) -> float | None:
        return None if self.response is None else self.response.latency

    def integration_owners(self) -> JSON:
        if self.channel.guild is not None:
            return {"0": str(self.channel.guild.id)}
        return {"1": str(self.user.id)}

    def __repr__(self) -> str:
        return f"<FakeInteraction id={self.id} type={self.type} user={self.user.username}>"
