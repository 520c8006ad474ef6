"""The transport's HTTP/1.1 client: against servers that answer the ways real ones do (by length,
chunked, to the end of the connection, over TLS) and misbehave the ways real ones do (closing an
idle connection, dropping one after reading a request, dropping one mid-answer, never answering).
Behind real nginx and a relay that forgets idle connections: tests/edge."""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import pytest
import trustme
import uvloop

from bot.discord_ui.transport import http as transport_http
from bot.discord_ui.transport.http import Disconnected, HttpClient, Unanswered

Answer = Callable[[bytes, int], tuple[bytes, bool]]  # (request's body, its number) → (bytes to send, close after)


def by_length(body: bytes, status: int = 200, extra: bytes = b"") -> bytes:
    return b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s" % (
        status, extra, len(body), body)


@dataclass
class Server:
    """A raw HTTP/1.1 server on 127.0.0.1: counts connections and requests, answers as told."""

    answer: Answer
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    port: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                body = await reader.readexactly(length)
                self.requests.append(head.split(b"\r\n")[0] + b" " + body)
                out, close = self.answer(body, len(self.requests))
                writer.write(out)
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


@contextlib.asynccontextmanager
async def serving(answer: Answer, tls: ssl.SSLContext | None = None) -> AsyncIterator[Server]:
    server = Server(answer)
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0, ssl=tls)
    server.port = listening.sockets[0].getsockname()[1]
    try:
        yield server
    finally:
        listening.close()
        await listening.wait_closed()


Scenario = Callable[[], Coroutine[Any, Any, None]]


@pytest.fixture(params=["asyncio", "uvloop"])
def run(request: pytest.FixtureRequest) -> Callable[[Scenario], None]:
    """Each scenario on both event loops: the bot runs on uvloop, whose transports differ."""
    return lambda scenario: (uvloop.run if request.param == "uvloop" else asyncio.run)(scenario())


Run = Callable[[Scenario], None]


def test_calls_one_after_another_share_one_connection(run: Run) -> None:
    async def scenario() -> None:
        async with serving(lambda body, n: (by_length(b'{"n": %d, "echo": "%s"}' % (n, body)), False)) as server:
            client = HttpClient()
            try:
                replies = [await client.request("PATCH", f"http://127.0.0.1:{server.port}/api/x/{i}", b"b%d" % i,
                                                b"Content-Type: application/json\r\n") for i in range(5)]
            finally:
                await client.close()
        assert [r.body for r in replies] == [b'{"n": %d, "echo": "b%d"}' % (i + 1, i) for i in range(5)]
        assert [r.status for r in replies] == [200] * 5 and replies[0].headers["content-type"] == "application/json"
        assert server.connections == 1
        assert server.requests[2] == b"PATCH /api/x/2 HTTP/1.1 b2"
    run(scenario)


def test_calls_at_once_each_get_their_own_answer(run: Run) -> None:
    async def scenario() -> None:
        async with serving(lambda body, n: (by_length(body), False)) as server:
            client = HttpClient()
            try:
                replies = await asyncio.gather(*(
                    client.request("POST", f"http://127.0.0.1:{server.port}/p", b"%d" % i, b"") for i in range(20)))
            finally:
                await client.close()
        assert [r.body for r in replies] == [b"%d" % i for i in range(20)]
    run(scenario)


def test_a_chunked_answer_an_empty_one_and_one_read_to_the_end_are_read_whole(run: Run) -> None:
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7;x=1\r\n, world\r\n0\r\n\r\n"
    empty = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    to_the_end = b"HTTP/1.1 404 Not Found\r\n\r\n{\"message\": \"Unknown Webhook\"}"
    answers = {1: (chunked, False), 2: (empty, False)}

    async def scenario() -> None:
        async with serving(lambda body, n: answers.get(n, (to_the_end, True))) as server:
            client = HttpClient(timeout=5.0)
            try:
                first, second, third, fourth = [
                    await client.request("GET", f"http://127.0.0.1:{server.port}/{i}", b"", b"") for i in range(4)]
            finally:
                await client.close()
        assert first.body == b"hello, world" and (second.status, second.body) == (200, b"")
        assert (third.status, third.reason, third.body) == (404, "Not Found", b'{"message": "Unknown Webhook"}')
        assert fourth.status == 404 and server.connections == 2  # the connection ended with the answer
    run(scenario)


def test_a_connection_the_server_closed_while_idle_is_replaced_and_the_call_made_once(run: Run) -> None:
    async def scenario() -> None:
        async with serving(lambda body, n: (by_length(b"ok", extra=b"Connection: keep-alive\r\n"), n == 1)) as server:
            client = HttpClient()
            try:
                await client.request("PATCH", f"http://127.0.0.1:{server.port}/a", b"1", b"")
                await asyncio.sleep(0.05)  # the server has closed it; the client may not have noticed yet
                reply = await client.request("PATCH", f"http://127.0.0.1:{server.port}/a", b"2", b"")
            finally:
                await client.close()
        assert reply.body == b"ok" and server.connections == 2
        assert server.requests == [b"PATCH /a HTTP/1.1 1", b"PATCH /a HTTP/1.1 2"]
    run(scenario)


def test_a_call_safe_to_repeat_is_sent_once_more_on_a_fresh_connection_when_no_answer_came(run: Run) -> None:
    """A server that reads a request and closes without a word (nginx's 444, or an idle connection
    closed as it is reused): a PATCH of a whole message is sent again, once, on a new connection."""
    async def scenario() -> None:
        async with serving(lambda body, n: (b"", True) if n == 2 else (by_length(b"ok %d" % n), False)) as server:
            client = HttpClient()
            try:
                await client.request("PATCH", f"http://127.0.0.1:{server.port}/a", b"1", b"")
                reply = await client.request("PATCH", f"http://127.0.0.1:{server.port}/a", b"2", b"", resend=True)
            finally:
                await client.close()
        assert reply.body == b"ok 3" and server.connections == 2
    run(scenario)


def test_a_post_with_no_answer_is_not_sent_again_the_caller_hears_its_fate_is_unknown(run: Run) -> None:
    """The same server, a POST: it reached the server once, and once only (it may have taken effect)."""
    async def scenario() -> None:
        async with serving(lambda body, n: (b"", True) if n >= 2 else (by_length(b"ok %d" % n), False)) as server:
            client = HttpClient()
            try:
                await client.request("POST", f"http://127.0.0.1:{server.port}/a", b"1", b"")
                with pytest.raises(Unanswered):
                    await client.request("POST", f"http://127.0.0.1:{server.port}/a", b"2", b"")
                with pytest.raises(Unanswered):  # said safe: sent again once, not more
                    await client.request("POST", f"http://127.0.0.1:{server.port}/a", b"3", b"", resend=True)
            finally:
                await client.close()
        assert server.requests == [b"POST /a HTTP/1.1 1", b"POST /a HTTP/1.1 2", b"POST /a HTTP/1.1 3",
                                   b"POST /a HTTP/1.1 3"]
    run(scenario)


def test_a_connection_idle_too_long_is_not_reused(run: Run) -> None:
    """A middlebox may have forgotten it: a call after a quiet spell opens a new connection."""
    async def scenario() -> None:
        async with serving(lambda body, n: (by_length(b"ok"), False)) as server:
            client = HttpClient(idle_expiry=0.1)
            try:
                await client.request("GET", f"http://127.0.0.1:{server.port}/a", b"", b"")
                await client.request("GET", f"http://127.0.0.1:{server.port}/a", b"", b"")
                await asyncio.sleep(0.2)
                await client.request("GET", f"http://127.0.0.1:{server.port}/a", b"", b"")
            finally:
                await client.close()
        assert server.connections == 2
    run(scenario)


def test_a_connection_dropped_mid_answer_is_an_error_and_the_call_is_not_repeated(run: Run) -> None:
    async def scenario() -> None:
        cut = by_length(b"0123456789")[:-4]
        async with serving(lambda body, n: (by_length(b"ok"), False) if n == 1 else (cut, True)) as server:
            client = HttpClient()
            try:
                await client.request("POST", f"http://127.0.0.1:{server.port}/a", b"1", b"")
                with pytest.raises(Disconnected):
                    await client.request("POST", f"http://127.0.0.1:{server.port}/a", b"2", b"")
            finally:
                await client.close()
        assert len(server.requests) == 2  # a request that reached the server isn't sent again
    run(scenario)


def test_a_server_that_never_answers_times_out_and_one_not_there_fails(run: Run) -> None:
    async def scenario() -> None:
        async with serving(lambda body, n: (b"", False)) as server:
            client = HttpClient(timeout=0.2)
            try:
                with pytest.raises(TimeoutError):
                    await client.request("POST", f"http://127.0.0.1:{server.port}/a", b"1", b"")
                with pytest.raises(OSError):  # nobody listens there
                    await client.request("POST", "http://127.0.0.1:1/a", b"1", b"")
            finally:
                await client.close()
    run(scenario)


def test_calls_under_way_together_each_give_up_at_their_own_deadline(run: Run) -> None:
    """The deadlines are checked together (every `DEADLINE_CHECK` seconds), not by a timer each: a
    call still gives up at its own deadline, and one answered in time isn't touched."""
    async def scenario() -> None:
        async with serving(lambda body, n: (b"", False) if body.startswith(b"slow") else (by_length(body), False)
                           ) as server:
            client = HttpClient(timeout=5.0)
            loop = asyncio.get_running_loop()
            started = loop.time()

            async def gave_up_after(timeout: float) -> float:
                with pytest.raises(TimeoutError):
                    await client.request("POST", f"http://127.0.0.1:{server.port}/a", b"slow", b"", timeout=timeout)
                return loop.time() - started

            try:
                short, long, answered = await asyncio.gather(
                    gave_up_after(0.1), gave_up_after(0.4),
                    client.request("POST", f"http://127.0.0.1:{server.port}/a", b"quick", b"", timeout=0.2))
            finally:
                await client.close()
        assert 0.1 <= short < 0.4 <= long < 1.5  # each at its own deadline, neither held to the other's
        assert answered.body == b"quick"
    run(scenario)


def test_https_with_the_servers_certificate_checked(run: Run) -> None:
    authority = trustme.CA()
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("localhost").configure_cert(server_tls)
    trusting = ssl.create_default_context()
    authority.configure_trust(trusting)

    async def scenario() -> None:
        async with serving(lambda body, n: (by_length(b"secret " + body), False), tls=server_tls) as server:
            client = HttpClient(tls=trusting)
            try:
                replies = [await client.request("POST", f"https://localhost:{server.port}/a", b"%d" % i, b"")
                           for i in range(3)]
            finally:
                await client.close()
            assert [r.body for r in replies] == [b"secret 0", b"secret 1", b"secret 2"] and server.connections == 1
            stranger = HttpClient()  # the system's authorities don't know this certificate
            try:
                with pytest.raises(ssl.SSLCertVerificationError):
                    await stranger.request("POST", f"https://localhost:{server.port}/a", b"x", b"")
            finally:
                await stranger.close()
    run(scenario)


def test_a_burst_waits_for_a_few_connections_and_keeps_them(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """More calls at once than the cap share that many connections, each answered, and the
    connections stay open for the next burst rather than being opened again."""
    monkeypatch.setattr(transport_http, "MAX_CONNECTIONS", 3)

    async def scenario() -> None:
        async with serving(lambda body, n: (by_length(body), False)) as server:
            client = HttpClient()
            url = f"http://127.0.0.1:{server.port}/p"
            try:
                for burst in range(2):
                    replies = await asyncio.gather(*(client.request("POST", url, b"%d.%d" % (burst, i), b"")
                                                     for i in range(20)))
                    assert [r.body for r in replies] == [b"%d.%d" % (burst, i) for i in range(20)]
            finally:
                await client.close()
        assert server.connections == 3
    run(scenario)


def test_calls_wait_their_turn_behind_one_never_answered_and_a_cancelled_one_gives_its_turn_up(
        run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport_http, "MAX_CONNECTIONS", 1)
    answered: list[bytes] = []

    async def scenario() -> None:
        async with serving(lambda body, n: (b"", False) if body == b"hold" else (by_length(body), False)) as server:
            url = f"http://127.0.0.1:{server.port}/p"
            client = HttpClient(timeout=1.0)
            try:
                holding = asyncio.ensure_future(client.request("POST", url, b"hold", b""))  # never answered
                await asyncio.sleep(0.5)  # what the late call has left once its turn comes
                cancelled = asyncio.ensure_future(client.request("POST", url, b"cancelled", b""))
                late = asyncio.ensure_future(client.request("POST", url, b"late", b""))
                await asyncio.sleep(0.05)
                cancelled.cancel()
                with pytest.raises(TimeoutError):
                    await holding
                answered.append((await late).body)  # its turn came as the first call gave up
            finally:
                await client.close()
        assert server.requests == [b"POST /p HTTP/1.1 hold", b"POST /p HTTP/1.1 late"]
    run(scenario)
    assert answered == [b"late"]


def test_a_turn_handed_to_a_call_cancelled_before_it_ran_goes_to_the_next(
        run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport_http, "MAX_CONNECTIONS", 1)

    async def scenario() -> None:
        pool = transport_http._Pool("127.0.0.1", 1, None, 15.0)
        pool.calls = 1  # the cap reached
        first, second = asyncio.ensure_future(pool.wait_turn()), asyncio.ensure_future(pool.wait_turn())
        await asyncio.sleep(0)
        pool.leave()  # the turn goes to the first waiting...
        first.cancel()  # ...which is cancelled before it runs: the second gets it
        with pytest.raises(asyncio.CancelledError):
            await first
        await asyncio.wait_for(second, 1.0)
        assert pool.calls == 1 and not pool.queue
    run(scenario)
