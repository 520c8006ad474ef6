"""Routes for interaction callbacks and the interaction webhooks (original response and follow-ups),
with Discord's rules on which answer fits which interaction and how long a token lives.
"""

from __future__ import annotations

import time

from aiohttp import web

from .. import models as m
from ..jsontypes import JSON
from ..messaging import Messaging
from ..models import FakeInteraction, FakeMessage, FakeResponse
from ..records import Req, json_response, no_content, truthy
from ..validation import validate_choices, validate_modal
from .base import Rest

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


class InteractionRoutes(Rest, Messaging):
    """Serve interaction callbacks, follow-ups and edits of interaction responses."""

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
        if not truthy(req.query.get("with_response")):
            return web.Response(status=204)  # as Discord answers when the callback's result isn't asked for
        return json_response({"interaction": info, "resource": resource})

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
        if not truthy(req.query.get("wait")):
            return no_content()
        return json_response(msg.to_payload(self.base_url))

    async def _webhook_get(self, req: Req) -> web.Response:
        inter = self._webhook_interaction(req)
        if isinstance(inter, web.Response):
            return inter
        msg = self._webhook_message(req, inter)
        if isinstance(msg, web.Response):
            return msg
        return json_response(msg.to_payload(self.base_url))

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
        return json_response(msg.to_payload(self.base_url))

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
        return no_content()
