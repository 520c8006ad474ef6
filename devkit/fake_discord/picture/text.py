"""Inline text: Discord's inline Markdown and mentions turned into styled runs, wrapped at word boundaries
to a width and painted (pills, strikes, red suits, sheared italics, emoji shapes)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from PIL import Image, ImageDraw, ImageFont

from bot.discord_ui.pictures.chart import chart_font

from .emoji import paint_emoji, split_emoji
from .layout import Laid, rounded_box
from .theme import BODY, MENTION_BACK, MENTION_TEXT, PANEL, RED_SUIT, TEXT, Colour


@dataclass(frozen=True)
class TextStyle:
    """How a run of text is drawn."""

    size: int = BODY
    colour: Colour = TEXT
    bold: bool = False
    italic: bool = False
    strike: bool = False
    underline: bool = False
    pill: Colour | None = None  # inline code and mentions sit on a rounded background
    suits: bool = True  # ♥ and ♦ in red, as Discord's emoji for them are

    @property
    def font(self) -> ImageFont.FreeTypeFont:
        return chart_font(self.size, self.bold)


@dataclass
class _Piece:
    text: str
    style: TextStyle
    emoji: bool
    width: float


@dataclass
class MessageContext:
    """What a message's parts are drawn with: the names its mentions show, and its files, which a
    component may show in place (then they are not shown again below)."""

    names: Mapping[str, str]
    files: dict[str, bytes] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)  # attachments a component shows already


INLINE = re.compile(
    r"`([^`]+)`|\*\*\*(.+?)\*\*\*|\*\*(.+?)\*\*|__(.+?)__|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?!\*)|\b_(.+?)_\b"
    r"|~~(.+?)~~|\|\|(.+?)\|\||<@!?(\d+)>|<@&(\d+)>|<#(\d+)>")
SPOILER: Colour = (30, 31, 34)


def text_runs(text: str, style: TextStyle, ctx: MessageContext) -> list[tuple[str, TextStyle]]:
    """Discord's inline Markdown: `code`, **bold**, *italic*, __underline__, ~~strike~~, ||spoiler||,
    mentions."""
    runs: list[tuple[str, TextStyle]] = []
    position = 0
    for match in INLINE.finditer(text):
        runs.append((text[position:match.start()], style))
        code, bold_italic, bold, underline, star, under, strike, spoiler, user, role, channel = match.groups()
        if code is not None:
            runs.append((code, replace(style, size=style.size - 2, pill=PANEL, suits=False)))
        elif bold_italic is not None:
            runs += text_runs(bold_italic, replace(style, bold=True, italic=True), ctx)
        elif spoiler is not None:  # hidden until clicked: a dark bar as wide as the text
            runs.append((spoiler, replace(style, colour=SPOILER, pill=SPOILER, suits=False)))
        elif bold is not None:
            runs += text_runs(bold, replace(style, bold=True), ctx)
        elif underline is not None:
            runs += text_runs(underline, replace(style, underline=True), ctx)
        elif star is not None or under is not None:
            runs += text_runs(star if star is not None else under, replace(style, italic=True), ctx)
        elif strike is not None:
            runs += text_runs(strike, replace(style, strike=True), ctx)
        else:
            mention = replace(style, colour=MENTION_TEXT, pill=MENTION_BACK)
            if user is not None:
                runs.append(("@" + ctx.names.get(user, "unknown-user"), mention))
            elif role is not None:
                runs.append(("@" + ctx.names.get(role, "unknown-role"), mention))
            else:
                runs.append(("#" + ctx.names.get(channel, "unknown"), mention))
        position = match.end()
    runs.append((text[position:], style))
    return [(t, s) for t, s in runs if t]


def _emoji_size(style: TextStyle) -> int:
    return round(style.size * 1.3)


def _words(runs: Sequence[tuple[str, TextStyle]]) -> list[list[_Piece] | None]:
    """Pieces grouped into unbreakable words; None stands for a space between words. A no-break space
    (U+00A0) joins its neighbours into one word, as in Discord: "0 bags" never splits."""
    words: list[list[_Piece] | None] = []
    word: list[_Piece] = []
    for text, style in runs:
        tokens = [text] if style.pill else re.findall(r"[^\S\xa0]+|[\S\xa0]+", text)
        for token in tokens:
            if token.isspace():
                if word:
                    words.append(word)
                    word = []
                words.append(None)
                continue
            for part, emoji in split_emoji(token):
                width = _emoji_size(style) + 2 if emoji else style.font.getlength(part) + (8 if style.pill else 0)
                word.append(_Piece(part, style, emoji, width))
    if word:
        words.append(word)
    return words


def _break_long(word: list[_Piece]) -> list[list[_Piece]]:
    """A word wider than the line, one character (or emoji) to a word."""
    pieces: list[list[_Piece]] = []
    for piece in word:
        if piece.emoji:
            pieces.append([piece])
        else:
            pieces += [[_Piece(c, piece.style, False, piece.style.font.getlength(c))] for c in piece.text]
    return pieces


def line_metrics(style: TextStyle) -> tuple[int, int, int]:
    """Ascent, descent and line height."""
    ascent, descent = style.font.getmetrics()
    return ascent, descent, round(style.size * 1.45)


def wrapped_text(runs: Sequence[tuple[str, TextStyle]], width: int) -> Laid:
    """Runs of text wrapped at word boundaries to `width`."""
    lines: list[list[_Piece]] = [[]]
    x = 0.0
    pending_space = 0.0
    for word in _words(runs):
        if word is None:
            if lines[-1]:
                pending_space = max(pending_space, lines[-1][-1].style.font.getlength(" "))
            continue
        word_width = sum(p.width for p in word)
        groups = [word] if word_width <= width else _break_long(word)
        for group in groups:
            group_width = sum(p.width for p in group)
            if lines[-1] and x + pending_space + group_width > width:
                lines.append([])
                x, pending_space = 0.0, 0.0
            if lines[-1] and pending_space:
                lines[-1].append(_Piece(" ", group[0].style, False, pending_space))
                x += pending_space
            lines[-1].extend(group)
            x += group_width
            pending_space = 0.0
    default = runs[0][1] if runs else TextStyle()
    heights = []
    for line in lines:
        styles = [p.style for p in line] or [default]
        heights.append(max(line_metrics(s)[2] for s in styles))

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        draw = ImageDraw.Draw(canvas)
        y = top
        for line, height in zip(lines, heights, strict=True):
            styles = [p.style for p in line] or [default]
            ascent = max(line_metrics(s)[0] for s in styles)
            descent = max(line_metrics(s)[1] for s in styles)
            baseline = y + (height - ascent - descent) // 2 + ascent
            x = float(left)
            for piece in line:
                _paint_piece(canvas, draw, piece, round(x), baseline)
                x += piece.width
            y += height

    used = max((sum(p.width for p in line) for line in lines), default=0)
    return Laid(min(width, round(used)), sum(heights), paint)


def _paint_piece(canvas: Image.Image, draw: ImageDraw.ImageDraw, piece: _Piece, x: int, baseline: int) -> None:
    style = piece.style
    if piece.emoji:
        size = _emoji_size(style)
        paint_emoji(canvas, piece.text, x + 1, baseline - round(size * 0.82), size)
        return
    if piece.text == " ":
        return
    font = style.font
    ascent, descent = font.getmetrics()
    if style.pill is not None:
        rounded_box(canvas, (x, baseline - ascent - 1, round(x + piece.width), baseline + descent + 1), 3, style.pill)
        x += 4
    if style.italic:
        _paint_italic(canvas, piece.text, style, x, baseline)
    elif style.suits and any(c in "♥♦" for c in piece.text):
        for char in piece.text:
            draw.text((x, baseline), char, font=font, fill=RED_SUIT if char in "♥♦" else style.colour, anchor="ls")
            x += round(font.getlength(char))
    else:
        draw.text((x, baseline), piece.text, font=font, fill=style.colour, anchor="ls")
    if style.strike:
        middle = baseline - ascent // 3
        draw.line([(x, middle), (x + font.getlength(piece.text), middle)], fill=style.colour, width=1)
    if style.underline:
        draw.line([(x, baseline + 2), (x + font.getlength(piece.text), baseline + 2)], fill=style.colour, width=1)


SLANT = 0.2


def _paint_italic(canvas: Image.Image, text: str, style: TextStyle, x: int, baseline: int) -> None:
    """Pillow has no italic and the font ships none: the upright glyphs, sheared."""
    font = style.font
    ascent, descent = font.getmetrics()
    height = ascent + descent
    extra = round(height * SLANT)
    mask = Image.new("L", (round(font.getlength(text)) + extra + 2, height), 0)
    ImageDraw.Draw(mask).text((0, ascent), text, font=font, fill=255, anchor="ls")
    sheared = mask.transform(mask.size, Image.Transform.AFFINE, (1, SLANT, -extra, 0, 1, 0),
                             Image.Resampling.BICUBIC)
    canvas.paste(style.colour, (x - extra // 2, baseline - ascent), sheared)  # slanted about its middle
