"""Gateway connections and sessions: a websocket's ordered writer, and the session that outlives it
so a RESUME can replay what was missed.

Apart from the gateway that drives them because interactions record which sessions they reached
(`FakeInteraction.delivered_to`): the models name them without importing the gateway.
"""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from dataclasses import dataclass, field

import orjson
from aiohttp import web

from .jsontypes import JSON

ShardKey = tuple[int, int] | None  # (shard_id, shard_count), None for an unsharded session


class GatewayConnection:
    """One websocket: an ordered outgoing queue drained by a single writer task."""

    def __init__(self, ws: web.WebSocketResponse, compress: bool) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[JSON | None] = asyncio.Queue()
        self.compressor = zlib.compressobj() if compress else None
        self.session: GatewaySession | None = None
        self.closed = False
        self.writer = asyncio.create_task(self._write_loop())

    def send(self, payload: JSON) -> None:
        if not self.closed:
            self.queue.put_nowait(payload)

    async def _write_loop(self) -> None:
        while True:
            payload = await self.queue.get()
            if payload is None or self.ws.closed:
                return
            text = orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS).decode()
            try:
                if self.compressor is not None:
                    data = self.compressor.compress(text.encode()) + self.compressor.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(data)
                else:
                    await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return

    async def close(self, code: int) -> None:
        self.closed = True
        self.queue.put_nowait(None)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(self.writer, 1.0)
        with contextlib.suppress(Exception):
            await self.ws.close(code=code, message=b"fake discord closed the connection")


@dataclass(eq=False)
class GatewaySession:
    """A gateway session: survives websocket drops so a RESUME can replay what was missed."""

    session_id: str
    intents: int
    seq: int = 0
    log: list[tuple[int, str, JSON]] = field(default_factory=list)
    conn: GatewayConnection | None = None
    invalidated: bool = False
    shard: ShardKey = None
    guild_ids: list[int] = field(default_factory=list)  # the guilds its READY listed

    @property
    def shard_id(self) -> int:
        return 0 if self.shard is None else self.shard[0]

    @property
    def shard_count(self) -> int:
        return 1 if self.shard is None else self.shard[1]

    @property
    def connected(self) -> bool:
        """It has a live websocket (events are delivered now, not buffered for a RESUME)."""
        return self.conn is not None and not self.invalidated

    def covers(self, guild_id: int | None) -> bool:
        """Whether Discord routes an event of this guild (None: no guild, e.g. a DM) to this session."""
        if guild_id is None:
            return self.shard_id == 0
        return (guild_id >> 22) % self.shard_count == self.shard_id

    def __repr__(self) -> str:
        state = "invalidated" if self.invalidated else "connected" if self.conn is not None else "disconnected"
        return f"<GatewaySession {self.session_id[:8]} shard={self.shard} {state}>"
