"""Two bot processes, one shard each of two, sharing one PostgreSQL server: each serves its own
servers' games; one is killed mid-hand and started again; nothing is lost or doubled; a third
process for a shard already served is refused; the database holds both shards' results."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.store import open_store
from devkit.fake_discord import FakeDiscord
from devkit.fake_discord.bot_process import BotProcess
from devkit.fake_discord.pytest_plugin import BotRunner
from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import TEST_ENV, Spades, game_over_message
from tests.e2e.helpers.table import start_game
from tests.record_check import check_record


def shard_env(url: str, shard: int) -> dict[str, str]:
    return {**TEST_ENV, "DATABASE_URL": url, "SHARD_COUNT": "2", "SHARD_IDS": str(shard)}


async def test_two_shard_processes_share_one_database(fake_discord: FakeDiscord, bot_runner: BotRunner,
                                                      tmp_path: Path, pg_url: str) -> None:
    fake = fake_discord
    # A server on each shard, each with its own players and channel.
    worlds = [Spades(fake, bot_runner, tmp_path / f"unused{k}.db", shard=k, shard_count=2) for k in (0, 1)]
    assert [(w.guild.id >> 22) % 2 for w in worlds] == [0, 1]
    bots: list[BotProcess] = []
    for shard in (0, 1):  # one after the other: each waits for its own READY
        bots.append(await bot_runner(db_path=tmp_path / f"shard{shard}.db", extra_env=shard_env(pg_url, shard),
                                     log_path=tmp_path / f"shard{shard}.log"))
    assert "slash commands synced" in bots[0].log_text() and "synced" not in bots[1].log_text()

    # A third process for a shard already served is refused with one line.
    extra = await bot_runner(db_path=tmp_path / "extra.db", extra_env=shard_env(pg_url, 1), wait_ready=False,
                             log_path=tmp_path / "extra.log")
    assert await extra.wait_exit(30) == 2
    assert "shard 1 of 2 is already served by another bot process" in extra.log_text()

    tables = []
    for world in worlds:
        alice, bob, carol = world.member("Alice"), world.member("Bob"), world.member("Carol")
        tables.append(await start_game(world, world.channel("spades"), [alice, bob, carol], target=50, mercy=50))
    # Interactions of each server reached only the process of its shard.
    for world in worlds:
        shards = {s for inter in fake.interactions.values()
                  if inter.guild is not None and inter.guild.id == world.guild.id for s in inter.shards}
        assert shards == {((world.guild.id >> 22) % 2, 2)}, shards
    # The hand by direct message carries no button: no game action may depend on a click in a DM
    # (DM clicks would reach shard 0 only, while this game's server is on shard 1).
    dms = [m for u in tables[1].players for m in fake.dm_channels[u.id].messages.values()]
    assert dms and not any(m.buttons() for m in dms)

    await asyncio.gather(tables[0].play_moves(10), tables[1].play_moves(10))
    before = await worlds[1].record(tables[1].players[0], tables[1].channel)
    bots[1].kill()
    assert await bots[1].wait_exit() == -9
    await asyncio.gather(tables[0].play_moves(5), bots[1].restart())  # shard 0 goes on meanwhile
    after = await worlds[1].record(tables[1].players[0], tables[1].channel)
    assert after["hands"] == before["hands"]
    # Both games are unfinished, but the restarted process took up only its own shard's.
    assert "resumed 1 unfinished games" in bots[1].log_text().split("start #2")[-1]
    await tables[1].reopen_panels()

    await asyncio.gather(tables[0].play_moves(), tables[1].play_moves())
    for world, table in zip(worlds, tables, strict=True):
        over = await game_over_message(world, table.channel)
        record = await world.record(table.players[0], table.channel)
        check_record(record)
        assert record_moves(record) == table.acknowledged()  # none lost, none doubled
        assert over.attachments
        board = await world.command(table.players[1], table.channel, "leaderboard")
        assert sum(1 for line in board.content.splitlines() if line.startswith("#")) == 3
    # One database holds both shards' games, each rated on its own server's leaderboard.
    store = await open_store(pg_url)
    try:
        for world, table in zip(worlds, tables, strict=True):
            [summary] = await store.recent_games(world.guild.id, table.channel.id, limit=5)
            assert summary.info.status == "finished" and len(summary.results) == 3
            assert len(await store.leaderboard(world.guild.id, "cutthroat", "wins", min_games=0)) == 3
    finally:
        await store.close()
