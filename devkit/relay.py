"""A TCP relay that forgets idle connections without a word, as cloud NAT gateways and load balancers do.

Why: such a middlebox drops a flow's state after a few minutes of silence and then discards the
flow's packets, neither answering nor resetting. The client still believes in its kept-alive
connection: its next request vanishes and nothing comes back until its own timeout. A client
that must not hang there has to stop reusing connections before the middlebox forgets them.

`Relay` listens on 127.0.0.1 and passes bytes both ways between each client and one target on
127.0.0.1 (nginx, in the edge tests; TLS passes through untouched). A connection with no byte
either way for `forget_after` seconds is forgotten: the relay closes its side towards the target
(the target's answers and its FIN can no longer reach the client) and from then on reads and drops
whatever the client sends, never writing to it or closing it. `stop()` closes every connection
and the listener; at most `max_connections` are open at once (more are closed at accept).

The pytest fixture `relay_factory` (import it into a conftest.py, as tests/edge/conftest.py does)
is an async factory, `await relay_factory(target_port, forget_after=2.0) -> Relay`; every relay
it made is stopped at teardown.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest_asyncio

HOST = "127.0.0.1"  # the relay listens and connects only here
_READ_SIZE = 65536


@dataclass(eq=False)  # kept in a set, by identity
class _Flow:
    """One client's connection and the relay's own connection to the target for it."""

    client: asyncio.StreamWriter
    target: asyncio.StreamWriter
    last_active: float
    forgotten: bool = False
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class Relay:
    """Bytes both ways between clients on `port` and the target on `target_port`; see the module."""

    def __init__(self, target_port: int, *, forget_after: float, max_connections: int = 64) -> None:
        if forget_after <= 0:
            raise ValueError(f"forget_after must be positive, not {forget_after}")
        self.target_port = target_port
        self.forget_after = forget_after
        self.max_connections = max_connections
        self.port = 0
        self.connections = 0  # accepted and relayed, all told
        self.forgotten = 0  # of those, forgotten for being idle
        self._flows: set[_Flow] = set()
        self._server: asyncio.Server | None = None
        self._changed = asyncio.Event()  # set on every accept and forget, for `wait_until`

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, HOST, 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def wait_until(self, condition: Callable[[Relay], bool], timeout: float = 10.0) -> None:
        """Return once `condition(self)` holds, checked after each accept and forget; TimeoutError
        after `timeout` seconds."""
        async with asyncio.timeout(timeout):
            while not condition(self):
                self._changed.clear()
                await self._changed.wait()

    async def _accept(self, client_reader: asyncio.StreamReader, client: asyncio.StreamWriter) -> None:
        if len(self._flows) >= self.max_connections:
            client.close()
            return
        try:
            target_reader, target = await asyncio.open_connection(HOST, self.target_port)
        except OSError:
            client.close()  # the target is down: the client sees its connection refused, in effect
            return
        loop = asyncio.get_running_loop()
        flow = _Flow(client, target, loop.time())
        self._flows.add(flow)
        self.connections += 1
        self._changed.set()
        flow.tasks = [asyncio.ensure_future(self._pump(flow, client_reader, target, from_client=True)),
                      asyncio.ensure_future(self._pump(flow, target_reader, client, from_client=False)),
                      asyncio.ensure_future(self._watch(flow))]

    async def _pump(self, flow: _Flow, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                    from_client: bool) -> None:
        """Copy one direction until its end; a forgotten flow's client bytes are read and dropped."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(_READ_SIZE):
                if flow.forgotten:
                    continue
                flow.last_active = loop.time()
                writer.write(data)
                await writer.drain()
        if not flow.forgotten or from_client:  # an end the client can see, or the client's own
            self._end(flow)

    async def _watch(self, flow: _Flow) -> None:
        """Forget the flow once it has been idle `forget_after` seconds."""
        loop = asyncio.get_running_loop()
        while (idle := loop.time() - flow.last_active) < self.forget_after:
            await asyncio.sleep(self.forget_after - idle)
        flow.forgotten = True
        flow.target.close()  # the target's FIN, or anything else it says, no longer reaches the client
        self.forgotten += 1
        self._changed.set()

    def _end(self, flow: _Flow) -> None:
        """Close both sides and stop the flow's tasks (the caller's own finishes by itself)."""
        if flow not in self._flows:
            return
        self._flows.discard(flow)
        for writer in (flow.client, flow.target):
            writer.close()
        current = asyncio.current_task()
        for task in flow.tasks:
            if task is not current:
                task.cancel()

    async def stop(self) -> None:
        """Close the listener and every connection, forgotten or not; wait for their tasks."""
        if self._server is not None:
            self._server.close()
        tasks = [task for flow in self._flows for task in flow.tasks]
        for flow in list(self._flows):
            flow.client.transport.abort()
            self._end(flow)
        await asyncio.gather(*tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None


@contextlib.asynccontextmanager
async def running_relay(target_port: int, *, forget_after: float, max_connections: int = 64) -> AsyncIterator[Relay]:
    """A started relay, stopped on exit."""
    relay = Relay(target_port, forget_after=forget_after, max_connections=max_connections)
    await relay.start()
    try:
        yield relay
    finally:
        await relay.stop()


RelayFactory = Callable[..., Awaitable[Relay]]


@pytest_asyncio.fixture
async def relay_factory() -> AsyncIterator[RelayFactory]:
    """`await relay_factory(target_port, forget_after=2.0) -> Relay`, started; all stopped at teardown."""
    async with contextlib.AsyncExitStack() as stack:

        async def make(target_port: int, *, forget_after: float = 2.0, max_connections: int = 64) -> Relay:
            return await stack.enter_async_context(
                running_relay(target_port, forget_after=forget_after, max_connections=max_connections))

        yield make
