"""The transport's one rate-limit state per token: buckets learnt from Discord's headers, a global
429 that holds every counted call, a Cloudflare ban that holds every call, and the breaker that
stops the calls making invalid requests; and what the fast path makes of an answer (40060)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import orjson
import pytest
from aiohttp import web

from bot.discord_ui.table import faces
from bot.discord_ui.table.desk import Desk, Outcome, guard
from bot.discord_ui.table.panels import PanelSet
from bot.discord_ui.table.webhooks import WebhookPace
from bot.discord_ui.transport import Held, RateLimits, TooManyRequests, Transport, fastpath, fault, route_key
from bot.discord_ui.transport import limits as limits_module
from bot.discord_ui.transport.errors import Backoff

BAN_PAGE = "<!DOCTYPE html><html><title>Access denied</title><body>Error 1015</body></html>"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_is_learnt_from_the_headers_and_spent_by_each_call() -> None:
    clock = Clock()
    limits = RateLimits(clock=clock)
    key = "PATCH /webhooks/1/abc/messages/{id}"
    assert limits.ready_in(key) == 0  # nothing known yet
    limits.note(key, 200, {"x-ratelimit-remaining": "1", "x-ratelimit-reset-after": "1.5"}, None)
    assert limits.ready_in(key) == 0
    limits.spend(key)  # the last call the bucket allows is on its way
    assert limits.ready_in(key) == pytest.approx(1.5)
    clock.now += 1.5
    assert limits.ready_in(key) == 0


def test_thousands_of_webhooks_at_once_keep_the_newest_buckets_without_a_pass_per_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every interaction has its own webhook, so its own buckets: more of them current at once than
    the state keeps must cost a pruning pass now and then, not one per answer."""
    clock, passes = Clock(), list[int]()
    limits = RateLimits(clock=clock)
    newest = limits_module._newest

    def counted(kept: dict[str, Any]) -> dict[str, Any]:
        passes.append(len(kept))
        return newest(kept)

    monkeypatch.setattr(limits_module, "_newest", counted)
    calls = 3 * limits_module.BUCKETS_KEPT
    for i in range(calls):  # all still current: none has reset
        limits.note(f"PATCH /webhooks/1/t{i}/messages/{{id}}", 200,
                    {"x-ratelimit-remaining": "0", "x-ratelimit-reset-after": "60"}, None)
    assert len(passes) <= calls // (limits_module.BUCKETS_KEPT // 2)
    assert limits.ready_in(f"PATCH /webhooks/1/t{calls - 1}/messages/{{id}}") == 60  # the newest are kept


def test_message_ids_share_their_webhooks_bucket_and_api_versions_are_one_route() -> None:
    assert route_key("PATCH", "/api/v10/webhooks/1/abc/messages/@original") == \
        route_key("PATCH", "/api/v10/webhooks/1/abc/messages/123") == "PATCH /webhooks/1/abc/messages/{id}"
    assert route_key("POST", "/proxy/api/v9/channels/5/messages?wait=1") == "POST /channels/5/messages"
    assert route_key("POST", "/api/v10/interactions/1/tok/callback") is None
    assert route_key("POST", "/api/v10/interactions/1/tok/callback?with_response=true") is None
    assert route_key("DELETE", "/api/v10/webhooks/1/abc/messages/77/x") == "DELETE /webhooks/1/abc/messages/{id}/x"
    assert route_key("POST", "/api/v10/channels/5/messages/bulk-delete") == "POST /channels/5/messages/bulk-delete"
    assert route_key("GET", "/api/v10/users/@me") == "GET /users/@me"  # no version prefix left, whatever follows


def test_a_global_429_holds_the_tokens_calls_and_not_the_webhooks() -> None:
    clock = Clock()
    limits = RateLimits(clock=clock)
    body = orjson.dumps({"message": "You are being rate limited.", "retry_after": 4.0, "global": True})
    limits.note("POST /channels/5/messages", 429, {"x-ratelimit-global": "true", "x-ratelimit-scope": "global",
                                                   "retry-after": "4", "content-type": "application/json"}, body)
    assert limits.wait_for(counted=True) == pytest.approx(4.0)
    assert limits.wait_for(counted=False) == 0
    assert limits.ready_in("POST /channels/6/messages") == 0  # not a bucket's: the whole token waits


def test_a_429_in_html_is_a_ban_that_holds_every_call_and_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    limits = RateLimits(clock=clock)
    with caplog.at_level(logging.ERROR):
        for _ in range(3):  # calls that were on their way when the first was refused
            clock.now += 0.01
            limits.note("POST /channels/5/messages", 429, {"content-type": "text/html", "retry-after": "30"},
                        BAN_PAGE.encode())
    assert limits.wait_for(counted=False) == limits.wait_for(counted=True) == pytest.approx(30.0)
    assert len([r for r in caplog.records if "Cloudflare" in r.getMessage()]) == 1
    clock.now += 31
    assert limits.wait_for(counted=False) == 0


def test_a_bare_429_without_discords_answer_is_a_ban_too_with_a_safe_default() -> None:
    limits = RateLimits(clock=Clock())
    limits.note(None, 429, {}, b"")
    assert limits.wait_for(counted=False) == pytest.approx(60.0)


def test_the_breaker_opens_past_its_limit_and_holds_back_only_the_routes_that_refused() -> None:
    clock = Clock()
    limits = RateLimits(invalid_limit=5, clock=clock)
    shared = orjson.dumps({"message": "rate limited", "retry_after": 0.5, "global": False})
    for _ in range(10):  # another bot's share of a shared bucket is not the bot's fault
        limits.note("POST /channels/1/messages", 429, {"x-ratelimit-scope": "shared"}, shared)
    assert not limits.breaker_open
    for channel in range(5):
        limits.note(f"POST /channels/{channel + 10}/messages", 403, {}, None)
    assert limits.breaker_open
    assert limits.held_back("POST /channels/10/messages") and not limits.held_back("POST /channels/99/messages")
    clock.now += 601  # ten minutes later the count has drained
    assert not limits.breaker_open and not limits.held_back("POST /channels/10/messages")


def test_the_backoff_honours_a_429_to_the_letter_and_jitters_the_rest() -> None:
    draws = iter([0.0, 1.0, 0.5])
    backoff = Backoff(first=1.0, most=4.0, jitter=lambda: next(draws))
    limited = TooManyRequests(_Response(429), {"retry_after": 2.25}, 2.25)
    assert backoff.delay(limited) == 2.25
    failure = OSError("reset")
    assert [backoff.delay(failure), backoff.delay(failure), backoff.delay(failure)] == [0.5, 2.0, 3.0]


class _Response:
    def __init__(self, status: int) -> None:
        self.status, self.reason = status, "X"


@pytest.fixture
async def discord_api(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[dict[str, Any]]:
    """A small Discord on 127.0.0.1: `answers` maps a path's start to (status, headers, body) lists."""
    state: dict[str, Any] = {"answers": {}, "seen": []}

    async def handle(request: web.Request) -> web.Response:
        state["seen"].append((request.method, request.path))
        for start, answers in state["answers"].items():
            if request.path.startswith(start) and answers:
                status, headers, body = answers.pop(0) if len(answers) > 1 else answers[0]
                return web.Response(status=status, headers=headers, body=body)
        return web.json_response({"id": "1"})

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    async with serving(app, monkeypatch):
        yield state


@contextlib.asynccontextmanager
async def serving(app: web.Application, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """`app` on 127.0.0.1 as Discord's API, for discord.py and the transport alike."""
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    try:
        yield
    finally:
        await runner.cleanup()


class _Interaction:
    id, application_id, token, channel_id = 55, 1, "tok", 2


async def test_a_repeated_answer_refused_as_already_acknowledged_counts_as_answered(
        discord_api: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The first answer's reply was lost and the answer went again: Discord's 40060 says the first
    got there, so the click counts as answered (no error, no third try)."""
    marked: list[object] = []
    monkeypatch.setattr("bot.discord_ui.fastgateway.mark_answered", lambda interaction, how: marked.append(how))
    discord_api["answers"]["/api/v10/interactions/"] = [
        (400, {"Content-Type": "application/json"},
         b'{"message": "Interaction has already been acknowledged.", "code": 40060}')]
    edits = fastpath.FastEdits()
    try:
        await edits.say(_Interaction(), "You played A♠.")  # type: ignore[arg-type]
    finally:
        await edits.close()
    assert len(marked) == 1 and len(discord_api["seen"]) == 1


async def test_a_global_429_holds_the_next_counted_call_of_any_caller(discord_api: dict[str, Any]) -> None:
    discord_api["answers"]["/api/v10/channels/5/"] = [
        (429, {"Content-Type": "application/json", "X-RateLimit-Global": "true", "X-RateLimit-Scope": "global",
               "Retry-After": "1", "Via": "1.1 google"},
         b'{"message": "You are being rate limited.", "retry_after": 0.3, "global": true}'),
        (200, {"Content-Type": "application/json"}, b'{"id": "7"}')]
    transport = Transport(RateLimits())
    base = discord.http.Route.BASE
    try:
        with pytest.raises(TooManyRequests):
            await transport.call("POST", f"{base}/channels/5/messages", b"{}", token="t")
        loop = asyncio.get_running_loop()
        started = loop.time()
        await transport.call("POST", f"{base}/channels/6/messages", b"{}", token="t")  # another route
        held = loop.time() - started
        started = loop.time()
        await transport.call("PATCH", f"{base}/webhooks/1/tok/messages/@original", b"{}")  # not counted
        assert held >= 0.25 and loop.time() - started < 0.2
    finally:
        await transport.close()


async def test_past_the_breaker_a_forbidden_channel_is_given_up_at_once_not_retried_for_minutes(
        discord_api: dict[str, Any]) -> None:
    forbidden = (403, {"Content-Type": "application/json"}, b'{"message": "Missing Permissions", "code": 50013}')
    discord_api["answers"]["/api/v10/channels/"] = [forbidden]
    transport = Transport(RateLimits(invalid_limit=3))
    base, given_up = discord.http.Route.BASE, []

    async def post(channel: int) -> None:
        await transport.call("POST", f"{base}/channels/{channel}/messages", b"{}", token="t")

    async def give_up(live: Any, reason: str) -> None:
        given_up.append(reason)

    try:
        for channel in range(3):  # three channels refuse the bot: the breaker opens
            with pytest.raises(discord.Forbidden):
                await post(channel)
        with pytest.raises(Held):  # one that refused lately isn't asked again
            await post(0)
        desk = Desk(panels=PanelSet(WebhookPace(transport.limits), fastpath.FastEdits(transport)))
        live: Any = type("Live", (), {"game_id": "ab12", "channel_id": 9})()
        outcome = await asyncio.wait_for(guard(desk, live, lambda: post(9), 600.0, give_up, transport.limits), 5.0)
        assert outcome is Outcome.GIVEN_UP and given_up == ["I lost access to its channel"] and desk.channel_gone
    finally:
        await transport.close()
    assert len(discord_api["seen"]) == 4  # the held-back call never left




async def test_a_refused_update_is_not_retried_and_says_so_so_what_it_owes_stays_owed(
        discord_api: dict[str, Any]) -> None:
    """A 400 (a thread archived since, say) won't go away by trying again: the guard says it was
    refused, which the publisher reads as "still owed", not "delivered"."""
    archived = (400, {"Content-Type": "application/json"}, b'{"message": "Thread is archived", "code": 50083}')
    discord_api["answers"]["/api/v10/channels/"] = [archived]
    transport = Transport(RateLimits())
    base = discord.http.Route.BASE

    async def give_up(live: Any, reason: str) -> None:
        raise AssertionError("a refused update doesn't give the game up")

    try:
        desk = Desk(panels=PanelSet(WebhookPace(transport.limits), fastpath.FastEdits(transport)))
        live: Any = type("Live", (), {"game_id": "ab12", "channel_id": 9})()
        outcome = await guard(desk, live, lambda: transport.call("POST", f"{base}/channels/9/messages", b"{}",
                                                                 token="t"), 600.0, give_up, transport.limits)
        assert outcome is Outcome.REFUSED and not desk.channel_gone
    finally:
        await transport.close()
    assert len(discord_api["seen"]) == 1


@pytest.mark.parametrize(("error", "kind"), [
    (OSError("reset"), "passing"), (TimeoutError(), "passing"), (aiohttp.ServerDisconnectedError(), "passing"),
    (discord.DiscordServerError(_Response(503), "down"), "passing"),
    (TooManyRequests(_Response(429), {"retry_after": 1}, 1.0), "rate limited"),
    (discord.Forbidden(_Response(403), {"code": 50013, "message": "Missing Permissions"}), "no access"),
    (discord.Forbidden(_Response(403), {"code": 20001, "message": "Bots cannot use this endpoint"}), "refused"),
    (discord.NotFound(_Response(404), {"code": 10003, "message": "Unknown Channel"}), "gone"),
    (discord.HTTPException(_Response(400), {"code": 50083, "message": "Thread is archived"}), "refused"),
    (Held("breaker"), "refused"),
])
def test_every_failure_has_one_meaning(error: BaseException, kind: str) -> None:
    assert fault(error).value == kind


async def test_a_table_post_whose_answer_was_lost_is_looked_for_before_it_is_sent_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Discord took the follow-up and the connection closed before its answer: the bot finds the
    table in the channel and keeps its id, rather than posting it a second time."""
    posted: list[dict[str, Any]] = []
    looked: list[str] = []

    async def follow_up(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        posted.append({"id": str(77 + len(posted)), "author": {"id": "1"}, "components": body["components"]})
        if len(posted) == 1:  # taken, then the connection dropped with no answer
            assert request.transport is not None
            request.transport.close()
            raise ConnectionResetError
        return web.json_response(posted[-1])

    async def messages(request: web.Request) -> web.Response:
        looked.append(request.headers.get("Authorization", ""))
        return web.json_response(list(reversed(posted)))

    app = web.Application()
    app.router.add_post("/api/v10/webhooks/1/tok", follow_up)
    app.router.add_get("/api/v10/channels/2/messages", messages)
    edits = fastpath.FastEdits(Transport(RateLimits()), lambda: "bot-token")
    async with serving(app, monkeypatch):
        try:
            message_id = await edits.follow_up(_Interaction(), faces.closed_panel("The table"))  # type: ignore[arg-type]
        finally:
            await edits.close()
    assert message_id == 77 and len(posted) == 1 and looked == ["Bot bot-token"]


async def test_an_answer_that_cant_wait_out_a_ban_fails_at_once() -> None:
    """An interaction's answer has Discord's 3 s; a ban holds calls for a minute: it fails now."""
    limits = RateLimits()
    limits.note(None, 429, {"content-type": "text/html", "retry-after": "60"}, b"<html>banned</html>")
    transport = Transport(limits)
    loop = asyncio.get_running_loop()
    started = loop.time()
    try:
        with pytest.raises(Held):
            await transport.call("POST", "http://127.0.0.1:1/api/v10/interactions/1/t/callback", b"{}", timeout=2.5)
    finally:
        await transport.close()
    assert loop.time() - started < 0.5
