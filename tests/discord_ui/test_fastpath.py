"""The fast path writes panel and table edits without discord.py: these tests hold it to what
discord.py itself would send, so a discord.py release that changes the components JSON or the edit
request fails here rather than on a player's panel."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import discord
import orjson
import pytest
from aiohttp import web

from bot.discord_ui import layout
from bot.discord_ui.table import faces
from bot.discord_ui.table.views import draw, hand_button_view, lobby_rows, lobby_view
from bot.discord_ui.transport import USER_AGENT, TooManyRequests, fastpath
from bot.engine import Game, Mode, Rules, seat_view, table_view
from bot.service import LiveGame
from bot.store import GameStatus, Seat

APP_ID, TOKEN, LIMITED_TOKEN, ONCE_TOKEN = 1234567890, "aW50ZXJhY3Rpb24tdG9rZW4", "bGltaXRlZA", "b25jZQ"
ANSWERED_TOKEN = "YW5zd2VyZWQ"  # an interaction whose answer already got there (a resend's refusal)
BOT_TOKEN = "Ym90LXRva2Vu.bot"  # a made-up bot token: only the fake below ever sees it


def _live(mode: Mode, rules: Rules, seed: int) -> LiveGame:
    names = ["alice", "bob", "carol", "dave"][: 3 if mode is Mode.CUTTHROAT else 4]
    seats = [Seat(i, name, user_id=i + 1) for i, name in enumerate(names)]
    live = LiveGame("ab12", 1, 2, mode, rules, 1, seats, 120.0, status="playing")
    live.game = Game.new("ab12", mode, rules, seed=seed, names=names)
    live.game.deal()
    return live


def _faces_through_games() -> list[layout.Face]:
    """Every kind of panel and table a game shows: bidding, blind nil offers, play, jokers, the end."""
    found: list[layout.Face] = [faces.closed_panel("This game is over.")]
    rng = random.Random(7)
    for mode, rules in [(Mode.CUTTHROAT, Rules(target=50, mercy=50, jokers=True)),
                        (Mode.SOLO, Rules(target=100)),
                        (Mode.PARTNERS, Rules(blind_nil_deficit=0, target=100, hints="on"))]:
        live = _live(mode, rules, seed=rng.randrange(10_000))
        if rules.hints == "on":  # hints are offered only with a computer player seated
            live.seats[3] = Seat(3, "Bot 1 (easy)", bot_level="easy")
        game = live.game
        assert game is not None
        for step in range(400):
            if step % 7 == 0:
                found.append(faces.table(table_view(game), playing=True))
                for viewer in range(game.seats):
                    found.append(faces.panel(live, seat_view(game, viewer), "Not your turn." if viewer else None))
            if game.is_over:
                break
            seat = game.turn
            assert seat is not None
            if game.cards_hidden(seat):
                game.reveal(seat)
            elif game.phase.name == "BIDDING":
                game.bid(seat, rng.choice(seat_view(game, seat).legal_bids))
            else:
                game.play(seat, rng.choice(seat_view(game, seat).legal_cards))
            if game.phase.name == "DEALING":
                game.deal()
        found.append(faces.table(table_view(game), playing=False))
    return found


def test_the_json_is_what_discord_py_makes_of_the_same_face() -> None:
    shown = _faces_through_games()
    assert len(shown) > 100
    rows = [row for face in shown for part in face.parts if isinstance(part, layout.Row | layout.Cards)
            for row in (part.as_rows() if isinstance(part, layout.Cards) else [part])]
    kinds = {b.kind for row in rows for b in row.buttons}
    assert kinds == {"hand", "bid", "card", "reveal", "hint"}  # every button a panel or table carries
    assert any(len(row.buttons) == layout.ROW_WIDTH for row in rows if row.buttons[0].kind == "card")  # suits wrap
    for face in shown:
        assert orjson.loads(orjson.dumps(fastpath.components(face))) == draw(face).to_components()
        assert draw(face).has_components_v2()


def test_card_buttons_written_from_kept_pieces_hold_any_game_id() -> None:
    """The card buttons' JSON is pieced together around the game's id: an id that JSON must escape
    still reads back as the same buttons written one by one (held to discord.py above)."""
    for game_id in ("ab12", 'q"\\é/1'):
        cards = layout.Cards(game_id, (0, 12, 13, 25, 40, 51), (True, False) * 3)
        one_by_one = layout.Face(faces.YOUR_TURN_COLOUR, tuple(cards.as_rows()))
        written = orjson.loads(fastpath.edit_body(layout.Face(faces.YOUR_TURN_COLOUR, (cards,))))["components"]
        assert written == fastpath.components(one_by_one)
        assert written[0]["components"][0]["components"][0]["custom_id"] == f"spades:card:{game_id}:0"


def _json(data: dict[str, Any], status: int) -> web.Response:
    """As Discord answers: discord.py reads a body as JSON only under exactly this content type."""
    return web.Response(body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"})


@pytest.fixture
async def captured() -> AsyncIterator[tuple[str, list[dict[str, Any]]]]:
    """A web server on 127.0.0.1 that records each request and answers as Discord does."""
    requests: list[dict[str, Any]] = []

    async def answer(request: web.Request) -> web.Response:
        body = await request.read()
        requests.append({"method": request.method, "path": request.path, "query": dict(request.query),
                         "content_type": request.content_type, "json": json.loads(body) if body else None,
                         "auth": request.headers.get("Authorization"), "agent": request.headers.get("User-Agent")})
        if ONCE_TOKEN in request.path and len(requests) == 1:  # refused once, for a moment
            return _json({"message": "You are being rate limited.", "retry_after": 0.05, "global": False}, 429)
        if LIMITED_TOKEN in request.path:  # a webhook whose bucket is spent
            return _json({"message": "You are being rate limited.", "retry_after": 2.5, "global": False}, 429)
        if request.path.endswith("/users/@me/channels"):
            return _json({"id": "77", "type": 1, "last_message_id": None, "recipients": [
                {"id": "5", "username": "ann", "discriminator": "0", "avatar": None}]}, 200)
        message = {"id": "1", "channel_id": "2", "type": 0, "content": "", "author": {
            "id": str(APP_ID), "username": "spades", "discriminator": "0", "avatar": None},
            "attachments": [], "embeds": [], "mentions": [], "mention_roles": [], "pinned": False,
            "mention_everyone": False, "tts": False, "timestamp": "2026-01-01T00:00:00+00:00",
            "edited_timestamp": None, "flags": 32768, "components": []}
        if request.path.endswith("/callback") and ANSWERED_TOKEN in request.path:
            return _json({"message": "Interaction has already been acknowledged.", "code": 40060}, 400)
        if request.path.endswith("/callback") and request.query.get("with_response") == "1":
            return _json({"interaction": {"id": "55", "type": 2}, "resource": {"type": 4, "message": message}}, 200)
        if request.path.endswith("/callback"):
            return _json({"interaction": {"id": "1", "type": 3}, "resource": {"type": 7}}, 200)
        return _json(message, 200)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    old_base = discord.http.Route.BASE
    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    try:
        yield discord.http.Route.BASE, requests
    finally:
        discord.http.Route.BASE = old_base
        await runner.cleanup()


class _Interaction:
    application_id, token = APP_ID, TOKEN


@pytest.mark.parametrize("message", ["@original", 987654321])
async def test_the_request_is_what_discord_py_sends_for_the_same_edit(
        captured: tuple[str, list[dict[str, Any]]], message: int | str) -> None:
    _, requests = captured
    face = _faces_through_games()[5]
    client = discord.Client(intents=discord.Intents.none(), allowed_mentions=discord.AllowedMentions.none())
    async with aiohttp.ClientSession() as session:  # the bot's client: mentions off unless a message asks
        webhook = discord.Webhook.partial(APP_ID, TOKEN, session=session, client=client)
        await webhook.edit_message(message, view=draw(face))  # type: ignore[arg-type]  # "@original" too
    edits = fastpath.FastEdits()
    try:
        await edits.edit(_Interaction(), message, face)  # type: ignore[arg-type]
    finally:
        await edits.close()
    theirs, ours = requests
    assert (ours["method"], ours["path"], ours["content_type"]) == (theirs["method"], theirs["path"],
                                                                    theirs["content_type"])
    # What shows: the layout, its flag, and no pings. (A partial webhook also sends `tts: false` and
    # `with_components`, which an interaction's webhook, the bot's own application, doesn't need.)
    meaning = ("components", "flags", "allowed_mentions")
    assert {k: ours["json"][k] for k in meaning} == {k: theirs["json"][k] for k in meaning}
    assert set(ours["json"]) == set(meaning) and not theirs["json"].get("tts")


async def test_a_429_says_how_long_to_wait(captured: tuple[str, list[dict[str, Any]]]) -> None:
    class Limited:
        application_id, token = APP_ID, LIMITED_TOKEN

    edits = fastpath.FastEdits()
    try:
        with pytest.raises(TooManyRequests) as limited:
            await edits.edit(Limited(), "@original", faces.closed_panel("asleep"))  # type: ignore[arg-type]
        assert limited.value.status == 429 and limited.value.retry_after == 2.5
    finally:
        await edits.close()


def _click(client: discord.Client, token: str = TOKEN) -> discord.Interaction[Any]:
    """A click on a button of an ephemeral panel, as the gateway delivers it."""
    return discord.Interaction(data={  # type: ignore[arg-type]
        "id": "55", "application_id": str(APP_ID), "type": 3, "token": token, "version": 1,
        "data": {"custom_id": "spades:card:ab12:7", "component_type": 2}, "channel_id": "2",
        "locale": "en-US", "app_permissions": "0", "entitlements": [], "authorizing_integration_owners": {},
        "attachment_size_limit": 10_485_760,
    }, state=client._connection)


Answer = Callable[[discord.Interaction[Any]], Awaitable[Any]]


async def _answered_both_ways(requests: list[dict[str, Any]], theirs: Answer,
                              ours: Callable[[fastpath.FastEdits, discord.Interaction[Any]], Awaitable[None]],
                              ) -> tuple[dict[str, Any], dict[str, Any], discord.Interaction[Any]]:
    """The same click answered by discord.py (`theirs`) and by the fast path (`ours`): the two
    requests, which must be the same call, and our interaction."""
    client = discord.Client(intents=discord.Intents.none(), allowed_mentions=discord.AllowedMentions.none())
    theirs_click, ours_click = _click(client), _click(client)
    async with aiohttp.ClientSession() as session:
        theirs_click._session = session
        await theirs(theirs_click)
    edits = fastpath.FastEdits()
    try:
        await ours(edits, ours_click)
    finally:
        await edits.close()
    theirs_request, ours_request = requests
    assert {k: ours_request[k] for k in ("method", "path", "content_type")} == \
           {k: theirs_request[k] for k in ("method", "path", "content_type")}
    assert ours_click.response.is_done() and theirs_click.response.is_done()
    return theirs_request, ours_request, ours_click


async def test_a_clicks_answer_is_what_discord_py_sends_for_the_same_update(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    face = _faces_through_games()[5]
    theirs, ours, _ = await _answered_both_ways(captured[1], lambda i: i.response.edit_message(view=draw(face)),
                                                lambda edits, i: edits.update(i, face))
    assert ours["json"]["type"] == theirs["json"]["type"] == 7  # UPDATE_MESSAGE: the clicked panel changes
    meaning = ("components", "flags", "allowed_mentions")
    assert {k: ours["json"]["data"][k] for k in meaning} == {k: theirs["json"]["data"][k] for k in meaning}


async def test_a_private_line_is_what_discord_py_sends_for_an_ephemeral_answer(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    """`/spades play` answered by the fast path: the same callback as send_message(ephemeral=True)."""
    said = "You played **Q♥**."
    theirs, ours, ours_command = await _answered_both_ways(
        captured[1], lambda i: i.response.send_message(said, ephemeral=True), lambda edits, i: edits.say(i, said))
    assert ours["json"] == {"type": 4, "data": {**theirs["json"]["data"], "tts": False}}
    assert ours["json"]["data"]["flags"] == 64 and ours["json"]["data"]["allowed_mentions"]["parse"] == []
    with pytest.raises(discord.InteractionResponded):  # discord.py knows it is answered
        await ours_command.response.send_message("again")


async def test_a_clicks_answer_refused_for_a_moment_is_sent_again_after_the_wait(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    _, requests = captured
    client = discord.Client(intents=discord.Intents.none())
    click = _click(client, ONCE_TOKEN)
    edits = fastpath.FastEdits()
    try:
        await edits.update(click, faces.closed_panel("played"))
    finally:
        await edits.close()
    assert len(requests) == 2 and requests[0] == requests[1]  # the same answer, once more
    assert click.response.is_done()


async def test_a_clicks_answer_refused_past_discords_window_is_an_error(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    client = discord.Client(intents=discord.Intents.none())
    click = _click(client, LIMITED_TOKEN)  # asks for 2.5 s: past the 3 s an answer has
    edits = fastpath.FastEdits()
    try:
        with pytest.raises(TooManyRequests):
            await edits.update(click, faces.closed_panel("played"))
    finally:
        await edits.close()
    assert not click.response.is_done()


async def test_a_hands_direct_message_is_what_discord_py_sends_for_the_same_post(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    """Opening the DM and posting the hand in it: the same requests, as the bot, as discord.py's."""
    _, requests = captured
    client = discord.Client(intents=discord.Intents.none(), allowed_mentions=discord.AllowedMentions.none())
    await client.http.static_login(BOT_TOKEN)
    try:
        await client.create_dm(discord.Object(5))
        await client.get_partial_messageable(77, type=discord.ChannelType.private).send(
            "Your hand: A♠ K♠", nonce="ab12p7d0")
    finally:
        await client.http.close()
    calls = fastpath.FastEdits()
    try:
        assert await calls.open_dm(BOT_TOKEN, 5) == 77
        await calls.post(BOT_TOKEN, 77, "Your hand: A♠ K♠", "ab12p7d0")
    finally:
        await calls.close()
    _login, open_theirs, post_theirs, open_ours, post_ours = requests
    for theirs, ours in [(open_theirs, open_ours), (post_theirs, post_ours)]:
        assert {k: ours[k] for k in ("method", "path", "content_type", "auth")} == \
               {k: theirs[k] for k in ("method", "path", "content_type", "auth")}
        assert ours["agent"] == USER_AGENT and USER_AGENT.startswith("DiscordBot (https://")  # names this project
    assert open_ours["json"] == open_theirs["json"] == {"recipient_id": 5}
    # The text, pings off, the nonce Discord dedupes on (discord.py adds an empty list of components).
    assert post_ours["json"] == {k: v for k, v in post_theirs["json"].items() if k != "components"}
    assert post_theirs["json"].get("components") == []
    assert post_ours["json"]["nonce"] == "ab12p7d0" and post_ours["json"]["enforce_nonce"] is True


async def test_a_new_private_panel_is_what_discord_py_sends_for_the_same_answer(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    """My hand answered by the fast path: the same callback as send_message(view=..., ephemeral=True)."""
    face = _faces_through_games()[5]
    theirs, ours, _ = await _answered_both_ways(
        captured[1], lambda i: i.response.send_message(view=draw(face), ephemeral=True),
        lambda edits, i: edits.show(i, face))
    assert ours["json"]["type"] == theirs["json"]["type"] == 4  # a new message, not the clicked one changed
    assert theirs["json"]["data"].pop("content") is None  # discord.py says "no text" in so many words
    assert ours["json"]["data"] == theirs["json"]["data"]
    assert ours["json"]["data"]["flags"] == fastpath.COMPONENTS_V2 | fastpath.EPHEMERAL


async def test_a_table_posted_as_a_follow_up_is_what_discord_py_sends_for_the_same_post(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    """A table posted through a click's webhook: the same call as `followup.send(view=..., wait=True)`,
    and the new message's id read back."""
    _, requests = captured
    face = next(shown for shown in _faces_through_games() if shown.colour == faces.TABLE_COLOUR
                and any(isinstance(part, layout.Row) for part in shown.parts))
    client = discord.Client(intents=discord.Intents.none(), allowed_mentions=discord.AllowedMentions.none())
    await client.http.static_login(BOT_TOKEN)
    try:
        theirs_id = (await _click(client).followup.send(view=draw(face), wait=True)).id
    finally:
        await client.http.close()
    edits = fastpath.FastEdits()
    try:
        ours_id = await edits.follow_up(_click(client), face)
    finally:
        await edits.close()
    _login, theirs, ours = requests
    assert {k: ours[k] for k in ("method", "path", "query", "content_type")} == \
           {k: theirs[k] for k in ("method", "path", "query", "content_type")}
    assert ours["query"].get("wait") == "1"  # Discord answers with the message, whose id the table keeps
    meaning = ("components", "flags", "allowed_mentions")
    assert {k: ours["json"][k] for k in meaning} == {k: theirs["json"][k] for k in meaning}
    assert set(ours["json"]) == set(meaning) and not theirs["json"].get("tts")
    assert ours_id == theirs_id == 1


def _lobby(status: GameStatus) -> LiveGame:
    seats = [Seat(0, "alice", user_id=1), Seat(1, "bob", user_id=2)]
    return LiveGame("ab12", 1, 2, Mode.CUTTHROAT, Rules(), 1, seats, 120.0, status=status)


@pytest.mark.parametrize("status", ["lobby", "playing"])
async def test_a_lobby_edit_is_what_discord_py_sends_for_the_same_edit(
        captured: tuple[str, list[dict[str, Any]]], status: GameStatus) -> None:
    """The lobby's text and its buttons (none once the game has started), as `edit_original_response`."""
    _, requests = captured
    live, text = _lobby(status), "**Cutthroat Spades** · alice, bob · waiting for one more"
    client = discord.Client(intents=discord.Intents.none(), allowed_mentions=discord.AllowedMentions.none())
    theirs_click = _click(client)
    async with aiohttp.ClientSession() as session:
        theirs_click._session = session
        await theirs_click.edit_original_response(content=text, view=lobby_view(live))
    edits = fastpath.FastEdits()
    try:
        await edits.edit_text(_click(client), "@original", text, lobby_rows(live))
    finally:
        await edits.close()
    theirs, ours = requests
    assert {k: ours[k] for k in ("method", "path", "query", "content_type")} == \
           {k: theirs[k] for k in ("method", "path", "query", "content_type")}
    meaning = ("content", "components", "allowed_mentions")  # and discord.py's `tts: false`, meaningless in an edit
    assert {k: ours["json"][k] for k in meaning} == {k: theirs["json"][k] for k in meaning}
    assert set(ours["json"]) == set(meaning) and not theirs["json"].get("tts")
    assert (len(ours["json"]["components"]) == 1) is (status == "lobby")  # a started game's lobby: no buttons


async def test_a_lobby_click_answered_is_what_discord_py_sends_for_the_same_update(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    """A lobby button answered by the fast path: the same callback as `edit_message(content=, view=)`."""
    live, text = _lobby("lobby"), "**Cutthroat Spades** · alice, bob · waiting for one more"
    theirs, ours, _ = await _answered_both_ways(
        captured[1], lambda i: i.response.edit_message(content=text, view=lobby_view(live)),
        lambda edits, i: edits.update_text(i, text, lobby_rows(live)))
    assert ours["json"]["type"] == theirs["json"]["type"] == 7  # the lobby message itself changes
    meaning = ("content", "components", "allowed_mentions")
    assert {k: ours["json"]["data"][k] for k in meaning} == {k: theirs["json"]["data"][k] for k in meaning}
    assert ours["json"]["data"]["content"] == text and len(ours["json"]["data"]["components"]) == 1


async def test_a_turn_mention_is_what_discord_py_sends_for_the_same_follow_up(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    """The turn mention through a click's webhook: the same call as `followup.send(text, view=My hand,
    allowed_mentions=that user, wait=True)`; it pings that user alone, and its id is read back. Then
    its removal: the same DELETE as `followup.delete_message`."""
    _, requests = captured
    text = "<@5>, your turn: bob led 7♥ (bob 7♥)."
    client = discord.Client(intents=discord.Intents.none(), allowed_mentions=discord.AllowedMentions.none())
    await client.http.static_login(BOT_TOKEN)
    try:
        theirs_id = (await _click(client).followup.send(
            text, view=hand_button_view("ab12"), wait=True,
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(5)]))).id
        await _click(client).followup.delete_message(theirs_id)
    finally:
        await client.http.close()
    edits = fastpath.FastEdits()
    try:
        ours_id = await edits.mention(_click(client), text, 5, [fastpath.button_row([faces.hand_button("ab12")])])
        await edits.delete(_click(client), ours_id)
    finally:
        await edits.close()
    _login, theirs, theirs_delete, ours, ours_delete = requests
    for their_call, our_call in [(theirs, ours), (theirs_delete, ours_delete)]:
        assert {k: our_call[k] for k in ("method", "path", "query", "auth")} == \
               {k: their_call[k] for k in ("method", "path", "query", "auth")}
    meaning = ("content", "components", "allowed_mentions")
    assert {k: ours["json"][k] for k in meaning} == {k: theirs["json"][k] for k in meaning}
    assert ours["json"]["allowed_mentions"] == {"parse": [], "users": [5]}  # that player, nobody else
    assert ours_id == theirs_id == 1 and ours_delete["method"] == "DELETE"


async def test_a_new_lobby_is_what_discord_py_sends_for_the_same_answer(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    """`/spades new` answered by the fast path: the same callback as `send_message(text, view=lobby)`,
    asking Discord for the new message (`with_response`), whose id the lobby keeps."""
    live, text = _lobby("lobby"), "**Cutthroat Spades** · alice · waiting for two more"
    ids: list[int] = []

    view = lobby_view(live)
    assert view is not None

    async def theirs(interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(text, view=view)

    async def ours(edits: fastpath.FastEdits, interaction: discord.Interaction[Any]) -> None:
        ids.append(await edits.announce(interaction, text, lobby_rows(live)))

    their_call, our_call, _ = await _answered_both_ways(captured[1], theirs, ours)
    assert our_call["query"] == their_call["query"] == {"with_response": "1"}
    assert our_call["json"]["type"] == their_call["json"]["type"] == 4  # a new message, seen by everyone
    meaning = ("content", "components", "allowed_mentions", "tts")
    assert {k: our_call["json"]["data"][k] for k in meaning} == {k: their_call["json"]["data"][k] for k in meaning}
    assert "flags" not in our_call["json"]["data"] and ids == [1]  # the message Discord's answer names


async def test_a_new_lobby_whose_answer_got_there_before_is_found_as_the_original(
        captured: tuple[str, list[dict[str, Any]]]) -> None:
    """A lobby's answer sent again after its first was lost is refused (40060: the first got there);
    its message is then the interaction's original, asked for once."""
    _, requests = captured
    client = discord.Client(intents=discord.Intents.none())
    edits = fastpath.FastEdits()
    try:
        assert await edits.announce(_click(client, ANSWERED_TOKEN), "lobby", []) == 1
    finally:
        await edits.close()
    assert [(r["method"], r["path"].rsplit("/", 2)[-2:]) for r in requests] == [
        ("POST", [ANSWERED_TOKEN, "callback"]), ("GET", ["messages", "@original"])]
