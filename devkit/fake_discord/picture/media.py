"""Images and files: an attachment as an image scaled and rounded or as a file chip, media galleries, and
the files a message's components name by `attachment://`."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image, ImageDraw

from bot.discord_ui.pictures.chart import chart_font, fit_text, printable_text

from .layout import Laid, rounded_box, side_by_side, smooth_mask, stack
from .text import MessageContext
from .theme import BORDER, IMAGE_MAX, LINK, MUTED, PANEL, WHITE


def image_of(data: bytes) -> Image.Image | None:
    """The image in a file's bytes, or None when they are no image Pillow can read."""
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (OSError, ValueError, Image.DecompressionBombError):
        return None
    return image.convert("RGB")


def fitted_image(image: Image.Image, box: tuple[int, int], cover: bool = False) -> Laid:
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
    corners = smooth_mask(size, lambda d, k: d.rounded_rectangle((0, 0, size[0] * k - 1, size[1] * k - 1), 8 * k,
                                                                fill=255))

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        canvas.paste(scaled, (left, top), corners)

    return Laid(size[0], size[1], paint)


def file_chip(name: str, size: int, width: int) -> Laid:
    """A file that is no image: its name and size on a chip, as Discord shows a download."""
    width = min(width, 432)

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        rounded_box(canvas, (left, top, left + width, top + 64), 8, PANEL, BORDER)
        rounded_box(canvas, (left + 14, top + 12, left + 44, top + 52), 3, (120, 140, 210))  # a page
        rounded_box(canvas, (left + 20, top + 22, left + 38, top + 25), 1, WHITE)
        rounded_box(canvas, (left + 20, top + 30, left + 38, top + 33), 1, WHITE)
        rounded_box(canvas, (left + 20, top + 38, left + 32, top + 41), 1, WHITE)
        draw = ImageDraw.Draw(canvas)
        font = chart_font(15)
        shown = fit_text(printable_text(name), font, width - 70)
        draw.text((left + 56, top + 27), shown, font=font, fill=LINK, anchor="ls")
        draw.text((left + 56, top + 47), f"{size / 1024:.2f} KB", font=chart_font(12), fill=MUTED, anchor="ls")

    return Laid(width, 64, paint)


def attachment_block(name: str, data: bytes, width: int, box: tuple[int, int] = IMAGE_MAX) -> Laid:
    """An attached file: shown as its image when it is one, else as a file chip."""
    image = image_of(data)
    if image is None:
        return file_chip(name, len(data), width)
    return fitted_image(image, (min(box[0], width), box[1]))


def attached_file(url: str, ctx: MessageContext) -> tuple[str, bytes] | None:
    """The message's file an `attachment://` url names (marked as shown), or None."""
    name = url.removeprefix("attachment://")
    if name in ctx.files:
        ctx.used.add(name)
        return name, ctx.files[name]
    return None


def gallery(items: Sequence[Mapping[str, Any]], width: int, ctx: MessageContext) -> Laid:
    """A media gallery: one image large, more in a grid of squares."""
    media = [attached_file(str((item.get("media") or {}).get("url", "")), ctx) for item in items]
    images = [image_of(m[1]) if m else None for m in media]
    if len(images) == 1:
        return fitted_image(images[0], (width, 360)) if images[0] else missing_image((min(width, 400), 200))
    columns = 2 if len(images) in (2, 4) else 3
    cell = (width - 4 * (columns - 1)) // columns
    rows = []
    for start in range(0, len(images), columns):
        cells = [fitted_image(img, (cell, cell), cover=True) if img else missing_image((cell, cell))
                 for img in images[start:start + columns]]
        rows.append(side_by_side(cells, gap=4))
    return stack(rows, gap=4)


def missing_image(size: tuple[int, int]) -> Laid:
    """A dark box where an image is named but its file is missing or unreadable."""
    def paint(canvas: Image.Image, left: int, top: int) -> None:
        rounded_box(canvas, (left, top, left + size[0], top + size[1]), 8, BORDER)

    return Laid(size[0], size[1], paint)
