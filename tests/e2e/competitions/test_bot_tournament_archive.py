"""The last round's tables are archived only once everything their games owe is out: the edit that
turns a table into its last hand's summary reaches the thread before it is archived (the fake, as
Discord, refuses edits in an archived thread)."""

from __future__ import annotations

import asyncio
import re

import pytest

from devkit.fake_discord import FakeChannel, FakeMessage
from tests.e2e.helpers.hostile import leaks
from tests.e2e.helpers.server import Spades
from tests.e2e.helpers.table import Table
from tests.e2e.helpers.tournament import FAST, GAME_FOOTER, is_podium, signed_up

SUMMARY = re.compile(r"^### Hand (\d+) scored", re.MULTILINE)


def _summaries(thread: FakeChannel) -> set[int]:
    return {int(m[1]) for message in thread.messages.values() if not message.deleted
            for m in [SUMMARY.search(message.text)] if m is not None}


async def _round(spades: Spades, channel: FakeChannel, number: int) -> Table:
    fake = spades.fake
    [thread] = await fake.wait_until(
        lambda: [t for t in fake.threads_of(channel) if (t.name or "").startswith(f"Round {number} ")] or None,
        15, f"round {number}'s thread")
    table_message: FakeMessage = await fake.wait_for_message(thread, lambda m: GAME_FOOTER.search(m.text) is not None)
    welcome = await fake.wait_for_message(thread, lambda m: "your table for round" in m.content)
    footer = GAME_FOOTER.search(table_message.text)
    assert footer is not None
    players = [u for u in fake.users.values() if f"<@{u.id}>" in welcome.content]
    table = Table(spades, thread, players, game_id=footer[1])
    await table.wait_table(lambda m: "to bid" in m.text or "to play" in m.text, "the table")
    table.read_seats()
    return table


@pytest.mark.parametrize("bot_env", [FAST])
async def test_the_last_rounds_summaries_are_out_before_its_thread_is_archived(spades: Spades) -> None:
    fake = spades.fake
    players = [spades.member(name) for name in ("Ann", "Ben", "Cat", "Dan")]
    channel = spades.channel("tourney")
    organiser = spades.member("Olga")
    await signed_up(spades, channel, organiser, players, rounds=2, mode="solo")
    await spades.command(organiser, channel, "tournament start")
    tables = []
    for number in (1, 2):
        table = await _round(spades, channel, number)
        await table.play_moves()
        tables.append(table)
    await fake.wait_for_message(channel, is_podium, timeout=20)
    await fake.wait_until(lambda: all(t.channel.archived for t in tables), 15, "both threads archived")
    for table in tables:
        record = await spades.record(table.players[0], channel, table.game_id)
        hands = len(record["hands"])
        assert _summaries(table.channel) == set(range(1, hands + 1)), (table.channel, _summaries(table.channel))
        assert table.find_table() is None  # the last table became its summary: nothing left to press
    await asyncio.sleep(0.2)
    assert spades.bot is not None
    log = spades.bot.log_text()
    assert " ERROR " not in log, log[-3000:]
    assert not leaks(fake), leaks(fake)  # no raw id nor markup anywhere in what the tournament said
