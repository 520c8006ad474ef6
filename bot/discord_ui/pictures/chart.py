"""The score chart posted when a game ends: each side's running score hand by hand, as a small PNG.

Shapes are drawn at twice the size and scaled down, because Pillow draws lines without antialiasing;
text is drawn afterwards at full size (FreeType smooths it already). The result is reduced to a palette
so the file stays small. Text uses the subset of DejaVu Sans in fonts/: Pillow's own default font has
little beyond ASCII, and Discord names often aren't ASCII. What the font still lacks (emoji, CJK) is
dropped or shown as "?", never as boxes.

A chart is drawn in the bot's own process at the end of every game, so its cost counts
(bench/bench_chart.py): only the part with shapes is supersampled; the palette is fixed, the chart's own
colours and their blends, where an adaptive quantizer took a third of the time and matched them worse;
the PNG is deflated at level 1, twice as fast as the default for a file still under 60 KB; and text that
comes back game after game is kept once drawn.
"""

from __future__ import annotations

import io
import itertools
import math
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.discord_ui.text import number

FONT_DIR = Path(__file__).with_name("fonts")
WIDTH, HEIGHT = 800, 450
SHOWN_WIDTH = 550  # Discord shows an attached image at most this wide in a channel: text must read there
TICK_SIZE, LABEL_SIZE, NAME_SIZE, TITLE_SIZE = 17, 18, 19, 24  # px, 12 to 16 px as shown
SCALE = 2  # shapes are drawn at this multiple of the final size, then scaled down

Colour = tuple[int, int, int]
BACKGROUND: Colour = (43, 45, 49)  # Discord's dark theme, as its embeds
GRID: Colour = (60, 63, 69)
AXIS: Colour = (100, 104, 112)
MUTED: Colour = (181, 186, 193)
TEXT: Colour = (242, 243, 245)
TARGET: Colour = (219, 222, 225)
MERCY: Colour = (242, 96, 99)
GOLD: Colour = (240, 178, 50)
# Okabe and Ito's palette, lightened where needed for a dark background: told apart with colour
# blindness, and each side also has its own marker shape.
SIDE_COLOURS: tuple[Colour, ...] = ((86, 180, 233), (230, 159, 0), (0, 190, 140), (214, 131, 177), (240, 228, 66),
                                    (150, 130, 255))  # and a violet for a sixth side
MARKERS = ("circle", "square", "triangle", "diamond", "down", "bar")  # six sides: six played each for themselves


def _blend(colour: Colour, under: Colour, share: float) -> Colour:
    return (round(colour[0] * share + under[0] * (1 - share)), round(colour[1] * share + under[1] * (1 - share)),
            round(colour[2] * share + under[2] * (1 - share)))


@lru_cache(maxsize=1)
def _palette() -> Image.Image:
    """Every colour the chart can hold: each flat colour over the background in tenths (edges and text),
    and in quarters where a line crosses the grid, the target or mercy line, or another side's line. Built
    once: Pillow keeps its nearest-colour lookups with the palette, which a new one would redo (~1.5 ms)."""
    flat = (GRID, AXIS, MUTED, TEXT, TARGET, MERCY, GOLD, *SIDE_COLOURS)
    # Tenths, not twelfths, since six sides: 256 colours hold them and every pair of sides crossing.
    colours = [BACKGROUND, *(_blend(colour, BACKGROUND, step / 10) for colour in flat for step in range(1, 11))]
    crossed = [(side, under) for side in SIDE_COLOURS for under in (GRID, AXIS, TARGET, MERCY)]
    for side, under in [*crossed, *itertools.combinations(SIDE_COLOURS, 2)]:
        colours += [_blend(side, under, share) for share in (0.25, 0.5, 0.75)]
    image = Image.new("P", (1, 1))
    image.putpalette([channel for colour in dict.fromkeys(colours) for channel in colour])
    return image


MARGIN = 16
LEGEND_WIDTH = 230
MARKERS_UP_TO = 40  # hands; past this a marker on every hand would only blur the lines


@lru_cache(maxsize=32)
def chart_font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The vendored font, laid out without Raqm so the output is the same wherever Pillow runs."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(FONT_DIR / name), size, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=1)
def _missing_glyph() -> bytes:
    return bytes(chart_font(20).getmask("\uffff"))


@lru_cache(maxsize=4096)
def has_glyph(char: str) -> bool:
    """Whether the font draws this character (FreeType draws its empty box for any it lacks)."""
    return bytes(chart_font(20).getmask(char)) != _missing_glyph()


FRACTION_SLASH = "\u2044"  # ⅓ is 1⁄3 decomposed: drawn 1/3 where the font lacks both


def printable_text(text: str) -> str:
    """The text as the font can draw it: accents it lacks are dropped from their letters, letters it
    lacks (CJK, say) become "?", emoji and other symbols it lacks are dropped, controls become spaces."""
    shown: list[str] = []
    for char in unicodedata.normalize("NFC", text):
        category = unicodedata.category(char)
        if category in ("Cc", "Zl", "Zp") or (category == "Zs" and not has_glyph(char)):
            shown.append(" ")
        elif category[0] == "C":
            continue  # joiners, variation selectors, private use, unassigned
        elif has_glyph(char):
            shown.append(char)
        else:
            base = [c if has_glyph(c) else "/" for c in unicodedata.normalize("NFKD", char)
                    if not unicodedata.category(c).startswith("M") and (has_glyph(c) or c == FRACTION_SLASH)]
            if base:
                if "/" in base and shown and shown[-1].isdigit():
                    shown.append(" ")  # 2⅓ drawn as 2 1/3, not 21/3
                shown.extend(base)
            elif category[0] in "LN":
                shown.append("?")
    return "".join(shown)


@lru_cache(maxsize=512)
def _text_box(text: str, font: ImageFont.FreeTypeFont, anchor: str) -> tuple[float, float, float, float]:
    """The text's bounds around its anchor point, kept as _text_mask is."""
    return font.getbbox(text, anchor=anchor)


@lru_cache(maxsize=512)
def _text_length(text: str, font: ImageFont.FreeTypeFont) -> float:
    """The text's advance, kept as _text_mask is."""
    return font.getlength(text)


@lru_cache(maxsize=512)
def _text_mask(text: str, font: ImageFont.FreeTypeFont, anchor: str, start: tuple[float, float]
               ) -> tuple[Image.Image, int, int]:
    """The text's coverage, drawn as Pillow would at a position with this fractional part, and where that
    position falls in it."""
    left, top, right, bottom = _text_box(text, font, anchor)
    # Drawn 2 px in from the mask's edges, to spare the fractional start, and never at a negative position,
    # which Pillow rounds the other way.
    x, y = 2 - min(0, math.floor(left)), 2 - min(0, math.floor(top))
    mask = Image.new("L", (math.ceil(right) + x + 2, math.ceil(bottom) + y + 2))
    ImageDraw.Draw(mask).text((x + start[0], y + start[1]), text, font=font, fill=255, anchor=anchor)
    return mask, x, y


def draw_text(image: Image.Image, xy: tuple[float, float], text: str, font: ImageFont.FreeTypeFont, colour: Colour,
              anchor: str = "la", *, keep: bool = True) -> None:
    """Text on the image, the same pixels as ImageDraw.text. FreeType takes ~10 µs a glyph, and most of a
    chart's text (ticks, labels, the title) comes back game after game, so it is kept once drawn; text that
    seldom comes back (players' names, final scores) is drawn directly (`keep=False`), as keeping it would
    cost another pass over its glyphs for nothing."""
    if not keep:
        ImageDraw.Draw(image).text(xy, text, font=font, fill=colour, anchor=anchor)
        return
    mask, x, y = _text_mask(text, font, anchor, (xy[0] % 1, xy[1] % 1))
    image.paste(colour, (math.floor(xy[0]) - x, math.floor(xy[1]) - y), mask)


def fit_text(text: str, font: ImageFont.FreeTypeFont, width: float) -> str:
    """The text, cut short with "…" if it is wider than `width` pixels."""
    if font.getlength(text) <= width:
        return text
    low, high = 0, len(text)
    while low < high:  # the longest prefix that fits with the ellipsis
        middle = (low + high + 1) // 2
        if font.getlength(text[:middle].rstrip() + "…") <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + "…"


def nice_step(span: float, most_steps: int) -> int:
    """The smallest step of 1, 2 or 5 times a power of ten that covers `span` in `most_steps` steps."""
    raw = max(span, 1) / most_steps
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return max(1, round(step))


def _marker(draw: ImageDraw.ImageDraw, kind: str, x: float, y: float, radius: float, fill: Colour) -> None:
    """A marker centred on (x, y), in the supersampled canvas's units, ringed with the background."""
    ring = radius + SCALE
    for r, colour in ((ring, BACKGROUND), (radius, fill)):
        if kind == "circle":
            draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
        elif kind == "square":
            side = r * 0.85
            draw.rectangle((x - side, y - side, x + side, y + side), fill=colour)
        elif kind == "triangle":
            draw.polygon([(x, y - r * 1.15), (x + r * 1.1, y + r * 0.75), (x - r * 1.1, y + r * 0.75)], fill=colour)
        elif kind == "down":
            draw.polygon([(x, y + r * 1.15), (x + r * 1.1, y - r * 0.75), (x - r * 1.1, y - r * 0.75)], fill=colour)
        elif kind == "bar":
            draw.rectangle((x - r * 1.2, y - r * 0.5, x + r * 1.2, y + r * 0.5), fill=colour)
        else:
            draw.polygon([(x, y - r * 1.2), (x + r * 1.2, y), (x, y + r * 1.2), (x - r * 1.2, y)], fill=colour)


@lru_cache(maxsize=1)
def _dashes() -> Image.Image:
    """A mask of the dashed line across the whole supersampled width, cropped to each line's length:
    pasting it is one call where drawing its dashes one by one was dozens."""
    mask = Image.new("L", (WIDTH * SCALE, 2 * SCALE))
    dash, gap = 8 * SCALE, 5 * SCALE
    for x in range(0, WIDTH * SCALE, dash + gap):
        mask.paste(255, (x, 0, min(x + dash, WIDTH * SCALE), 2 * SCALE))
    return mask


def score_chart_png(names: Sequence[str], scores: Sequence[Sequence[int]], target: int, *, title: str = "",
                    winners: Sequence[int] = (), mercy: int | None = None) -> bytes:
    """A PNG of each side's score after every hand. ``scores[h][i]`` is side i's score after hand h+1;
    the chart starts from 0 before the first hand. Names may be team labels ("Alice & Carol")."""
    sides = len(names)
    if not 1 <= sides <= len(SIDE_COLOURS):
        raise ValueError(f"a chart shows 1 to {len(SIDE_COLOURS)} sides, not {sides}")
    if any(len(row) != sides for row in scores):
        raise ValueError(f"every hand needs a score for each of the {sides} sides")
    if any(not 0 <= w < sides for w in winners):
        raise ValueError(f"winners must be side numbers from 0 to {sides - 1}")
    hands = len(scores)
    series = [[0, *(row[i] for row in scores)] for i in range(sides)]
    finals = [line[-1] for line in series]

    # Vertical range: every score, 0, the target and the mercy line, on round ticks.
    low = min(0, *(min(line) for line in series), -mercy if mercy is not None else 0)
    high = max(target, *(max(line) for line in series))
    y_step = nice_step(high - low, 6)
    y_low, y_high = math.floor(low / y_step) * y_step, math.ceil(high / y_step) * y_step
    if y_high == y_low:
        y_high += y_step
    y_ticks = range(y_low, y_high + 1, y_step)

    tick_font, label_font = chart_font(TICK_SIZE), chart_font(LABEL_SIZE)
    name_fonts = (chart_font(NAME_SIZE), chart_font(NAME_SIZE, bold=True))
    title_font = chart_font(TITLE_SIZE, bold=True)
    shown_title = fit_text(" ".join(printable_text(title).split()), title_font, WIDTH - 2 * MARGIN)

    left = MARGIN + max(_text_length(number(t), tick_font) for t in y_ticks) + 8
    right = WIDTH - MARGIN - LEGEND_WIDTH - 12
    top = 66 if shown_title else 28
    bottom = HEIGHT - 60

    def x_of(hand: float) -> float:
        return left + (right - left) * hand / max(hands, 1)

    def y_of(score: float) -> float:
        return bottom - (bottom - top) * (score - y_low) / (y_high - y_low)

    x_step = nice_step(hands, 10)
    x_ticks = list(range(0, hands + 1, x_step))
    if hands - x_ticks[-1] >= x_step * 0.6:
        x_ticks.append(hands)  # the last hand, when it isn't crowded by the tick before it

    # Shapes, supersampled, on the part of the picture that has any: the plot and the legend's swatches.
    # The scaled-down part is pasted on a plain background, with text at full size over it.
    legend_x = WIDTH - MARGIN - LEGEND_WIDTH
    region = (math.floor(left) - 12, top - 12, legend_x + 36, bottom + 12)

    def scaled(x: float, y: float) -> tuple[float, float]:
        return (x - region[0]) * SCALE, (y - region[1]) * SCALE

    big = Image.new("RGB", ((region[2] - region[0]) * SCALE, (region[3] - region[1]) * SCALE), BACKGROUND)
    draw = ImageDraw.Draw(big)
    for tick in y_ticks:
        grid_y = round(y_of(tick))  # on whole pixels, so grid lines stay sharp
        draw.line([scaled(left, grid_y), scaled(right, grid_y)], fill=AXIS if tick == 0 else GRID, width=SCALE)
    for tick in x_ticks:
        tick_x = round(x_of(tick))
        draw.line([scaled(tick_x, bottom), scaled(tick_x, bottom + 4)], fill=AXIS, width=SCALE)
    for value, colour in [(target, TARGET), *([(-mercy, MERCY)] if mercy is not None else [])]:
        x0, y0 = (round(c) for c in scaled(left, y_of(value)))
        length = round(scaled(right, 0)[0]) - x0
        big.paste(colour, (x0, y0 - SCALE, x0 + length, y0 + SCALE), _dashes().crop((0, 0, length, 2 * SCALE)))

    winning = set(winners)
    radius = (5 if hands <= 15 else 4) * SCALE
    for side in sorted(range(sides), key=lambda s: s in winning):  # winners on top
        colour, points = SIDE_COLOURS[side], [scaled(x_of(h), y_of(v)) for h, v in enumerate(series[side])]
        if len(points) > 1:
            width = (4 if side in winning else 3) * SCALE - (SCALE // 2 if hands > MARKERS_UP_TO else 0)
            draw.line(points, fill=colour, width=width, joint="curve")
        if hands <= MARKERS_UP_TO:
            for x, y in points[1:-1]:
                _marker(draw, MARKERS[side], x, y, radius, colour)
        _marker(draw, MARKERS[side], *points[-1], 6 * SCALE, colour)

    order = sorted(range(sides), key=lambda s: (s not in winning, -finals[s], s))
    entry_height = 60
    for row, side in enumerate(order):
        swatch_y = top + row * entry_height + 11
        draw.line([scaled(legend_x, swatch_y), scaled(legend_x + 24, swatch_y)], fill=SIDE_COLOURS[side],
                  width=4 * SCALE)
        _marker(draw, MARKERS[side], *scaled(legend_x + 12, swatch_y), 5 * SCALE, SIDE_COLOURS[side])

    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    image.paste(big.reduce(SCALE), region[:2])

    # Text, at full size.
    draw = ImageDraw.Draw(image)
    if shown_title:
        draw_text(image, (MARGIN, 16), shown_title, title_font, TEXT)
    for tick in y_ticks:
        draw_text(image, (left - 8, round(y_of(tick))), number(tick), tick_font, MUTED, "rm")
    for tick in x_ticks:
        draw_text(image, (round(x_of(tick)), bottom + 8), str(tick), tick_font, MUTED, "mt")
    draw_text(image, ((left + right) / 2, HEIGHT - 6), "hand", tick_font, MUTED, "mb")

    lines = [(target, f"target {number(target)}", TARGET)]
    if mercy is not None:
        lines.append((-mercy, f"mercy {number(-mercy)}", MERCY))
    for value, label, colour in lines:
        y = y_of(value)
        above = y - 26 > top
        at, anchor = ((left + 8, y - 5), "lb") if above else ((left + 8, y + 6), "lt")  # early hands are near 0
        box = _text_box(label, label_font, anchor)
        draw.rounded_rectangle((at[0] + box[0] - 5, at[1] + box[1] - 3, at[0] + box[2] + 5, at[1] + box[3] + 3),
                               radius=4, fill=BACKGROUND)
        draw_text(image, at, label, label_font, colour, anchor)

    for row, side in enumerate(order):
        entry_y = top + row * entry_height
        won = side in winning
        name_font = name_fonts[won]
        name = " ".join(printable_text(names[side]).split()) or "?"
        draw_text(image, (legend_x + 34, entry_y + 11), fit_text(name, name_font, LEGEND_WIDTH - 34), name_font, TEXT,
                  "lm", keep=False)
        draw_text(image, (legend_x + 34, entry_y + 38), number(finals[side]), label_font, MUTED, "lm", keep=False)
        if won:
            score_width = label_font.getlength(number(finals[side]))
            draw_text(image, (legend_x + 44 + score_width, entry_y + 38), "★ winner", label_font, GOLD, "lm")

    out = io.BytesIO()
    # Level 1 deflates at under half the time of the default 6, for a file about a third bigger (still small).
    image.quantize(palette=_palette(), dither=Image.Dither.NONE).save(out, "PNG", compress_level=1)
    return out.getvalue()
