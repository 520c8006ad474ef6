"""Self-test of the fake Discord: a real discord.py bot, in-process, talks to it; here what it
receives and answers: slash commands, deferrals, autocomplete, buttons, components V2, modals,
selects, direct messages and files.

If these pass, end-to-end tests of the real bot can trust that what works against the fake
is what discord.py does against Discord (same routes, payloads, acks, errors and retries).
"""

from __future__ import annotations

import aiohttp
import discord
import discord.gateway
import discord.http
import pytest

from tests.e2e.fake_selftest.clients import Env, raw_request

pytestmark = pytest.mark.asyncio


async def test_login_ready_guild_and_command_sync(env: Env) -> None:
    fake, bot = env.fake, env.bot
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    assert bot.application_id == fake.application_id
    guild = bot.get_guild(env.guild.id)
    assert guild is not None and not guild.unavailable
    assert guild.me is not None and guild.me.guild_permissions.send_messages
    assert guild.get_channel(env.channel.id) is not None
    assert fake.gateway.identify_count == 1

    spades, reset_cmd = fake.registered_commands()
    assert spades["name"] == "spades"
    assert reset_cmd["default_member_permissions"] == str(discord.Permissions(manage_guild=True).value)
    assert reset_cmd["contexts"] == [0]
    subs = {o["name"]: o for o in spades["options"]}
    assert subs["play"]["type"] == 1
    assert subs["play"]["options"][0] == {**subs["play"]["options"][0], "type": 3, "autocomplete": True}
    assert [o["type"] for o in subs["start"]["options"]] == [4, 5]
    assert spades["default_member_permissions"] is None

    bot.tree.copy_global_to(guild=discord.Object(env.guild.id))
    synced = await bot.tree.sync(guild=discord.Object(env.guild.id))
    assert [c.name for c in synced] == ["spades", "reset"]
    assert fake.registered_commands(env.guild)[0]["guild_id"] == str(env.guild.id)


async def test_wrong_token_is_rejected(env: Env) -> None:
    client = discord.Client(intents=discord.Intents.none())
    with pytest.raises(discord.LoginFailure):
        await client.login("not-the-token")
    await client.close()


async def test_slash_command_ephemeral_reply_and_ack_latency(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="play", options={"card": "AS"})
    assert inter.data["options"][0] == {
        "name": "play",
        "type": 1,
        "options": [{"name": "card", "type": 3, "value": "AS"}],
    }
    response = await fake.wait_for_response(inter)
    assert response.type == 4 and response.ephemeral
    assert response.message is not None and response.message.content == "You played AS"
    assert response.message.visible_to is env.alice and response.message.ephemeral
    assert inter.ack_latency is not None and 0 <= inter.ack_latency < 1
    assert fake.ack_latencies == [inter.ack_latency]
    status, history = await raw_request(fake, "GET", f"/channels/{env.channel.id}/messages")
    assert status == 200 and history == []  # ephemeral messages are not in the channel


async def test_defer_followups_and_edit_original(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(
        env.alice, env.channel, "spades", subcommand="start", options={"players": 4, "public": True}
    )
    response = await fake.wait_for_response(inter)
    assert response.type == 5 and not response.ephemeral
    original = await fake.wait_for_original(inter, lambda m: m.content.endswith("(ready)"))
    assert original.content == "Table for 4 (ready)" and not original.ephemeral
    assert [v["content"] for v in original.history] == ["", "Table for 4", "Table for 4 (ready)"]
    second = await fake.wait_for_followup(inter, lambda m: m.content == "second follow-up")
    assert second.ephemeral and second.visible_to is env.alice
    assert inter.followups == [original, second]  # the first follow-up replaced the placeholder
    public = await fake.wait_for_message(env.channel, lambda m: "Table for 4" in m.content)
    assert public is original

    private = await fake.send_slash_command(env.bob, env.channel, "spades", subcommand="start", options={"players": 3})
    msg = await fake.wait_for_original(private, lambda m: m.content.endswith("(ready)"))
    assert msg.ephemeral and msg.visible_to is env.bob


async def test_autocomplete(env: Env) -> None:
    inter = await env.fake.send_autocomplete(
        env.alice, env.channel, "spades", subcommand="play", options={"card": "a"}, focused="card"
    )
    assert inter.data["options"][0]["options"][0] == {
        "name": "card",
        "type": 3,
        "value": "a",
        "focused": True,
    }
    response = await env.fake.wait_for_response(inter)
    assert response.type == 8
    assert [c["value"] for c in response.choices] == ["AS", "AH", "AD", "AC"]


async def test_dynamic_button_and_ephemeral_button(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="table")
    table_msg = (await fake.wait_for_response(inter)).message
    assert table_msg is not None and table_msg.custom_ids() == ["join:7"]

    click = await fake.click_button(env.bob, table_msg, "join:7")
    assert click.payload["data"] == {"custom_id": "join:7", "component_type": 2}
    joined = await fake.wait_for_response(click)
    assert joined.type == 4 and joined.message is not None and joined.message.ephemeral
    assert joined.message.content == "joined 7" and env.events.joined == [7]

    with pytest.raises(PermissionError):
        await fake.click_button(env.alice, joined.message, "leave:7")  # not alice's ephemeral
    leave = await fake.click_button(env.bob, joined.message, "leave:7")
    assert leave.payload["message"]["flags"] & 64
    update = await fake.wait_for_response(leave)
    assert update.type == 7 and update.message is joined.message
    assert joined.message.content == "left 7" and joined.message.components == []


async def test_components_v2_layout(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="layout")
    msg = (await fake.wait_for_response(inter)).message
    assert msg is not None and msg.flags & (1 << 15) and msg.content == ""
    assert "## Table 9" in msg.text and msg.custom_ids() == ["join:9"]
    click = await fake.click_button(env.bob, msg, "join:9")
    assert (await fake.wait_for_response(click)).message.content == "joined 9"  # type: ignore[union-attr]


async def test_modal_roundtrip(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="bid")
    response = await fake.wait_for_response(inter)
    assert response.type == 9 and response.modal is not None and response.modal["title"] == "Your bid"
    with pytest.raises(ValueError):
        await fake.submit_modal(env.alice, inter, {})  # the bid is required
    submit = await fake.submit_modal(env.alice, inter, {"bid": "4"})
    answer = await fake.wait_for_response(submit)
    assert answer.message is not None and answer.message.content == "bid 4"


async def test_dm_and_closed_dms(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(
        env.alice, env.channel, "spades", subcommand="invite", options={"player": env.bob}
    )
    assert str(env.bob.id) in inter.data["resolved"]["users"]
    dm = await fake.wait_for_dm(env.bob, lambda m: "invites you" in m.content)
    assert dm.author is fake.bot_user and dm.channel.recipient is env.bob
    assert (await fake.wait_for_response(inter)).message.content == "invited bob"  # type: ignore[union-attr]

    dm_inter = await fake.send_slash_command(
        env.bob, fake.dm_channel(env.bob), "spades", subcommand="play", options={"card": "AD"}
    )
    assert "user" in dm_inter.payload and "member" not in dm_inter.payload
    assert (await fake.wait_for_response(dm_inter)).message.channel.is_dm  # type: ignore[union-attr]

    fake.fail_dms_for(env.alice)
    inter = await fake.send_slash_command(
        env.bob, env.channel, "spades", subcommand="invite", options={"player": env.alice}
    )
    response = await fake.wait_for_response(inter)
    assert response.ephemeral and env.events.forbidden_codes == [50007]


async def test_files_in_interaction_response(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="upload")
    msg = (await fake.wait_for_response(inter)).message
    assert msg is not None and msg.content == "your hand"
    [attachment] = msg.attachments
    assert (attachment.filename, attachment.data) == ("hand.txt", b"AS KS")
    async with (
        aiohttp.ClientSession() as session,
        session.get(attachment.to_payload(fake.base_url, env.channel.id)["url"]) as resp,
    ):
        assert await resp.read() == b"AS KS"


async def test_select_with_deferred_update(env: Env) -> None:
    fake = env.fake
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="seat")
    msg = (await fake.wait_for_response(inter)).message
    assert msg is not None
    with pytest.raises(ValueError):
        await fake.select_option(env.alice, msg, "seat", ["south"])
    pick = await fake.select_option(env.alice, msg, "seat", ["east"])
    assert (await fake.wait_for_response(pick)).type == 6
    await fake.wait_until(lambda: msg.content == "seat east", 2, "the select message to be updated")
    assert msg.components == [] and len(msg.edits) == 1
