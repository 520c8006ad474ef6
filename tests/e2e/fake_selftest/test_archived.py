"""The fake refuses, as Discord does, to edit a message in an archived thread (400, 50083); a new
message reopens the thread."""

from __future__ import annotations

import discord
import pytest

from tests.e2e.fake_selftest.panel_bot import Table


async def test_an_archived_threads_messages_cannot_be_edited_until_it_reopens(table: Table) -> None:
    fake, channel = table.fake, table.text_channel()
    call = await channel.send("Round 1 · Table 1")
    thread = await call.create_thread(name="Round 1 · Table 1")
    summary = await thread.send("the table")
    await thread.edit(archived=True)
    await fake.wait_until(lambda: fake.channels[thread.id].archived, 2, "the thread archived")

    with pytest.raises(discord.HTTPException) as refused:
        await summary.edit(content="### Hand 3 scored")
    assert refused.value.status == 400 and refused.value.code == 50083
    assert len(fake.take_errors(50083)) == 1
    assert fake.messages[summary.id].content == "the table"  # unchanged

    await thread.send("a new message reopens it")
    assert not fake.channels[thread.id].archived
    await summary.edit(content="### Hand 3 scored")
    assert fake.messages[summary.id].content == "### Hand 3 scored"
