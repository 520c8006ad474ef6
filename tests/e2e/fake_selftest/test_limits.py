"""Self-test of the fake Discord's rate limits, and of ephemeral messages staying ephemeral.

Raw HTTP calls check what the fake answers (status, body, headers) against a frozen limiter clock,
so "51 calls in one second" holds however slow the machine is; discord.py's own HTTP client and
webhook adapter then show the real library reading those answers: it paces itself by the bucket
headers and waits out a 429 before retrying, rather than failing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator

import aiohttp
import discord
import discord.http
import pytest
import pytest_asyncio
from discord.http import Route

from devkit.fake_discord import FakeDiscord, FakeMessage, FakeUser
from devkit.fake_discord import models as m
from devkit.fake_discord.ratelimits import DISCORD_LIMITS, ROUTE_LIMITS, RouteLimit
from tests.e2e.fake_selftest.clients import pointed_at
from tests.e2e.fake_selftest.raw_world import World, world_of

pytestmark = pytest.mark.asyncio

POSTS = "/channels/{channel_id}/messages"


@pytest_asyncio.fixture
async def world() -> AsyncIterator[World]:
    async with world_of(**DISCORD_LIMITS) as built:
        yield built


@contextlib.asynccontextmanager
async def discord_http(fake: FakeDiscord) -> AsyncIterator[discord.http.HTTPClient]:
    """discord.py's own REST client, logged in to the fake (Routes must be built inside)."""
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    await http.static_login(fake.token)
    try:
        yield http
    finally:
        await http.close()


@contextlib.contextmanager
def counting(fake: FakeDiscord) -> Iterator[Counter[str]]:
    """The calls by kind made inside the block (filled in on exit)."""
    before = Counter(fake.calls_by_kind)
    made: Counter[str] = Counter()
    yield made
    made.update(fake.calls_by_kind)
    made.subtract(before)
    for kind in [k for k, n in made.items() if n == 0]:
        del made[kind]


# ----------------------------------------------------------------------------- global limit


async def test_the_51st_counted_call_in_a_second_gets_a_global_429(world: World) -> None:
    fake = world.fake
    counted_before = fake.global_calls
    for i in range(50):  # two channels: no per-route bucket comes near its limit
        answer = await world.call("GET", f"/channels/{(world.channel, world.other)[i % 2].id}")
        assert answer.status == 200, answer
    refused = await world.call("GET", f"/channels/{world.channel.id}")
    assert refused.status == 429
    assert refused.body == {"message": "You are being rate limited.", "retry_after": 1.0, "global": True, "code": 0}
    headers = refused.headers
    assert headers["Retry-After"] == "1" and headers["X-RateLimit-Global"] == "true"
    assert headers["X-RateLimit-Scope"] == "global" and headers["Via"]
    assert "X-RateLimit-Bucket" not in headers  # a global 429 is no route's

    # Interaction endpoints are exempt: the callback and every webhook call still go through.
    inter = await world.command()
    assert (await world.respond(inter, m.CALLBACK_CHANNEL_MESSAGE, {"content": "answer"})).status == 200
    followup = await world.call("POST", world.webhook(inter, None) + "?wait=true", {"content": "more"}, auth=False)
    assert followup.status == 200
    edit = await world.call("PATCH", world.webhook(inter), {"content": "edited"}, auth=False)
    assert edit.status == 200 and edit.headers["X-RateLimit-Limit"] == "5"
    assert (await world.call("GET", world.webhook(inter), auth=False)).status == 200
    deleted = await world.call("DELETE", world.webhook(inter, followup.body["id"]), auth=False)
    assert deleted.status == 204
    assert inter.original is not None and inter.original.content == "edited"

    # Everything else is still refused until the second is over; then it is served again.
    assert (await world.post(world.other)).status == 429
    world.clock.advance(refused.body["retry_after"])
    assert (await world.post(world.other)).status == 200
    assert fake.count_429s("global") == 2 and fake.count_429s() == 2
    assert fake.global_calls - counted_before == 53  # refused calls were made too


async def test_the_global_rate_is_configurable_and_limits_are_off_by_default() -> None:
    async with world_of(global_rate=3, route_limits=False) as world:
        statuses = [(await world.call("GET", "/users/@me")).status for _ in range(4)]
        assert statuses == [200, 200, 200, 429]
        answer = await world.call("GET", "/users/@me")
        assert "X-RateLimit-Bucket" not in answer.headers  # no route buckets: no bucket headers
    async with world_of() as world:
        statuses = [(await world.post(world.channel)).status for _ in range(60)]
        assert statuses == [200] * 60 and world.fake.count_429s() == 0


# ------------------------------------------------------------------------------ route buckets


async def test_a_channel_takes_five_posts_in_five_seconds_and_another_channel_is_apart(world: World) -> None:
    fake = world.fake
    answers = [await world.post(world.channel, f"post {i}") for i in range(5)]
    assert [a.status for a in answers] == [200] * 5
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["4", "3", "2", "1", "0"]
    first = answers[0].headers
    assert first["X-RateLimit-Limit"] == "5" and first["X-RateLimit-Reset-After"] == "5.000"
    assert abs(float(first["X-RateLimit-Reset"]) - (time.time() + 5)) < 2  # epoch seconds
    assert len({a.headers["X-RateLimit-Bucket"] for a in answers}) == 1

    sixth = await world.post(world.channel, "one too many")
    assert sixth.status == 429
    assert sixth.body == {"message": "You are being rate limited.", "retry_after": 5.0, "global": False, "code": 0}
    assert sixth.headers["Retry-After"] == "5" and sixth.headers["X-RateLimit-Scope"] == "user"
    assert "X-RateLimit-Global" not in sixth.headers and sixth.headers["X-RateLimit-Remaining"] == "0"
    assert sixth.headers["X-RateLimit-Bucket"] == first["X-RateLimit-Bucket"]
    assert [x.content for x in fake.visible_messages(world.alice, world.channel)] == [f"post {i}" for i in range(5)]

    elsewhere = await world.post(world.other)
    assert elsewhere.status == 200 and elsewhere.headers["X-RateLimit-Remaining"] == "4"
    edit = await world.call("PATCH", f"/channels/{world.channel.id}/messages/{answers[0].body['id']}", {"content": "e"})
    assert edit.status == 200 and edit.headers["X-RateLimit-Bucket"] != first["X-RateLimit-Bucket"]  # its own bucket

    world.clock.advance(4.999)
    assert (await world.post(world.channel)).status == 429
    world.clock.advance(0.001)
    again = await world.post(world.channel, "after the wait")
    assert again.status == 200 and again.headers["X-RateLimit-Remaining"] == "4"
    assert fake.count_429s("user") == 2 and fake.count_429s("global") == 0


async def test_an_interaction_token_takes_five_webhook_edits_in_two_seconds(world: World) -> None:
    first, second = await world.command(), await world.command(world.bob)
    for inter in (first, second):
        assert (await world.respond(inter, m.CALLBACK_CHANNEL_MESSAGE, {"content": "panel", "flags": 64})).status == 200
    edits = [await world.call("PATCH", world.webhook(first), {"content": f"v{i}"}, auth=False) for i in range(6)]
    assert [e.status for e in edits] == [200] * 5 + [429]
    assert edits[0].headers["X-RateLimit-Reset-After"] == "2.000" and edits[4].headers["X-RateLimit-Remaining"] == "0"
    assert edits[5].body["retry_after"] == 2.0 and not edits[5].body["global"]
    assert first.original is not None and first.original.content == "v4"
    assert (await world.call("PATCH", world.webhook(second), {"content": "x"}, auth=False)).status == 200
    followup = await world.call("POST", world.webhook(first, None), {"content": "f"}, auth=False)
    assert followup.status == 204  # follow-ups are another bucket
    world.clock.advance(2)
    assert (await world.call("PATCH", world.webhook(first), {"content": "v6"}, auth=False)).status == 200


# ------------------------------------------------------------------------------ forced 429s


async def test_force_429_refuses_counted_calls_for_a_while(world: World) -> None:
    fake = world.fake
    storm = fake.force_429(seconds=5)
    refused = await world.post(world.channel)
    assert refused.status == 429 and refused.body["global"] and refused.body["retry_after"] == 5.0
    assert refused.headers["X-RateLimit-Global"] == "true" and refused.headers["Retry-After"] == "5"
    inter = await world.command()
    assert (await world.respond(inter, m.CALLBACK_DEFERRED_CHANNEL_MESSAGE)).status == 200  # exempt
    world.clock.advance(3)
    assert (await world.call("GET", "/users/@me")).body["retry_after"] == 2.0  # wait for the rest of it
    world.clock.advance(2)
    assert (await world.post(world.channel)).status == 200
    assert storm.hits == 2 and fake.count_429s("global") == 2

    route_storm = fake.force_429("shared", 60, retry_after=0.5)
    refused = await world.post(world.channel)
    assert refused.headers["X-RateLimit-Scope"] == "shared" and not refused.body["global"]
    assert refused.body["retry_after"] == 0.5 and "X-RateLimit-Global" not in refused.headers
    route_storm.cancel()
    assert (await world.post(world.channel)).status == 200
    with pytest.raises(ValueError, match="scope"):
        fake.force_429("everyone")


async def test_force_429_on_one_message_or_one_token(world: World) -> None:
    fake = world.fake
    target, spared = (await world.post(world.channel, "table")).body, (await world.post(world.channel, "other")).body
    fake.force_429_on_message(int(target["id"]), seconds=10)
    path = f"/channels/{world.channel.id}/messages/"
    for method, body in (("GET", None), ("PATCH", {"content": "x"}), ("DELETE", None)):
        answer = await world.call(method, path + target["id"], body)
        assert answer.status == 429 and answer.headers["X-RateLimit-Scope"] == "shared", (method, answer)
    assert (await world.call("PATCH", path + spared["id"], {"content": "y"})).status == 200
    assert (await world.post(world.channel)).status == 200

    # An ephemeral panel, edited through its interaction's token as @original.
    opened = await world.command()
    await world.respond(opened, m.CALLBACK_CHANNEL_MESSAGE, {"content": "panel", "flags": 64, "components": [
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "Play", "custom_id": "play"}]}]})
    panel = opened.original
    assert panel is not None
    panel_storm = fake.force_429_on_message(panel, seconds=10, retry_after=1)
    refused = await world.call("PATCH", world.webhook(opened), {"content": "turn"}, auth=False)
    assert refused.status == 429 and refused.body["retry_after"] == 1
    click = await fake.click_button(world.alice, panel, "play")
    assert (await world.respond(click, m.CALLBACK_UPDATE_MESSAGE, {"content": "played"})).status == 200  # never refused
    assert panel.content == "played"
    panel_storm.cancel()

    token_storm = fake.force_429_on_token(click, seconds=10)
    assert (await world.call("PATCH", world.webhook(click), {"content": "z"}, auth=False)).status == 429
    assert (await world.call("POST", world.webhook(click, None), {"content": "f"}, auth=False)).status == 429
    other = await world.command(world.bob)
    assert (await world.respond(other, m.CALLBACK_CHANNEL_MESSAGE, {"content": "bob's"})).status == 200
    assert (await world.call("PATCH", world.webhook(other), {"content": "b"}, auth=False)).status == 200
    world.clock.advance(10)
    assert (await world.call("PATCH", path + target["id"], {"content": "x"})).status == 200
    assert (await world.call("PATCH", world.webhook(click), {"content": "z"}, auth=False)).status == 200
    assert token_storm.hits == 2 and fake.count_429s("user") == 2 and fake.count_429s("shared") == 4


# ------------------------------------------------------------------------------ counters


async def test_calls_are_counted_by_kind_and_against_the_global_limit(world: World) -> None:
    fake = world.fake
    counted_before = fake.global_calls
    with counting(fake) as made:
        inter = await world.command()
        await world.respond(inter, m.CALLBACK_DEFERRED_CHANNEL_MESSAGE)
        await world.call("POST", world.webhook(inter, None), {"content": "done"}, auth=False)
        await world.call("PATCH", world.webhook(inter), {"content": "done!"}, auth=False)
        await world.call("GET", world.webhook(inter), auth=False)
        posted = (await world.post(world.channel, "table")).body
        await world.call("PATCH", f"/channels/{world.channel.id}/messages/{posted['id']}", {"content": "table'"})
        dm = (await world.call("POST", "/users/@me/channels", {"recipient_id": str(world.bob.id)})).body
        sent = (await world.post(fake.dm_channel(world.bob), "your hand")).body
        await world.call("PATCH", f"/channels/{dm['id']}/messages/{sent['id']}", {"content": "your hand'"})
        await world.call("DELETE", f"/channels/{world.channel.id}/messages/{posted['id']}")
        await world.call("GET", "/users/@me", auth=False)  # refused: counted, but not against the limit
    assert made == Counter(
        callback=1, webhook_followup=1, webhook_edit=1, webhook_other=1, channel_post=1, channel_edit=1,
        dm_open=1, dm_post=1, dm_edit=1, other=2,
    )
    assert fake.global_calls - counted_before == 6
    assert [r.kind for r in fake.requests[-3:]] == ["dm_edit", "other", "other"]
    summary = fake.rate_limit_summary()
    assert summary["global_counted_calls"] == fake.global_calls and summary["answered_429"] == {}
    assert summary["interactions"] == 1
    assert summary["counted_calls_per_interaction"] == fake.global_calls


# ------------------------------------------------------------------------ discord.py itself


async def test_discord_py_paces_itself_and_waits_out_429s() -> None:
    table = {**ROUTE_LIMITS, ("POST", POSTS): RouteLimit("message-create", 2, 0.4, "channel_id")}
    async with world_of(global_rate=DISCORD_LIMITS["global_rate"], route_limits=table) as world:
        fake, channel = world.fake, world.channel
        fake.limits.clock = time.monotonic  # discord.py sleeps in real time
        with pointed_at(fake):
            async with discord_http(fake) as http:
                # Three posts in a bucket of two: the headers make discord.py wait, not collide.
                for i in range(3):
                    await http.request(Route("POST", POSTS, channel_id=channel.id), json={"content": f"m{i}"})
                posts = [r for r in fake.requests if r.template == POSTS]
                assert [r.status for r in posts] == [200, 200, 200]
                assert posts[2].at - posts[0].at >= 0.4

                # The bucket emptied by someone else (another shard): a 429, waited out, then served.
                others = [await world.post(world.other) for _ in range(2)]
                assert [a.status for a in others] == [200, 200]
                await http.request(Route("POST", POSTS, channel_id=world.other.id), json={"content": "late"})
                assert [r.status for r in fake.requests if r.template == POSTS][-2:] == [429, 200]
                assert fake.count_429s("user") == 1

                # A global 429: discord.py holds every call until it is over, then retries.
                storm = fake.force_429(seconds=0.3)
                me = await http.request(Route("GET", "/users/@me"))
                assert me["id"] == str(fake.bot_user.id) and storm.hits == 1
                refused, served = [r for r in fake.requests if r.path == "/users/@me"][-2:]
                assert (refused.status, served.status) == (429, 200) and served.at >= storm.until

                # A storm it cannot wait out: it gives up after five tries with the 429.
                storm = fake.force_429("user", 60, retry_after=0.01)
                with pytest.raises(discord.HTTPException) as info:
                    await http.request(Route("GET", "/users/@me"))
                assert info.value.status == 429 and storm.hits == 5
                storm.cancel()
                await http.request(Route("GET", "/users/@me"))


async def test_discord_py_webhooks_wait_out_a_token_storm(world: World) -> None:
    fake = world.fake
    fake.limits.clock = time.monotonic
    inter = await world.command()
    await world.respond(inter, m.CALLBACK_CHANNEL_MESSAGE, {"content": "panel", "flags": 64})
    storm = fake.force_429_on_token(inter, seconds=0.3)
    with pointed_at(fake):
        async with aiohttp.ClientSession() as session:
            webhook = discord.Webhook.partial(fake.application_id, inter.token, session=session)
            await webhook.edit_message(inter.original.id if inter.original else 0, content="your turn")
    assert storm.hits == 1 and inter.original is not None and inter.original.content == "your turn"


# ----------------------------------------------------------------- ephemeral stays ephemeral


def only_for(fake: FakeDiscord, message: FakeMessage, user: FakeUser, others: list[FakeUser]) -> bool:
    """Still ephemeral, seen by `user` and by none of `others`."""
    channel = message.channel
    return (
        message.ephemeral
        and message in fake.visible_messages(user, channel)
        and all(message not in fake.visible_messages(other, channel) for other in others)
    )


async def test_no_edit_clears_the_ephemeral_flag(world: World) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    row = [{"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "go"}]}]
    inter = await world.command()
    await world.respond(inter, m.CALLBACK_CHANNEL_MESSAGE, {"content": "secret", "flags": 64, "components": row})
    panel = inter.original
    assert panel is not None and only_for(fake, panel, alice, [bob])

    # Webhook edit of @original, then by id.
    for target in ("@original", str(panel.id)):
        edit = await world.call("PATCH", world.webhook(inter, target), {"content": target, "flags": 0}, auth=False)
        assert edit.status == 200 and edit.body["flags"] & m.FLAG_EPHEMERAL
        assert panel.content == target and only_for(fake, panel, alice, [bob])

    # An UPDATE_MESSAGE callback from a button on it.
    click = await fake.click_button(alice, panel, "go")
    answer = await world.respond(click, m.CALLBACK_UPDATE_MESSAGE, {"content": "updated", "flags": 0})
    assert answer.status == 200 and answer.body["resource"]["message"]["flags"] & m.FLAG_EPHEMERAL
    assert panel.content == "updated" and only_for(fake, panel, alice, [bob])

    # An ephemeral follow-up edited by id.
    body = {"content": "f", "flags": 64}
    sent = await world.call("POST", world.webhook(inter, None) + "?wait=true", body, auth=False)
    followup = fake.messages[int(sent.body["id"])]
    edit = await world.call("PATCH", world.webhook(inter, sent.body["id"]), {"content": "f'", "flags": 0}, auth=False)
    assert edit.status == 200 and followup.content == "f'" and only_for(fake, followup, alice, [bob])

    # The follow-up that replaces an ephemeral 'thinking' placeholder.
    deferred = await world.command()
    await world.respond(deferred, m.CALLBACK_DEFERRED_CHANNEL_MESSAGE, {"flags": 64})
    await world.call("POST", world.webhook(deferred, None), {"content": "thought", "flags": 0}, auth=False)
    thought = deferred.original
    assert thought is not None and thought.content == "thought" and only_for(fake, thought, alice, [bob])

    # The channel routes do not know ephemeral messages at all.
    channel_edit = await world.call("PATCH", f"/channels/{world.channel.id}/messages/{panel.id}", {"flags": 0})
    assert (channel_edit.status, channel_edit.body["code"]) == (404, 10008)
    assert panel.content == "updated" and only_for(fake, panel, alice, [bob])
    assert all(snapshot["flags"] & m.FLAG_EPHEMERAL for snapshot in panel.history)


@pytest.mark.fake_discord(global_rate=7, route_limits=True)
async def test_the_fixture_takes_its_options_from_the_marker(fake_discord: FakeDiscord) -> None:
    assert fake_discord.limits.global_rate == 7 and fake_discord.limits.route_limit("POST", POSTS) is not None
