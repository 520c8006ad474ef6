"""The edge itself, checked with raw sockets (not the client under test): nginx answers over TLS
with a certificate only our CA vouches for, really closes connections after keepalive_requests
and keepalive_timeout, and the relay really forgets an idle connection without a word."""

from __future__ import annotations

import asyncio
import contextlib
import re
import ssl
from pathlib import Path

import pytest

from devkit.nginx import DROP, Nginx, NginxFactory, RecordingUpstream, listening
from devkit.relay import RelayFactory

from .support import within

Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def exchange(streams: Streams, method: str, path: str, body: bytes = b"") -> tuple[bytes, bytes]:
    """One request on a raw connection; the answer's head and body (nginx frames them by length)."""
    reader, writer = streams
    writer.write(b"%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Length: %d\r\n\r\n%s" % (
        method.encode(), path.encode(), len(body), body))
    head = await reader.readuntil(b"\r\n\r\n")
    length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
    assert length is not None, head
    return head, await reader.readexactly(int(length[1]))


async def test_nginx_answers_over_tls_with_a_certificate_only_our_ca_vouches_for(
        nginx: Nginx, recording_upstream: RecordingUpstream, nginx_trust: ssl.SSLContext) -> None:
    streams = await asyncio.open_connection("127.0.0.1", nginx.https_port, ssl=nginx_trust, server_hostname="localhost")
    try:
        head, body = await within(2.0, exchange(streams, "POST", "/api/x", b"hello"))
    finally:
        streams[1].close()
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"\r\nServer: nginx/" in head and body == b'{"n": 1}'
    assert [(d.method, d.path, d.body) for d in recording_upstream.deliveries] == [("POST", "/api/x", b"hello")]
    with pytest.raises(ssl.SSLCertVerificationError):  # the system's authorities don't know it
        await asyncio.open_connection("127.0.0.1", nginx.https_port, ssl=ssl.create_default_context(),
                                      server_hostname="localhost")


def test_nginx_stops_with_its_workers(nginx: Nginx) -> None:
    running = nginx.processes()
    assert len(running) == 2 and all(Path(f"/proc/{pid}").exists() for pid in running)  # the master, a worker
    nginx.stop()
    assert [pid for pid in running if Path(f"/proc/{pid}").exists()] == []
    assert not listening(nginx.http_port)


async def test_nginx_closes_a_kept_connection_after_three_requests(
        nginx: Nginx, recording_upstream: RecordingUpstream, relay_factory: RelayFactory) -> None:
    relay = await relay_factory(nginx.http_port, forget_after=60.0)  # only to count connections
    for _ in range(2):
        streams = await asyncio.open_connection("127.0.0.1", relay.port)
        heads = [(await within(2.0, exchange(streams, "GET", "/a")))[0] for _ in range(3)]
        assert [b"\r\nConnection: close\r\n" in head for head in heads] == [False, False, True]
        assert await within(2.0, streams[0].read()) == b""  # and nginx closed it
        streams[1].close()
    assert relay.connections == 2 and len(recording_upstream.deliveries) == 6


async def test_nginx_closes_an_idle_kept_connection_after_keepalive_timeout(nginx: Nginx) -> None:
    streams = await asyncio.open_connection("127.0.0.1", nginx.http_port)
    head, _ = await within(2.0, exchange(streams, "GET", "/a"))
    assert b"\r\nConnection: keep-alive\r\n" in head
    assert await within(nginx.keepalive_timeout + 2.0, streams[0].read()) == b""
    streams[1].close()


async def test_the_444_location_delivers_the_request_then_closes_without_a_word(
        nginx: Nginx, recording_upstream: RecordingUpstream) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", nginx.http_port)
    writer.write(b"POST %sx HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4\r\n\r\nonce" % DROP.encode())
    assert await within(2.0, reader.read()) == b""
    writer.close()
    assert [(d.path, d.body) for d in recording_upstream.deliveries] == [(f"{DROP}x", b"once")]


async def test_the_relay_forgets_an_idle_connection_without_a_word_and_closes_it_at_stop(
        nginx_factory: NginxFactory, recording_upstream: RecordingUpstream, relay_factory: RelayFactory) -> None:
    nginx = nginx_factory(recording_upstream.port, keepalive_timeout=60.0)  # nginx won't close it first
    relay = await relay_factory(nginx.http_port, forget_after=0.5)
    streams = await asyncio.open_connection("127.0.0.1", relay.port)
    _, body = await within(2.0, exchange(streams, "GET", "/before"))
    assert body == b'{"n": 1}'
    await relay.wait_until(lambda relay: relay.forgotten == 1)  # the quiet spell
    reader, writer = streams
    writer.write(b"GET /after HTTP/1.1\r\nHost: localhost\r\n\r\n")
    await writer.drain()
    with pytest.raises(TimeoutError):  # neither an answer nor an end nor a reset: nothing at all
        await asyncio.wait_for(reader.read(1), 0.5)
    assert [d.path for d in recording_upstream.deliveries] == ["/before"]
    await relay.stop()
    with contextlib.suppress(ConnectionResetError):  # closed with a reset: as good an end
        assert await within(2.0, reader.read()) == b""
    writer.close()
