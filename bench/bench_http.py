"""The CPU of one fast-path REST call: aiohttp, the transport's HTTP client (`http`: llhttp through
httptools), and a whole transport call (`transport`: the client plus the rate-limit state fed by
each answer's headers); with `--previous REV`, also the hand-parsing client `keepalive.py` as it was
at that revision (the fast path's client before the transport; e.g. 1b483b0).

A plain HTTP/1.1 server runs in a child process on 127.0.0.1 and answers every request at once
with a small JSON body and Discord's rate-limit headers, as Discord answers an edit. This process
sends `--calls` panel-sized PATCH requests, `--at-once` at a time, through each client on uvloop
(as the bot runs), and measures its own CPU time per request. The clients take turns `--repeat`
times; medians are reported. Prints one JSON line.

Run: .venv/bin/python bench/bench_http.py [--previous 1b483b0]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import uvloop

from bot.discord_ui.transport import RateLimits, Transport
from bot.discord_ui.transport.http import HttpClient

ANSWER = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
          b"X-RateLimit-Bucket: 0123456789abcdef\r\nX-RateLimit-Limit: 5\r\nX-RateLimit-Remaining: 4\r\n"
          b"X-RateLimit-Reset: 1790000000.000\r\nX-RateLimit-Reset-After: 2.000\r\nX-RateLimit-Scope: user\r\n"
          b"Via: 1.1 google\r\n\r\n{}")
BODY = b'{"components":[{"type":17,"components":[{"type":10,"content":"' + b"x" * 1500 + b'"}]}],"flags":32768}'


class _Answering(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            length = next((int(line.split(b":")[1]) for line in self.buffer[:end].split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            if len(self.buffer) < end + 4 + length:
                return
            self.buffer = self.buffer[end + 4 + length:]
            self.transport.write(ANSWER)  # type: ignore[attr-defined]


def _serve(port: int, ready: multiprocessing.synchronize.Event) -> None:
    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(_Answering, "127.0.0.1", port)
        ready.set()
        await server.serve_forever()
    uvloop.run(main())


async def _measure(call: Callable[[int], Awaitable[None]], calls: int, at_once: int) -> float:
    """CPU µs per call of this process, after a warm-up."""
    gate = asyncio.Semaphore(at_once)

    async def one(i: int) -> None:
        async with gate:
            await call(i)

    await asyncio.gather(*(one(i) for i in range(500)))
    started = time.process_time()
    await asyncio.gather(*(one(i) for i in range(calls)))
    return (time.process_time() - started) / calls * 1e6


async def with_aiohttp(url: str, calls: int, at_once: int) -> float:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar(),
                                     timeout=aiohttp.ClientTimeout(total=30)) as session:
        async def call(i: int) -> None:
            async with session.request("PATCH", f"{url}/webhooks/1/token{i}/messages/@original", data=BODY,
                                       headers={"Content-Type": "application/json"}) as response:
                await response.read()
        return await _measure(call, calls, at_once)


async def with_http(url: str, calls: int, at_once: int, client: Any = None) -> float:
    client = client or HttpClient()
    try:
        async def call(i: int) -> None:
            await client.request("PATCH", f"{url}/webhooks/1/token{i}/messages/@original", BODY,
                                 b"Content-Type: application/json\r\n")
        return await _measure(call, calls, at_once)
    finally:
        await client.close()


async def with_transport(url: str, calls: int, at_once: int) -> float:
    transport = Transport(RateLimits())
    try:
        async def call(i: int) -> None:
            await transport.call("PATCH", f"{url}/webhooks/1/token{i}/messages/@original", BODY, resend=True)
        return await _measure(call, calls, at_once)
    finally:
        await transport.close()


def previous_client(revision: str) -> Callable[[], Any]:
    """The fast path's hand-parsing client as it was at `revision`, loaded from git."""
    source = subprocess.run(["git", "show", f"{revision}:bot/discord_ui/keepalive.py"], check=True,
                            capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "previous_keepalive.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("previous_keepalive", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["previous_keepalive"] = module
    spec.loader.exec_module(module)
    return module.KeepAliveClient  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--at-once", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--port", type=int, default=18765)
    parser.add_argument("--previous", help="a revision whose bot/discord_ui/keepalive.py to time too")
    args = parser.parse_args()
    previous = previous_client(args.previous) if args.previous else None
    ready = multiprocessing.Event()
    server = multiprocessing.Process(target=_serve, args=(args.port, ready), daemon=True)
    server.start()
    try:
        ready.wait(10)
        url = f"http://127.0.0.1:{args.port}/api/v10"
        names = ["aiohttp", "http", "transport"] + (["previous"] if previous else [])
        runs: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(args.repeat):
            runs["aiohttp"].append(uvloop.run(with_aiohttp(url, args.calls, args.at_once)))
            runs["http"].append(uvloop.run(with_http(url, args.calls, args.at_once)))
            runs["transport"].append(uvloop.run(with_transport(url, args.calls, args.at_once)))
            if previous is not None:
                runs["previous"].append(uvloop.run(with_http(url, args.calls, args.at_once, previous())))
    finally:
        server.terminate()
        server.join()
    medians = {name: statistics.median(values) for name, values in runs.items()}
    print(json.dumps({
        "bench": "http", "calls": args.calls, "at_once": args.at_once, "repeat": args.repeat,
        "previous": args.previous,
        **{f"{name}_cpu_us_per_call": round(median, 1) for name, median in medians.items()},
        "aiohttp_over_transport": round(medians["aiohttp"] / medians["transport"], 2),
        "runs": {name: [round(v, 1) for v in values] for name, values in runs.items()},
    }))


if __name__ == "__main__":
    main()
