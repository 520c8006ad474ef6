"""The fake gateway websocket: HELLO, IDENTIFY/READY, RESUME with replay, heartbeats, dispatches.

Every outgoing frame of a connection goes through one queue and one writer task so that the
order of dispatches (and their `s` sequence numbers) is exactly the order they were produced.

Sharding works as on Discord: an IDENTIFY with `shard: [shard_id, shard_count]` opens a session
that receives only the events of guilds with `(guild_id >> 22) % shard_count == shard_id`, and
events without a guild (DMs, DM interactions) only on shard 0. Sharded sessions are independent:
each is routed by its own pair, so two live sessions for the same shard (two processes running
it) BOTH receive its events, and sessions with different shard counts (a resharding in progress)
each get their own share, as Discord documents. An IDENTIFY without `shard` replaces the previous
unsharded session (its socket is closed with 4009 and it can no longer RESUME), as this fake
always did; real Discord would let two unsharded sessions run side by side.
"""

from __future__ import annotations

import contextlib
import logging
from collections import Counter
from typing import Any, Protocol

import orjson
from aiohttp import WSMsgType, web

from .jsontypes import JSON
from .models import FakeGuild, FakeUser, new_token
from .sessions import GatewayConnection, GatewaySession, ShardKey

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


def dispatch_frame(event: str, seq: int, data: JSON) -> JSON:
    """An event as Discord writes it: the type and the number first, then the op code and the data
    (clients may read the start of a frame before parsing it whole)."""
    return {"t": event, "s": seq, "op": OP_DISPATCH, "d": data}


class GatewayHost(Protocol):
    """What the gateway reads of the fake Discord that holds it: named here rather than imported,
    so the gateway stays below the server that builds it."""

    token: str
    application_id: int
    application_flags: int
    bot_user: FakeUser
    guilds: dict[int, FakeGuild]

    @property
    def gateway_url(self) -> str: ...

    def bot_guilds(self) -> list[FakeGuild]: ...

    def notify(self) -> None: ...

    def record_error(self, kind: str, message: str) -> None: ...


class FakeGateway:
    """Gateway state for the single bot application of a FakeDiscord: one or more sessions."""

    def __init__(self, fake: GatewayHost) -> None:
        self.fake = fake
        self.heartbeat_interval_ms = 41250
        self.compress = False
        self.allowed_intents = (1 << 26) - 1
        self.max_guilds_per_shard: int | None = 2500  # more on one session: close 4011 Sharding Required
        self.session: GatewaySession | None = None  # the most recently identified session
        self.sessions: list[GatewaySession] = []  # every session identified, oldest first
        self.connections: list[GatewayConnection] = []
        self.identify_count = 0
        self.ready_count = 0  # READY sends, all sessions together
        self.ready_counts: Counter[ShardKey] = Counter()  # READY sends per (shard_id, shard_count)
        self.resume_count = 0
        self.heartbeat_count = 0
        self.last_identify: JSON | None = None
        self.last_connect_query: dict[str, str] = {}

    @property
    def connected(self) -> bool:
        return any(s.connected for s in self.sessions)

    @property
    def intents(self) -> int:
        return 0 if self.session is None else self.session.intents

    def live_sessions(self) -> list[GatewaySession]:
        """Sessions Discord still delivers to (connected, or disconnected but resumable)."""
        return [s for s in self.sessions if not s.invalidated]

    def sessions_for(self, shard_id: int, shard_count: int | None = None) -> list[GatewaySession]:
        """Live sessions of shard `shard_id` (of `shard_count`, or any count); unsharded counts as (0, 1)."""
        return [
            s
            for s in self.live_sessions()
            if s.shard_id == shard_id and (shard_count is None or s.shard_count == shard_count)
        ]

    def ready_count_for(self, shard_id: int | None, shard_count: int | None = None) -> int:
        """READYs sent to sessions of one shard (`None`: unsharded sessions; count None: any count)."""
        if shard_id is None:
            return self.ready_counts[None]
        return sum(
            n
            for key, n in self.ready_counts.items()
            if key is not None and key[0] == shard_id and (shard_count is None or key[1] == shard_count)
        )

    # -- dispatching --------------------------------------------------------------------

    def send(self, session: GatewaySession, event: str, data: JSON) -> None:
        """Dispatch to one session: numbered, logged for replay, written now if connected."""
        session.seq += 1
        session.log.append((session.seq, event, data))
        if session.conn is not None:
            session.conn.send(dispatch_frame(event, session.seq, data))

    def dispatch(
        self,
        event: str,
        data: JSON,
        *,
        intent: int | None = None,
        guild_id: int | None = None,
        without_content: JSON | None = None,
    ) -> list[GatewaySession]:
        """Queue a DISPATCH to every session Discord routes it to; buffered for replay if a socket is down.

        The event goes to the sessions whose shard owns `guild_id` (shard 0 when None) and that
        asked for `intent`. Sessions without the Message Content intent get `without_content`
        instead of `data` when it is given. Returns the sessions it went to (empty: nobody).
        """
        targets: list[GatewaySession] = []
        for session in self.sessions:
            if session.invalidated or not session.covers(guild_id):
                continue
            if intent is not None and not session.intents & intent:
                continue
            payload = data
            if without_content is not None and not session.intents & INTENT_MESSAGE_CONTENT:
                payload = without_content
            self.send(session, event, payload)
            targets.append(session)
        return targets

    # -- failure injection --------------------------------------------------------------

    def target(self, shard: int | None = None) -> GatewaySession:
        """The newest live connected session (of shard `shard` when given), for failure injection."""
        candidates = [s for s in self.live_sessions() if s.conn is not None]
        if shard is not None:
            candidates = [s for s in candidates if s.shard_id == shard]
        if not candidates:
            which = "" if shard is None else f" on shard {shard}"
            raise RuntimeError(f"the bot is not connected to the gateway{which}")
        return candidates[-1]

    async def drop(self, code: int = 4000, *, shard: int | None = None) -> None:
        """Close the socket without invalidating the session, so the client RESUMEs."""
        session = self.target(shard)
        conn, session.conn = session.conn, None
        assert conn is not None
        await conn.close(code)

    def send_reconnect(self, *, shard: int | None = None) -> None:
        """Send op 7 RECONNECT: the client should close and RESUME."""
        conn = self.target(shard).conn
        assert conn is not None
        conn.send({"op": OP_RECONNECT, "d": None})

    def invalidate(self, resumable: bool = False, *, shard: int | None = None) -> None:
        """Send op 9 INVALID_SESSION; non resumable makes the client IDENTIFY again."""
        session = self.target(shard)
        assert session.conn is not None
        if not resumable:
            session.invalidated = True
        session.conn.send({"op": OP_INVALID_SESSION, "d": resumable})

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
        conn.send({"t": None, "s": None, "op": OP_HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
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
            conn.send({"t": None, "s": None, "op": OP_HEARTBEAT_ACK, "d": None})
        elif op == OP_IDENTIFY:
            await self._identify(conn, data)
        elif op == OP_RESUME:
            await self._resume(conn, data)
        elif conn.session is None:
            self.fake.record_error("gateway", f"op {op} sent before IDENTIFY")
            await conn.close(4003)
        elif op == OP_REQUEST_GUILD_MEMBERS:
            self._request_members(conn.session, data)
        elif op in (OP_PRESENCE_UPDATE, OP_VOICE_STATE_UPDATE):
            pass
        else:
            self.fake.record_error("gateway", f"unknown gateway opcode {op}")
            await conn.close(4001)

    @staticmethod
    def _parse_shard(data: JSON) -> tuple[bool, ShardKey]:
        """(valid, key) of IDENTIFY's `shard`: absent is unsharded; Discord closes 4010 on a bad pair."""
        if "shard" not in data or data["shard"] is None:
            return True, None
        shard = data["shard"]
        if (
            not isinstance(shard, list)
            or len(shard) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in shard)
        ):
            return False, None
        shard_id, shard_count = shard
        if shard_count < 1 or not 0 <= shard_id < shard_count:
            return False, None
        return True, (shard_id, shard_count)

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
        valid, shard = self._parse_shard(data)
        if not valid:
            await conn.close(4010)  # Invalid Shard
            return
        fake = self.fake
        session = GatewaySession(session_id=new_token("s"), intents=intents, conn=conn, shard=shard)
        guilds = [g for g in fake.bot_guilds() if session.covers(g.id)]
        if self.max_guilds_per_shard is not None and len(guilds) > self.max_guilds_per_shard:
            await conn.close(4011)  # Sharding Required
            return
        self.identify_count += 1
        self.last_identify = data
        if shard is None:
            for old in self.sessions:
                if old.shard is None and not old.invalidated:
                    old.invalidated = True
                    if old.conn is not None and old.conn is not conn:
                        await old.conn.close(4009)
        conn.session = session
        session.guild_ids = [g.id for g in guilds]
        self.sessions.append(session)
        self.session = session
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
        if shard is not None:
            ready["shard"] = list(shard)
        self.send(session, "READY", ready)
        self.ready_count += 1
        self.ready_counts[shard] += 1
        for guild in guilds:
            self.send(session, "GUILD_CREATE", guild.gateway_payload())
        fake.notify()

    async def _resume(self, conn: GatewayConnection, data: Any) -> None:
        wanted = data.get("session_id") if isinstance(data, dict) else None
        session = next((s for s in self.sessions if s.session_id == wanted), None)
        if not isinstance(data, dict) or session is None or session.invalidated:
            conn.send({"t": None, "s": None, "op": OP_INVALID_SESSION, "d": False})
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
                conn.send(dispatch_frame(event, s, payload))
        session.conn = conn
        self.resume_count += 1
        self.send(session, "RESUMED", {"_trace": ["fake-discord"]})
        self.fake.notify()

    def _request_members(self, session: GatewaySession, data: Any) -> None:
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
        self.send(session, "GUILD_MEMBERS_CHUNK", chunk)
