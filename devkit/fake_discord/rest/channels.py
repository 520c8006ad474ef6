"""Routes for channels, threads, messages, typing and reactions: what the bot does in a channel.
"""

from __future__ import annotations

import time

from aiohttp import web

from .. import models as m
from ..gateway import INTENT_GUILDS
from ..messaging import Messaging
from ..models import FakeChannel, FakeMessage
from ..records import Req, json_response, no_content
from ..validation import validate_nonce
from .base import Rest


class ChannelRoutes(Rest, Messaging):
    """Serve the channel, thread, message, typing and reaction routes."""

    # ------------------------------------------------------------------ channels & messages

    async def _get_channel(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        return json_response(channel.to_payload())

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
        return json_response(channel.to_payload())

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
        return json_response(thread.to_payload(), status=201)

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
        return json_response([x.to_payload(self.base_url) for x in reversed(msgs)])

    async def _get_message(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        msg = self._channel_message(req, channel)
        if isinstance(msg, web.Response):
            return msg
        return json_response(msg.to_payload(self.base_url))

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
                    return json_response(earlier.to_payload(self.base_url))
        result = self._create_message(channel, body, req.files)
        if not isinstance(result, FakeMessage):
            return self._invalid_form(req, result)
        if nonce is not None and body.get("enforce_nonce"):
            self._nonces[(channel.id, self.bot_user.id, str(nonce))] = (result, time.monotonic())
        return json_response(result.to_payload(self.base_url))

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
        return json_response(msg.to_payload(self.base_url))

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
        return no_content()

    async def _typing(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        return no_content()

    async def _add_reaction(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        msg = self._channel_message(req, channel)
        if isinstance(msg, web.Response):
            return msg
        msg.reactions.setdefault(req.params["emoji"], set()).add(self.bot_user.id)
        return no_content()

    async def _remove_reaction(self, req: Req) -> web.Response:
        channel = self._channel(req)
        if isinstance(channel, web.Response):
            return channel
        msg = self._channel_message(req, channel)
        if isinstance(msg, web.Response):
            return msg
        msg.reactions.get(req.params["emoji"], set()).discard(self.bot_user.id)
        return no_content()
