"""The bot's HTTP client behind a real nginx, where the hand-parsing client it replaced misbehaved
(a POST delivered six times, a hang on an empty chunked answer).

Every call goes over TLS to `localhost`, as the bot's go to discord.com; each is bounded far
below the client's own timeout, so a hang fails in a second rather than after it.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.discord_ui.transport.http import HttpClient
from devkit.nginx import BANNED, DOWN, DROP, EMPTY_CHUNKED, RETRY_AFTER, NginxFactory, RecordingUpstream

from .support import ClientFactory, within

QUICK = 1.0  # seconds: an answer from nginx on this machine takes milliseconds


async def test_mixed_calls_across_keepalive_timeout_and_keepalive_requests_all_succeed_each_post_once(
        nginx_factory: NginxFactory, recording_upstream: RecordingUpstream, make_client: ClientFactory) -> None:
    """nginx closes each connection after 3 requests, and any idle 0.5 s. A call sent on a kept
    connection just as nginx closes it comes back unanswered, exactly as one nginx took and then
    dropped (444, the next test): a POST can't be sent again, so the client must not reuse a
    connection that nginx may be closing. It is told how long it may (`idle_expiry`, below nginx's
    keepalive_timeout), and pauses just under, at and just over nginx's timeout must not fail a call."""
    nginx = nginx_factory(recording_upstream.port, keepalive_timeout=0.5, keepalive_requests=3)
    client = make_client(idle_expiry=0.2)  # 0.3 s to spare: a loaded machine may be slow to read an answer
    pauses = [0.15, 0.45, 0.5, 0.55]  # every fourth call, so that they fall at each place of a connection's three
    replies = []
    for i in range(30):
        if i % 4 == 3:
            await asyncio.sleep(pauses[i // 4 % len(pauses)])  # the quiet spell is the point here
        method = "POST" if i % 2 else "GET"
        body = b'{"call": %d}' % i if method == "POST" else b""
        replies.append(await within(QUICK, client.request(method, f"{nginx.https_url}/calls/{i}", body,
                                                          b"Content-Type: application/json\r\n")))
    assert [reply.status for reply in replies] == [200] * 30
    posts = [(d.path, d.body) for d in recording_upstream.deliveries if d.method == "POST"]
    assert sorted(posts) == sorted((f"/calls/{i}", b'{"call": %d}' % i) for i in range(1, 30, 2))  # each once
    assert {d.path for d in recording_upstream.deliveries} == {f"/calls/{i}" for i in range(30)}


@pytest.mark.parametrize("warm", [0, 1, 5], ids=lambda n: f"{n}-kept")
@pytest.mark.parametrize(("method", "most"), [("POST", 1), ("GET", 2)])
async def test_a_call_nginx_takes_then_drops_unanswered_raises_at_once_and_is_not_repeated(
        nginx_factory: NginxFactory, recording_upstream: RecordingUpstream, client: HttpClient,
        warm: int, method: str, most: int) -> None:
    """nginx reads the call, the upstream acts on it, and nginx closes the connection without a
    word (444). A POST must reach the upstream exactly once (a second would post the message
    twice), a GET at most twice, however many kept connections the client has at hand."""
    nginx = nginx_factory(recording_upstream.port, keepalive_timeout=60.0, keepalive_requests=100)
    await asyncio.gather(*(client.request("GET", f"{nginx.https_url}/warm", b"", b"") for _ in range(warm)))
    with pytest.raises(OSError):
        await within(QUICK, client.request(method, f"{nginx.https_url}{DROP}x", b"once", b""))
    dropped = recording_upstream.deliveries_to(f"{DROP}x")
    assert 1 <= len(dropped) <= most, f"{method} delivered {len(dropped)} times"
    reply = await within(QUICK, client.request("GET", f"{nginx.https_url}/after", b"", b""))
    assert reply.status == 200  # and the client still works


async def test_an_empty_chunked_answer_comes_back_at_once_and_the_connection_goes_on(
        nginx_factory: NginxFactory, recording_upstream: RecordingUpstream, client: HttpClient) -> None:
    nginx = nginx_factory(recording_upstream.port, keepalive_timeout=60.0, keepalive_requests=100)
    reply = await within(QUICK, client.request("POST", f"{nginx.https_url}{EMPTY_CHUNKED}", b"{}", b""))
    assert (reply.status, reply.body, reply.headers["transfer-encoding"]) == (200, b"", "chunked")
    after = await within(QUICK, client.request("GET", f"{nginx.https_url}/after", b"", b""))
    assert after.body == b'{"n": 2}'


async def test_an_html_429_ban_page_and_an_html_502_come_back_at_once_as_replies(
        nginx_factory: NginxFactory, recording_upstream: RecordingUpstream, client: HttpClient) -> None:
    """Cloudflare's ban page and nginx's own 502 carry no JSON and no X-RateLimit headers: the client
    returns them as they are, for the caller to read the status and Retry-After."""
    nginx = nginx_factory(recording_upstream.port)
    banned = await within(QUICK, client.request("POST", f"{nginx.https_url}{BANNED}", b"{}", b""))
    assert (banned.status, banned.headers["retry-after"]) == (429, str(RETRY_AFTER))
    assert banned.headers["content-type"] == "text/html" and banned.body.startswith(b"<!DOCTYPE html>")
    assert not [name for name in banned.headers if name.startswith("x-ratelimit")]
    down = await within(QUICK, client.request("POST", f"{nginx.https_url}{DOWN}x", b"{}", b""))
    assert (down.status, down.headers["content-type"]) == (502, "text/html") and b"502 Bad Gateway" in down.body
    assert recording_upstream.deliveries == []
