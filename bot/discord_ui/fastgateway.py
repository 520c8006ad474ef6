"""The gateway's busiest events without discord.py's parsing: clicks on a panel's cards and bids
(and My hand) go straight to their button kind, the busiest slash commands (`/spades play`, `bid`,
`hand`) straight to their callback, new channel messages are only counted, and the
table's own edits are known by a frame's first bytes and never parsed (why, with figures:
docs/transport.md).

discord.py's private parts are used only in this module: `ConnectionState.parsers` (the gateway's
event table), `InteractionResponse._response_type` (what `response.is_done()` reads), the slot
an interaction keeps its response in (`_cs_response`) and, in
`DiscordWebSocket.received_message`, the frame's decompressor, its number and the heartbeat's
tick. `tests/discord_ui/test_fastgateway.py` fails when any of them changes.
"""

from __future__ import annotations

import asyncio
import logging
import re
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

import discord
import discord.gateway
import orjson

log = logging.getLogger(__name__)

_COMMAND, _COMPONENT, _BUTTON = 2, 3, 2  # interaction types, component type
_CHAT_INPUT, _SUBCOMMAND, _STRING = 1, 1, 3  # a slash command, its subcommand, a text option


Command = Callable[..., Awaitable[Any]]  # (interaction, *the options' texts, in their order)


class Clickable(Protocol):
    """A button kind the fast route answers from its custom_id's match alone: building the button
    (a discord.py item, about 7 µs) only to reach its callback would be work for nothing."""

    @classmethod
    async def clicked(cls, interaction: discord.Interaction[Any], match: re.Match[str]) -> Any: ...


class Click(discord.Interaction[Any]):
    """An interaction the fast route answers. discord.py's interaction and its `response` refer to
    each other, so every click (and the payload it keeps) outlived its last use until a garbage
    collection found the loop: at 200 clicks a second, the bulk of what the middle generation's
    collections freed. Here the response holds its interaction weakly; whoever uses a response
    holds the interaction anyway."""

    __slots__ = ("__weakref__",)

    @discord.utils.cached_slot_property("_cs_response")
    def response(self) -> discord.InteractionResponse[Any]:
        return discord.InteractionResponse(weakref.proxy(self))


class FastClicks:
    """Takes over the gateway's INTERACTION_CREATE for the given button kinds, by custom_id."""

    def __init__(self, client: discord.Client, kinds: Sequence[tuple[str, type[Clickable]]],
                 note: Callable[[discord.Interaction[Any]], None]) -> None:
        self._client = client
        self._kinds = [(re.compile(template), kind) for template, kind in kinds]
        self._note = note  # what the client's on_interaction does, for the clicks taken here
        self._group = ""
        self._commands: dict[str, tuple[tuple[str, ...], Command]] = {}
        self._failed: Callable[[discord.Interaction[Any], Exception], Awaitable[Any]] | None = None
        self._running: set[asyncio.Task[Any]] = set()
        self.taken = 0  # clicks routed here (tests read it)

    def route_commands(self, group: str, commands: Mapping[str, tuple[tuple[str, ...], Command]],
                       failed: Callable[[discord.Interaction[Any], Exception], Awaitable[Any]]) -> None:
        """`/group name` with exactly the given text options goes to its callback, not through
        discord.py's command tree (its namespace, transformers and checks cost more than the move
        itself); an error goes to `failed`, as the tree's would. Anything else (other options, an
        autocomplete, a forged shape) is left to the tree, which answers it as before."""
        self._group, self._commands, self._failed = group, dict(commands), failed

    def install(self) -> None:
        state = self._client._connection
        parsers: dict[str, Callable[[Any], None]] = state.parsers
        through_discord_py = parsers["INTERACTION_CREATE"]

        def parse(data: Any) -> None:
            if not self._take(data, state):
                through_discord_py(data)

        parse.whole_frame = True  # type: ignore[attr-defined]
        parsers["INTERACTION_CREATE"] = parse
        _read_frames_directly()

    def _take(self, data: Mapping[str, Any], state: Any) -> bool:
        inner = data.get("data")
        if data.get("type") == _COMMAND:
            return self._take_command(data, inner, state)
        if data.get("type") != _COMPONENT or not isinstance(inner, dict) or inner.get("component_type") != _BUTTON:
            return False
        custom_id = inner.get("custom_id")
        for pattern, kind in self._kinds:
            match = pattern.fullmatch(custom_id) if isinstance(custom_id, str) else None
            if match is not None:
                interaction = Click(data=_without_message(data), state=state)  # type: ignore[arg-type]
                self._note(interaction)
                self._run(kind.clicked(interaction, match))
                self.taken += 1
                return True
        return False

    def _take_command(self, data: Mapping[str, Any], inner: Any, state: Any) -> bool:
        if not isinstance(inner, dict) or inner.get("name") != self._group or inner.get("type") != _CHAT_INPUT:
            return False
        options = inner.get("options")
        if not isinstance(options, list) or len(options) != 1 or not isinstance(options[0], dict):
            return False
        sub = options[0]
        routed = self._commands.get(str(sub.get("name"))) if sub.get("type") == _SUBCOMMAND else None
        given = sub.get("options") or []
        if routed is None or not isinstance(given, list):
            return False
        names, command = routed
        values = {option.get("name"): option.get("value") for option in given if isinstance(option, dict)
                  and option.get("type") == _STRING and isinstance(option.get("value"), str)}
        if len(values) != len(given) or set(values) != set(names):
            return False
        interaction = Click(data=data, state=state)  # type: ignore[arg-type]
        self._note(interaction)
        self._run(self._answered(interaction, command(interaction, *(values[name] for name in names))))
        self.taken += 1
        return True

    async def _answered(self, interaction: discord.Interaction[Any], work: Awaitable[Any]) -> None:
        try:
            await work
        except Exception as error:
            if self._failed is None:
                raise
            await self._failed(interaction, error)

    def _run(self, work: Awaitable[Any]) -> None:
        async def run() -> None:
            try:
                await work
            except Exception:  # the callbacks report their own errors; this is a last resort
                log.exception("a click's callback failed")

        task = asyncio.get_running_loop().create_task(run())
        self._running.add(task)
        task.add_done_callback(self._running.discard)


def count_messages(client: discord.Client, note: Callable[[int, int], None]) -> None:
    """Every message posted in a channel the bot sees is `note(channel_id, message_id)`; edits are
    not read at all."""
    parsers: dict[str, Callable[[Any], None]] = client._connection.parsers
    parsers["MESSAGE_CREATE"] = lambda data: note(int(data["channel_id"]), int(data["id"]))
    parsers["MESSAGE_UPDATE"] = _unread
    _read_frames_directly()


def _unread(data: Any) -> None:
    """The parser of an event nobody reads; a websocket whose client has it skips the event's frames."""


_DIRECT_FRAME = re.compile(r'\{"t":"(INTERACTION_CREATE|MESSAGE_UPDATE)","s":(\d+),')


def _read_frames_directly() -> None:
    """The gateway's two busiest frames skip discord.py's reading of a frame (its event dispatch,
    logging and listener scan, on every click): an edit nobody reads
    (`_unread`) is recognised by its start and not parsed at all; an interaction, when the fast route
    is installed, is parsed and handed to it. Discord writes a dispatch's `t` and `s` first; any
    other frame, or a client without these parsers, is read by discord.py as before."""
    websocket: Any = discord.gateway.DiscordWebSocket
    read_whole = websocket.received_message
    if getattr(read_whole, "reads_directly", False):
        return

    async def received_message(ws: Any, msg: Any, /) -> None:
        if type(msg) is bytes:
            msg = ws._decompressor.decompress(msg)
            if msg is None:  # part of a frame
                return
        known = _DIRECT_FRAME.match(msg)
        if known is not None:
            parse = ws._discord_parsers.get(known[1])
            if parse is _unread or getattr(parse, "whole_frame", False):
                ws.sequence = int(known[2])
                if ws._keep_alive:
                    ws._keep_alive.tick()
                if parse is not _unread:
                    parse(orjson.loads(msg)["d"])
                return
        await read_whole(ws, msg)  # a str now: discord.py takes it as it would a text frame

    received_message.reads_directly = True  # type: ignore[attr-defined]
    websocket.received_message = received_message


def _without_message(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The click as discord.py would parse it, less the clicked message (`interaction.message` is
    None): nothing reads it, the button clicked is in the custom_id. Its buttons took more than half
    the time of building the interaction (39 µs, 15 µs without), and the rest of the message (its
    author, flags, metadata and a dozen lists) was over half of what remained. The interaction is
    also made of reference cycles, so all of it lives until a garbage collection finds it: under
    load the clicked messages were a fifth of what each middle-generation collection walked."""
    if "message" not in data:
        return data
    return {key: value for key, value in data.items() if key != "message"}


def mark_answered(interaction: discord.Interaction[Any], how: discord.InteractionResponseType) -> None:
    """An interaction answered by `fastpath` counts as answered for discord.py (its follow-ups,
    `response.is_done()`)."""
    interaction.response._response_type = how
