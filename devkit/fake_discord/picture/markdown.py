"""Discord's Markdown in blocks, line by line: headings, -# subtext, > quotes, lists and ``` code blocks."""

from __future__ import annotations

import re
from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.discord_ui.pictures.chart import chart_font, has_glyph, printable_text

from .layout import Laid, rounded_box, spacer, stack
from .text import MessageContext, TextStyle, line_metrics, text_runs, wrapped_text
from .theme import BORDER, HEADER, MUTED, PANEL, TEXT


def _code_block(lines: Sequence[str], width: int) -> Laid:
    """A fenced code block. The font has no monospaced face, so each word starts at its column as if it
    had one: its digits are all one width, so tables of scores stay aligned."""
    font = chart_font(13)
    cell = font.getlength("0")
    line_height, pad = 18, 8
    height = line_height * max(1, len(lines)) + 2 * pad
    columns = int((width - 2 * pad) // cell)

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        rounded_box(canvas, (left, top, left + width, top + height), 4, PANEL, BORDER)
        draw = ImageDraw.Draw(canvas)
        for row, line in enumerate(lines):
            shown = "".join(c if has_glyph(c) else printable_text(c) or " " for c in line.expandtabs(4))
            for word in re.finditer(r"\S+", shown[:columns]):
                draw.text((left + pad + word.start() * cell, top + pad + row * line_height + 14), word.group(),
                          font=font, fill=TEXT, anchor="ls")

    return Laid(width, height, paint)


def _quote(inner: Laid) -> Laid:
    def paint(canvas: Image.Image, left: int, top: int) -> None:
        rounded_box(canvas, (left, top, left + 4, top + inner.height), 2, (78, 80, 88))
        inner.paint(canvas, left + 16, top)

    return Laid(inner.width + 16, inner.height, paint)


def _bullet(inner: Laid, style: TextStyle) -> Laid:
    def paint(canvas: Image.Image, left: int, top: int) -> None:
        middle = top + line_metrics(style)[2] // 2
        rounded_box(canvas, (left + 6, middle - 2, left + 11, middle + 3), 2.5, style.colour)
        inner.paint(canvas, left + 20, top)

    return Laid(inner.width + 20, inner.height, paint)


HEADING = re.compile(r"(#{1,3}) (.*)")
BULLET = re.compile(r"\s*[-*] (.*)")


def markdown_block(content: str, width: int, ctx: MessageContext,
                   trailer: Sequence[tuple[str, TextStyle]] = ()) -> Laid:
    """Discord's Markdown, line by line: headings, -# subtext, > quotes, lists, ``` code blocks."""
    blocks: list[Laid] = []
    lines = content.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        last = i == len(lines) - 1
        extra = list(trailer) if last else []
        if line.startswith("```") and any(rest.rstrip().endswith("```") for rest in [line[3:], *lines[i + 1:]]):
            rest = line[3:]
            if rest.endswith("```") and len(rest) >= 3:
                code, i = [rest[:-3]], i + 1
            else:
                code, i = [], i + 1
                while i < len(lines) and not lines[i].rstrip().endswith("```"):
                    code.append(lines[i])
                    i += 1
                if i < len(lines):
                    closing = lines[i].rstrip()[:-3]
                    code += [closing] if closing else []
                    i += 1
            blocks.append(_code_block(code, width))
            if i >= len(lines) and trailer:
                blocks.append(wrapped_text(trailer, width))
            continue
        if line.startswith(">>> "):
            blocks.append(_quote(markdown_block("\n".join([line[4:], *lines[i + 1:]]), width - 16, ctx, trailer)))
            break
        if line.startswith("> ") or line == ">":
            quoted = []
            while i < len(lines) and (lines[i].startswith("> ") or lines[i] == ">"):
                quoted.append(lines[i][2:])
                i += 1
            blocks.append(_quote(markdown_block("\n".join(quoted), width - 16, ctx,
                                                trailer if i >= len(lines) else ())))
            continue
        heading = HEADING.fullmatch(line)
        bullet = BULLET.fullmatch(line)
        if heading:
            style = TextStyle(size={1: 22, 2: 19, 3: 16}[len(heading.group(1))], colour=HEADER, bold=True)
            if blocks:
                blocks.append(spacer(6))
            blocks.append(wrapped_text(text_runs(heading.group(2), style, ctx) + extra, width))
        elif line.startswith("-# "):
            blocks.append(wrapped_text(text_runs(line[3:], TextStyle(size=12, colour=MUTED), ctx) + extra, width))
        elif bullet:
            blocks.append(_bullet(wrapped_text(text_runs(bullet.group(1), TextStyle(), ctx) + extra, width - 20),
                                  TextStyle()))
        elif line.strip():
            blocks.append(wrapped_text(text_runs(line, TextStyle(), ctx) + extra, width))
        else:
            blocks.append(wrapped_text(extra, width) if extra else spacer(line_metrics(TextStyle())[2]))
        i += 1
    return stack(blocks)
