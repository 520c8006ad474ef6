"""What a test's users do: slash commands, autocomplete, button clicks, selects, modals, messages.

Each action builds the interaction Discord would send and dispatches it over the gateway; kept apart
from the REST routes, which serve the bot's side.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

from . import models as m
from .jsontypes import JSON
from .messaging import Messaging
from .models import FakeChannel, FakeInteraction, FakeMember, FakeMessage, FakeRole, FakeUser, new_snowflake, new_token
from .records import ATTACHMENT_SIZE_LIMIT


class UserActions(Messaging):
    """Play the users: build interactions and messages as Discord would and send them to the bot."""

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
