"""The REST plumbing: route matching, rate limits, injected faults, spec checks, body parsing,
Discord-shaped errors, and the lookups every handler starts with.

Every request passes through here before a handler of one of the route families sees it.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from typing import Any

import orjson
from aiohttp import BodyPartReader, web

from .. import models as m
from ..faults import Faults
from ..jsontypes import JSON
from ..models import FakeChannel, FakeGuild, FakeMessage
from ..ratelimits import OTHER, Call, kind_of
from ..records import Handler, Req, RequestRecord, Route, Upload, json_response, template_regex
from ..spec import Miss
from ..validation import Problems, errors_to_discord, validate_token_auth


class Rest(Faults):
    """Serve `/api/v10`: match, limit, check and parse each request, then hand it to its handler."""

    def _add_route(self, method: str, template: str, handler: Handler, *, auth: bool = True) -> None:
        self._routes.append(Route(method, template, template_regex(template), handler, auth))

    def _match(self, method: str, path: str) -> tuple[Route | None, dict[str, str]]:
        for route in self._routes:
            if route.method != method:
                continue
            found = route.regex.match(path)
            if found:
                return route, found.groupdict()
        return None, {}

    def _call(self, method: str, path: str, route: Route, params: dict[str, str]) -> Call:
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
        return json_response(body, status)

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
            return json_response({"message": found.message, "code": 0}, found.status)
        operation, path_values = found
        route, params = self._match(method, path)
        if route is None:
            self.limits.calls[OTHER] += 1
            what = f"Discord has this route ({operation.operation_id}); the fake does not serve it"
            self.record_error("route", what, method=method, path=path)
            return json_response({"message": "404: Not Found", "code": 0}, 404)
        record.template = route.template
        call = self._call(method, path, route, params)
        record.kind = call.kind
        authorized = not route.auth or request.headers.get("Authorization") == f"Bot {self.token}"
        refused, headers = self.limits.admit(call, authorized)
        if not authorized:
            return json_response({"message": "401: Unauthorized", "code": 0}, 401)
        if refused is not None:
            return refused
        req = Req(method, path, params, request.query, None, {}, record, operation, path_values)
        response = await self._serve(request, route, req)
        if response.status >= 500:
            self.limits.refund(call)
        else:
            response.headers.update(headers)
        return response

    async def _serve(self, request: web.Request, route: Route, req: Req) -> web.Response:
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
            return json_response({"message": failure.message, "code": failure.code}, failure.status)
        try:
            return await route.handler(req)
        except Exception as exc:
            # 400, not 500: discord.py retries 5xx with multi-second sleeps.
            self.record_error("fake", f"handler crashed: {exc!r}\n{traceback.format_exc()}", method=method, path=path)
            return json_response({"message": f"fake discord crashed: {exc!r}", "code": 0}, 400)

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
        return json_response({"message": "404: Not Found", "code": 0}, 404)

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

    def _archived(self, req: Req) -> web.Response:
        """Discord refuses to edit a message of an archived thread (a post reopens the thread)."""
        return self._error(req, 400, 50083, "Thread is archived", record=True)
