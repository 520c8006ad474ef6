"""HTTP/1.1 on kept connections, for the bot's frequent calls to Discord (see `bot.discord_ui.transport.fastpath`).

Why not aiohttp for these: a move makes about three calls, and an aiohttp request cost about 120 µs
of the bot's CPU against about 44 µs here (`bench/bench_http.py`). Answers are parsed by llhttp
(`httptools`, the parser of aiohttp and uvicorn); what is left here is the connection pool and the
policy that matters on a real network:

- **At most once unless safe.** A call whose connection ended before a byte of its answer came may
  or may not have reached the server ("no answer" is not "never got there": a proxy can read it, let
  it take effect and drop the connection). It is sent again only when the caller says it is safe
  (by default the idempotent methods), at most once, on a freshly opened connection; otherwise
  `Unanswered` tells the caller the call's fate is unknown.
- **Idle connections expire** after `IDLE_EXPIRY` seconds: a NAT gateway, load balancer or home
  router that forgets an idle flow does so silently, and a call on such a connection waits for its
  whole deadline. 15 s is aiohttp's choice too: under every common middlebox's idle timeout (Azure's
  load balancer 4 min, AWS's NAT gateway 350 s), and a busy bot's connections are never idle that long.
- **A deadline per call**, so an interaction's answer can be held inside Discord's 3 seconds
  (checked every `DEADLINE_CHECK` seconds for all the calls under way, not by a timer each).

At most `MAX_CONNECTIONS` calls go to one server at once, each on its own connection; more wait
their turn (a burst of edits after a pause would otherwise open a connection, and a TLS handshake, each).
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from typing import cast
from urllib.parse import urlsplit

import httptools

from bot.config import IDLE_EXPIRY

MAX_CONNECTIONS = 100  # calls under way to one server at once (aiohttp's default cap), each connection kept
IDEMPOTENT = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
DEADLINE_CHECK = 0.02  # seconds between checks of the calls' deadlines, while calls are under way


class Disconnected(ConnectionError):
    """The connection ended before the whole answer came."""


class Unanswered(Disconnected):
    """The request was sent and the connection ended with no byte of an answer: it may have taken
    effect. Not sent again (the caller did not say that was safe)."""


class Reply:
    """An answer: status, reason, header fields (names in lower case) and body."""

    __slots__ = ("body", "headers", "reason", "status")

    def __init__(self, status: int, reason: str, headers: dict[str, str], body: bytes) -> None:
        self.status, self.reason, self.headers, self.body = status, reason, headers, body


class _Connection(asyncio.Protocol):
    """One connection; one request at a time, its answer parsed by llhttp as it arrives."""

    def __init__(self, pool: _Pool) -> None:
        self._pool = pool
        self.transport: asyncio.Transport | None = None
        self.waiter: asyncio.Future[Reply] | None = None
        self.closed = False
        self.used = False  # it carried a request before
        self.idle_since = 0.0
        self.started = False  # a byte of the current answer came
        self._parser = httptools.HttpResponseParser(self)  # llhttp reads a kept connection's answers in turn
        self._reason = b""
        self._headers: dict[str, str] = {}
        self._body: list[bytes] = []
        self._head_done = self._complete = self._keep = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's aren't asyncio.Transport subclasses

    def send(self, data: bytes, waiter: asyncio.Future[Reply]) -> None:
        assert self.transport is not None and self.waiter is None
        self.waiter, self.started = waiter, False
        self._reason, self._headers, self._body = b"", {}, []
        self._head_done = self._complete = False
        self.transport.write(data)

    # llhttp's callbacks
    def on_status(self, status: bytes) -> None:
        self._reason += status

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        self._head_done = True
        self._keep = self._parser.should_keep_alive()  # llhttp knows it only until the message ends

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        if 100 <= self._parser.get_status_code() < 200:  # an interim answer (never asked for): the real one follows
            self._reason, self._headers, self._body, self._head_done = b"", {}, [], False
            return
        self._complete = True

    def data_received(self, data: bytes) -> None:
        if self.waiter is None:  # nothing asked: a server speaking out of turn can't be trusted
            self._close()
            return
        self.started = True
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as error:
            self._fail(Disconnected(f"malformed answer: {error}"))
            return
        if self._complete:
            self._deliver(keep=self._keep)

    def eof_received(self) -> bool:
        return False  # close the transport: connection_lost settles an answer read to the end

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._pool.forget(self)
        if self.waiter is None:
            return
        if self._head_done and "content-length" not in self._headers and "transfer-encoding" not in self._headers:
            self._deliver(keep=False)  # an answer framed by the end of the connection
        elif not self.started:
            self._fail(Unanswered("the connection ended before any answer" + (f": {exc}" if exc else "")))
        else:
            self._fail(Disconnected("the answer was cut short" + (f": {exc}" if exc else "")))

    def _reply(self) -> Reply:
        return Reply(self._parser.get_status_code(), self._reason.decode("latin-1"), self._headers,
                     b"".join(self._body))

    def _deliver(self, *, keep: bool) -> None:
        waiter, self.waiter = self.waiter, None
        reply = self._reply()
        self.used = True
        if keep and not self.closed:
            self._pool.put_back(self)
        else:
            self._close()
        if waiter is not None and not waiter.done():
            waiter.set_result(reply)

    def _fail(self, error: Exception) -> None:
        waiter, self.waiter = self.waiter, None
        self._close()
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)

    def _close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


class _Pool:
    """The connections to one server: idle ones reused newest first (expired ones closed), as many
    as the calls at once, and those calls at most `MAX_CONNECTIONS`."""

    def __init__(self, host: str, port: int, tls: ssl.SSLContext | None, idle_expiry: float) -> None:
        self.host, self.port, self.tls = host, port, tls
        self.idle_expiry = idle_expiry
        self.idle: deque[_Connection] = deque()
        self.open_connections: set[_Connection] = set()
        self.calls = 0  # under way, each holding a connection (or about to open one)
        self.queue: deque[asyncio.Future[None]] = deque()  # calls waiting for one of them to end

    async def wait_turn(self) -> None:
        """Wait for a call's turn, the cap reached. Turns go in order."""
        turn = asyncio.get_running_loop().create_future()
        self.queue.append(turn)
        try:
            await turn  # handed over by `leave`: already counted
        except asyncio.CancelledError:
            if not turn.cancelled():
                self.leave()  # handed over, then cancelled before it could run: pass it on
            raise

    def leave(self) -> None:
        """A call ended: its turn goes to the first still waiting."""
        while self.queue:
            turn = self.queue.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self.calls -= 1

    def take_idle(self, now: float) -> _Connection | None:
        """The newest idle connection still fresh; older ones are closed (the idle deque is oldest
        first, so once one has expired, every one before it has too)."""
        while self.idle:
            connection = self.idle.pop()
            if connection.closed:
                continue
            if now - connection.idle_since < self.idle_expiry:
                return connection
            connection._close()
            while self.idle:
                self.idle.popleft()._close()
        return None

    async def open(self) -> _Connection:
        loop = asyncio.get_running_loop()
        _, connection = await loop.create_connection(
            lambda: _Connection(self), self.host, self.port, ssl=self.tls,
            server_hostname=self.host if self.tls is not None else None)
        self.open_connections.add(connection)
        return connection

    def put_back(self, connection: _Connection) -> None:
        connection.idle_since = asyncio.get_running_loop().time()
        self.idle.append(connection)

    def forget(self, connection: _Connection) -> None:
        self.open_connections.discard(connection)
        if connection in self.idle:
            self.idle.remove(connection)

    def close(self) -> None:
        for connection in list(self.open_connections):
            connection._close()
        self.idle.clear()


class _Deadlines:
    """The calls under way and when each gives up, checked every `every` seconds by one loop timer
    while any is under way. A timer per call, armed and cancelled, cost more than the rest of a
    call's waiting (the loop's timers are the costliest handle it makes), about four a click; a call
    given up a few hundredths of a second late is still well inside Discord's 3 seconds."""

    def __init__(self, every: float = DEADLINE_CHECK) -> None:
        self.every = every
        self._due: dict[asyncio.Future[Reply], float] = {}
        self._check: asyncio.TimerHandle | None = None

    def watch(self, waiter: asyncio.Future[Reply], deadline: float) -> None:
        self._due[waiter] = deadline
        if self._check is None:
            self._check = asyncio.get_running_loop().call_later(self.every, self._expire)

    def forget(self, waiter: asyncio.Future[Reply]) -> None:
        self._due.pop(waiter, None)

    def stop(self) -> None:
        if self._check is not None:
            self._check.cancel()
            self._check = None

    def _expire(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        for waiter, deadline in list(self._due.items()):
            if deadline <= now:
                del self._due[waiter]
                if not waiter.done():
                    waiter.set_exception(TimeoutError("no answer in time"))
        self._check = loop.call_later(self.every, self._expire) if self._due else None


class HttpClient:
    """Sends requests to any http:// or https:// URL, keeping one pool of connections per origin."""

    def __init__(self, *, timeout: float = 30.0, tls: ssl.SSLContext | None = None,
                 idle_expiry: float = IDLE_EXPIRY) -> None:
        self._timeout = timeout
        self._tls = tls
        self.idle_expiry = idle_expiry
        self._origins: dict[str, tuple[_Pool, bytes]] = {}  # "https://host:port" -> its pool, Host line
        self._deadlines = _Deadlines()

    async def request(self, method: str, url: str, body: bytes, headers: bytes, *,
                      timeout: float | None = None, resend: bool | None = None) -> Reply:
        """Send `body` with `headers` (complete "Name: value\\r\\n" lines, Content-Length aside).
        `resend`: whether sending it twice is harmless (default: an idempotent method). Raises
        TimeoutError past the timeout, `Unanswered` when the call may or may not have taken effect,
        and other OSErrors (`Disconnected` among them) when the connection fails."""
        pool, path, host_line = self._route(url)
        data = b"%s %s HTTP/1.1\r\n%s%sContent-Length: %d\r\n\r\n%s" % (
            method.encode(), path.encode(), host_line, headers, len(body), body)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self._timeout if timeout is None else timeout)
        if pool.calls < MAX_CONNECTIONS:
            pool.calls += 1
        else:
            await pool.wait_turn()
        try:
            try:
                return await self._send(pool, data, deadline, fresh=False)
            except Unanswered:
                if not (method in IDEMPOTENT if resend is None else resend):
                    raise
            return await self._send(pool, data, deadline, fresh=True)  # once more, on a new connection
        finally:
            pool.leave()

    async def _send(self, pool: _Pool, data: bytes, deadline: float, *, fresh: bool) -> Reply:
        loop = asyncio.get_running_loop()
        connection = None if fresh else pool.take_idle(loop.time())
        if connection is None:
            connection = await asyncio.wait_for(pool.open(), max(0.0, deadline - loop.time()))
        waiter: asyncio.Future[Reply] = loop.create_future()
        self._deadlines.watch(waiter, deadline)
        connection.send(data, waiter)
        try:
            return await waiter
        except BaseException:
            connection._close()  # cancelled, timed out or failed mid-answer: the connection is spoiled
            raise
        finally:
            self._deadlines.forget(waiter)

    def _route(self, url: str) -> tuple[_Pool, str, bytes]:
        """The pool, path and Host line of a URL (its origin's part cached: a call costs a split)."""
        path_at = url.find("/", url.find("//") + 2)
        origin, path = (url, "/") if path_at < 0 else (url[:path_at], url[path_at:])
        known = self._origins.get(origin)
        if known is None:
            parts = urlsplit(origin)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise ValueError(f"not an http(s) URL: {url}")
            tls = (self._tls or ssl.create_default_context()) if parts.scheme == "https" else None
            pool = _Pool(parts.hostname, parts.port or (443 if tls is not None else 80), tls, self.idle_expiry)
            known = self._origins[origin] = (pool, b"Host: %s\r\n" % parts.netloc.encode("idna"))
        pool, host_line = known
        return pool, path, host_line

    async def close(self) -> None:
        for pool, _ in self._origins.values():
            pool.close()
        self._origins.clear()
        self._deadlines.stop()
        await asyncio.sleep(0)  # let the transports finish closing
