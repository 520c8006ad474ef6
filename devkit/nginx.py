"""A real nginx in front of a recording upstream, for testing HTTP clients against a real edge.

Why: the bot's own HTTP/1.1 client (bot/discord_ui/keepalive.py) misbehaved behind nginx 1.22
where it had passed against hand-written servers: a POST delivered six times, a hang on an empty
chunked answer. Only the real server closes kept connections, cuts requests short and frames
answers the way it does in production.

Plain functions first: `start_nginx(folder, upstream_port, ca)` writes a config of its own in
`folder` (no system config; pid, logs and temporary files there; `daemon off`, the master a
child of ours; as root, workers run as `nobody`) and starts Debian's `/usr/sbin/nginx`,
listening on 127.0.0.1 on two free ports: plain HTTP (`http_url`) and TLS (`https_url`, for
`localhost`, with a certificate from a throwaway `trustme` CA). It proxies to `upstream_port` on
127.0.0.1 over kept-alive HTTP/1.1 (WebSocket upgrades pass too) and closes its clients' idle
connections after `keepalive_timeout` seconds and each after `keepalive_requests` requests. Its
locations:
- any path: proxied to the upstream;
- `DROP` + anything: proxied; the upstream records the request (it "takes effect") and answers 418,
  which nginx turns into `return 444`: it closes the client's connection without a word;
- `BANNED`: nginx's own HTML 429, as Cloudflare's ban page (text/html, `Retry-After: 17`, no JSON,
  no X-RateLimit headers);
- `DOWN` + anything: proxied to a port nobody listens on: nginx's own HTML 502.
`Nginx.stop()` ends it (fast shutdown; killed, workers too, if that takes over 10 s).

`RecordingUpstream` is the upstream: HTTP/1.1 on 127.0.0.1, kept alive, recording each request
(`deliveries`: method, path, body) so tests can count them; it answers `{"n": <deliveries so
far>}` as JSON, and `EMPTY_CHUNKED` with a chunked answer of no bytes (`0\\r\\n\\r\\n` right after
the head).

Then pytest fixtures (import them into a conftest.py, as tests/edge/conftest.py does):
`nginx_ca` (the session's trustme.CA), `nginx_trust` (an ssl.SSLContext trusting it),
`recording_upstream` (a started RecordingUpstream on the test's loop), `nginx_factory`
(`nginx_factory(upstream_port, keepalive_timeout=1.0, keepalive_requests=3, extra_locations="")
-> Nginx`, each stopped at teardown) and `nginx` (one with those defaults in front of
`recording_upstream`). Where nginx is absent they skip with one line; under CI=true they fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import grp
import os
import pwd
import shutil
import signal
import socket
import ssl
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio
import trustme

from devkit.pg import _children, _make_reachable

NOT_FOUND = "nginx not found (/usr/sbin/nginx: Debian's nginx package)"
DROP = "/drop/"  # the upstream records the request, nginx closes the connection unanswered (444)
EMPTY_CHUNKED = "/empty-chunked"  # the upstream answers chunked, with no bytes
BANNED = "/banned"  # nginx's own HTML 429 with Retry-After
DOWN = "/down/"  # nginx's own HTML 502: nothing listens behind it
RETRY_AFTER = 17  # the ban page's Retry-After, in seconds
_DEAD_PORT = 1  # tcpmux: nothing listens there on a test machine
_PORT_TRIES = 5  # another suite may take a free port before nginx binds it
_STOP_WAIT = 10.0
_PR_SET_PDEATHSIG = 1


class NginxNotFound(RuntimeError):
    """No nginx binary on this machine."""


def find_nginx() -> Path | None:
    """nginx on PATH, or Debian's /usr/sbin/nginx (not on a normal user's PATH)."""
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    return Path(found) if os.access(found, os.X_OK) else None


# -- the upstream ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Delivery:
    """A request as the upstream received it."""

    method: str
    path: str
    body: bytes


@dataclass
class RecordingUpstream:
    """The server behind nginx; see the module's docstring for its answers."""

    port: int = 0
    connections: int = 0
    deliveries: list[Delivery] = field(default_factory=list)
    _server: asyncio.Server | None = None
    _open: dict[asyncio.StreamWriter, asyncio.Task[None]] = field(default_factory=dict)  # ended at stop

    def deliveries_to(self, path: str) -> list[Delivery]:
        return [delivery for delivery in self.deliveries if delivery.path == path]

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            serving = list(self._open.values())
            for writer in self._open:
                writer.close()  # its reader sees the end: the handler returns
            await asyncio.gather(*serving, return_exceptions=True)
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self._open[writer] = task
        try:
            while True:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
                method, path, _ = head.split(" ", 2)
                length = next((int(line.partition(":")[2]) for line in head.split("\r\n")
                               if line.lower().startswith("content-length:")), 0)
                self.deliveries.append(Delivery(method, path, await reader.readexactly(length)))
                writer.write(self._answer(path))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # nginx closed its kept connection
        finally:
            self._open.pop(writer, None)
            writer.close()

    def _answer(self, path: str) -> bytes:
        if path.startswith(DROP):
            return b"HTTP/1.1 418 Taken\r\nContent-Length: 0\r\n\r\n"
        if path == EMPTY_CHUNKED:
            return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        body = b'{"n": %d}' % len(self.deliveries)
        return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


# -- nginx ----------------------------------------------------------------------------------------

_BAN_PAGE = ("<!DOCTYPE html><html><head><title>Access denied | discord.com used Cloudflare to restrict access"
             "</title></head><body><h1>Error 1015</h1><p>You are being rate limited</p></body></html>")

_CONFIG = """\
daemon off;
master_process on;
worker_processes 1;
{user}
pid {folder}/nginx.pid;
error_log {folder}/error.log notice;
events {{ worker_connections 512; }}
http {{
    access_log {folder}/access.log;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    default_type application/octet-stream;
    client_max_body_size 32m;
    keepalive_timeout {keepalive_ms}ms;
    keepalive_requests {keepalive_requests};
    map $http_upgrade $connection_upgrade {{ default upgrade; "" ""; }}
    upstream app {{ server 127.0.0.1:{upstream_port}; keepalive 32; }}
    server {{
        listen 127.0.0.1:{http_port};
        listen 127.0.0.1:{https_port} ssl;
        server_name localhost;
        ssl_certificate {folder}/cert.pem;
        ssl_certificate_key {folder}/key.pem;
        proxy_http_version 1.1;
        proxy_set_header Host $http_host;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        location / {{ proxy_pass http://app; }}
        location {drop} {{ proxy_pass http://app; proxy_intercept_errors on; error_page 418 = @drop; }}
        location @drop {{ return 444; }}
        location = {banned} {{
            default_type text/html;
            add_header Retry-After {retry_after} always;
            return 429 '{ban_page}';
        }}
        location {down} {{ proxy_pass http://127.0.0.1:{dead_port}; }}
{extra_locations}
    }}
}}
"""


def _set_parent_death_signal() -> None:
    """In the child before exec: SIGTERM nginx if the test process dies, so none is left behind.
    (Linux sends it when the thread that started nginx ends: start it from one that lasts.)"""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class Nginx:
    """A running nginx of our own; see the module's docstring."""

    binary: Path
    folder: Path
    upstream_port: int
    keepalive_timeout: float
    keepalive_requests: int
    extra_locations: str = ""
    http_port: int = 0
    https_port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def https_url(self) -> str:
        return f"https://localhost:{self.https_port}"

    def processes(self) -> list[int]:
        """The master's pid and its workers', while it runs."""
        return [] if self.process is None else [self.process.pid, *_children(self.process.pid)]

    def error_log(self) -> str:
        path = self.folder / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _write_config(self) -> Path:
        worker = _worker_user()
        user = "" if worker is None else f"user {worker.pw_name} {grp.getgrgid(worker.pw_gid).gr_name};"
        config = self.folder / "nginx.conf"
        config.write_text(_CONFIG.format(
            user=user, folder=self.folder, keepalive_ms=round(self.keepalive_timeout * 1000),
            keepalive_requests=self.keepalive_requests, upstream_port=self.upstream_port, http_port=self.http_port,
            https_port=self.https_port, drop=DROP, banned=BANNED, retry_after=RETRY_AFTER, ban_page=_BAN_PAGE,
            down=DOWN, dead_port=_DEAD_PORT, extra_locations=self.extra_locations))
        return config

    def start(self) -> None:
        """Start on two free ports (others if someone took them meanwhile); return once both listen."""
        for attempt in range(_PORT_TRIES):
            self.http_port, self.https_port = _two_free_ports()
            config = self._write_config()
            (self.folder / "error.log").unlink(missing_ok=True)
            self.process = subprocess.Popen(
                [str(self.binary), "-p", str(self.folder), "-c", str(config), "-e", str(self.folder / "error.log")],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                preexec_fn=_set_parent_death_signal)
            if self._wait_listening():
                return
            if attempt + 1 == _PORT_TRIES or "Address already in use" not in self.error_log():
                raise RuntimeError(f"nginx did not start:\n{self.error_log()}")

    def _wait_listening(self) -> bool:
        """True once both ports take connections; False if nginx exited first."""
        assert self.process is not None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            if all(listening(port) for port in (self.http_port, self.https_port)):
                return True
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"nginx did not listen within 30 s:\n{self.error_log()}")

    def stop(self) -> None:
        """Fast shutdown (SIGTERM); after 10 s, SIGKILL for the master and its workers. Never fails."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        workers = self.processes()[1:]
        process.terminate()
        try:
            process.wait(_STOP_WAIT)
        except subprocess.TimeoutExpired:
            for pid in [process.pid, *workers]:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            process.wait()


def _two_free_ports() -> tuple[int, int]:
    """Two different ports on 127.0.0.1 that nothing listens on right now (both held while chosen)."""
    with socket.socket() as first, socket.socket() as second:
        first.bind(("127.0.0.1", 0))
        second.bind(("127.0.0.1", 0))
        return first.getsockname()[1], second.getsockname()[1]


def listening(port: int) -> bool:
    """Whether something takes connections on `port` of 127.0.0.1."""
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _worker_user() -> pwd.struct_passwd | None:
    """Whom nginx's workers run as: None (ourselves) unless we are root, then `nobody`."""
    return pwd.getpwnam("nobody") if os.geteuid() == 0 else None


def start_nginx(folder: Path, upstream_port: int, ca: trustme.CA, *, keepalive_timeout: float = 1.0,
                keepalive_requests: int = 3, extra_locations: str = "") -> Nginx:
    """A running nginx with its files in `folder`, in front of `upstream_port`; raises
    NginxNotFound without the binary. `extra_locations`: more `location` blocks for its server."""
    if keepalive_timeout <= 0 or keepalive_requests < 1:
        raise ValueError(f"keepalive_timeout must be positive ({keepalive_timeout}) and keepalive_requests at "
                         f"least 1 ({keepalive_requests})")
    binary = find_nginx()
    if binary is None:
        raise NginxNotFound(NOT_FOUND)
    worker = _worker_user()
    if worker is not None:
        _make_reachable(folder, worker)  # its workers write request bodies and big answers there
    else:
        folder.mkdir(parents=True, exist_ok=True)
    certificate = ca.issue_cert("localhost", "127.0.0.1")
    certificate.private_key_pem.write_to_path(str(folder / "key.pem"))
    (folder / "cert.pem").write_bytes(b"".join(blob.bytes() for blob in certificate.cert_chain_pems))
    nginx = Nginx(binary, folder, upstream_port, keepalive_timeout, keepalive_requests, extra_locations)
    nginx.start()
    return nginx


# -- pytest fixtures ------------------------------------------------------------------------------

NginxFactory = Callable[..., Nginx]


@pytest.fixture(scope="session")
def nginx_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="session")
def nginx_trust(nginx_ca: trustme.CA) -> ssl.SSLContext:
    """A client's TLS context that trusts nginx's certificate (and nothing else)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # checks the certificate and the host name
    nginx_ca.configure_trust(context)
    return context


@pytest_asyncio.fixture
async def recording_upstream() -> AsyncIterator[RecordingUpstream]:
    upstream = RecordingUpstream()
    await upstream.start()
    try:
        yield upstream
    finally:
        await upstream.stop()


@pytest.fixture
def nginx_factory(tmp_path: Path, nginx_ca: trustme.CA) -> Iterator[NginxFactory]:
    """`nginx_factory(upstream_port, keepalive_timeout=1.0, keepalive_requests=3, extra_locations="")`:
    a running Nginx; every one is stopped at teardown."""
    started: list[Nginx] = []

    def make(upstream_port: int, *, keepalive_timeout: float = 1.0, keepalive_requests: int = 3,
             extra_locations: str = "") -> Nginx:
        try:
            nginx = start_nginx(tmp_path / f"nginx{len(started)}", upstream_port, nginx_ca,
                                keepalive_timeout=keepalive_timeout, keepalive_requests=keepalive_requests,
                                extra_locations=extra_locations)
        except NginxNotFound as missing:
            if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
                pytest.fail(f"{missing}; CI must run the edge tests: install nginx")
            pytest.skip(f"{missing}; edge tests skipped")
        started.append(nginx)
        return nginx

    try:
        yield make
    finally:
        for nginx in started:
            nginx.stop()


@pytest.fixture
def nginx(nginx_factory: NginxFactory, recording_upstream: RecordingUpstream) -> Nginx:
    """An nginx with keepalive_timeout 1 s and keepalive_requests 3 in front of `recording_upstream`."""
    return nginx_factory(recording_upstream.port)
