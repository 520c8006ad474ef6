"""The bot's most frequent calls as typed operations, written without discord.py: a click's answer
(`update`, `say`, `show`), panel, table and lobby edits through an interaction's webhook, the
table's follow-up post, and the hand's direct message. Through discord.py each built a view, took
its locks and parsed back a message nobody reads: most of the bot's CPU at load (see
docs/transport.md). `tests/discord_ui/test_fastpath.py` holds every request to what discord.py
sends for the same answer, edit or post, so a discord.py release that changes one fails there.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import time
from collections.abc import Callable
from typing import Any

import discord
import orjson

from bot.discord_ui import fastgateway, layout
from bot.discord_ui.transport import ALREADY_ANSWERED, Backoff, RateLimits, Transport, Unanswered, passing
from bot.engine import Card

COMPONENTS_V2 = 1 << 15  # the message flag of a layout of containers (discord.MessageFlags.components_v2)
EPHEMERAL = 1 << 6  # the message flag of an answer only its user sees
_TEXT, _CONTAINER, _ROW, _BUTTON, _SEPARATOR = 10, 17, 1, 2, 14


def components(face: layout.Face) -> list[dict[str, Any]]:
    """A face as Discord's components JSON."""
    parts: list[dict[str, Any]] = []
    for part in face.parts:
        if isinstance(part, layout.Text):
            parts.append({"type": _TEXT, "content": part.content})
        elif isinstance(part, layout.Divider):
            parts.append({"type": _SEPARATOR, "divider": True, "spacing": 1})
        elif isinstance(part, layout.Row):
            parts.append({"type": _ROW, "components": [_button(button) for button in part.buttons]})
        else:
            buttons, width = _card_buttons(part), layout.ROW_WIDTH
            parts += ({"type": _ROW, "components": orjson.Fragment(b"[%s]" % b",".join(buttons[i:i + width]))}
                      for i in range(0, len(buttons), width))
    return [{"type": _CONTAINER, "accent_color": face.colour, "spoiler": False, "components": parts}]


def button_row(buttons: list[layout.Button]) -> dict[str, Any]:
    """A row of buttons as Discord's JSON, for a message of text (the turn mention)."""
    return {"type": _ROW, "components": [_button(button) for button in buttons]}


def _button(button: layout.Button) -> dict[str, Any]:
    return _button_json(button.style, button.disabled, button.label, button.custom_id, button.emoji)


def _button_json(style: int, disabled: bool, label: str, custom_id: str, emoji: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"type": _BUTTON, "style": style, "disabled": disabled, "label": label,
                            "custom_id": custom_id}
    if emoji is not None:
        data["emoji"] = {"id": None, "name": emoji}
    return data


def _card_buttons(cards: layout.Cards) -> list[bytes]:
    """`layout.card_button`'s JSON, each button serialised already (a panel's edit has up to 17, two
    panels a move): the JSON of a card, enabled or not, is kept, around the place of its game's id."""
    game = orjson.dumps(cards.game_id)[1:-1]  # the id as it reads inside a JSON string
    return [before + game + after for before, after in map(_card_json, cards.cards, cards.enabled)]


_GAME_MARK = "{game}"  # where the game's id goes: no label or other part of a custom_id holds it


@functools.cache
def _card_json(card: Card, enabled: bool) -> tuple[bytes, bytes]:
    """A card button's JSON, in two pieces: before its game's id, and after it."""
    label, style = layout.card_look(card)
    whole = orjson.dumps(_button_json(style, not enabled, label, layout.card_custom_id(_GAME_MARK, card)))
    before, after = whole.split(_GAME_MARK.encode())
    return before, after


def _message(face: layout.Face) -> dict[str, Any]:
    return {"components": components(face), "flags": COMPONENTS_V2, "allowed_mentions": _NO_MENTIONS}


def edit_body(face: layout.Face) -> bytes:
    return _dumps(_message(face))


def update_body(face: layout.Face) -> bytes:
    """An interaction callback that shows `face` in the clicked message (UPDATE_MESSAGE)."""
    return _dumps({"type": discord.InteractionResponseType.message_update.value, "data": _message(face)})


def _dumps(data: dict[str, Any]) -> bytes:
    return orjson.dumps(data)  # a tenth of json.dumps' time, on every panel edit and answer


# The frequent calls' kinds for the metrics (`bot.ops.metrics.rest_kind` of their URLs), known here
# without reading each URL.
_EDIT, _DELETE, _FOLLOW_UP, _CALLBACK = ("PATCH webhooks/messages", "DELETE webhooks/messages", "POST webhooks",
                                         "POST interactions/callback")
ANSWER_WITHIN = 2.5  # seconds: Discord drops an interaction not answered within 3
LOOK_BACK = 10  # messages of the channel looked at for a follow-up whose fate is unknown


class FastEdits:
    """Answers clicks and edits messages through interactions' webhooks (outside the global rate
    limit), and makes the hand's direct messages, through the bot's transport."""

    def __init__(self, transport: Transport | None = None, token: Callable[[], str | None] = lambda: None) -> None:
        self._transport = transport or Transport(RateLimits())
        self._token = token  # the bot's token, once logged in

    async def edit(self, interaction: discord.Interaction[Any], message: int | str, face: layout.Face) -> None:
        """Show `face` in `message` (an id, or "@original": the interaction's own answer). Raises
        `discord.HTTPException` as discord.py would: a 429 or 5xx is for the caller to retry. The
        edit carries the whole message, so sending it twice is harmless."""
        await self._transport.call("PATCH", f"{_webhook(interaction)}/messages/{message}", edit_body(face),
                                   resend=True, kind=_EDIT)

    async def edit_text(self, interaction: discord.Interaction[Any], message: int | str, content: str,
                        rows: list[dict[str, Any]]) -> None:
        """Show `content` over `rows` of buttons (Discord's JSON; none: no buttons) in `message`, a
        message of text rather than a layout (the lobby), as `edit` does."""
        body = _dumps({"content": content, "components": rows, "allowed_mentions": _NO_MENTIONS})
        await self._transport.call("PATCH", f"{_webhook(interaction)}/messages/{message}", body, resend=True,
                                   kind=_EDIT)

    async def follow_up(self, interaction: discord.Interaction[Any], face: layout.Face) -> int:
        """Post `face` in the interaction's channel as a follow-up (a table): the new message's id.
        Not counted against the token's limit; edited through the same webhook (`edit`)."""
        wanted = _texts(components(face))
        return await self._post_once(interaction, edit_body(face),
                                     lambda message: _texts(message.get("components", [])) == wanted)

    async def mention(self, interaction: discord.Interaction[Any], content: str, user_id: int,
                      rows: list[dict[str, Any]]) -> int:
        """Post `content` over `rows` of buttons as a follow-up that pings `user_id` alone (the turn
        mention): the new message's id."""
        body = _dumps({"content": content, "components": rows, "tts": False,
                       "allowed_mentions": _mention_only(user_id)})
        return await self._post_once(interaction, body, lambda message: message.get("content") == content)

    async def _post_once(self, interaction: discord.Interaction[Any], body: bytes,
                         is_it: Callable[[dict[str, Any]], bool]) -> int:
        """POST a follow-up (not idempotent, and a webhook takes no nonce): a post whose answer never
        came may have been made, so the channel is looked at (`is_it`) before it is sent again."""
        url = f"{_webhook(interaction)}?wait=1&with_components=1"  # as discord.py asks
        since = discord.utils.time_snowflake(discord.utils.utcnow() - datetime.timedelta(seconds=60))
        try:
            reply = await self._transport.call("POST", url, body, resend=False, kind=_FOLLOW_UP)
        except Unanswered:
            made = await self._made_already(interaction, is_it, since)
            if made is not None:
                return made
            reply = await self._transport.call("POST", url, body, resend=False, kind=_FOLLOW_UP)
        return int(orjson.loads(reply.body)["id"])

    async def _made_already(self, interaction: discord.Interaction[Any], is_it: Callable[[dict[str, Any]], bool],
                            since: int) -> int | None:
        """The id of the bot's newest message in the channel that `is_it`, if one was posted after
        `since` (None: none, or the channel can't be read)."""
        token = self._token()
        if token is None or interaction.channel_id is None:
            return None
        url = f"{discord.http.Route.BASE}/channels/{interaction.channel_id}/messages?limit={LOOK_BACK}&after={since}"
        try:
            messages = orjson.loads((await self._transport.call("GET", url, b"", token=token)).body)
        except (discord.HTTPException, OSError):
            return None
        for message in messages:
            if str(message.get("author", {}).get("id")) == str(interaction.application_id) and is_it(message):
                return int(message["id"])
        return None

    async def delete(self, interaction: discord.Interaction[Any], message: int) -> None:
        """Remove a message the interaction's webhook made (sent again after a lost answer, it may
        find nothing: `discord.NotFound`, as for a message already gone)."""
        await self._transport.call("DELETE", f"{_webhook(interaction)}/messages/{message}", b"", resend=True,
                                   kind=_DELETE)

    async def open_dm(self, token: str, user_id: int) -> int:
        """The id of the DM channel with `user_id` (opened if need be: asking twice opens it once).
        Counted: take a slot first."""
        body = _dumps({"recipient_id": user_id})
        reply = await self._transport.call("POST", f"{discord.http.Route.BASE}/users/@me/channels", body,
                                           token=token, resend=True)
        return int(orjson.loads(reply.body)["id"])

    async def post(self, token: str, channel_id: int, content: str, nonce: str | None = None) -> None:
        """Post `content` (pings off) in a channel; with a nonce, Discord shows it once however often
        it is sent (so it may be sent again when its answer is lost). Counted: take a slot first."""
        data: dict[str, Any] = {"content": content, "tts": False, "allowed_mentions": _NO_MENTIONS}
        if nonce is not None:
            data |= {"nonce": nonce, "enforce_nonce": True}
        url = f"{discord.http.Route.BASE}/channels/{channel_id}/messages"
        await self._transport.call("POST", url, _dumps(data), token=token, resend=nonce is not None)

    async def update(self, interaction: discord.Interaction[Any], face: layout.Face) -> None:
        """Answer a click by showing `face` in the message clicked."""
        await self._answer(interaction, update_body(face), discord.InteractionResponseType.message_update)

    async def update_text(self, interaction: discord.Interaction[Any], content: str,
                          rows: list[dict[str, Any]]) -> None:
        """Answer a click by showing `content` over `rows` of buttons in the message clicked (the lobby)."""
        data = {"content": content, "components": rows, "allowed_mentions": _NO_MENTIONS}
        body = _dumps({"type": discord.InteractionResponseType.message_update.value, "data": data})
        await self._answer(interaction, body, discord.InteractionResponseType.message_update)

    async def show(self, interaction: discord.Interaction[Any], face: layout.Face) -> None:
        """Answer with `face` as a new message only the user sees (a private panel: My hand)."""
        data = _message(face) | {"flags": COMPONENTS_V2 | EPHEMERAL, "tts": False}
        body = _dumps({"type": discord.InteractionResponseType.channel_message.value, "data": data})
        await self._answer(interaction, body, discord.InteractionResponseType.channel_message)

    async def announce(self, interaction: discord.Interaction[Any], content: str, rows: list[dict[str, Any]]) -> int:
        """Answer with `content` over `rows` of buttons as a message everyone in the channel sees (a
        new lobby): its id, which Discord's answer names (`with_response`, as discord.py asks)."""
        data = {"content": content, "components": rows, "tts": False, "allowed_mentions": _NO_MENTIONS}
        body = _dumps({"type": discord.InteractionResponseType.channel_message.value, "data": data})
        reply = await self._answer(interaction, body, discord.InteractionResponseType.channel_message,
                                   "?with_response=1")  # as discord.py asks
        if reply is None:  # sent again, and the first got there: its message is the interaction's original
            reply = (await self._transport.call("GET", f"{_webhook(interaction)}/messages/@original", b"")).body
            return int(orjson.loads(reply)["id"])
        return int(orjson.loads(reply)["resource"]["message"]["id"])

    async def say(self, interaction: discord.Interaction[Any], text: str) -> None:
        """Answer with `text` that only the user sees (a move made by `/spades play` or `bid`, a
        seat taken in a rematch)."""
        body = _dumps({"type": discord.InteractionResponseType.channel_message.value,
                       "data": {"content": text, "tts": False, "flags": EPHEMERAL, "allowed_mentions": _NO_MENTIONS}})
        await self._answer(interaction, body, discord.InteractionResponseType.channel_message)

    async def _answer(self, interaction: discord.Interaction[Any], body: bytes,
                      how: discord.InteractionResponseType, query: str = "") -> bytes | None:
        """Send an interaction's answer within Discord's window; afterwards it counts as answered for
        discord.py too. Sending it twice is harmless: Discord refuses the second (40060), and that
        refusal means the first got there. Discord's answer (empty without `with_response`; None
        after such a refusal)."""
        url = f"{discord.http.Route.BASE}/interactions/{interaction.id}/{interaction.token}/callback{query}"
        give_up_at = time.monotonic() + ANSWER_WITHIN
        backoff = Backoff(first=0.1)
        answer: bytes | None = None
        while True:
            try:
                answer = (await self._transport.call("POST", url, body, resend=True, kind=_CALLBACK,
                                                     timeout=max(0.1, give_up_at - time.monotonic()))).body
                break
            except discord.HTTPException as error:
                if error.code == ALREADY_ANSWERED:
                    break
                if not passing(error):
                    raise
                wait = backoff.delay(error)  # the move is saved: a refused answer is tried again in the window
                if time.monotonic() + wait >= give_up_at:
                    raise
                await asyncio.sleep(wait)
        fastgateway.mark_answered(interaction, how)
        return answer

    async def close(self) -> None:
        await self._transport.close()


def _texts(parts: list[Any]) -> list[str]:
    """The text of a components layout, in order (what a person reads of a message)."""
    texts: list[str] = []
    for part in parts:
        if isinstance(part, dict):
            if part.get("type") == _TEXT:
                texts.append(str(part.get("content", "")))
            texts += _texts(part.get("components", []))
    return texts


def _webhook(interaction: discord.Interaction[Any]) -> str:
    """The interaction's webhook: what it may post and edit, outside the token's global limit."""
    return f"{discord.http.Route.BASE}/webhooks/{interaction.application_id}/{interaction.token}"


_NO_MENTIONS = discord.AllowedMentions.none().to_dict()  # as the bot's client sets for every message


def _mention_only(user_id: int) -> dict[str, Any]:
    """What discord.py sends for `AllowedMentions(users=[user])` over the client's `none()`."""
    return {"parse": [], "users": [user_id]}
