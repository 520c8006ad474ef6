"""Records and small helpers every part of FakeDiscord shares: what it recorded (protocol errors,
requests, injected faults), the parsed request a route handler gets, and JSON answers.

They sit below the parts so that each part can name them without importing the server.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

from .spec import Operation

ATTACHMENT_SIZE_LIMIT = 25 * 1024 * 1024


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
class Route:
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


def template_regex(template: str) -> re.Pattern[str]:
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


def json_response(data: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> web.Response:
    # discord.py only parses JSON when Content-Type is exactly application/json (no charset).
    all_headers = {"Content-Type": "application/json"}
    all_headers.update(headers or {})
    return web.Response(body=orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS), status=status, headers=all_headers)


def no_content() -> web.Response:
    return web.Response(status=204)


def truthy(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true")
