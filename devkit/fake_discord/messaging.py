"""Messages as the fake stores them: create, edit, attach files, and dispatch MESSAGE_* events.

Shared by the channel routes, the interaction and webhook routes, and the scenario helpers, so it
sits below all three.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import models as m
from .gateway import INTENT_DIRECT_MESSAGES, INTENT_GUILD_MESSAGES
from .jsontypes import JSON
from .models import FakeAttachment, FakeChannel, FakeInteraction, FakeMessage, new_snowflake, utcnow
from .records import Upload
from .validation import Problems, validate_message
from .world import World

CREATE_FLAGS_ALLOWED = (
    m.FLAG_SUPPRESS_EMBEDS | m.FLAG_EPHEMERAL | m.FLAG_SUPPRESS_NOTIFICATIONS | m.FLAG_IS_COMPONENTS_V2
)
EDIT_FLAGS_ALLOWED = m.FLAG_SUPPRESS_EMBEDS | m.FLAG_IS_COMPONENTS_V2


class Messaging(World):
    """Store the bot's and users' messages and tell the bot about them."""

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
