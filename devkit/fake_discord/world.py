"""World building: the users, guilds, channels, members, roles and overwrites a test sets up, and
Discord's permission algorithm over them.

Separate from the REST routes because tests call it directly, before and while the bot runs.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import models as m
from .core import DiscordCore
from .gateway import INTENT_GUILD_MEMBERS, INTENT_GUILDS
from .jsontypes import JSON
from .models import FakeChannel, FakeGuild, FakeMember, FakeRole, FakeUser, Overwrite, new_snowflake

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


class World(DiscordCore):
    """Build the world a test plays in; every change is dispatched to the bot as Discord would."""

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
