"""Self-test of the fake Discord's nonces, injected faults and token lifetime, with PanelBot: what
passes here is what discord.py does with what the fake sends."""

from __future__ import annotations

import discord
import pytest

from devkit.fake_discord import models as m
from devkit.fake_discord.pytest_plugin import started_fake_discord
from tests.e2e.fake_selftest.clients import raw_request, running
from tests.e2e.fake_selftest.panel_bot import V2, HandPanel, PanelBot, Table, open_panel

pytestmark = pytest.mark.asyncio


# ------------------------------------------------------------------------------------- nonces


async def test_an_enforced_nonce_returns_the_earlier_message(table: Table) -> None:
    fake, channel = table.fake, table.text_channel()
    first = await channel.send("Hand 3 starts", nonce="hand-3")
    again = await channel.send("Hand 3 starts", nonce="hand-3")  # a retry after a lost answer
    assert again.id == first.id and first.nonce == "hand-3"
    assert [x.content for x in fake.visible_messages(table.owner, table.channel)] == ["Hand 3 starts"]

    elsewhere = fake.create_channel(table.guild, "other")
    await fake.wait_until(lambda: table.bot.get_channel(elsewhere.id), 2, "the new channel")
    other = await table.text_channel(elsewhere).send("Hand 3 starts", nonce="hand-3")
    assert other.id != first.id  # unique per channel
    plain = [await channel.send("no nonce of mine") for _ in range(2)]  # discord.py's random nonces
    assert plain[0].id != plain[1].id

    fake.delete_message(fake.messages[first.id])
    with pytest.raises(discord.NotFound):
        await channel.send("Hand 3 starts", nonce="hand-3")  # explicitly deleted shortly before

    with pytest.raises(discord.HTTPException) as info:
        await channel.send("too long", nonce="n" * 26)
    assert info.value.code == 50035 and "nonce" in info.value.text
    assert len(fake.take_errors(50035)) == 1

    fake.nonce_window = 0  # the earlier message is out of the window: a new one is created
    renewed = await channel.send("Hand 4 starts", nonce="plain-4")
    assert (await channel.send("Hand 4 starts", nonce="plain-4")).id != renewed.id


# --------------------------------------------------------------------------- injected failures


async def test_injected_failures_for_a_number_of_requests_or_a_while(table: Table) -> None:
    fake, channel = table.fake, table.text_channel()
    route = "POST /channels/{channel_id}/messages"
    rule = fake.fail_requests("POST", "/channels/{channel_id}/messages", 403, 50013, times=1)
    with pytest.raises(discord.Forbidden) as info:
        await channel.send("blocked")
    assert (info.value.status, info.value.code, info.value.text) == (403, 50013, "Missing Permissions")
    assert rule.hits == 1 and not rule.active
    await channel.send("allowed")

    before = fake.request_counts[route]
    outage = fake.fail_requests("*", "/channels/*", 503, seconds=600)
    with pytest.raises(discord.DiscordServerError):
        await channel.send("during the outage")  # discord.py does not retry a 503
    assert fake.request_counts[route] == before + 1 and outage.hits == 1
    outage.cancel()
    await channel.send("after the outage")

    fake.fail_requests("POST", "/channels/{channel_id}/messages", 502, times=1)
    retried = await channel.send("retried")  # discord.py retries a 502 once after sleeping 1 s
    statuses = [r.status for r in fake.requests if r.template == "/channels/{channel_id}/messages"][-2:]
    assert statuses == [502, 200] and retried.content == "retried"

    fake.fail_requests("POST", "*", 500, seconds=0)  # already over
    fake.fail_requests("GET", "/channels/{channel_id}/messages", 500)  # another method
    await channel.send("unaffected")
    fake.clear_failures()
    assert [x.content for x in fake.visible_messages(table.alice, table.channel)] == [
        "allowed",
        "after the outage",
        "retried",
        "unaffected",
    ]
    assert fake.errors == []


async def test_revoking_and_restoring_send_messages(table: Table) -> None:
    fake, channel = table.fake, table.text_channel()
    me = channel.guild.me
    fake.revoke_bot_permissions(table.channel)  # Send Messages by default
    await fake.wait_until(lambda: not channel.permissions_for(me).send_messages, 2, "CHANNEL_UPDATE")
    assert channel.permissions_for(me).view_channel
    with pytest.raises(discord.Forbidden) as info:
        await channel.send("nobody hears this")
    assert info.value.code == 50013
    inter, panel = await open_panel(table, table.alice)  # interaction responses need no Send Messages
    assert not int(inter.payload["app_permissions"]) & m.SEND_MESSAGES and panel.ephemeral

    fake.restore_bot_permissions(table.channel)
    await fake.wait_until(lambda: channel.permissions_for(me).send_messages, 2, "CHANNEL_UPDATE")
    assert table.channel.overwrites == {}
    await channel.send("back")


# ------------------------------------------------------------- token lifetime and private panels


async def test_expired_tokens_and_a_live_private_v2_panel(table: Table) -> None:
    fake = table.fake
    inter, panel = await open_panel(table, table.alice)
    assert panel.ephemeral and panel.flags & V2 and panel.visible_to is table.alice
    assert [b["custom_id"] for b in panel.buttons()] == ["pass", "card:AS", "card:KS"]  # nested ones
    assert panel.find_component("pass") == {**(panel.find_component("pass") or {}), "type": 2, "label": "Pass"}

    fake.expire_token(inter)  # as if 15 minutes had passed
    with pytest.raises(discord.HTTPException) as info:
        await table.bot.seen[inter.id].edit_original_response(view=HandPanel(("KS",)))
    assert (info.value.status, info.value.code) == (401, 50027)
    with pytest.raises(discord.HTTPException) as info:
        await table.bot.seen[inter.id].followup.send("late", ephemeral=True)
    assert (info.value.status, info.value.code) == (401, 50027)
    assert len(fake.take_errors(50027)) == 2

    click = await fake.click_button(table.alice, panel, "card:AS")  # a fresh token
    assert click.token != inter.token and not click.token_expired
    assert (await fake.wait_for_response(click)).type == 7
    assert panel.find_component("card:AS")["disabled"] and "Played: AS" in panel.text  # type: ignore[index]
    assert panel.ephemeral and panel.flags & V2 and panel.edited_at is not None

    passed = await fake.click_button(table.alice, panel, "pass")  # type 6, then PATCH @original
    assert (await fake.wait_for_response(passed)).type == 6
    await fake.wait_until(lambda: "passed" in panel.text, 2, "the webhook edit of the panel")
    assert panel.find_component("pass")["disabled"] and len(panel.edits) == 2  # type: ignore[index]

    status, body = await raw_request(
        fake,
        "PATCH",
        f"/webhooks/{fake.application_id}/{passed.token}/messages/@original",
        {"flags": 0, "components": panel.components},
        auth=False,
    )
    assert (status, body["code"], list(body["errors"])) == (400, 50035, ["flags"])  # V2 cannot be removed
    bad_section = [{"type": 9, "components": [{"type": 10, "content": "no accessory"}]}]
    status, body = await raw_request(
        fake,
        "PATCH",
        f"/webhooks/{fake.application_id}/{passed.token}/messages/@original",
        {"flags": V2, "components": bad_section},
        auth=False,
    )
    assert (status, body["code"]) == (400, 50035) and "accessory" in body["errors"]["components"]["0"]
    assert len(fake.take_errors(50035)) == 2 and "passed" in panel.text


async def test_token_lifetime_is_configurable() -> None:
    async with started_fake_discord(token_lifetime=0) as fake:
        bot = PanelBot()
        table = Table(fake, bot)
        async with running(fake, bot):
            inter, _ = await open_panel(table, table.alice)  # the initial response only needs the 3 s window
            with pytest.raises(discord.HTTPException) as info:
                await bot.seen[inter.id].edit_original_response(view=HandPanel(("AS",)))
            assert info.value.code == 50027
            assert len(fake.take_errors(50027)) == 1
