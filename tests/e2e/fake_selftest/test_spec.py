"""The fake Discord holds every request to Discord's own OpenAPI specification and documented limits.

Raw HTTP requests (aiohttp, the bot's token where Discord wants it) that Discord would refuse are
refused the way Discord does: 404 or 405 for a route or method it does not have, 400 `Invalid Form
Body` (code 50035) naming the offending field for a body, parameter or header it would not take,
and each refusal is recorded so a test that lets one through fails. The kinds of request the bot
sends are accepted, so every end-to-end game played through the fake is a conformance test too.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from jsonschema import Draft202012Validator

from devkit.fake_discord import models as m
from devkit.fake_discord.spec import SPEC_URI, Miss, discord_spec
from tests.e2e.fake_selftest.raw_world import Answer, World, world_of

V2 = m.FLAG_IS_COMPONENTS_V2


@pytest_asyncio.fixture
async def world() -> AsyncIterator[World]:
    async with world_of(check_errors=False) as built:  # each test takes the errors it provokes
        yield built


def button(custom_id: str = "go", label: str = "Go", **extra: Any) -> dict[str, Any]:
    return {"type": 2, "style": 1, "label": label, "custom_id": custom_id, **extra}


def row(*buttons: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(buttons)}


def rows(count: int, per_row: int = 5) -> list[dict[str, Any]]:
    return [row(*(button(f"b{r}.{c}") for c in range(per_row))) for r in range(count)]


def v2_container(texts: int) -> list[dict[str, Any]]:
    """A container of `texts` text displays: `texts + 1` components in all."""
    return [{"type": 17, "components": [{"type": 10, "content": f"line {i}"} for i in range(texts)]}]


async def multipart(world: World, path: str, payload: dict[str, Any], *, auth: bool = True) -> Answer:
    """A file upload as discord.py sends one: `payload_json` and `files[0]`."""
    form = aiohttp.FormData()
    form.add_field("payload_json", json.dumps(payload), content_type="application/json")
    form.add_field("files[0]", b"\x89PNG fake", filename="chart.png", content_type="image/png")
    headers = {"Authorization": f"Bot {world.fake.token}"} if auth else {}
    async with (
        aiohttp.ClientSession() as session,
        session.post(world.fake.api_base + path, data=form, headers=headers) as resp,
    ):
        return Answer(resp.status, dict(resp.headers), await resp.json())


def error_at(body: dict[str, Any], path: str) -> list[dict[str, str]]:
    """The `_errors` Discord nests under `a.b.0` in an Invalid Form Body answer ([] if none)."""
    node: Any = body.get("errors", {})
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node.get("_errors", []) if isinstance(node, dict) else []


CLASSIC: dict[str, Any] = {
    "content": "Table **#1**: <@1> to bid",
    "embeds": [
        {
            "title": "Scores",
            "description": "N/S 120",
            "color": 0x5865F2,
            "fields": [{"name": "Bags", "value": "3", "inline": True}],
        }
    ],
    "components": [
        *rows(4),
        row({"type": 3, "custom_id": "pick", "options": [{"label": "One", "value": "1"}], "min_values": 1}),
    ],
    "allowed_mentions": {"parse": [], "users": [1234567890], "replied_user": False},
    "nonce": "n" * 25,
    "enforce_nonce": True,
    "tts": False,
}
V2_PANEL: dict[str, Any] = {
    "flags": V2,
    "components": [
        {
            "type": 17,
            "accent_color": 0x3BA55C,
            "components": [
                {"type": 10, "content": "## Your hand"},
                {"type": 9, "components": [{"type": 10, "content": "Bid 3"}], "accessory": button("pass", "Pass")},
                {"type": 14, "divider": True, "spacing": 1},
                *rows(3),
                {"type": 12, "items": [{"media": {"url": "attachment://chart.png"}, "description": "Scores"}]},
            ],
        },
    ],
}


@dataclass(frozen=True)
class Broken:
    """A request Discord refuses, and the field its 400 names."""

    path: Callable[[World], str]
    body: dict[str, Any]
    field: str


def posts(world: World) -> str:
    return f"/channels/{world.channel.id}/messages"


BROKEN = {
    "a body field of the wrong type": Broken(posts, {"content": "hi", "tts": "yes"}, "tts"),
    "a required field missing": Broken(
        posts,
        {"components": [row({"type": 2, "label": "No style", "custom_id": "x"})]},
        "components.0.components.0.style",
    ),
    "an unknown enum value": Broken(posts, {"components": [row(button(style=9))]}, "components.0.components.0.style"),
    "a channel id that is no snowflake": Broken(lambda w: "/channels/general/messages", {"content": "x"}, "channel_id"),
    "content over 2,000 characters": Broken(posts, {"content": "x" * 2001}, "content"),
    "6 action rows": Broken(posts, {"components": rows(6, 1)}, "components"),
    "6 buttons in a row": Broken(
        posts, {"components": [row(*(button(f"b{i}") for i in range(6)))]}, "components.0.components"
    ),
    "41 components in a v2 message": Broken(posts, {"flags": V2, "components": v2_container(40)}, "components"),
    "a 101-character custom_id": Broken(
        posts, {"components": [row(button("c" * 101))]}, "components.0.components.0.custom_id"
    ),
    "an 81-character label": Broken(
        posts, {"components": [row(button(label="l" * 81))]}, "components.0.components.0.label"
    ),
    "a 26-character nonce": Broken(posts, {"content": "hi", "nonce": "n" * 26}, "nonce"),
    "content with the v2 flag": Broken(posts, {"flags": V2, "content": "hi", "components": v2_container(1)}, "content"),
    "embeds with the v2 flag": Broken(
        posts, {"flags": V2, "embeds": [{"title": "t"}], "components": v2_container(1)}, "content"
    ),
}


@pytest.mark.parametrize("case", list(BROKEN), ids=list(BROKEN))
async def test_a_broken_message_is_refused_with_invalid_form_body_naming_the_field(world: World, case: str) -> None:
    broken = BROKEN[case]
    answer = await world.call("POST", broken.path(world), broken.body)
    assert (answer.status, answer.body["code"], answer.body["message"]) == (400, 50035, "Invalid Form Body"), answer
    assert error_at(answer.body, broken.field), f"no error at {broken.field}: {answer.body['errors']}"
    recorded = world.fake.take_errors(kind="validation")
    assert len(recorded) == 1 and recorded[0].code == 50035, recorded
    assert world.channel.messages == {}  # nothing was posted


async def test_unknown_routes_get_404_and_wrong_methods_405_as_from_discord(world: World) -> None:
    channel = world.channel.id
    unknown = await world.call("GET", f"/channels/{channel}/nonsense")
    assert (unknown.status, unknown.body) == (404, {"message": "404: Not Found", "code": 0})
    wrong_method = await world.call("PUT", f"/channels/{channel}/messages", {"content": "hi"})
    assert (wrong_method.status, wrong_method.body) == (405, {"message": "405: Method Not Allowed", "code": 0})
    # A route Discord has but the fake does not serve is told apart from one Discord lacks.
    unserved = await world.call("GET", f"/channels/{channel}/pins")
    assert unserved.status == 404
    recorded = world.fake.take_errors(kind="route")
    assert [(e.method, e.path) for e in recorded] == [
        ("GET", f"/channels/{channel}/nonsense"),
        ("PUT", f"/channels/{channel}/messages"),
        ("GET", f"/channels/{channel}/pins"),
    ]
    assert [e.message for e in recorded] == [
        "404: Not Found (not in Discord's API specification)",
        "405: Method Not Allowed (not in Discord's API specification)",
        "Discord has this route (deprecated_list_pins); the fake does not serve it",
    ]
    assert world.channel.messages == {}


async def test_interaction_calls_are_checked_too(world: World) -> None:
    fake = world.fake
    inter = await world.command()
    unknown_type = await world.respond(inter, 42, {"content": "hi"})
    assert (unknown_type.status, unknown_type.body["code"]) == (400, 50035) and error_at(unknown_type.body, "type")
    no_type = await world.call("POST", f"/interactions/{inter.id}/{inter.token}/callback", {"data": {}}, auth=False)
    assert no_type.status == 400 and error_at(no_type.body, "type")[0]["message"] == "This field is required"
    assert inter.response is None  # refused: the interaction is still unanswered

    with_bot_token = await world.call(
        "POST", f"/interactions/{inter.id}/{inter.token}/callback", {"type": 5}, auth=True
    )
    assert with_bot_token.status == 400 and error_at(with_bot_token.body, "headers.Authorization")
    assert (await world.respond(inter, m.CALLBACK_DEFERRED_CHANNEL_MESSAGE)).status == 200

    followup = world.webhook(inter, None)
    webhook_with_token = await world.call("POST", followup, {"content": "more"}, auth=True)
    assert webhook_with_token.status == 400 and error_at(webhook_with_token.body, "headers.Authorization")
    bad_wait = await world.call("POST", followup + "?wait=maybe", {"content": "more"}, auth=False)
    assert bad_wait.status == 400 and error_at(bad_wait.body, "wait")
    bad_components_query = await world.call(
        "PATCH", world.webhook(inter) + "?with_components=2", {"content": "x"}, auth=False
    )
    assert bad_components_query.status == 400 and error_at(bad_components_query.body, "with_components")
    bad_upload = await multipart(world, followup + "?wait=true", {"content": 7}, auth=False)
    assert bad_upload.status == 400 and error_at(bad_upload.body, "content")

    assert len(fake.take_errors(kind="validation")) == 7
    assert inter.original is not None and inter.original.content == ""  # still the deferred "thinking…"
    assert list(world.channel.messages.values()) == [inter.original]  # no follow-up was posted


async def test_the_requests_the_bot_sends_are_accepted(world: World) -> None:
    fake, channel = world.fake, world.channel
    posted = await world.call("POST", f"/channels/{channel.id}/messages", CLASSIC)
    assert posted.status == 200, posted.body
    chart = await multipart(
        world, f"/channels/{channel.id}/messages", {**V2_PANEL, "attachments": [{"id": 0, "filename": "chart.png"}]}
    )
    assert chart.status == 200, chart.body
    edited = await world.call(
        "PATCH", f"/channels/{channel.id}/messages/{posted.body['id']}", {"content": "Done", "components": []}
    )
    assert edited.status == 200, edited.body
    assert (await world.call("POST", f"/channels/{channel.id}/typing")).status == 204
    at_the_limits = {  # every documented limit reached, none passed
        "content": "x" * 2000,
        "components": [row(*(button(f"{r}{c}" + "c" * 98, "l" * 80) for c in range(5))) for r in range(5)],
    }
    assert (await world.call("POST", f"/channels/{channel.id}/messages", at_the_limits)).status == 200
    forty = await world.call("POST", f"/channels/{channel.id}/messages", {"flags": V2, "components": v2_container(39)})
    assert forty.status == 200, forty.body
    assert (
        await world.call("PUT", f"/channels/{channel.id}/messages/{posted.body['id']}/reactions/%F0%9F%82%A1/@me")
    ).status == 204

    inter = await world.command()
    answered = await world.respond(inter, m.CALLBACK_CHANNEL_MESSAGE, {**V2_PANEL, "flags": V2 | m.FLAG_EPHEMERAL})
    assert answered.status == 200, answered.body
    original = await world.call("PATCH", world.webhook(inter) + "?with_components=true", V2_PANEL, auth=False)
    assert original.status == 200, original.body
    followup = await world.call(
        "POST",
        world.webhook(inter, None) + "?wait=true&with_components=true",
        {"content": "Your turn", "flags": m.FLAG_EPHEMERAL},
        auth=False,
    )
    assert followup.status == 200, followup.body

    modal = await world.command()
    asked = await world.respond(
        modal,
        m.CALLBACK_MODAL,
        {
            "custom_id": "bid",
            "title": "Your bid",
            "components": [row({"type": 4, "custom_id": "tricks", "style": 1, "label": "Tricks", "max_length": 2})],
        },
    )
    assert asked.status == 200, asked.body

    assert fake.errors == []


def test_the_quicker_schemas_give_the_verdicts_of_the_published_ones() -> None:
    """spec.py rewrites each schema to validate faster (inlined refs, unions picked by `type`); the
    rewrite must accept and refuse exactly what Discord's schema as published does."""
    spec = discord_spec()
    callbacks = [{"type": t, "data": body} for t in (4, 7, 42) for body in (CLASSIC, V2_PANEL, {"content": 5})]
    cases: list[tuple[str, str, list[Any]]] = [
        ("POST", "/channels/{channel_id}/messages", [CLASSIC, V2_PANEL, *(b.body for b in BROKEN.values())]),
        ("POST", "/interactions/{interaction_id}/{interaction_token}/callback", [*callbacks, {"data": {}}]),
        ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original", [V2_PANEL, {"flags": "x"}]),
    ]
    verdicts = Counter[bool]()
    for method, template, bodies in cases:
        pointer = template.replace("/", "~1") + f"/{method.lower()}/requestBody/content/application~1json/schema"
        published = Draft202012Validator({"$ref": f"{SPEC_URI}#/paths/{pointer}"}, registry=spec.registry)
        found = spec.operation(method, re.sub(r"\{\w+\}", "1", template))
        assert not isinstance(found, Miss)
        operation, path_values = found
        for body in bodies:
            quick = not spec.check(operation, path_values, {}, body, "application/json")
            assert quick == published.is_valid(body), (template, body)
            verdicts[quick] += 1
    assert verdicts[True] >= 5 and verdicts[False] >= 10  # both verdicts were compared
