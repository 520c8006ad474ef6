"""The bot's one way to Discord's REST API: every call, the fast path's and discord.py's, goes
through one `Transport` per token: its connections (`http`), its rate-limit state (`limits`), and
what a failure means and when to try again (`errors`). The callers (publisher, panels, posters,
direct messages) ask for typed operations (`bot.discord_ui.transport.fastpath`) and keep only policy: what
to show, in what order."""

from __future__ import annotations

import importlib.metadata
import sys

from bot.discord_ui.transport.errors import (
    ALREADY_ANSWERED,
    CALL_FAILED,
    NO_ACCESS,
    THREAD_ARCHIVED,
    UNKNOWN_CHANNEL,
    Backoff,
    Fault,
    Held,
    TooManyRequests,
    describe,
    error_for,
    fault,
    passing,
)
from bot.discord_ui.transport.http import Disconnected, HttpClient, Reply, Unanswered
from bot.discord_ui.transport.limits import RateLimits
from bot.ops.metrics import rest_answered

__all__ = [
    "ALREADY_ANSWERED",
    "CALL_FAILED",
    "NO_ACCESS",
    "THREAD_ARCHIVED",
    "UNKNOWN_CHANNEL",
    "USER_AGENT",
    "Backoff",
    "Disconnected",
    "Fault",
    "Held",
    "HttpClient",
    "RateLimits",
    "Reply",
    "TooManyRequests",
    "Transport",
    "Unanswered",
    "describe",
    "error_for",
    "fault",
    "passing",
    "route_key",
]

PROJECT_URL = "https://github.com/spades-bot/spades-bot"
try:
    _VERSION = importlib.metadata.version("spades-bot")
except importlib.metadata.PackageNotFoundError:  # run from a checkout without installing
    _VERSION = "0"
USER_AGENT = f"DiscordBot ({PROJECT_URL}, {_VERSION}) Python/{sys.version_info[0]}.{sys.version_info[1]}"
_JSON = b"Content-Type: application/json\r\nUser-Agent: %s\r\n" % USER_AGENT.encode()
_MESSAGES = "/messages/"


def route_key(method: str, path: str) -> str | None:
    """The rate-limit bucket a call falls in, as far as the bot can tell before Discord says: its
    method and path, message ids aside (a webhook's edits share one bucket whatever the message).
    None for an interaction's callback: it has no bucket to learn (one call per interaction).
    String slicing, not regular expressions: it runs on every call."""
    query = path.find("?")
    if query >= 0:
        path = path[:query]
    if path.endswith("/callback"):
        return None
    version = path.find("/api/v")
    if version >= 0:
        path = path[path.find("/", version + 6):]
    message = path.find(_MESSAGES)
    if message >= 0:
        start = message + len(_MESSAGES)
        end = path.find("/", start)
        minor = path[start:] if end < 0 else path[start:end]
        if minor.isdigit() or minor == "@original":
            path = f"{path[:start]}{{id}}{'' if end < 0 else path[end:]}"
    return f"{method} {path}"


class Transport:
    """Calls Discord for the fast path: waits out a global pause or a ban, refuses what the
    invalid-request breaker holds back, sends, learns from the answer, and raises discord.py's
    exceptions for failures (`TooManyRequests` for a 429)."""

    def __init__(self, limits: RateLimits, client: HttpClient | None = None) -> None:
        self.limits = limits
        self.http = client or HttpClient()
        self._auth: dict[str, bytes] = {}

    async def call(self, method: str, url: str, body: bytes, *, token: str | None = None,
                   timeout: float | None = None, resend: bool | None = None, kind: str | None = None) -> Reply:
        """Send a JSON `body`; with `token`, as the bot (the call counts against the token's global
        limit). The answer of a success, else raises. `resend`: see `HttpClient.request`; `kind`:
        the call's route for the metrics, if the caller knows it (`rest_kind` reads it off the URL)."""
        counted = token is not None
        key = route_key(method, url[url.find("/", url.find("//") + 2):])
        limits = self.limits
        if wait := limits.wait_for(counted):
            if timeout is not None and wait >= timeout:  # an interaction's answer can't wait out a pause
                raise Held(f"{method} {key}: held for {wait:.1f} s by a rate limit, past its deadline")
            await limits.clear(counted)
        if counted and limits.held_back(key):
            raise Held(f"{method} {key}: held back, too many invalid requests lately")
        if key is not None:
            limits.spend(key)
        reply = await self.http.request(method, url, body, self._headers(token), timeout=timeout, resend=resend)
        limits.note(key, reply.status, reply.headers, reply.body if reply.status == 429 else None)
        rest_answered(method, url, reply.status, reply.headers, kind)
        if reply.status < 300:
            return reply
        raise error_for(reply)

    def _headers(self, token: str | None) -> bytes:
        if token is None:
            return _JSON
        headers = self._auth.get(token)
        if headers is None:
            headers = self._auth[token] = _JSON + b"Authorization: Bot %s\r\n" % token.encode()
        return headers

    async def close(self) -> None:
        await self.http.close()
