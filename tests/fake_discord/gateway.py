"""The fake gateway websocket: HELLO, IDENTIFY/READY, RESUME with replay, heartbeats, dispatches.

Every outgoing frame of a connection goes through one queue and one writer task so that the
order of dispatches (and their `s` sequence numbers) is exactly the order they were produced.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import WSMsgType, web

from .models import JSON, new_token

if TYPE_CHECKING:
    from .server import FakeDiscord

log = logging.getLogger(__name__)

OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE_UPDATE = 3
OP_VOICE_STATE_UPDATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_GUILD_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT


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


@dataclass
class GatewaySession:
    """A gateway session: survives websocket drops so a RESUME can replay what was missed."""

    session_id: str
    intents: int
    seq: int = 0
    log: list[tuple[int, str, JSON]] = field(default_factory=list)
    conn: GatewayConnection | None = None
    invalidated: bool = False


class FakeGateway:
    """Gateway state for the single bot application of a FakeDiscord."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.heartbeat_interval_ms = 41250
        self.compress = False
        self.allowed_intents = (1 << 26) - 1
        self.session: GatewaySession | None = None
        self.connections: list[GatewayConnection] = []
        self.identify_count = 0
        self.ready_count = 0
        self.resume_count = 0
        self.heartbeat_count = 0
        self.last_identify: JSON | None = None
        self.last_connect_query: dict[str, str] = {}

    @property
    def connected(self) -> bool:
        return self.session is not None and self.session.conn is not None

    @property
    def intents(self) -> int:
        return 0 if self.session is None else self.session.intents

    # -- dispatching --------------------------------------------------------------------

    def dispatch(self, event: str, data: JSON, *, intent: int | None = None) -> bool:
        """Queue a DISPATCH for the bot; buffered for replay if the socket is down.

        Returns False (and sends nothing) when there is no session or the bot did not ask
        for the `intent` this event belongs to.
        """
        session = self.session
        if session is None or session.invalidated:
            return False
        if intent is not None and not session.intents & intent:
            return False
        session.seq += 1
        session.log.append((session.seq, event, data))
        if session.conn is not None:
            session.conn.send({"op": OP_DISPATCH, "t": event, "s": session.seq, "d": data})
        return True

    # -- failure injection --------------------------------------------------------------

    async def drop(self, code: int = 4000) -> None:
        """Close the socket without invalidating the session, so the client RESUMEs."""
        session = self.session
        if session is None or session.conn is None:
            raise RuntimeError("the bot is not connected to the gateway")
        conn, session.conn = session.conn, None
        await conn.close(code)

    def send_reconnect(self) -> None:
        """Send op 7 RECONNECT: the client should close and RESUME."""
        if self.session is None or self.session.conn is None:
            raise RuntimeError("the bot is not connected to the gateway")
        self.session.conn.send({"op": OP_RECONNECT, "d": None})

    def invalidate(self, resumable: bool = False) -> None:
        """Send op 9 INVALID_SESSION; non resumable makes the client IDENTIFY again."""
        if self.session is None or self.session.conn is None:
            raise RuntimeError("the bot is not connected to the gateway")
        if not resumable:
            self.session.invalidated = True
        self.session.conn.send({"op": OP_INVALID_SESSION, "d": resumable})

    async def close_all(self) -> None:
        for conn in list(self.connections):
            await conn.close(1001)

    # -- websocket handler --------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        self.last_connect_query = dict(request.query)
        if request.query.get("v") not in (None, "10"):
            self.fake.record_error("gateway", f"client asked for gateway version {request.query.get('v')}")
        if request.query.get("encoding", "json") != "json":
            self.fake.record_error("gateway", f"unsupported encoding {request.query.get('encoding')}")
        compress = self.compress and request.query.get("compress") == "zlib-stream"
        conn = GatewayConnection(ws, compress)
        self.connections.append(conn)
        conn.send({"op": OP_HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}, "s": None, "t": None})
        try:
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    await self._on_text(conn, msg.data)
                elif msg.type is WSMsgType.BINARY:
                    self.fake.record_error("gateway", "client sent a binary frame")
                    await conn.close(4002)
                elif msg.type is WSMsgType.ERROR:
                    break
                if conn.closed:
                    break
        finally:
            conn.closed = True
            conn.queue.put_nowait(None)
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
            with contextlib.suppress(ValueError):
                self.connections.remove(conn)
        return ws

    async def _on_text(self, conn: GatewayConnection, text: str) -> None:
        try:
            payload = orjson.loads(text)
            op = payload["op"]
            data = payload.get("d")
        except (ValueError, KeyError, TypeError):
            self.fake.record_error("gateway", f"undecodable gateway payload: {text[:200]!r}")
            await conn.close(4002)
            return
        if op == OP_HEARTBEAT:
            self.heartbeat_count += 1
            conn.send({"op": OP_HEARTBEAT_ACK, "d": None, "s": None, "t": None})
        elif op == OP_IDENTIFY:
            await self._identify(conn, data)
        elif op == OP_RESUME:
            await self._resume(conn, data)
        elif conn.session is None:
            self.fake.record_error("gateway", f"op {op} sent before IDENTIFY")
            await conn.close(4003)
        elif op == OP_REQUEST_GUILD_MEMBERS:
            self._request_members(data)
        elif op in (OP_PRESENCE_UPDATE, OP_VOICE_STATE_UPDATE):
            pass
        else:
            self.fake.record_error("gateway", f"unknown gateway opcode {op}")
            await conn.close(4001)

    async def _identify(self, conn: GatewayConnection, data: Any) -> None:
        if conn.session is not None:
            self.fake.record_error("gateway", "IDENTIFY sent twice on one connection")
            await conn.close(4005)
            return
        if not isinstance(data, dict) or data.get("token") != self.fake.token:
            await conn.close(4004)  # authentication failed: a legit scenario, not a protocol error
            return
        intents = data.get("intents")
        if not isinstance(intents, int):
            self.fake.record_error("gateway", "IDENTIFY without intents")
            await conn.close(4013)
            return
        if intents & PRIVILEGED_INTENTS & ~self.allowed_intents:
            await conn.close(4014)  # disallowed intents
            return
        self.identify_count += 1
        self.last_identify = data
        if self.session is not None and self.session.conn is not None and self.session.conn is not conn:
            await self.session.conn.close(4009)
        session = GatewaySession(session_id=new_token("s"), intents=intents, conn=conn)
        conn.session = session
        self.session = session
        fake = self.fake
        guilds = fake.bot_guilds()
        ready = {
            "v": 10,
            "user": {**fake.bot_user.to_payload(), "verified": True, "mfa_enabled": False, "email": None},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": fake.gateway_url,
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["us-east"],
            "user_settings": {},
            "application": {"id": str(fake.application_id), "flags": fake.application_flags},
            "auth": {},
            "_trace": ["fake-discord"],
        }
        if "shard" in data:
            ready["shard"] = data["shard"]
        self.dispatch("READY", ready)
        self.ready_count += 1
        for guild in guilds:
            self.dispatch("GUILD_CREATE", guild.gateway_payload())
        fake.notify()

    async def _resume(self, conn: GatewayConnection, data: Any) -> None:
        session = self.session
        if (
            not isinstance(data, dict)
            or session is None
            or session.invalidated
            or data.get("session_id") != session.session_id
        ):
            conn.send({"op": OP_INVALID_SESSION, "d": False, "s": None, "t": None})
            return
        if data.get("token") != self.fake.token:
            await conn.close(4004)
            return
        seq = data.get("seq") or 0
        if session.conn is not None and session.conn is not conn:
            await session.conn.close(4009)
        conn.session = session
        for s, event, payload in session.log:
            if s > seq:
                conn.send({"op": OP_DISPATCH, "t": event, "s": s, "d": payload})
        session.conn = conn
        self.resume_count += 1
        self.dispatch("RESUMED", {"_trace": ["fake-discord"]})
        self.fake.notify()

    def _request_members(self, data: Any) -> None:
        if not isinstance(data, dict):
            self.fake.record_error("gateway", "REQUEST_GUILD_MEMBERS without data")
            return
        guild = self.fake.guilds.get(int(data.get("guild_id", 0)))
        if guild is None:
            self.fake.record_error("gateway", f"REQUEST_GUILD_MEMBERS for unknown guild {data.get('guild_id')}")
            return
        members = list(guild.members.values())
        query = data.get("query")
        if query:
            members = [m for m in members if m.user.username.startswith(query)]
        if data.get("user_ids"):
            wanted = {int(u) for u in data["user_ids"]}
            members = [m for m in members if m.user.id in wanted]
        limit = data.get("limit") or 0
        if limit:
            members = members[:limit]
        chunk: JSON = {
            "guild_id": str(guild.id),
            "members": [m.to_payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        self.dispatch("GUILD_MEMBERS_CHUNK", chunk)
