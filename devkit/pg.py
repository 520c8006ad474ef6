"""A real PostgreSQL server for tests and benchmarks, started in a temporary directory.

Plain functions first, for any test package or benchmark: `start_postgres(tmp_dir)` runs `initdb`
and `pg_ctl` (as the unprivileged `postgres` or `nobody` user when run as root, since the server
refuses to run as root), listening only on 127.0.0.1 on a free port, with password authentication;
the `PgServer` it returns hands out databases (`create_database`, `url_for`) and is stopped with
`discard()` at teardown. A throwaway test cluster needs no durability, and paying for it made the
suite fail under load (a checkpoint syncing 25,000 files took 65 s at `pg_ctl stop`): by default the
server runs with fsync, synchronous commits and full-page writes off, and `discard()` stops it at
once and never fails; `durable=True` keeps the server's crash-safe defaults, for the durability test
and for benchmarks.

Then pytest fixtures (import them all into a conftest.py, as tests/store/conftest.py does):
`pg_server` (one server per session; skips with one line where no PostgreSQL binaries are found,
fails under CI=true, which must run them), `pg_template` (a database migrated to the store's
latest schema), `pg_url` (a fresh copy of it per test, from `pg_fresh_databases`: CREATE DATABASE
... TEMPLATE is far quicker than migrating each time), `pg_empty_url`, `pg_own_server` (a
server of the test's own, to stop or reconfigure) and `pg_durable_server` (the same, crash-safe).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bot.store import open_store

T = TypeVar("T")
log = logging.getLogger(__name__)

NOT_FOUND = "PostgreSQL server binaries not found (initdb); PostgreSQL store tests skipped"
USER = "spades"
PASSWORD = "spades-test-password"
_SERVER_USERS = ("postgres", "nobody")  # whom to run the server as when the tests run as root
_TOOLS = ("initdb", "pg_ctl", "postgres", "psql")
# A throwaway cluster: nothing is worth an fsync, and a stop must not wait for a checkpoint.
_THROWAWAY = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
_PORT_TRIES = 5  # another suite beside this one may take the free port before the server binds it


class PostgresNotFound(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


def find_bindir() -> Path | None:
    """Where initdb, pg_ctl, postgres and psql are: `pg_config --bindir`, the newest
    /usr/lib/postgresql/*/bin, or the folder of an `initdb` on PATH."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        found = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        candidates.append(Path(found.stdout.strip()))
    versions = Path("/usr/lib/postgresql").glob("*/bin")
    candidates += sorted(versions, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0, reverse=True)
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).resolve().parent)
    for folder in candidates:
        if all(os.access(folder / tool, os.X_OK) for tool in _TOOLS):
            return folder
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _server_user() -> pwd.struct_passwd | None:
    """The user the server runs as: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in _SERVER_USERS:
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise PostgresNotFound(f"running as root, and none of the users {_SERVER_USERS} exists to run PostgreSQL as")


def _make_reachable(folder: Path, user: pwd.struct_passwd) -> None:
    """Let `user` reach `folder`: search permission on each ancestor that denies it (pytest's own
    temporary folders are private to root), and the folder itself."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chown(folder, user.pw_uid, user.pw_gid)
    for ancestor in folder.parents:
        mode = ancestor.stat().st_mode
        if not mode & 0o001:
            ancestor.chmod(mode | 0o001)


@dataclass
class PgServer:
    """A running server of our own; its superuser `USER` authenticates with `PASSWORD`."""

    bindir: Path
    folder: Path
    port: int
    run_as: pwd.struct_passwd | None
    durable: bool = False

    @property
    def data_dir(self) -> Path:
        return self.folder / "data"

    def url_for(self, dbname: str) -> str:
        return f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{dbname}"

    def _run(self, *command: str) -> subprocess.CompletedProcess[str]:
        """A server tool, as `run_as` if set (runuser, or setpriv where there is no runuser)."""
        prefix: list[str] = []
        user = self.run_as
        if user is not None and shutil.which("runuser"):
            prefix = ["runuser", "-u", user.pw_name, "--"]
        elif user is not None:
            prefix = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--"]
        return subprocess.run(
            [*prefix, *command], capture_output=True, text=True, check=True, cwd=self.folder, timeout=120
        )

    def sql(self, statement: str, dbname: str = "postgres") -> str:
        """Run one statement with psql as the superuser; its output, unaligned."""
        done = subprocess.run(
            [str(self.bindir / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
             "-p", str(self.port), "-U", USER, "-d", dbname, "-c", statement],
            capture_output=True, text=True, check=True, timeout=120, env={**os.environ, "PGPASSWORD": PASSWORD},
        )  # fmt: skip
        return done.stdout

    def create_database(self, name: str, template: str | None = None) -> str:
        """A new, empty database (or a copy of `template`); its URL. A template still being let go of
        by a client that just disconnected is waited for."""
        statement = f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")
        for attempt in itertools.count():
            try:
                self.sql(statement)
                return self.url_for(name)
            except subprocess.CalledProcessError as error:
                if "is being accessed by other users" not in error.stderr or attempt >= 50:
                    raise RuntimeError(f"{statement} failed: {error.stderr.strip()}") from error
                time.sleep(0.1)
        raise AssertionError("unreachable")

    def start(self) -> None:
        """Start on `port`, or on another free port if someone took it meanwhile."""
        for attempt in range(_PORT_TRIES):
            options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories=''"
                       f" -c max_connections=300 {'' if self.durable else _THROWAWAY}")
            try:
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-l",
                          str(self.folder / "server.log"), "-o", options, "-w", "-t", "60", "start")
                return
            except subprocess.CalledProcessError:
                if attempt + 1 == _PORT_TRIES or not self._port_was_taken():
                    raise
                self.port = free_port()

    def _port_was_taken(self) -> bool:
        server_log = self.folder / "server.log"
        log_text = server_log.read_text(errors="replace") if server_log.exists() else ""
        return "Address already in use" in log_text or "could not bind" in log_text

    def stop(self) -> None:
        """Shut down cleanly (sessions are ended, committed work kept), as an outage in a test
        would; nothing to do if it isn't running."""
        if (self.data_dir / "postmaster.pid").exists():
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "-t", "60", "stop")

    def discard(self) -> None:
        """Teardown: stop at once (`-m immediate`, no checkpoint: nothing here is kept) and delete
        the folder. A slow or failed stop is logged and the postmaster killed: never an error."""
        if (self.data_dir / "postmaster.pid").exists():
            try:
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data_dir), "-m", "immediate", "-w", "-t", "30",
                          "stop")  # fmt: skip
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
                log.warning("PostgreSQL test server in %s did not stop (%s); killing it", self.folder, error)
                self.kill()
        shutil.rmtree(self.folder, ignore_errors=True)  # a database per test adds up to a gigabyte or so

    def kill(self) -> None:
        """SIGKILL the postmaster and its backends, as a crash of the server would; returns once
        they are gone (a backend left behind would keep a new server from starting)."""
        pid_file = self.data_dir / "postmaster.pid"
        try:
            postmaster = int(pid_file.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return
        doomed = [postmaster, *_children(postmaster)]
        for pid in doomed:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for _ in range(200):
            if not any(_alive(pid) for pid in doomed):
                break
            time.sleep(0.05)
        # A killed postmaster may stay a zombie where nothing reaps orphans (PID 1 of a container),
        # and the server takes its pid file for a live postmaster: remove it, as an operator would.
        with contextlib.suppress(FileNotFoundError):
            pid_file.unlink()


def _children(parent: int) -> list[int]:
    """The processes whose parent is `parent` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == parent:
                found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):  # a zombie waiting for its parent counts as gone
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    return False


def start_postgres(tmp_dir: Path, *, durable: bool = False) -> PgServer:
    """A new server with its data in `tmp_dir`, running; raises PostgresNotFound without binaries.
    `durable` keeps the server's crash-safe defaults (fsync on); the default is a throwaway server."""
    bindir = find_bindir()
    if bindir is None:
        raise PostgresNotFound(NOT_FOUND)
    run_as = _server_user()
    folder = tmp_dir / "postgresql"
    if run_as is not None:
        _make_reachable(folder, run_as)
    else:
        folder.mkdir(parents=True, exist_ok=True)
    password_file = folder / "password"
    password_file.write_text(PASSWORD + "\n")
    if run_as is not None:
        os.chown(password_file, run_as.pw_uid, run_as.pw_gid)
    server = PgServer(bindir, folder, free_port(), run_as, durable)
    server._run(str(bindir / "initdb"), "-D", str(server.data_dir), f"--username={USER}", f"--pwfile={password_file}",
                "--auth=scram-sha-256", "--encoding=UTF8", "--no-locale")  # fmt: skip
    password_file.unlink()
    server.start()
    return server


def run_elsewhere(work: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to the end on a loop of its own on another thread, from sync code that may be
    called while a test's loop runs (a fixture, a helper that damages a database)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, work).result()


def migrate_database(url: str) -> None:
    """Bring a database to the store's latest schema."""

    async def migrate() -> None:
        await (await open_store(url)).close()

    run_elsewhere(migrate())


# -- pytest fixtures ------------------------------------------------------------------------------

_databases = itertools.count(1)


def _start_or_skip(tmp_dir: Path, *, durable: bool = False) -> PgServer:
    try:
        return start_postgres(tmp_dir, durable=durable)
    except PostgresNotFound as missing:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{missing}; CI must run the PostgreSQL tests: install the PostgreSQL server")
        pytest.skip(str(missing))


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    server = _start_or_skip(tmp_path_factory.mktemp("pg"))
    yield server
    server.discard()


@pytest.fixture
def pg_own_server(tmp_path: Path) -> Iterator[PgServer]:
    """A server for this test alone, to stop, start or reconfigure under a running store."""
    server = _start_or_skip(tmp_path)
    yield server
    server.discard()


@pytest.fixture
def pg_durable_server(tmp_path: Path) -> Iterator[PgServer]:
    """A server for this test alone with PostgreSQL's crash-safe settings, for the durability test."""
    server = _start_or_skip(tmp_path, durable=True)
    yield server
    server.discard()


class FreshDatabases:
    """Copies of a template, each made on a thread while the test before runs: a copy takes the
    server a fifth of a second or so, mostly writing and syncing its log."""

    def __init__(self, server: PgServer, template: str) -> None:
        self._server = server
        self._template = template
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="fresh-database")
        self._next = self._thread.submit(self._copy)

    def _copy(self) -> str:
        return self._server.create_database(f"test_{next(_databases)}", template=self._template)

    def take(self) -> str:
        url = self._next.result()
        self._next = self._thread.submit(self._copy)
        return url

    def close(self) -> None:
        self._next.cancel()
        self._thread.shutdown()


@pytest.fixture(scope="session")
def pg_template(pg_server: PgServer) -> str:
    """The name of a database at the store's latest schema, to copy."""
    migrate_database(pg_server.create_database("spades_template"))
    return "spades_template"


@pytest.fixture(scope="session")
def pg_fresh_databases(pg_server: PgServer, pg_template: str) -> Iterator[FreshDatabases]:
    supply = FreshDatabases(pg_server, pg_template)
    yield supply
    supply.close()


@pytest.fixture
def pg_url(pg_fresh_databases: FreshDatabases) -> str:
    """A fresh database at the latest schema, for this test alone."""
    return pg_fresh_databases.take()


@pytest.fixture
def pg_empty_url(pg_server: PgServer) -> str:
    """A new database without a table, for tests of migrating one."""
    return pg_server.create_database(f"empty_{next(_databases)}")
