"""The CPU of one fast-path REST call: aiohttp (what the bot used) against `bot.discord_ui.transport.http` (llhttp through httptools).

A plain HTTP/1.1 server runs in a child process on 127.0.0.1 and answers every request at once
with a small JSON body, as Discord answers an edit. This process sends `--calls` panel-sized PATCH
requests, `--at-once` at a time, through each client on uvloop (as the bot runs), and measures its
own CPU time per request. The two clients take turns `--repeat` times; medians are reported.
Prints one JSON line.

Run: .venv/bin/python bench/bench_http.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import time
from collections.abc import Awaitable, Callable

import aiohttp
import uvloop
from bot.discord_ui.transport.http import HttpClient

ANSWER = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
          b"X-RateLimit-Bucket: 0123456789abcdef\r\n\r\n{}")
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


async def with_keepalive(url: str, calls: int, at_once: int) -> float:
    client = HttpClient()
    try:
        async def call(i: int) -> None:
            await client.request("PATCH", f"{url}/webhooks/1/token{i}/messages/@original", BODY,
                                 b"Content-Type: application/json\r\n")
        return await _measure(call, calls, at_once)
    finally:
        await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--at-once", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--port", type=int, default=18765)
    args = parser.parse_args()
    ready = multiprocessing.Event()
    server = multiprocessing.Process(target=_serve, args=(args.port, ready), daemon=True)
    server.start()
    try:
        ready.wait(10)
        url = f"http://127.0.0.1:{args.port}/api/v10"
        runs: dict[str, list[float]] = {"aiohttp": [], "keepalive": []}
        for _ in range(args.repeat):
            runs["aiohttp"].append(uvloop.run(with_aiohttp(url, args.calls, args.at_once)))
            runs["keepalive"].append(uvloop.run(with_keepalive(url, args.calls, args.at_once)))
    finally:
        server.terminate()
        server.join()
    medians = {name: statistics.median(values) for name, values in runs.items()}
    print(json.dumps({
        "bench": "http", "calls": args.calls, "at_once": args.at_once, "repeat": args.repeat,
        "aiohttp_cpu_us_per_call": round(medians["aiohttp"], 1),
        "keepalive_cpu_us_per_call": round(medians["keepalive"], 1),
        "ratio": round(medians["aiohttp"] / medians["keepalive"], 2),
        "runs": {name: [round(v, 1) for v in values] for name, values in runs.items()},
    }))


if __name__ == "__main__":
    main()
