"""How the picture is put together: a block laid out to a width (`Laid`), blocks stacked or side by side,
and the antialiased rounded shapes every part draws with (Pillow's own have no antialiasing)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from .theme import SUPERSAMPLE, Colour

Painter = Callable[[Image.Image, int, int], None]


@dataclass(frozen=True)
class Laid:
    """A block already laid out to a width: its size, and how to paint it at a position."""

    width: int
    height: int
    paint: Painter


def smooth_mask(size: tuple[int, int], draw: Callable[[ImageDraw.ImageDraw, int], None]) -> Image.Image:
    """An antialiased mask: `draw` paints it at SUPERSAMPLE times the size, given that factor."""
    big = Image.new("L", (max(1, size[0]) * SUPERSAMPLE, max(1, size[1]) * SUPERSAMPLE), 0)
    draw(ImageDraw.Draw(big), SUPERSAMPLE)
    return big.reduce(SUPERSAMPLE)


def rounded_box(canvas: Image.Image, box: tuple[int, int, int, int], radius: float, fill: Colour,
                outline: Colour | None = None) -> None:
    """A rounded rectangle, antialiased, with a one-pixel `outline` if given: buttons, panels, pills."""
    x0, y0, x1, y1 = box
    size = (x1 - x0, y1 - y0)
    if size[0] <= 0 or size[1] <= 0:
        return
    if outline is not None:
        canvas.paste(outline, (x0, y0), smooth_mask(size, lambda d, k: d.rounded_rectangle(
            (0, 0, size[0] * k - 1, size[1] * k - 1), radius * k, fill=255)))
        x0, y0, x1, y1, radius = x0 + 1, y0 + 1, x1 - 1, y1 - 1, radius - 1
        size = (x1 - x0, y1 - y0)
    canvas.paste(fill, (x0, y0), smooth_mask(size, lambda d, k: d.rounded_rectangle(
        (0, 0, size[0] * k - 1, size[1] * k - 1), max(0, radius) * k, fill=255)))


def blend(colour: Colour, over: Colour, amount: float) -> Colour:
    """`colour` faded into `over` (a disabled button is half its colour)."""
    r, g, b = (round(c * amount + o * (1 - amount)) for c, o in zip(colour, over, strict=True))
    return r, g, b


def stack(blocks: Sequence[Laid], gap: int = 0) -> Laid:
    """Blocks one under another, `gap` apart; empty ones take no room."""
    blocks = [b for b in blocks if b.height > 0]
    height = sum(b.height for b in blocks) + gap * max(0, len(blocks) - 1)

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        for block in blocks:
            block.paint(canvas, left, top)
            top += block.height + gap

    return Laid(max((b.width for b in blocks), default=0), height, paint)


def spacer(height: int) -> Laid:
    """Empty room of a height: a blank line, the gap above a heading."""
    return Laid(0, height, lambda canvas, x, y: None)


def side_by_side(blocks: Sequence[Laid], gap: int) -> Laid:
    """Blocks in a row, `gap` apart, top-aligned."""
    def paint(canvas: Image.Image, left: int, top: int) -> None:
        for block in blocks:
            block.paint(canvas, left, top)
            left += block.width + gap

    return Laid(sum(b.width for b in blocks) + gap * (len(blocks) - 1), max(b.height for b in blocks), paint)
