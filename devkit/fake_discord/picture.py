"""A picture of a Discord channel as a person sees it, for humans reading a game: README screenshots
and reviews. It takes plain data (`ShownMessage`), not the fake server's classes, and draws with Pillow
only, in Discord's dark theme: message text with its Markdown, buttons, Components V2 panels, images
and files, "(edited)" and the ephemeral footer.

Text uses the bot's own font (`bot.discord_ui.pictures.chart`), which has Latin, Greek, Cyrillic and the card
suits. Emoji it lacks are drawn as small shapes (a trophy, a joker card, ...) or a neutral tile; other
characters it lacks are shown as the chart shows them.
"""

from __future__ import annotations

import io
import math
import re
import unicodedata
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from bot.discord_ui.pictures.chart import chart_font, fit_text, has_glyph, printable_text

Colour = tuple[int, int, int]
Painter = Callable[[Image.Image, int, int], None]

BACKGROUND: Colour = (49, 51, 56)
PANEL: Colour = (43, 45, 49)  # containers, code blocks, file chips
BORDER: Colour = (30, 31, 34)
DIVIDER: Colour = (63, 65, 71)
TEXT: Colour = (219, 222, 225)
HEADER: Colour = (242, 243, 245)
MUTED: Colour = (148, 155, 164)
LINK: Colour = (0, 168, 252)
BLURPLE: Colour = (88, 101, 242)
MENTION_BACK: Colour = (65, 70, 118)
MENTION_TEXT: Colour = (201, 205, 251)
RED_SUIT: Colour = (242, 63, 67)
WHITE: Colour = (255, 255, 255)
BUTTON_COLOURS: dict[int, Colour] = {1: BLURPLE, 2: (78, 80, 88), 3: (36, 128, 70), 4: (218, 55, 60), 5: (78, 80, 88)}
AVATAR_COLOURS: tuple[Colour, ...] = (BLURPLE, (117, 126, 138), (59, 165, 92), (250, 166, 26), (237, 66, 69),
                                      (235, 69, 158))

BODY = 15  # px; DejaVu Sans is wider than Discord's own font, so a little smaller than Discord's 16
GUTTER = 72  # the avatar column
PAD = 16
IMAGE_MAX = (550, 350)  # an image attachment's largest size in a channel, as Discord shows it
CONTAINER_MAX = 560
SUPERSAMPLE = 4  # for smooth rounded shapes: Pillow's own have no antialiasing


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


@dataclass(frozen=True)
class Laid:
    """A block already laid out to a width: its size, and how to paint it at a position."""

    width: int
    height: int
    paint: Painter


@dataclass(frozen=True)
class _Style:
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
    style: _Style
    emoji: bool
    width: float


@dataclass
class _Context:
    names: Mapping[str, str]
    files: dict[str, bytes] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)  # attachments a component shows already


# ---- shapes


def _mask(size: tuple[int, int], draw: Callable[[ImageDraw.ImageDraw, int], None]) -> Image.Image:
    """An antialiased mask: `draw` paints it at SUPERSAMPLE times the size, given that factor."""
    big = Image.new("L", (max(1, size[0]) * SUPERSAMPLE, max(1, size[1]) * SUPERSAMPLE), 0)
    draw(ImageDraw.Draw(big), SUPERSAMPLE)
    return big.reduce(SUPERSAMPLE)


def _rounded(canvas: Image.Image, box: tuple[int, int, int, int], radius: float, fill: Colour,
             outline: Colour | None = None) -> None:
    x0, y0, x1, y1 = box
    size = (x1 - x0, y1 - y0)
    if size[0] <= 0 or size[1] <= 0:
        return
    if outline is not None:
        canvas.paste(outline, (x0, y0), _mask(size, lambda d, k: d.rounded_rectangle(
            (0, 0, size[0] * k - 1, size[1] * k - 1), radius * k, fill=255)))
        x0, y0, x1, y1, radius = x0 + 1, y0 + 1, x1 - 1, y1 - 1, radius - 1
        size = (x1 - x0, y1 - y0)
    canvas.paste(fill, (x0, y0), _mask(size, lambda d, k: d.rounded_rectangle(
        (0, 0, size[0] * k - 1, size[1] * k - 1), max(0, radius) * k, fill=255)))


def _blend(colour: Colour, over: Colour, amount: float) -> Colour:
    r, g, b = (round(c * amount + o * (1 - amount)) for c, o in zip(colour, over, strict=True))
    return r, g, b


# ---- emoji the font lacks, drawn as small shapes

GOLD, DARK_GOLD = (250, 190, 40), (200, 135, 20)


def _trophy(d: ImageDraw.ImageDraw, s: int) -> None:
    d.ellipse((s * 0.08, s * 0.12, s * 0.36, s * 0.46), outline=GOLD, width=max(1, s // 14))
    d.ellipse((s * 0.64, s * 0.12, s * 0.92, s * 0.46), outline=GOLD, width=max(1, s // 14))
    d.chord((s * 0.22, -s * 0.25, s * 0.78, s * 0.68), 0, 180, fill=GOLD)
    d.rectangle((s * 0.22, s * 0.06, s * 0.78, s * 0.22), fill=GOLD)
    d.rectangle((s * 0.44, s * 0.6, s * 0.56, s * 0.8), fill=DARK_GOLD)
    d.rounded_rectangle((s * 0.26, s * 0.78, s * 0.74, s * 0.94), s * 0.04, fill=DARK_GOLD)


def _star(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: Colour) -> None:
    points = []
    for i in range(10):
        angle = math.pi * (i / 5 - 0.5)
        radius = r if i % 2 == 0 else r * 0.45
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    d.polygon(points, fill=fill)


def _joker(d: ImageDraw.ImageDraw, s: int) -> None:
    d.rounded_rectangle((s * 0.16, s * 0.04, s * 0.84, s * 0.96), s * 0.1, fill=(250, 250, 250))
    _star(d, s * 0.5, s * 0.52, s * 0.26, (220, 50, 60))


def _check(d: ImageDraw.ImageDraw, s: int) -> None:
    d.rounded_rectangle((s * 0.06, s * 0.06, s * 0.94, s * 0.94), s * 0.16, fill=(59, 165, 92))
    d.line([(s * 0.26, s * 0.52), (s * 0.43, s * 0.7), (s * 0.76, s * 0.32)], fill=WHITE, width=s // 9,
           joint="curve")


def _cross(d: ImageDraw.ImageDraw, s: int) -> None:
    d.line([(s * 0.2, s * 0.2), (s * 0.8, s * 0.8)], fill=(237, 66, 69), width=s // 6)
    d.line([(s * 0.8, s * 0.2), (s * 0.2, s * 0.8)], fill=(237, 66, 69), width=s // 6)


def _heart(d: ImageDraw.ImageDraw, s: int) -> None:
    d.ellipse((s * 0.08, s * 0.14, s * 0.52, s * 0.56), fill=RED_SUIT)
    d.ellipse((s * 0.48, s * 0.14, s * 0.92, s * 0.56), fill=RED_SUIT)
    d.polygon([(s * 0.1, s * 0.42), (s * 0.9, s * 0.42), (s * 0.5, s * 0.9)], fill=RED_SUIT)


BLUE_KEY: Colour = (59, 136, 195)  # the blue of the symbol emoji drawn on a key: ▶️ 🔁


def _play(d: ImageDraw.ImageDraw, s: int) -> None:
    d.rounded_rectangle((s * 0.06, s * 0.06, s * 0.94, s * 0.94), s * 0.16, fill=BLUE_KEY)
    d.polygon([(s * 0.36, s * 0.26), (s * 0.36, s * 0.74), (s * 0.74, s * 0.5)], fill=WHITE)


def _repeat(d: ImageDraw.ImageDraw, s: int) -> None:
    d.rounded_rectangle((s * 0.06, s * 0.06, s * 0.94, s * 0.94), s * 0.16, fill=BLUE_KEY)
    width = round(s * 0.09)
    d.line([(s * 0.27, s * 0.56), (s * 0.27, s * 0.37), (s * 0.64, s * 0.37)], fill=WHITE, width=width,
           joint="curve")
    d.polygon([(s * 0.62, s * 0.25), (s * 0.79, s * 0.37), (s * 0.62, s * 0.49)], fill=WHITE)
    d.line([(s * 0.73, s * 0.44), (s * 0.73, s * 0.63), (s * 0.36, s * 0.63)], fill=WHITE, width=width,
           joint="curve")
    d.polygon([(s * 0.38, s * 0.51), (s * 0.21, s * 0.63), (s * 0.38, s * 0.75)], fill=WHITE)


def _warning(d: ImageDraw.ImageDraw, s: int) -> None:
    d.polygon([(s * 0.5, s * 0.08), (s * 0.96, s * 0.9), (s * 0.04, s * 0.9)], fill=(255, 204, 77))
    d.rounded_rectangle((s * 0.45, s * 0.34, s * 0.55, s * 0.66), s * 0.04, fill=(35, 31, 32))
    d.ellipse((s * 0.445, s * 0.71, s * 0.555, s * 0.82), fill=(35, 31, 32))


def _bulb(d: ImageDraw.ImageDraw, s: int) -> None:
    d.ellipse((s * 0.2, s * 0.04, s * 0.8, s * 0.64), fill=(255, 204, 77))
    d.polygon([(s * 0.32, s * 0.52), (s * 0.68, s * 0.52), (s * 0.62, s * 0.74), (s * 0.38, s * 0.74)],
              fill=(255, 204, 77))
    d.rounded_rectangle((s * 0.36, s * 0.74, s * 0.64, s * 0.94), s * 0.05, fill=(150, 156, 166))


def _magnifier(d: ImageDraw.ImageDraw, s: int) -> None:
    d.line([(s * 0.56, s * 0.56), (s * 0.9, s * 0.9)], fill=(102, 117, 127), width=round(s * 0.16))
    d.ellipse((s * 0.08, s * 0.08, s * 0.64, s * 0.64), fill=(102, 117, 127))
    d.ellipse((s * 0.16, s * 0.16, s * 0.56, s * 0.56), fill=(190, 225, 245))


def _tile(d: ImageDraw.ImageDraw, s: int) -> None:
    d.rounded_rectangle((s * 0.1, s * 0.1, s * 0.9, s * 0.9), s * 0.2, fill=(110, 114, 124))


def _medal(colour: Colour, rim: Colour) -> Callable[[ImageDraw.ImageDraw, int], None]:
    def paint(d: ImageDraw.ImageDraw, s: int) -> None:
        d.polygon([(s * 0.2, 0), (s * 0.42, 0), (s * 0.6, s * 0.45), (s * 0.4, s * 0.5)], fill=(70, 110, 200))
        d.polygon([(s * 0.8, 0), (s * 0.58, 0), (s * 0.4, s * 0.45), (s * 0.6, s * 0.5)], fill=(220, 60, 70))
        d.ellipse((s * 0.18, s * 0.34, s * 0.82, s * 0.98), fill=rim)
        d.ellipse((s * 0.26, s * 0.42, s * 0.74, s * 0.9), fill=colour)

    return paint


EMOJI: dict[str, Callable[[ImageDraw.ImageDraw, int], None]] = {
    "🥇": _medal(GOLD, DARK_GOLD), "🥈": _medal((205, 210, 218), (150, 156, 166)),
    "🥉": _medal((215, 135, 60), (160, 95, 40)),
    "🏆": _trophy, "🃏": _joker, "✅": _check, "✔": _check, "❌": _cross, "✖": _cross, "❤": _heart,
    "▶": _play, "🔁": _repeat, "⚠": _warning, "💡": _bulb, "🔎": _magnifier,
    "⭐": lambda d, s: _star(d, s / 2, s * 0.54, s * 0.46, GOLD),
    "🌟": lambda d, s: _star(d, s / 2, s * 0.54, s * 0.46, GOLD),
}


def _paint_emoji(canvas: Image.Image, emoji: str, x: int, y: int, size: int) -> None:
    paint = EMOJI.get(emoji[0], _tile)
    big = Image.new("RGBA", (size * SUPERSAMPLE, size * SUPERSAMPLE), (0, 0, 0, 0))
    paint(ImageDraw.Draw(big), size * SUPERSAMPLE)
    small = big.reduce(SUPERSAMPLE)
    canvas.paste(small, (x, y), small)


def _is_emoji(char: str) -> bool:
    return ord(char) >= 0x1F000 or unicodedata.category(char) == "So" or char in EMOJI


JOINERS = {"\u200d", "\ufe0f", "\ufe0e", "\u20e3"}


def _split_emoji(text: str) -> list[tuple[str, bool]]:
    """Text the font can draw, and emoji sequences it can't (a ZWJ family, a flag, a skin tone stay one)."""
    parts: list[tuple[str, bool]] = []
    plain = ""
    chars = list(text)
    i = 0
    while i < len(chars):
        char = chars[i]
        if (has_glyph(char) and char not in EMOJI) or not _is_emoji(char):
            plain += char if has_glyph(char) else printable_text(char)
            i += 1
            continue
        if plain:
            parts.append((plain, False))
            plain = ""
        sequence = char
        i += 1
        while i < len(chars) and (chars[i] in JOINERS or 0x1F3FB <= ord(chars[i]) <= 0x1F3FF
                                  or (chars[i - 1] == "\u200d" and _is_emoji(chars[i]))
                                  or (0x1F1E6 <= ord(char) <= 0x1F1FF and len(sequence) == 1
                                      and 0x1F1E6 <= ord(chars[i]) <= 0x1F1FF)):
            sequence += chars[i]
            i += 1
        parts.append((sequence, True))
    if plain:
        parts.append((plain, False))
    return parts


# ---- inline text


INLINE = re.compile(
    r"`([^`]+)`|\*\*\*(.+?)\*\*\*|\*\*(.+?)\*\*|__(.+?)__|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?!\*)|\b_(.+?)_\b"
    r"|~~(.+?)~~|\|\|(.+?)\|\||<@!?(\d+)>|<@&(\d+)>|<#(\d+)>")
SPOILER: Colour = (30, 31, 34)


def _runs(text: str, style: _Style, ctx: _Context) -> list[tuple[str, _Style]]:
    """Discord's inline Markdown: `code`, **bold**, *italic*, __underline__, ~~strike~~, ||spoiler||,
    mentions."""
    runs: list[tuple[str, _Style]] = []
    position = 0
    for match in INLINE.finditer(text):
        runs.append((text[position:match.start()], style))
        code, bold_italic, bold, underline, star, under, strike, spoiler, user, role, channel = match.groups()
        if code is not None:
            runs.append((code, replace(style, size=style.size - 2, pill=PANEL, suits=False)))
        elif bold_italic is not None:
            runs += _runs(bold_italic, replace(style, bold=True, italic=True), ctx)
        elif spoiler is not None:  # hidden until clicked: a dark bar as wide as the text
            runs.append((spoiler, replace(style, colour=SPOILER, pill=SPOILER, suits=False)))
        elif bold is not None:
            runs += _runs(bold, replace(style, bold=True), ctx)
        elif underline is not None:
            runs += _runs(underline, replace(style, underline=True), ctx)
        elif star is not None or under is not None:
            runs += _runs(star if star is not None else under, replace(style, italic=True), ctx)
        elif strike is not None:
            runs += _runs(strike, replace(style, strike=True), ctx)
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


def _emoji_size(style: _Style) -> int:
    return round(style.size * 1.3)


def _words(runs: Sequence[tuple[str, _Style]]) -> list[list[_Piece] | None]:
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
            for part, emoji in _split_emoji(token):
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


def _metrics(style: _Style) -> tuple[int, int, int]:
    """Ascent, descent and line height."""
    ascent, descent = style.font.getmetrics()
    return ascent, descent, round(style.size * 1.45)


def _inline(runs: Sequence[tuple[str, _Style]], width: int) -> Laid:
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
    default = runs[0][1] if runs else _Style()
    heights = []
    for line in lines:
        styles = [p.style for p in line] or [default]
        heights.append(max(_metrics(s)[2] for s in styles))

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        draw = ImageDraw.Draw(canvas)
        y = top
        for line, height in zip(lines, heights, strict=True):
            styles = [p.style for p in line] or [default]
            ascent = max(_metrics(s)[0] for s in styles)
            descent = max(_metrics(s)[1] for s in styles)
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
        _paint_emoji(canvas, piece.text, x + 1, baseline - round(size * 0.82), size)
        return
    if piece.text == " ":
        return
    font = style.font
    ascent, descent = font.getmetrics()
    if style.pill is not None:
        _rounded(canvas, (x, baseline - ascent - 1, round(x + piece.width), baseline + descent + 1), 3, style.pill)
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


def _paint_italic(canvas: Image.Image, text: str, style: _Style, x: int, baseline: int) -> None:
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


# ---- blocks


def _stack(blocks: Sequence[Laid], gap: int = 0) -> Laid:
    blocks = [b for b in blocks if b.height > 0]
    height = sum(b.height for b in blocks) + gap * max(0, len(blocks) - 1)

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        for block in blocks:
            block.paint(canvas, left, top)
            top += block.height + gap

    return Laid(max((b.width for b in blocks), default=0), height, paint)


def _space(height: int) -> Laid:
    return Laid(0, height, lambda canvas, x, y: None)


def _code_block(lines: Sequence[str], width: int) -> Laid:
    """A fenced code block. The font has no monospaced face, so each word starts at its column as if it
    had one: its digits are all one width, so tables of scores stay aligned."""
    font = chart_font(13)
    cell = font.getlength("0")
    line_height, pad = 18, 8
    height = line_height * max(1, len(lines)) + 2 * pad
    columns = int((width - 2 * pad) // cell)

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        _rounded(canvas, (left, top, left + width, top + height), 4, PANEL, BORDER)
        draw = ImageDraw.Draw(canvas)
        for row, line in enumerate(lines):
            shown = "".join(c if has_glyph(c) else printable_text(c) or " " for c in line.expandtabs(4))
            for word in re.finditer(r"\S+", shown[:columns]):
                draw.text((left + pad + word.start() * cell, top + pad + row * line_height + 14), word.group(),
                          font=font, fill=TEXT, anchor="ls")

    return Laid(width, height, paint)


def _quote(inner: Laid) -> Laid:
    def paint(canvas: Image.Image, left: int, top: int) -> None:
        _rounded(canvas, (left, top, left + 4, top + inner.height), 2, (78, 80, 88))
        inner.paint(canvas, left + 16, top)

    return Laid(inner.width + 16, inner.height, paint)


def _bullet(inner: Laid, style: _Style) -> Laid:
    def paint(canvas: Image.Image, left: int, top: int) -> None:
        middle = top + _metrics(style)[2] // 2
        _rounded(canvas, (left + 6, middle - 2, left + 11, middle + 3), 2.5, style.colour)
        inner.paint(canvas, left + 20, top)

    return Laid(inner.width + 20, inner.height, paint)


HEADING = re.compile(r"(#{1,3}) (.*)")
BULLET = re.compile(r"\s*[-*] (.*)")


def _markdown(content: str, width: int, ctx: _Context, trailer: Sequence[tuple[str, _Style]] = ()) -> Laid:
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
                blocks.append(_inline(trailer, width))
            continue
        if line.startswith(">>> "):
            blocks.append(_quote(_markdown("\n".join([line[4:], *lines[i + 1:]]), width - 16, ctx, trailer)))
            break
        if line.startswith("> ") or line == ">":
            quoted = []
            while i < len(lines) and (lines[i].startswith("> ") or lines[i] == ">"):
                quoted.append(lines[i][2:])
                i += 1
            blocks.append(_quote(_markdown("\n".join(quoted), width - 16, ctx, trailer if i >= len(lines) else ())))
            continue
        heading = HEADING.fullmatch(line)
        bullet = BULLET.fullmatch(line)
        if heading:
            style = _Style(size={1: 22, 2: 19, 3: 16}[len(heading.group(1))], colour=HEADER, bold=True)
            if blocks:
                blocks.append(_space(6))
            blocks.append(_inline(_runs(heading.group(2), style, ctx) + extra, width))
        elif line.startswith("-# "):
            blocks.append(_inline(_runs(line[3:], _Style(size=12, colour=MUTED), ctx) + extra, width))
        elif bullet:
            blocks.append(_bullet(_inline(_runs(bullet.group(1), _Style(), ctx) + extra, width - 20), _Style()))
        elif line.strip():
            blocks.append(_inline(_runs(line, _Style(), ctx) + extra, width))
        else:
            blocks.append(_inline(extra, width) if extra else _space(_metrics(_Style())[2]))
        i += 1
    return _stack(blocks)


# ---- components


def _button_size(button: Mapping[str, Any]) -> tuple[int, int]:
    label = str(button.get("label") or "")
    emoji = (button.get("emoji") or {}).get("name")
    width = _inline([(label, _Style(size=14))], 10_000).width if label else 0
    if emoji:
        width += 22 + (4 if label else 0)
    if button.get("style") == 5:
        width += 16
    return max(round(width) + 32, 60 if label else 40), 32


def _button(button: Mapping[str, Any]) -> Laid:
    width, height = _button_size(button)
    style = int(button.get("style") or 2)
    disabled = bool(button.get("disabled"))
    label = str(button.get("label") or "")
    emoji = (button.get("emoji") or {}).get("name")

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        back = BACKGROUND
        fill = BUTTON_COLOURS.get(style, BUTTON_COLOURS[2])
        text_colour = WHITE
        if disabled:
            fill, text_colour = _blend(fill, back, 0.5), _blend(WHITE, back, 0.5)
        _rounded(canvas, (left, top, left + width, top + height), 8, fill)
        x = left + 16
        if emoji:
            content = _inline([(emoji, _Style(size=14, colour=text_colour, suits=False))], 200)
            content.paint(canvas, x, top + (height - content.height) // 2)
            x += 22 + (4 if label else 0)
        if label:
            text = _inline([(label, _Style(size=14, colour=text_colour, suits=False))], width)
            text.paint(canvas, x + (width - (x - left) - 16 - (16 if style == 5 else 0) - text.width) // 2,
                       top + (height - text.height) // 2)
        if style == 5:  # a link button's "opens outside" arrow
            draw = ImageDraw.Draw(canvas)
            ax, ay = left + width - 26, top + 11
            draw.line([(ax, ay + 9), (ax + 9, ay)], fill=text_colour, width=2)
            draw.line([(ax + 3, ay), (ax + 9, ay), (ax + 9, ay + 6)], fill=text_colour, width=2)

    return Laid(width, height, paint)


def _select(menu: Mapping[str, Any], width: int) -> Laid:
    width = min(width, 400)
    placeholder = str(menu.get("placeholder") or "Make a selection")
    disabled = bool(menu.get("disabled"))

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        _rounded(canvas, (left, top, left + width, top + 40), 8, BORDER, DIVIDER)
        draw = ImageDraw.Draw(canvas)
        font = chart_font(14)
        colour = _blend(MUTED, BORDER, 0.5) if disabled else MUTED
        draw.text((left + 12, top + 20), fit_text(printable_text(placeholder), font, width - 48), font=font,
                  fill=colour, anchor="lm")
        cx, cy = left + width - 20, top + 20
        draw.line([(cx - 5, cy - 2), (cx, cy + 3), (cx + 5, cy - 2)], fill=colour, width=2)

    return Laid(width, 40, paint)


def _action_row(row: Mapping[str, Any], width: int) -> Laid:
    """Buttons side by side, wrapping when a narrow picture has no room (Discord wraps them too)."""
    items = list(row.get("components") or [])
    if any(item.get("type") != 2 for item in items):
        return _stack([_select(item, width) for item in items if item.get("type") != 2], gap=8)
    lines: list[list[Laid]] = [[]]
    x = 0
    for item in items:
        button = _button(item)
        if lines[-1] and x + button.width > width:
            lines.append([])
            x = 0
        lines[-1].append(button)
        x += button.width + 8

    return _stack([_row(line, gap=8) for line in lines if line], gap=8)


def _image_of(data: bytes) -> Image.Image | None:
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    return image.convert("RGB")


def _picture(image: Image.Image, box: tuple[int, int], cover: bool = False) -> Laid:
    """An image scaled into `box` (keeping its shape, or filling the box and cropped), corners rounded."""
    if cover:
        scale = max(box[0] / image.width, box[1] / image.height)
        size = box
    else:
        scale = min(box[0] / image.width, box[1] / image.height, 1.0)
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    scaled = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                          Image.Resampling.LANCZOS)
    if cover:
        dx, dy = (scaled.width - size[0]) // 2, (scaled.height - size[1]) // 2
        scaled = scaled.crop((dx, dy, dx + size[0], dy + size[1]))
    corners = _mask(size, lambda d, k: d.rounded_rectangle((0, 0, size[0] * k - 1, size[1] * k - 1), 8 * k,
                                                           fill=255))

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        canvas.paste(scaled, (left, top), corners)

    return Laid(size[0], size[1], paint)


def _file_chip(name: str, size: int, width: int) -> Laid:
    width = min(width, 432)

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        _rounded(canvas, (left, top, left + width, top + 64), 8, PANEL, BORDER)
        _rounded(canvas, (left + 14, top + 12, left + 44, top + 52), 3, (120, 140, 210))  # a page
        _rounded(canvas, (left + 20, top + 22, left + 38, top + 25), 1, WHITE)
        _rounded(canvas, (left + 20, top + 30, left + 38, top + 33), 1, WHITE)
        _rounded(canvas, (left + 20, top + 38, left + 32, top + 41), 1, WHITE)
        draw = ImageDraw.Draw(canvas)
        font = chart_font(15)
        shown = fit_text(printable_text(name), font, width - 70)
        draw.text((left + 56, top + 27), shown, font=font, fill=LINK, anchor="ls")
        draw.text((left + 56, top + 47), f"{size / 1024:.2f} KB", font=chart_font(12), fill=MUTED, anchor="ls")

    return Laid(width, 64, paint)


def _attachment(name: str, data: bytes, width: int, box: tuple[int, int] = IMAGE_MAX) -> Laid:
    image = _image_of(data)
    if image is None:
        return _file_chip(name, len(data), width)
    return _picture(image, (min(box[0], width), box[1]))


def _media(url: str, ctx: _Context) -> tuple[str, bytes] | None:
    name = url.removeprefix("attachment://")
    if name in ctx.files:
        ctx.used.add(name)
        return name, ctx.files[name]
    return None


def _gallery(items: Sequence[Mapping[str, Any]], width: int, ctx: _Context) -> Laid:
    media = [_media(str((item.get("media") or {}).get("url", "")), ctx) for item in items]
    images = [_image_of(m[1]) if m else None for m in media]
    if len(images) == 1:
        return _picture(images[0], (width, 360)) if images[0] else _placeholder((min(width, 400), 200))
    columns = 2 if len(images) in (2, 4) else 3
    cell = (width - 4 * (columns - 1)) // columns
    rows = []
    for start in range(0, len(images), columns):
        cells = [_picture(img, (cell, cell), cover=True) if img else _placeholder((cell, cell))
                 for img in images[start:start + columns]]
        rows.append(_row(cells, gap=4))
    return _stack(rows, gap=4)


def _placeholder(size: tuple[int, int]) -> Laid:
    def paint(canvas: Image.Image, left: int, top: int) -> None:
        _rounded(canvas, (left, top, left + size[0], top + size[1]), 8, BORDER)

    return Laid(size[0], size[1], paint)


def _row(blocks: Sequence[Laid], gap: int) -> Laid:
    def paint(canvas: Image.Image, left: int, top: int) -> None:
        for block in blocks:
            block.paint(canvas, left, top)
            left += block.width + gap

    return Laid(sum(b.width for b in blocks) + gap * (len(blocks) - 1), max(b.height for b in blocks), paint)


def _section(section: Mapping[str, Any], width: int, ctx: _Context) -> Laid:
    accessory = section.get("accessory") or {}
    if accessory.get("type") == 2:
        side = _button(accessory)
    else:
        found = _media(str((accessory.get("media") or {}).get("url", "")), ctx)
        image = _image_of(found[1]) if found else None
        side = _picture(image, (85, 85), cover=True) if image else _placeholder((85, 85))
    texts = _stack([_component(c, width - side.width - 16, ctx) for c in section.get("components") or []], gap=4)

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        texts.paint(canvas, left, top)
        side.paint(canvas, left + width - side.width, top + max(0, (texts.height - side.height) // 2))

    return Laid(width, max(texts.height, side.height), paint)


def _separator(separator: Mapping[str, Any], width: int) -> Laid:
    spacing = 16 if separator.get("spacing") == 2 else 8
    divider = separator.get("divider", True)

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        if divider:
            ImageDraw.Draw(canvas).line([(left, top + spacing), (left + width, top + spacing)], fill=DIVIDER)

    return Laid(width, 2 * spacing + 1, paint)


def _container(container: Mapping[str, Any], width: int, ctx: _Context) -> Laid:
    width = min(width, CONTAINER_MAX)
    accent = container.get("accent_color")
    inner_left = 16 + (4 if accent is not None else 0)
    inner = _stack([_component(c, width - inner_left - 16, ctx) for c in container.get("components") or []],
                   gap=8)
    height = inner.height + 32

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        _rounded(canvas, (left, top, left + width, top + height), 8, PANEL, (58, 60, 66))
        if accent is not None:
            colour = ((accent >> 16) & 255, (accent >> 8) & 255, accent & 255)
            corner = _mask((4, height), lambda d, k: d.rounded_rectangle((0, 0, 8 * k, height * k - 1), 8 * k,
                                                                         fill=255))
            canvas.paste(colour, (left, top), corner)
        inner.paint(canvas, left + inner_left, top + 16)

    return Laid(width, height, paint)


def _component(component: Mapping[str, Any], width: int, ctx: _Context) -> Laid:
    kind = component.get("type")
    if kind == 1:
        return _action_row(component, width)
    if kind == 2:
        return _button(component)
    if kind in (3, 5, 6, 7, 8):
        return _select(component, width)
    if kind == 9:
        return _section(component, width, ctx)
    if kind == 10:
        return _markdown(str(component.get("content") or ""), width, ctx)
    if kind == 11:
        found = _media(str((component.get("media") or {}).get("url", "")), ctx)
        return _attachment(*found, width, (85, 85)) if found else _placeholder((85, 85))
    if kind == 12:
        return _gallery(component.get("items") or [], width, ctx)
    if kind == 13:
        found = _media(str((component.get("file") or {}).get("url", "")), ctx)
        return _file_chip(found[0], len(found[1]), width) if found else _file_chip("file", 0, width)
    if kind == 14:
        return _separator(component, width)
    if kind == 17:
        return _container(component, width, ctx)
    return _space(0)


# ---- messages


def _avatar(name: str, bot: bool) -> Image.Image:
    colour = AVATAR_COLOURS[zlib.crc32(name.encode()) % len(AVATAR_COLOURS)]
    image = Image.new("RGBA", (40, 40), (0, 0, 0, 0))
    image.paste(colour, (0, 0), _mask((40, 40), lambda d, k: d.ellipse((0, 0, 40 * k - 1, 40 * k - 1), fill=255)))
    initial = next((c for c in printable_text(name) if c.isalnum()), "")
    if bot:
        _paint_emoji(image, "🃏", 8, 8, 24)
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
            _rounded(canvas, (round(x), baseline - 13, round(x) + 32, baseline + 2), 4, BLURPLE)
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
        canvas.paste(MUTED, (left, top + 2), _mask((16, 16), _eye))
        font = chart_font(12)
        text = "Only you can see this · "
        draw.text((left + 22, top + 14), text, font=font, fill=MUTED, anchor="ls")
        draw.text((left + 22 + font.getlength(text), top + 14), "Dismiss message", font=font, fill=LINK, anchor="ls")

    return Laid(width, 20, paint)


def _body(message: ShownMessage, width: int, names: Mapping[str, str]) -> Laid:
    ctx = _Context(names, dict(message.attachments))
    edited = [(" (edited)", _Style(size=10, colour=MUTED))] if message.edited else []
    blocks = []
    if message.content:
        blocks.append(_markdown(message.content, width, ctx, edited))
    components = [_component(c, width, ctx) for c in message.components]  # first: the files they show
    blocks += [_attachment(name, data, width) for name, data in message.attachments if name not in ctx.used]
    blocks += components  # buttons come last, under the files, as in Discord
    if message.edited and not message.content:
        blocks.append(_inline(edited, width))
    if message.ephemeral:
        blocks.append(_ephemeral_footer(width))
    return _stack(blocks, gap=8)


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
