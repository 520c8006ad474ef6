"""Message components: classic buttons, select menus and action rows, and the Components V2 sections,
separators and containers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PIL import Image, ImageDraw

from bot.discord_ui.pictures.chart import chart_font, fit_text, printable_text

from .layout import Laid, blend, rounded_box, side_by_side, smooth_mask, spacer, stack
from .markdown import markdown_block
from .media import attached_file, attachment_block, file_chip, fitted_image, gallery, image_of, missing_image
from .text import MessageContext, TextStyle, wrapped_text
from .theme import BACKGROUND, BORDER, BUTTON_COLOURS, CONTAINER_MAX, DIVIDER, MUTED, PANEL, WHITE


def _button_size(button: Mapping[str, Any]) -> tuple[int, int]:
    label = str(button.get("label") or "")
    emoji = (button.get("emoji") or {}).get("name")
    width = wrapped_text([(label, TextStyle(size=14))], 10_000).width if label else 0
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
            fill, text_colour = blend(fill, back, 0.5), blend(WHITE, back, 0.5)
        rounded_box(canvas, (left, top, left + width, top + height), 8, fill)
        x = left + 16
        if emoji:
            content = wrapped_text([(emoji, TextStyle(size=14, colour=text_colour, suits=False))], 200)
            content.paint(canvas, x, top + (height - content.height) // 2)
            x += 22 + (4 if label else 0)
        if label:
            text = wrapped_text([(label, TextStyle(size=14, colour=text_colour, suits=False))], width)
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
        rounded_box(canvas, (left, top, left + width, top + 40), 8, BORDER, DIVIDER)
        draw = ImageDraw.Draw(canvas)
        font = chart_font(14)
        colour = blend(MUTED, BORDER, 0.5) if disabled else MUTED
        draw.text((left + 12, top + 20), fit_text(printable_text(placeholder), font, width - 48), font=font,
                  fill=colour, anchor="lm")
        cx, cy = left + width - 20, top + 20
        draw.line([(cx - 5, cy - 2), (cx, cy + 3), (cx + 5, cy - 2)], fill=colour, width=2)

    return Laid(width, 40, paint)


def _action_row(row: Mapping[str, Any], width: int) -> Laid:
    """Buttons side by side, wrapping when a narrow picture has no room (Discord wraps them too)."""
    items = list(row.get("components") or [])
    if any(item.get("type") != 2 for item in items):
        return stack([_select(item, width) for item in items if item.get("type") != 2], gap=8)
    lines: list[list[Laid]] = [[]]
    x = 0
    for item in items:
        button = _button(item)
        if lines[-1] and x + button.width > width:
            lines.append([])
            x = 0
        lines[-1].append(button)
        x += button.width + 8

    return stack([side_by_side(line, gap=8) for line in lines if line], gap=8)


def _section(section: Mapping[str, Any], width: int, ctx: MessageContext) -> Laid:
    accessory = section.get("accessory") or {}
    if accessory.get("type") == 2:
        side = _button(accessory)
    else:
        found = attached_file(str((accessory.get("media") or {}).get("url", "")), ctx)
        image = image_of(found[1]) if found else None
        side = fitted_image(image, (85, 85), cover=True) if image else missing_image((85, 85))
    texts = stack([draw_component(c, width - side.width - 16, ctx) for c in section.get("components") or []], gap=4)

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


def _container(container: Mapping[str, Any], width: int, ctx: MessageContext) -> Laid:
    width = min(width, CONTAINER_MAX)
    accent = container.get("accent_color")
    inner_left = 16 + (4 if accent is not None else 0)
    inner = stack([draw_component(c, width - inner_left - 16, ctx) for c in container.get("components") or []],
                  gap=8)
    height = inner.height + 32

    def paint(canvas: Image.Image, left: int, top: int) -> None:
        rounded_box(canvas, (left, top, left + width, top + height), 8, PANEL, (58, 60, 66))
        if accent is not None:
            colour = ((accent >> 16) & 255, (accent >> 8) & 255, accent & 255)
            corner = smooth_mask((4, height), lambda d, k: d.rounded_rectangle((0, 0, 8 * k, height * k - 1), 8 * k,
                                                                              fill=255))
            canvas.paste(colour, (left, top), corner)
        inner.paint(canvas, left + inner_left, top + 16)

    return Laid(width, height, paint)


def draw_component(component: Mapping[str, Any], width: int, ctx: MessageContext) -> Laid:
    """Any component by its type; an unknown type takes no room."""
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
        return markdown_block(str(component.get("content") or ""), width, ctx)
    if kind == 11:
        found = attached_file(str((component.get("media") or {}).get("url", "")), ctx)
        return attachment_block(*found, width, (85, 85)) if found else missing_image((85, 85))
    if kind == 12:
        return gallery(component.get("items") or [], width, ctx)
    if kind == 13:
        found = attached_file(str((component.get("file") or {}).get("url", "")), ctx)
        return file_chip(found[0], len(found[1]), width) if found else file_chip("file", 0, width)
    if kind == 14:
        return _separator(component, width)
    if kind == 17:
        return _container(component, width, ctx)
    return spacer(0)
