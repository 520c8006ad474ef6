"""Self-test of what the fake Discord flags, as Discord would refuse it, when a real discord.py bot does
it: late and double acks, unknown routes and invalid payloads, edits of deleted messages, commands
without the permission they need."""

from __future__ import annotations

import discord
import discord.gateway
import discord.http
import pytest

from tests.e2e.fake_selftest.clients import Env, raw_request

pytestmark = pytest.mark.asyncio


async def test_late_and_double_acks_are_flagged(env: Env) -> None:
    fake = env.fake
    fake.ack_window = 0.2
    env.bot.spades.slow_delay = 0.35
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="slow")
    await fake.wait_until(lambda: env.events.not_found_codes, 3, "the late ack to fail")
    assert env.events.not_found_codes == [10062] and inter.response is None
    assert len(fake.take_errors(10062)) == 1

    fake.ack_window = 3.0
    inter = await fake.send_slash_command(env.alice, env.channel, "spades", subcommand="play", options={"card": "AS"})
    await fake.wait_for_response(inter)
    status, body = await raw_request(
        fake,
        "POST",
        f"/interactions/{inter.id}/{inter.token}/callback?with_response=1",
        {"type": 6},
        auth=False,
    )
    assert (status, body["code"]) == (400, 40060)
    [error] = fake.take_errors(40060)
    assert error.kind == "interaction"
    assert fake.errors == []


async def test_unknown_route_and_invalid_payloads_are_flagged(env: Env) -> None:
    fake, bot = env.fake, env.bot
    with pytest.raises(discord.NotFound):
        await bot.http.request(discord.http.Route("GET", "/definitely/not/{x}", x=1))
    assert len(fake.take_errors(kind="route")) == 1

    channel = bot.get_channel(env.channel.id)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as info:
        await channel.send("x" * 2001)
    assert info.value.code == 50035 and "content" in info.value.text
    rows = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "b", "custom_id": f"c{i}"}]} for i in range(6)]
    dupes = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "b", "custom_id": "same"}] * 2}]
    long_embed = [{"title": "t" * 257, "fields": [{"name": "n", "value": "v" * 1025}]}]
    for payload in ({"components": rows}, {"components": dupes}, {"embeds": long_embed}, {}):
        status, body = await raw_request(fake, "POST", f"/channels/{env.channel.id}/messages", payload)
        assert (status, body["code"]) == (400, 50035), payload
    assert len(fake.take_errors(50035)) == 5
    assert fake.errors == []


async def test_deleted_message_and_permission_checks(env: Env) -> None:
    fake, bot = env.fake, env.bot
    channel = bot.get_channel(env.channel.id)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("temporary")
    fake.delete_message(fake.messages[sent.id])
    with pytest.raises(discord.NotFound) as info:
        await sent.edit(content="edited")
    assert info.value.code == 10008

    with pytest.raises(PermissionError):
        await fake.send_slash_command(env.alice, env.channel, "reset")
    with pytest.raises(PermissionError):
        await fake.send_slash_command(env.alice, fake.dm_channel(env.alice), "reset")
    fake.grant_manage_guild(env.guild, env.alice)
    inter = await fake.send_slash_command(env.alice, env.channel, "reset")
    assert (await fake.wait_for_response(inter)).message.content == "reset ok"  # type: ignore[union-attr]
    owner_inter = await fake.send_slash_command(env.owner, env.channel, "reset")  # owners have every permission
    await fake.wait_for_response(owner_inter)
