"""Self-test of the fake Discord's transcripts: what each person sees of a channel, and every kind
of component rendered as text."""

from __future__ import annotations

import io
import re
from typing import Any

import discord
import pytest

from devkit.fake_discord import models as m
from tests.e2e.fake_selftest.clients import raw_request
from tests.e2e.fake_selftest.panel_bot import V2, Table, open_panel

pytestmark = pytest.mark.asyncio


def row(*components: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(components)}


# ------------------------------------------------------------------------- what a person sees


async def test_what_each_person_sees(table: Table) -> None:
    fake, channel = table.fake, table.text_channel()
    start = fake.checkpoint()
    secret = fake.create_channel(table.guild, "secret")
    fake.set_channel_overwrite(secret, table.alice, deny=m.VIEW_CHANNEL)
    await fake.wait_until(lambda: table.bot.get_channel(secret.id), 2, "the secret channel")
    welcome = await channel.send(f"Welcome {table.alice.mention} and {table.bob.mention} to {channel.mention}")
    _, alice_panel = await open_panel(table, table.alice)
    _, bob_panel = await open_panel(table, table.bob)
    click = await fake.click_button(table.alice, alice_panel, "card:AS")
    await fake.wait_for_response(click)
    member = channel.guild.get_member(table.alice.id) or await channel.guild.fetch_member(table.alice.id)
    await member.send("Your turn at #table")
    await table.text_channel(secret).send("hidden from Alice")
    gone = await channel.send("soon deleted")
    fake.delete_message(fake.messages[gone.id])
    middle = fake.checkpoint()
    embed = discord.Embed(title="Scores", description="Hand 1").add_field(name="Alice", value="52")
    await channel.send(embed=embed, file=discord.File(io.BytesIO(b'{"hands": []}'), "record.json"))

    seen = fake.visible_messages(table.alice, table.channel)
    assert [x.id for x in seen[:2]] == [welcome.id, alice_panel.id] and len(seen) == 3
    assert [x.id for x in fake.visible_messages(table.bob, table.channel)][:2] == [welcome.id, bob_panel.id]
    assert fake.visible_messages(table.alice, secret) == []
    assert fake.new_messages_for(table.alice, start) == 4  # welcome, panel, DM, scores
    assert fake.new_messages_for(table.alice, start, include_deleted=True) == 5
    assert fake.new_messages_for(table.bob, start) == 4  # welcome, panel, hidden, scores
    assert fake.new_messages_for(table.alice, middle) == 1

    def masked(text: str) -> str:
        return re.sub(r"\+0:\d\d\.\d\d\d", "+0:00.000", text)

    assert masked(fake.transcript(table.alice, width=72)) == ALICE_SEES
    assert masked(fake.transcript(table.bob, table.channel, since=middle)) == BOB_SEES_LATELY
    assert fake.transcript(table.alice, secret).endswith("(nothing)")


ALICE_SEES = """\
=== What Alice sees: all channels and DMs ===
── #table (Spades Club) ────────────────────────────────────────────────
+0:00.000  Spades Bot [APP]
           Welcome @Alice and @Bob to #table
+0:00.000  » Alice used /panel
+0:00.000  Spades Bot [APP]  ↳ Alice used /panel  (edited)  · only you can see this
           ┌────────────────────────────────────────
           │ ## Your hand
           │ Played: AS  [Pass]
           │ ────────────────────────────────────────
           │ (AS) [KS]
           └────────────────────────────────────────
+0:00.000  » Alice clicked [AS]
── DM with Spades Bot ──────────────────────────────────────────────────
+0:00.000  Spades Bot [APP]
           Your turn at #table
── #table (Spades Club) ────────────────────────────────────────────────
+0:00.000  Spades Bot [APP]
           ┃ **Scores**
           ┃ Hand 1
           ┃ Alice: 52
           [attachment: record.json, 13 bytes]"""

BOB_SEES_LATELY = """\
=== What Bob sees: #table (Spades Club) ===
+0:00.000  Spades Bot [APP]
           ┃ **Scores**
           ┃ Hand 1
           ┃ Alice: 52
           [attachment: record.json, 13 bytes]"""


async def test_transcript_renders_every_kind_of_component(table: Table) -> None:
    fake = table.fake
    start = fake.checkpoint()
    path = f"/channels/{table.channel.id}/messages"
    role = fake.create_role(table.guild, "Players")
    classic = {
        "content": f"{role.mention}: the table opens <t:0:f>. " + "Long words wrap at the width. " * 3,
        "components": [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 1, "label": "Play", "custom_id": "play", "emoji": {"name": "🂡"}},
                    {"type": 2, "style": 2, "label": "Undo", "custom_id": "undo", "disabled": True},
                    {"type": 2, "style": 5, "label": "Rules", "url": "https://example.invalid/rules"},
                ],
            },
            {
                "type": 1,
                "components": [
                    {
                        "type": 3,
                        "custom_id": "seat",
                        "placeholder": "Pick a seat",
                        "options": [{"label": "North", "value": "n"}, {"label": "East", "value": "e"}],
                    }
                ],
            },
        ],
    }
    layout = {
        "flags": V2,
        "components": [
            {
                "type": 17,
                "spoiler": True,
                "components": [
                    {
                        "type": 9,
                        "components": [{"type": 10, "content": "Trick 3"}],
                        "accessory": {"type": 11, "media": {"url": "https://cdn.invalid/a/trick.png"}},
                    },
                    {"type": 14, "divider": False},
                    {
                        "type": 12,
                        "items": [
                            {"media": {"url": "attachment://north.png"}, "description": "North's card"},
                            {"media": {"url": "https://cdn.invalid/east.png"}},
                        ],
                    },
                ],
            },
            {"type": 13, "file": {"url": "attachment://record.json"}},
        ],
    }
    for body in (classic, layout):
        status, _ = await raw_request(fake, "POST", path, body)
        assert status == 200
    await fake.send_user_message(table.alice, table.channel, f"gg {fake.bot_user.mention}")
    picker = fake.visible_messages(table.alice, table.channel)[0]
    await fake.select_option(table.alice, picker, "seat", ["e"])

    async def answer(inter: Any, body: dict[str, Any]) -> None:  # the test answers as the app would
        url = f"/interactions/{inter.id}/{inter.token}/callback?with_response=1"
        assert (await raw_request(fake, "POST", url, body, auth=False))[0] == 200

    thinking = await fake.send_slash_command(table.alice, table.channel, "think", strict=False)
    await answer(thinking, {"type": 5})
    bid = await fake.send_slash_command(table.alice, table.channel, "bid", strict=False)
    text_input = {"type": 4, "custom_id": "bid", "style": 1, "label": "Bid"}
    await answer(bid, {"type": 9, "data": {"custom_id": "bid", "title": "Your bid", "components": [row(text_input)]}})
    await fake.submit_modal(table.alice, bid, {"bid": "4"})
    lost = await fake.send_slash_command(table.alice, table.channel, "nothing", strict=False)
    fake.ack_window = 0  # nobody answered it in time: the client shows "This interaction failed"
    assert lost.response is None

    text = re.sub(r"\+0:\d\d\.\d\d\d", "+0:00.000", fake.transcript(table.alice, table.channel, since=start, width=60))
    assert text == RENDERED


RENDERED = """\
=== What Alice sees: #table (Spades Club) ===
+0:00.000  Spades Bot [APP]
           @Players: the table opens 1970-01-01 00:00:00
           UTC. Long words wrap at the width. Long words
           wrap at the width. Long words wrap at the width.
           [🂡 Play] (Undo) [Rules ↗]
           [▾ Pick a seat: North | East]
+0:00.000  Spades Bot [APP]
           ┌──────────────────────────────────────── (spoiler)
           │ Trick 3  [image: trick.png]
           │
           │ [image: North's card]
           │ [image: east.png]
           └────────────────────────────────────────
           [file: record.json]
+0:00.000  Alice
           gg @Spades Bot
+0:00.000  » Alice chose East in “Pick a seat”  ⚠ This interaction failed
+0:00.000  » Alice used /think
+0:00.000  Spades Bot [APP]  ↳ Alice used /think
           Spades Bot is thinking…
+0:00.000  » Alice used /bid
+0:00.000  » Alice submitted “Your bid”: bid='4'  ⚠ This interaction failed
+0:00.000  » Alice used /nothing  ⚠ This interaction failed"""
