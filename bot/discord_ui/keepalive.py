"""A small HTTP/1.1 client with kept-alive connections, for the fast path's calls (`fastpath`).

Why: a move costs three REST calls (the click's answer, the next player's panel, the table), and
through aiohttp each took about 115 µs of the bot's CPU (request and URL objects, header multidicts,
a connector, timers, a response object and its stream), against about 31 µs for the same request
written here as one block of bytes on a kept-alive connection and read back by a plain parser
(`bench/bench_http.py`, medians of 3). At load the three were a sixth of the bot's CPU.

It speaks only what those calls need: one request at a time per connection (no pipelining), a
body of known length, answers with a Content-Length, chunked, or up to the end of the connection,
TLS through the standard library. A connection the server closed while it sat idle is replaced and
the request sent once more on a fresh one (no byte of an answer came: the request never got
there); one whose answer was cut short is an error, not sent again. Every other call of the bot
stays with discord.py and its aiohttp session.

At most `MAX_CONNECTIONS` calls go to one server at once, each on its own connection, all of them
kept for the next burst; more wait their turn. Without a cap, a burst (the loop back from a pause
with hundreds of edits due) opened a connection per call: over TLS a handshake each; against the
load bench's fake, whose listen queue holds 128, the kernel counted 869 attempts dropped at a full
queue in two overloaded runs (333 moves/s), each tried again only 1 s later, then at 3, 7, 15, 31 s.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from dataclasses import dataclass, field
from typing import NamedTuple, cast
from urllib.parse import urlsplit

_HEAD_END = b"\r\n\r\n"
MAX_CONNECTIONS = 100  # calls under way to one server at once (aiohttp's default cap), each connection kept


class Disconnected(ConnectionError):
    """The connection ended before the whole answer came."""


class _Head(NamedTuple):
    """An answer's status line and header block, and the three fields that frame its body, found
    in the block lower-cased rather than by splitting every line into a dict (most answers are
    read only for their status)."""

    status: int
    reason: str
    fields: bytes  # the header lines, each after a CRLF
    length: int | None  # Content-Length
    chunked: bool
    keep: bool  # the server keeps the connection open

    @classmethod
    def read(cls, head: bytes) -> _Head:
        line_end = head.find(b"\r\n")
        status_line, fields = (head, b"") if line_end < 0 else (head[:line_end], head[line_end:])
        version, _, rest = status_line.decode("latin-1").partition(" ")
        code, _, reason = rest.partition(" ")
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise ValueError(status_line[:80].decode("latin-1"))
        lowered = fields.lower()
        length = _field(lowered, _LENGTH)
        if length is not None and not length.isdigit():
            raise ValueError(f"content-length {length[:20]!r}")
        return cls(int(code), reason, fields, None if length is None else int(length),
                   (_field(lowered, _ENCODING) or b"").endswith(b"chunked"), _field(lowered, _CONNECTION) != b"close")


_LENGTH, _ENCODING, _CONNECTION = b"\r\ncontent-length:", b"\r\ntransfer-encoding:", b"\r\nconnection:"


def _field(lowered: bytes, name: bytes) -> bytes | None:
    """A header's value, from a lower-cased header block; `name` with the CRLF before it and the colon."""
    at = lowered.find(name)
    if at < 0:
        return None
    start = at + len(name)
    end = lowered.find(b"\r\n", start)
    return lowered[start:end if end >= 0 else None].strip()


class Reply(NamedTuple):
    """An answer: what discord.py's errors read (status, reason) and what the callers read."""

    status: int
    reason: str
    fields: bytes
    body: bytes

    @property
    def headers(self) -> dict[str, str]:
        """The header fields, names in lower case (worked out only for the answers read for them)."""
        headers: dict[str, str] = {}
        for line in self.fields.decode("latin-1").split("\r\n"):
            name, colon, value = line.partition(":")
            if colon:
                headers[name.strip().lower()] = value.strip()
        return headers


@dataclass
class _Reading:
    """An answer being read: the head first, then the body by whichever framing the head gives."""

    waiter: asyncio.Future[Reply]
    buffer: bytearray = field(default_factory=bytearray)
    head: _Head | None = None
    started: bool = False  # a byte of the answer came: the request reached the server


class _Connection(asyncio.Protocol):
    def __init__(self, pool: _Pool) -> None:
        self._pool = pool
        self.transport: asyncio.Transport | None = None
        self.reading: _Reading | None = None
        self.closed = False
        self.used = False  # it carried a request before: the server may have closed it while idle

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's aren't asyncio.Transport subclasses

    def send(self, data: bytes, waiter: asyncio.Future[Reply]) -> None:
        assert self.transport is not None and self.reading is None
        self.reading = _Reading(waiter)
        self.transport.write(data)

    def data_received(self, data: bytes) -> None:
        reading = self.reading
        if reading is None:  # nothing asked: a server speaking out of turn can't be trusted
            self._close()
            return
        reading.started = True
        reading.buffer += data
        try:
            reply = _parse(reading, at_end=False)
        except ValueError as error:
            self._fail(Disconnected(f"malformed answer: {error}"))
            return
        if reply is not None:
            self._deliver(reply, keep=reading.head is not None and reading.head.keep)

    def eof_received(self) -> bool:
        return False  # close the transport: connection_lost settles any answer read to the end

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._pool.forget(self)
        reading = self.reading
        if reading is None:
            return
        try:
            reply = _parse(reading, at_end=True)
        except ValueError:
            reply = None
        if reply is not None:
            self._deliver(reply, keep=False)
        else:
            self._fail(Disconnected("the server closed the connection") if exc is None else Disconnected(str(exc)))

    def _deliver(self, reply: Reply, *, keep: bool) -> None:
        waiter, self.reading = self.reading.waiter if self.reading else None, None
        self.used = True
        if keep:
            self._pool.put_back(self)
        else:
            self._close()
        if waiter is not None and not waiter.done():
            waiter.set_result(reply)

    def _fail(self, error: Exception) -> None:
        waiter, self.reading = self.reading.waiter if self.reading else None, None
        self._close()
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)

    def _close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


def _parse(reading: _Reading, *, at_end: bool) -> Reply | None:
    """The whole answer, or None while more is to come. Raises ValueError on a malformed one."""
    buffer = reading.buffer
    if reading.head is None:
        end = buffer.find(_HEAD_END)
        if end < 0:
            if at_end:
                raise ValueError("no head")
            return None
        head = _Head.read(bytes(buffer[:end]))
        del buffer[: end + 4]
        if 100 <= head.status < 200:  # an interim answer (we never ask for one): the real one follows
            return _parse(reading, at_end=at_end)
        reading.head = head
    head = reading.head
    if head.status in (204, 304):
        body: bytes | None = b""
    elif head.chunked:
        body = _dechunk(buffer)
    elif head.length is not None:
        body = bytes(buffer[:head.length]) if len(buffer) >= head.length else None
    else:  # read to the end of the connection
        body = bytes(buffer) if at_end else None
    if body is None:
        if at_end:
            raise ValueError("cut short")
        return None
    return Reply(head.status, head.reason, head.fields, body)


def _dechunk(buffer: bytearray) -> bytes | None:
    body, at = bytearray(), 0
    while True:
        line_end = buffer.find(b"\r\n", at)
        if line_end < 0:
            return None
        size = int(bytes(buffer[at:line_end]).split(b";")[0], 16)
        if size == 0:
            return bytes(body) if buffer.find(_HEAD_END, line_end - 2) >= 0 else None  # trailers end it
        start = line_end + 2
        if len(buffer) < start + size + 2:
            return None
        body += buffer[start:start + size]
        at = start + size + 2


class _Pool:
    """The connections to one server: idle ones reused newest first, as many as the calls at once,
    and those calls at most `MAX_CONNECTIONS`."""

    def __init__(self, host: str, port: int, tls: ssl.SSLContext | None) -> None:
        self.host, self.port, self.tls = host, port, tls
        self.idle: deque[_Connection] = deque()
        self.open_connections: set[_Connection] = set()
        self.calls = 0  # under way, each holding a connection (or about to open one)
        self.queue: deque[asyncio.Future[None]] = deque()  # calls waiting for one of them to end

    async def wait_turn(self) -> None:
        """Wait for a call's turn, the cap reached. Turns go in order and every call has the same
        time allowed, so a waiting call needs no clock: those ahead end by the time its own is up."""
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

    def take_idle(self) -> _Connection | None:
        while self.idle:
            connection = self.idle.pop()
            if not connection.closed:
                return connection
        return None

    async def open(self) -> _Connection:
        loop = asyncio.get_running_loop()
        _, connection = await loop.create_connection(
            lambda: _Connection(self), self.host, self.port, ssl=self.tls,
            server_hostname=self.host if self.tls is not None else None)
        self.open_connections.add(connection)
        return connection

    def put_back(self, connection: _Connection) -> None:
        self.idle.append(connection)

    def forget(self, connection: _Connection) -> None:
        self.open_connections.discard(connection)
        if connection in self.idle:
            self.idle.remove(connection)

    def close(self) -> None:
        for connection in list(self.open_connections):
            connection._close()
        self.idle.clear()


def _expire(waiter: asyncio.Future[Reply]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError("no answer in time"))


class KeepAliveClient:
    """Sends requests to any http:// or https:// URL, keeping one pool of connections per origin."""

    def __init__(self, *, timeout: float = 30.0, tls: ssl.SSLContext | None = None) -> None:
        self._timeout = timeout
        self._tls = tls
        self._origins: dict[str, tuple[_Pool, bytes]] = {}  # "https://host:port" -> its pool, Host line

    async def request(self, method: str, url: str, body: bytes, headers: bytes) -> Reply:
        """Send `body` with `headers` (complete "Name: value\\r\\n" lines, Content-Length aside).
        Raises TimeoutError past the timeout, OSError (`Disconnected` among them) when the
        connection fails."""
        pool, path, host_line = self._route(url)
        data = b"%s %s HTTP/1.1\r\n%s%sContent-Length: %d\r\n\r\n%s" % (
            method.encode(), path.encode(), host_line, headers, len(body), body)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeout
        if pool.calls < MAX_CONNECTIONS:
            pool.calls += 1
        else:
            await pool.wait_turn()
        try:
            return await self._send(pool, data, deadline)
        finally:
            pool.leave()

    @staticmethod
    async def _send(pool: _Pool, data: bytes, deadline: float) -> Reply:
        loop = asyncio.get_running_loop()
        while True:
            connection = pool.take_idle()
            if connection is None:
                connection = await asyncio.wait_for(pool.open(), max(0.0, deadline - loop.time()))
            reused = connection.used
            waiter: asyncio.Future[Reply] = loop.create_future()
            timer = loop.call_at(deadline, _expire, waiter)
            connection.send(data, waiter)
            reading = connection.reading
            try:
                return await waiter
            except Disconnected:
                # A kept-alive connection the server closed just as it was reused: the request
                # never reached it (not a byte of answer came), so it goes again on a fresh one.
                if not reused or reading is None or reading.started:
                    raise
            except BaseException:
                connection._close()  # cancelled or timed out mid-answer: the connection is spoiled
                raise
            finally:
                timer.cancel()

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
            pool = _Pool(parts.hostname, parts.port or (443 if tls is not None else 80), tls)
            known = self._origins[origin] = (pool, b"Host: %s\r\n" % parts.netloc.encode("idna"))
        pool, host_line = known
        return pool, path, host_line

    async def close(self) -> None:
        for pool, _ in self._origins.values():
            pool.close()
        self._origins.clear()
        await asyncio.sleep(0)  # let the transports finish closing
