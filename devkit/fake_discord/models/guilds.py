"""A guild's living objects: its members and channels, the channels' messages and the interactions on them,
with the JSON payloads Discord API v10 returns for them.

They point at one another (a member at its guild, a message at its channel and interaction, an interaction
at its message), so they stand together here: split, their modules would import each other in a circle.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from ..jsontypes import JSON
from .codes import (
    CALLBACK_MODAL,
    CHANNEL_DM,
    CHANNEL_PUBLIC_THREAD,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    INTERACTION_APPLICATION_COMMAND,
    INTERACTION_MESSAGE_COMPONENT,
)
from .content import FakeAttachment, iter_components
from .ids import iso, utcnow
from .people import FakeRole, FakeUser, Overwrite

if TYPE_CHECKING:
    from ..sessions import GatewaySession


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
