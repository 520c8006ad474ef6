"""The load benchmark's world: the fake Discord, its tables (channels of three scripted people) and
the bot processes of one configuration, started and stopped together (`bench_load.py`)."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from load_players import SHORT_GAMES, LoadDiscord, Table, Tally

from devkit.fake_discord import BotProcess
from devkit.fake_discord.ratelimits import DISCORD_LIMITS, NO_LIMITS

CONFIGS = {"sqlite-1": ("sqlite", 1), "pg-1": ("pg", 1), "pg-2shards": ("pg", 2)}
PG_MISSING = "PostgreSQL configurations need devkit/pg.py (the PostgreSQL store)"
TABLES_PER_GUILD = 10  # servers with a few game channels each, spread over the shards
PLAYERS = 3
BOT_ENV = {"BOT_MOVE_DELAY": "0", "HAND_PAUSE": "0", "LOG_LEVEL": "WARNING"}


class Unavailable(Exception):
    """A configuration can't run here; the message is the one line the user sees."""


def cpu_seconds(pid: int | None) -> float | None:
    """CPU time a process has used so far (Linux), to tell a busy bot from a busy machine."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


@dataclass
class World:
    """The fake, its tables (channels of three people) and the bot processes of one configuration."""

    fake: LoadDiscord
    tables: list[Table]
    tally: Tally
    bots: list[BotProcess] = field(default_factory=list)
    database: str = ""
    log_errors: list[str] = field(default_factory=list)  # error lines of the bots' logs, once stopped

    def bot_cpu(self) -> list[float | None]:
        return [cpu_seconds(bot.proc.pid if bot.proc is not None else None) for bot in self.bots]


def sqlite_url(folder: Path, synchronous: str) -> str:
    return f"sqlite:///{folder / 'load.sqlite3'}?synchronous={synchronous}"


def postgres_url(folder: Path, stack: contextlib.ExitStack) -> str:
    """A throwaway PostgreSQL server and database (stopped when `stack` closes)."""
    try:
        from devkit.pg import start_postgres
    except ModuleNotFoundError as missing:
        if missing.name != "devkit.pg":
            raise
        raise Unavailable(PG_MISSING) from None
    try:
        server = start_postgres(folder / "pg", durable=True)  # as in production
    except Exception as error:  # no server binaries, or it wouldn't start: say so in one line
        raise Unavailable(f"PostgreSQL didn't start: {str(error).splitlines()[0] if str(error) else error!r}") \
            from None
    stack.callback(server.discard)
    url: str = server.create_database("load")
    return url


@contextlib.asynccontextmanager
async def running(args: argparse.Namespace, table_count: int, baseline: Path | None = None,
                  side_first: bool = False) -> AsyncIterator[World]:
    """Start the fake, create `table_count` tables, start the configuration's bots (from `baseline`,
    a checkout of older code, against a fake without limits; with `args.side_root`, one of two
    processes from that checkout: the second, or the first if `side_first`); stop them all after."""
    synchronous, log_path = args.synchronous, args.log
    backend, processes = CONFIGS[args.config]
    tally = Tally()
    limits = NO_LIMITS if args.no_limits or baseline is not None else DISCORD_LIMITS
    fake = LoadDiscord(recommended_shards=processes, rest_latency=args.rest_latency_ms / 1000, **limits)
    await fake.start()
    world = World(fake, [], tally)
    with tempfile.TemporaryDirectory() as name, contextlib.ExitStack() as stack:
        folder = Path(name)
        try:
            url = sqlite_url(folder, synchronous) if backend == "sqlite" else postgres_url(folder, stack)
            world.database = url.split("@")[-1] if backend == "pg" else f"sqlite:///<tmp>?synchronous={synchronous}"
            owner = fake.create_user("Owner")
            guild = None
            for n in range(table_count):
                if n % TABLES_PER_GUILD == 0:
                    shard = (n // TABLES_PER_GUILD) % processes
                    guild = fake.create_guild(f"Club {n // TABLES_PER_GUILD}", owner,
                                              shard=shard if processes > 1 else None,
                                              shard_count=processes if processes > 1 else None)
                assert guild is not None
                users = [fake.create_user(f"p{n}_{k}") for k in range(PLAYERS)]
                for user in users:
                    fake.add_member(guild, user)
                world.tables.append(Table(fake, fake.create_channel(guild, f"spades-{n}"), users, tally,
                                         SHORT_GAMES if args.game_target is None else {"target": args.game_target}))
            for k in range(processes):
                env = {**BOT_ENV, "DATABASE_URL": url, "REFRESH_INTERVAL": str(args.refresh_interval)}
                if processes > 1:
                    env.update({"SHARD_COUNT": str(processes), "SHARD_IDS": str(k)})
                side = args.side_root is not None and k == (0 if side_first else 1)
                root = args.side_root if side else baseline or args.bot_root
                bot = BotProcess(fake, folder / f"bot{k}.sqlite3", env, cwd=root)  # the path names its log only
                world.bots.append(bot)
                await bot.start()  # one after the other: the first migrates the database
                await bot.wait_ready(120.0)
            yield world
        finally:
            for bot in world.bots:
                await bot.stop()
            logs = [bot.log_text() for bot in world.bots]
            if log_path is not None:
                with log_path.open("a") as log_file:
                    log_file.write("\n".join(logs))
            world.log_errors = [line for log in logs for line in log.splitlines()
                                if " ERROR " in line or "Traceback" in line]
            await fake.stop()
            gc.unfreeze()  # the next rate's world starts afresh: let this one's heap go


def quiet_collector() -> None:
    """The fake keeps every message it has seen, so full collections of this process's growing heap
    stalled it for up to 0.6 s at a time, and every ack in flight was counted that much slower.
    Young garbage is still collected; what exists now is kept out of every collection."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(700, 10, 1_000_000_000)
