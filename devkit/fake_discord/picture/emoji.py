"""Emoji the font lacks, drawn as small shapes (a trophy, a joker card, medals...) or a neutral tile, and
how text splits into what the font draws and emoji sequences it can't."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable

from PIL import Image, ImageDraw

from bot.discord_ui.pictures.chart import has_glyph, printable_text

from .theme import RED_SUIT, SUPERSAMPLE, WHITE, Colour

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


def paint_emoji(canvas: Image.Image, emoji: str, x: int, y: int, size: int) -> None:
    """An emoji as its shape, `size` pixels square, at (x, y); one without a shape as a tile."""
    paint = EMOJI.get(emoji[0], _tile)
    big = Image.new("RGBA", (size * SUPERSAMPLE, size * SUPERSAMPLE), (0, 0, 0, 0))
    paint(ImageDraw.Draw(big), size * SUPERSAMPLE)
    small = big.reduce(SUPERSAMPLE)
    canvas.paste(small, (x, y), small)


def _is_emoji(char: str) -> bool:
    return ord(char) >= 0x1F000 or unicodedata.category(char) == "So" or char in EMOJI


JOINERS = {"\u200d", "\ufe0f", "\ufe0e", "\u20e3"}


def split_emoji(text: str) -> list[tuple[str, bool]]:
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
