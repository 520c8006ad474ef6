"""Messages as a channel shows them: the author's avatar and header, the body (text, files, components,
"(edited)", the ephemeral footer), and the PNG of a list of messages."""

from __future__ import annotations

import io
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from bot.discord_ui.pictures.chart import chart_font, fit_text, printable_text

from .components import draw_component
from .emoji import paint_emoji
from .layout import Laid, rounded_box, smooth_mask, stack
from .markdown import markdown_block
from .media import attachment_block
from .text import MessageContext, TextStyle, wrapped_text
from .theme import AVATAR_COLOURS, BACKGROUND, BLURPLE, GUTTER, HEADER, LINK, MUTED, PAD, WHITE


@dataclass(frozen=True)
class ShownMessage:
    """One message as shown: `components` are Discord's component payloads (classic action rows or
    Components V2), `attachments` are (file name, bytes), images shown inline."""

    author: str
    content: str = ""
    bot: bool = False
    components: Sequence[Mapping[str, Any]] = ()
    attachments: Sequence[tuple[str, bytes]] = ()
    ephemeral: bool = False
    edited: bool = False
    timestamp: str = ""  # shown as given, e.g. "Today at 21:04"


def _avatar(name: str, bot: bool) -> Image.Image:
    colour = AVATAR_COLOURS[zlib.crc32(name.encode()) % len(AVATAR_COLOURS)]
    image = Image.new("RGBA", (40, 40), (0, 0, 0, 0))
    image.paste(colour, (0, 0), smooth_mask((40, 40), lambda d, k: d.ellipse((0, 0, 40 * k - 1, 40 * k - 1), fill=255)))
    initial = next((c for c in printable_text(name) if c.isalnum()), "")
    if bot:
        paint_emoji(image, "🃏", 8, 8, 24)
    elif initial:
        ImageDraw.Draw(image).text((20, 21), initial.upper(), font=chart_font(18, bold=True), fill=WHITE,
                                   anchor="mm")
    return image


def _header(message: ShownMessage, width: int) -> Laid:
    name_font = chart_font(15, bold=True)
    name = fit_text(" ".join(printable_text(message.author).split()) or "?", name_font, width - 160)

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        draw = ImageDraw.Draw(canvas)
        baseline = top + 16
        draw.text((left, baseline), name, font=name_font, fill=HEADER, anchor="ls")
        x = left + name_font.getlength(name) + 6
        if message.bot:
            rounded_box(canvas, (round(x), baseline - 13, round(x) + 32, baseline + 2), 4, BLURPLE)
            draw.text((x + 16, baseline - 5), "APP", font=chart_font(10, bold=True), fill=WHITE, anchor="mm")
            x += 38
        if message.timestamp:
            draw.text((x, baseline), printable_text(message.timestamp), font=chart_font(12), fill=MUTED, anchor="ls")

    return Laid(width, 22, paint)


def _eye(d: ImageDraw.ImageDraw, k: int) -> None:
    d.ellipse((0, 3 * k, 16 * k - 1, 13 * k), outline=255, width=2 * k)
    d.ellipse((5 * k, 5 * k, 11 * k, 11 * k), fill=255)


def _ephemeral_footer(width: int) -> Laid:
    def paint(canvas: Image.Image, left: int, top: int) -> None:
        draw = ImageDraw.Draw(canvas)
        canvas.paste(MUTED, (left, top + 2), smooth_mask((16, 16), _eye))
        font = chart_font(12)
        text = "Only you can see this · "
        draw.text((left + 22, top + 14), text, font=font, fill=MUTED, anchor="ls")
        draw.text((left + 22 + font.getlength(text), top + 14), "Dismiss message", font=font, fill=LINK, anchor="ls")

    return Laid(width, 20, paint)


def _body(message: ShownMessage, width: int, names: Mapping[str, str]) -> Laid:
    ctx = MessageContext(names, dict(message.attachments))
    edited = [(" (edited)", TextStyle(size=10, colour=MUTED))] if message.edited else []
    blocks = []
    if message.content:
        blocks.append(markdown_block(message.content, width, ctx, edited))
    components = [draw_component(c, width, ctx) for c in message.components]  # first: the files they show
    blocks += [attachment_block(name, data, width) for name, data in message.attachments if name not in ctx.used]
    blocks += components  # buttons come last, under the files, as in Discord
    if message.edited and not message.content:
        blocks.append(wrapped_text(edited, width))
    if message.ephemeral:
        blocks.append(_ephemeral_footer(width))
    return stack(blocks, gap=8)


def render_messages_png(messages: Sequence[ShownMessage], *, width: int = 720,
                        names: Mapping[str, str] | None = None) -> bytes:
    """A PNG of the messages in order, as Discord's dark theme shows them. `names` maps user, role and
    channel ids to the names their mentions show. Consecutive messages by one author share a header,
    as in Discord."""
    content_width = width - GUTTER - PAD
    laid: list[tuple[int, Laid, ShownMessage | None]] = []  # space above, block, and the message of a header
    previous: ShownMessage | None = None
    for message in messages:
        if previous is None or (previous.author, previous.bot) != (message.author, message.bot):
            laid.append((18 if previous else 0, _header(message, content_width), message))
            laid.append((2, _body(message, content_width, names or {}), None))
        else:
            laid.append((10, _body(message, content_width, names or {}), None))
        previous = message
    height = PAD + sum(space + block.height for space, block, _ in laid) + PAD
    canvas = Image.new("RGB", (width, height), BACKGROUND)
    top = PAD
    for space, block, header_of in laid:
        top += space
        if header_of is not None:
            avatar = _avatar(header_of.author, header_of.bot)
            canvas.paste(avatar, (PAD, top), avatar)
        block.paint(canvas, GUTTER, top)
        top += block.height
    out = io.BytesIO()
    canvas.save(out, "PNG", optimize=True)
    return out.getvalue()
