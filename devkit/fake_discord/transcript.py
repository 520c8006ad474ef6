"""What a person sees: which messages a user can see, and a plain-text transcript of them.

Tests count what reaches a player (`new_messages_for`) and people read whole games through
`transcript`: each message as the Discord client would show it to that user (author, edits
applied, ephemerals marked, buttons, components V2 layouts, attachments), with the user's own
actions (commands, clicks, choices, modals) in between, in creation order.
"""

from __future__ import annotations

import re
import textwrap
import time
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from . import models as m
from .jsontypes import JSON
from .models import FakeChannel, FakeInteraction, FakeMessage, FakeUser, snowflake_time

if TYPE_CHECKING:
    from .world import World

MENTION = re.compile(r"<(@!?|@&|#)(\d+)>")
TIMESTAMP = re.compile(r"<t:(-?\d+)(?::[tTdDfFR])?>")
TIME_WIDTH = 9
BODY_INDENT = " " * (TIME_WIDTH + 2)


def can_see(fake: World, user: FakeUser, message: FakeMessage) -> bool:
    """Whether `message` is on `user`'s screen: their ephemerals, their DMs, public messages of
    guild channels they can view."""
    if message.ephemeral:
        return message.visible_to is not None and message.visible_to.id == user.id
    channel = message.channel
    if channel.is_dm:
        return channel.recipient is not None and channel.recipient.id == user.id
    return bool(fake.permissions_for(user, channel) & m.VIEW_CHANNEL)


def messages_seen(
    fake: World,
    user: FakeUser,
    channels: Iterable[FakeChannel] | None = None,
    *,
    since: int | None = None,
    include_deleted: bool = False,
) -> list[FakeMessage]:
    """Messages `user` sees (in `channels`, or anywhere), created after checkpoint `since`, oldest first."""
    scope = None if channels is None else {c.id for c in channels}
    after = since or 0
    return [
        msg
        for msg in list(fake.messages.values())
        if msg.id > after
        and (scope is None or msg.channel.id in scope)
        and (include_deleted or not msg.deleted)
        and can_see(fake, user, msg)
    ]


# ---------------------------------------------------------------------------------------- text


def display_name(fake: World, user: FakeUser, channel: FakeChannel | None = None) -> str:
    """The name the Discord client shows: server nickname, else display name, else username."""
    guild = channel.guild if channel is not None else None
    member = guild.member(user) if guild is not None else None
    if member is not None and member.nick:
        return member.nick
    return user.global_name or user.username


def _readable(fake: World, text: str, channel: FakeChannel | None) -> str:
    """Mentions and timestamps as the client renders them (`@Alice`, `#spades`, a UTC time)."""

    def mention(match: re.Match[str]) -> str:
        kind, target = match[1], int(match[2])
        if kind in ("@", "@!"):
            user = fake.users.get(target)
            return "@" + display_name(fake, user, channel) if user is not None else match[0]
        if kind == "@&":
            guild = channel.guild if channel is not None else None
            role = guild.roles.get(target) if guild is not None else None
            return "@" + role.name if role is not None else match[0]
        found = fake.channels.get(target)
        return "#" + (found.name or "DM") if found is not None else match[0]

    def timestamp(match: re.Match[str]) -> str:
        return datetime.fromtimestamp(int(match[1]), UTC).strftime("%Y-%m-%d %H:%M:%S UTC")

    return TIMESTAMP.sub(timestamp, MENTION.sub(mention, text))


def _wrap(text: str, width: int) -> list[str]:
    """Lines of `text` no wider than `width`, keeping its own line breaks and blank lines."""
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
        else:
            out.extend(textwrap.wrap(line, width, break_long_words=True, replace_whitespace=False) or [""])
    return out


def _emoji(emoji: Any) -> str:
    if not isinstance(emoji, dict):
        return ""
    name = str(emoji.get("name") or "")
    return f":{name}:" if emoji.get("id") else name


def _button(comp: JSON) -> str:
    """`[Label]` for a button one can click, `(Label)` for a disabled one; link buttons get a ↗."""
    label = " ".join(p for p in (_emoji(comp.get("emoji")), str(comp.get("label") or "")) if p)
    if comp.get("style") == 5:
        label += " ↗"
    return f"({label})" if comp.get("disabled") else f"[{label}]"


def _select(comp: JSON) -> str:
    options = comp.get("options") or []
    chosen = [str(o.get("label")) for o in options if o.get("default")]
    shown = comp.get("placeholder") or "choose"
    listed = " | ".join(str(o.get("label")) for o in options)
    text = f"▾ {', '.join(chosen) if chosen else shown}" + (f": {listed}" if listed else "")
    return f"({text})" if comp.get("disabled") else f"[{text}]"


def _media_name(media: Any, description: Any = None) -> str:
    if description:
        return str(description)
    url = str((media or {}).get("url") or "") if isinstance(media, dict) else ""
    return url.removeprefix("attachment://").rsplit("/", 1)[-1] or "media"


class _Renderer:
    """Turns one message into indented plain-text lines."""

    def __init__(self, fake: World, channel: FakeChannel, width: int) -> None:
        self.fake = fake
        self.channel = channel
        self.width = max(width, 40)

    def text(self, text: str, width: int) -> list[str]:
        return _wrap(_readable(self.fake, text, self.channel), width)

    def embed(self, embed: JSON, width: int) -> list[str]:
        inner = width - 2
        lines: list[str] = []
        author = (embed.get("author") or {}).get("name")
        if author:
            lines += self.text(str(author), inner)
        if embed.get("title"):
            lines += self.text(f"**{embed['title']}**", inner)
        if embed.get("description"):
            lines += self.text(str(embed["description"]), inner)
        for fld in embed.get("fields") or []:
            lines += self.text(f"{fld.get('name')}: {fld.get('value')}", inner)
        if embed.get("image"):
            lines.append(f"[image: {_media_name(embed['image'])}]")
        footer = (embed.get("footer") or {}).get("text")
        if footer:
            lines += self.text(str(footer), inner)
        return ["┃ " + line for line in lines or [""]]

    def components(self, components: list[Any], width: int) -> list[str]:
        lines: list[str] = []
        for comp in components:
            if isinstance(comp, dict):
                lines += self.component(comp, width)
        return lines

    def component(self, comp: JSON, width: int) -> list[str]:
        ctype = comp.get("type")
        if ctype == 1:
            items = [_button(c) if c.get("type") == 2 else _select(c) for c in comp.get("components") or [] if c]
            return _wrap(" ".join(items), width)
        if ctype == 2:
            return [_button(comp)]
        if ctype in (3, 5, 6, 7, 8):
            return [_select(comp)]
        if ctype == 9:
            return self.section(comp, width)
        if ctype == 10:
            return self.text(str(comp.get("content") or ""), width)
        if ctype == 11:
            return [f"[image: {_media_name(comp.get('media'), comp.get('description'))}]"]
        if ctype == 12:
            items = comp.get("items") or []
            return [f"[image: {_media_name(i.get('media'), i.get('description'))}]" for i in items
                    if isinstance(i, dict)]
        if ctype == 13:
            return [f"[file: {_media_name(comp.get('file'))}]"]
        if ctype == 14:
            return ["─" * min(width, 40)] if comp.get("divider", True) else [""]
        if ctype == 17:
            return self.container(comp, width)
        return [f"<component type {ctype}>"]

    def section(self, comp: JSON, width: int) -> list[str]:
        """Texts with the accessory (button or thumbnail) at the end of the first line, as on the right."""
        accessory = comp.get("accessory")
        side = self.component(accessory, width)[0] if isinstance(accessory, dict) else ""
        lines = self.components(comp.get("components") or [], max(width - len(side) - 2, 20))
        if not lines:
            return [side]
        lines[0] = f"{lines[0]}  {side}" if side else lines[0]
        return lines

    def container(self, comp: JSON, width: int) -> list[str]:
        inner = self.components(comp.get("components") or [], width - 2)
        rule = "─" * min(width - 1, 40)
        top = "┌" + rule + (" (spoiler)" if comp.get("spoiler") else "")
        return [top, *("│ " + line for line in inner), "└" + rule]

    def body(self, msg: FakeMessage) -> list[str]:
        width = self.width - len(BODY_INDENT)
        if msg.loading:
            return [f"{display_name(self.fake, msg.author, self.channel)} is thinking…"]
        lines: list[str] = []
        if msg.content:
            lines += self.text(msg.content, width)
        for embed in msg.embeds:
            lines += self.embed(embed, width)
        lines += self.components(msg.components, width)
        for att in msg.attachments:
            lines.append(f"[attachment: {att.filename}, {len(att.data)} bytes]")
        reactions = [f"{emoji} {len(users)}" for emoji, users in msg.reactions.items() if users]
        if reactions:
            lines.append("reactions: " + "  ".join(reactions))
        return lines or ["(empty message)"]


# ------------------------------------------------------------------------------------ actions


def _command_path(inter: FakeInteraction, *, with_options: bool = True) -> str:
    """`/spades play card:AS` from an application command's data."""
    words = [f"/{inter.command_name or inter.data.get('name', '?')}"]
    options = inter.data.get("options") or []
    while options and options[0].get("type") in (1, 2):
        words.append(options[0]["name"])
        options = options[0].get("options") or []
    if not with_options:
        return " ".join(words)
    resolved = inter.data.get("resolved") or {}
    for opt in options:
        value = opt.get("value")
        user = (resolved.get("users") or {}).get(str(value))
        words.append(f"{opt['name']}:{'@' + (user.get('global_name') or user['username']) if user else value}")
    return " ".join(words)


def _clicked(inter: FakeInteraction) -> str:
    """What the user clicked or chose, as it looked when they did."""
    custom_id = inter.data.get("custom_id")
    shown = inter.payload.get("message") or {}
    comp = next((c for c in m.iter_components(shown.get("components") or []) if c.get("custom_id") == custom_id), {})
    if inter.data.get("component_type") == 2:
        return f"clicked {_button({**comp, 'disabled': False})}"
    labels = {o.get("value"): o.get("label") for o in comp.get("options") or []}
    chosen = ", ".join(str(labels.get(v, v)) for v in inter.data.get("values") or [])
    return f"chose {chosen or 'nothing'}" + (f" in “{comp['placeholder']}”" if comp.get("placeholder") else "")


def _submitted(inter: FakeInteraction) -> str:
    fields: list[str] = []
    for row in inter.data.get("components") or []:
        for inner in [*(row.get("components") or []), *([row["component"]] if "component" in row else [])]:
            value = inner.get("value", inner.get("values"))
            fields.append(f"{inner.get('custom_id')}={value!r}")
    title = ((inter.parent.response.data if inter.parent and inter.parent.response else {}) or {}).get("title")
    return f"submitted “{title or inter.data.get('custom_id')}”" + (f": {', '.join(fields)}" if fields else "")


def describe_action(inter: FakeInteraction) -> str | None:
    """One line for what the user did, or None for what leaves no trace (autocomplete typing)."""
    if inter.type == m.INTERACTION_APPLICATION_COMMAND:
        return "used " + _command_path(inter)
    if inter.type == m.INTERACTION_MESSAGE_COMPONENT:
        return _clicked(inter)
    if inter.type == m.INTERACTION_MODAL_SUBMIT:
        return _submitted(inter)
    return None


# --------------------------------------------------------------------------------- transcript


def _offset(seconds: float) -> str:
    """`+m:ss.mmm` (or `+h:mm:ss.mmm`): milliseconds, as a bot under test answers in a few."""
    sign = "-" if seconds < 0 else "+"
    minutes, secs = divmod(abs(seconds), 60)
    hours, minutes = divmod(int(minutes), 60)
    if hours:
        return f"{sign}{hours}:{minutes:02d}:{secs:06.3f}"
    return f"{sign}{minutes}:{secs:06.3f}"


def _channel_title(fake: World, channel: FakeChannel) -> str:
    if channel.is_dm:
        return f"DM with {display_name(fake, fake.bot_user)}"
    guild = channel.guild
    return f"#{channel.name}" + (f" ({guild.name})" if guild is not None else "")


def _header(fake: World, user: FakeUser, msg: FakeMessage) -> str:
    parts = [display_name(fake, msg.author, msg.channel)]
    if msg.author.bot:
        parts[0] += " [APP]"
    inter = msg.interaction
    if inter is not None and inter.type == m.INTERACTION_APPLICATION_COMMAND and msg.type == 20:
        used = _command_path(inter, with_options=False)
        parts.append(f"↳ {display_name(fake, inter.user, msg.channel)} used {used}")
    if msg.edited_at is not None:
        parts.append("(edited)")
    if msg.ephemeral:
        parts.append("· only you can see this")
    return "  ".join(parts)


def _items(
    fake: World, user: FakeUser, channels: list[FakeChannel] | None, since: int | None, actions: bool
) -> Iterator[tuple[int, FakeChannel, FakeMessage | FakeInteraction]]:
    for msg in messages_seen(fake, user, channels, since=since):
        yield msg.id, msg.channel, msg
    if not actions:
        return
    scope = None if channels is None else {c.id for c in channels}
    for inter in list(fake.interactions.values()):
        if inter.user.id == user.id and inter.id > (since or 0) and (scope is None or inter.channel.id in scope):
            yield inter.id, inter.channel, inter


def render_transcript(
    fake: World,
    user: FakeUser,
    channel: FakeChannel | None = None,
    *,
    since: int | None = None,
    width: int = 100,
    actions: bool = True,
) -> str:
    """What `user` sees in `channel` (or everywhere, DMs included), oldest first, as plain text."""
    channels = None if channel is None else [channel]
    items = sorted(_items(fake, user, channels, since, actions), key=lambda item: item[0])
    where = _channel_title(fake, channel) if channel is not None else "all channels and DMs"
    out = [f"=== What {display_name(fake, user, channel)} sees: {where} ==="]
    if not items:
        return "\n".join([*out, "(nothing)"])
    start = snowflake_time(since if since else items[0][0])
    current: FakeChannel | None = channel
    now = time.monotonic()
    for snowflake, where_ch, item in items:
        if channel is None and where_ch is not current:
            current = where_ch
            title = f"── {_channel_title(fake, where_ch)} "
            out.append(title + "─" * max(width - len(title), 3))
        stamp = _offset((snowflake_time(snowflake) - start).total_seconds()).rjust(TIME_WIDTH)
        if isinstance(item, FakeMessage):
            renderer = _Renderer(fake, item.channel, width)
            out.append(f"{stamp}  {_header(fake, user, item)}")
            out.extend((BODY_INDENT + line).rstrip() for line in renderer.body(item))
            continue
        what = describe_action(item)
        if what is None:
            continue
        failed = item.response is None and now - item.dispatched_at > fake.ack_window
        line = f"{stamp}  » {display_name(fake, user, item.channel)} {what}"
        out.append(line + ("  ⚠ This interaction failed" if failed else ""))
    return "\n".join(out)
