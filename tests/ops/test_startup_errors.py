"""Start-up failures an operator meets first: Discord out of reach exits 2 like every other failure
to start, and a database folder the bot may not write is named as such, not as a passing outage."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.store import StoreError, StoreUnavailable, open_store

NOBODY = 65534


async def test_discord_out_of_reach_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "DISCORD_TOKEN": "t", "DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10"}
    env.pop("DATABASE_URL", None)
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=tmp_path, env=env,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(proc.communicate(), 60)
    lines = err.decode().strip().splitlines()
    assert proc.returncode == 2, err.decode()
    assert len(lines) == 1 and lines[0].startswith("error: can't reach Discord"), lines
    assert list(tmp_path.iterdir()) == []  # no database before Discord answered


@pytest.fixture
def root_owned_folder() -> Iterator[Path]:
    """A folder anyone may enter but only its owner may write (pytest's own are private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="spades-unwritable-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _as_another_user(work: Callable[[], str]) -> str:
    """`work()` in a forked child whose effective user is `nobody`, so the folder's owner (root, in
    CI) is someone else and its permissions bite; what it returned. Everything it needs is imported
    already: the child could not read the interpreter's files under /root."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        code = 1
        signal.alarm(60)  # a child stuck on a lock some other thread held at the fork dies, and the test fails
        try:
            os.close(read_end)
            os.setgroups([])
            os.setegid(NOBODY)
            os.seteuid(NOBODY)
            with os.fdopen(write_end, "w") as answer:
                answer.write(work())
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end) as answer:
        said = answer.read()
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0, said
    return said


def test_a_folder_the_bot_may_not_write_says_permission_denied(root_owned_folder: Path) -> None:
    """The Docker image as the README ran it: DATABASE_URL=sqlite:///spades.db in a working folder
    owned by root, the bot running as another user."""

    def open_it() -> str:
        os.chdir(root_owned_folder)
        try:
            asyncio.run(open_store("sqlite:///spades.db"))
        except StoreError as error:
            return f"{type(error).__name__}|{isinstance(error, StoreUnavailable)}|{error}"
        return "opened"

    if os.geteuid() == 0:
        said = _as_another_user(open_it)
    else:
        root_owned_folder.chmod(0o555)
        with contextlib.ExitStack() as back:
            back.callback(os.chdir, os.getcwd())
            said = open_it()
    kind, unavailable, message = said.split("|", 2)
    assert (kind, unavailable) == ("StoreError", "False")  # not a passing outage
    assert message.startswith(f"can't open or create the database {root_owned_folder / 'spades.db'}: "
                              "permission denied")
    assert f"let it write in {root_owned_folder}" in message and "right now" not in message
    assert "sqlite:////data/spades.db" in message
    assert list(root_owned_folder.iterdir()) == []
