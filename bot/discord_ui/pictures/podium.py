"""The pictures of seasons and tournaments, drawn like the score chart (`bot.discord_ui.pictures.chart`: same
font, colours and supersampling): a final podium with the top ten (a season's by rating, a
tournament's by tournament points: `Figures` says what the numbers are), and a player's stats card
with their rating over time, a line per season.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot.discord_ui.pictures.chart import (
    AXIS,
    BACKGROUND,
    GOLD,
    GRID,
    MUTED,
    SCALE,
    SIDE_COLOURS,
    TEXT,
    Colour,
    chart_font,
    fit_text,
    nice_step,
    printable_text,
)
from bot.discord_ui.text import number

WIDTH = 800
MARGIN = 16
SILVER: Colour = (192, 199, 208)
BRONZE: Colour = (205, 127, 50)
PLACE_COLOURS = (GOLD, SILVER, BRONZE)
PANEL: Colour = (49, 51, 56)  # a shade off the background, for rows and panels
DARK: Colour = (30, 31, 34)
STEP_HEIGHTS = (110, 80, 60)  # the podium's steps, first to third
STEP_WIDTH, STEP_GAP = 170, 14
ROW_HEIGHT = 26
CARD_HEIGHT = 450
PALETTE_COLOURS = 64  # plenty for a few flat colours and their antialiased edges
SEASON_LINES = len(SIDE_COLOURS)  # the latest seasons get a colour of their own; earlier ones share one
EARLIER: Colour = (130, 134, 142)


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of a final board: `score` is what ranks it, as shown (a rating, tournament points)."""

    rank: int
    name: str
    score: str
    wins: int
    games: int
    points: int


@dataclass(frozen=True, slots=True)
class Figures:
    """What a board's numbers are, as format strings over a line's `score`, `wins`, `games` and
    `points`: the line under a podium step, and the three columns of a row below."""

    step: str
    row: tuple[str, str, str]

    def on_step(self, line: Standing) -> str:
        return self.step.format(**_values(line))

    def in_row(self, line: Standing) -> tuple[str, str, str]:
        values = _values(line)
        first, second, third = (column.format(**values) for column in self.row)
        return first, second, third


SEASON = Figures("{score} · {wins}/{games} won", ("rating {score}", "{wins}/{games} won", "{points} pts"))


def _values(line: Standing) -> dict[str, str]:
    return {"score": line.score, "wins": str(line.wins), "games": str(line.games), "points": number(line.points)}


def _name(text: str) -> str:
    return " ".join(printable_text(text).split()) or "?"


def rating_text(value: float) -> str:
    """A rating as the boards show it: one decimal, a true minus sign."""
    return f"−{-value:.1f}" if value < 0 else f"{value:.1f}"


class _Canvas:
    """Shapes drawn at `SCALE` times the size (`draw`, in scaled units) and text at full size once
    scaled down, as the score chart does."""

    def __init__(self, height: int) -> None:
        self._big = Image.new("RGB", (WIDTH * SCALE, height * SCALE), BACKGROUND)
        self.draw = ImageDraw.Draw(self._big)
        self._texts: list[tuple[tuple[float, float], str, int, bool, Colour, str]] = []

    def text(self, at: tuple[float, float], what: str, size: int, colour: Colour = TEXT, *, bold: bool = False,
             anchor: str = "la") -> None:
        self._texts.append((at, what, size, bold, colour, anchor))

    def heading(self, title: str, subtitle: str) -> None:
        self.text((MARGIN, 14), fit_text(_name(title), chart_font(20, bold=True), WIDTH - 2 * MARGIN), 20, bold=True)
        self.text((MARGIN, 42), fit_text(_name(subtitle), chart_font(13), WIDTH - 2 * MARGIN), 13, MUTED)

    def png(self) -> bytes:
        image = self._big.reduce(SCALE)
        draw = ImageDraw.Draw(image)
        for at, what, size, bold, colour, anchor in self._texts:
            draw.text(at, what, font=chart_font(size, bold=bold), fill=colour, anchor=anchor)
        out = io.BytesIO()
        palette = image.quantize(PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        palette.save(out, "PNG", compress_level=6)
        return out.getvalue()


def _board_height(standings: Sequence[Standing]) -> int:
    return 28 + 44 + STEP_HEIGHTS[0] + 12 + ROW_HEIGHT * max(0, len(standings) - 3) + 18


def podium_png(title: str, subtitle: str, boards: Sequence[tuple[str, Sequence[Standing]]],
               figures: Figures = SEASON) -> bytes:
    """A final podium: per board (a season's mode), its first three on the steps and the rest of its
    top ten below, each with the figures `figures` names (a season's: rating, wins and games)."""
    if not boards or any(not standings for _, standings in boards):
        raise ValueError("a podium needs at least one board, each with someone on it")
    top = 70
    canvas = _Canvas(top + sum(_board_height(s) for _, s in boards))
    canvas.heading(title, subtitle)
    draw, text = canvas.draw, canvas.text
    y = top
    centre = WIDTH / 2
    for label, standings in boards:
        text((MARGIN, y), _name(label), 15, MUTED, bold=True)
        floor = y + 28 + 44 + STEP_HEIGHTS[0]
        for place, standing in enumerate(standings[:3]):
            x = centre + (0, -1, 1)[place] * (STEP_WIDTH + STEP_GAP) - STEP_WIDTH / 2
            step_top = floor - STEP_HEIGHTS[place]
            draw.rounded_rectangle(
                (x * SCALE, step_top * SCALE, (x + STEP_WIDTH) * SCALE, floor * SCALE),
                radius=6 * SCALE, fill=PLACE_COLOURS[place])
            text((x + STEP_WIDTH / 2, step_top + 10), str(standing.rank), 28, DARK, bold=True, anchor="mt")
            name_font = chart_font(15, bold=True)
            text((x + STEP_WIDTH / 2, step_top - 26), fit_text(_name(standing.name), name_font, STEP_WIDTH + 10), 15,
                 bold=True, anchor="mb")
            text((x + STEP_WIDTH / 2, step_top - 6),
                 fit_text(figures.on_step(standing), chart_font(12), STEP_WIDTH + STEP_GAP), 12, MUTED, anchor="mb")
        row_y = floor + 12
        for index, standing in enumerate(standings[3:]):
            top_y = row_y + index * ROW_HEIGHT
            if index % 2 == 0:
                draw.rectangle((MARGIN * SCALE, top_y * SCALE, (WIDTH - MARGIN) * SCALE,
                                (top_y + ROW_HEIGHT) * SCALE), fill=PANEL)
            middle = top_y + ROW_HEIGHT / 2
            text((MARGIN + 10, middle), f"#{standing.rank}", 13, MUTED, anchor="lm")
            text((MARGIN + 56, middle), fit_text(_name(standing.name), chart_font(14), 300), 14, anchor="lm")
            first, second, third = figures.in_row(standing)
            text((WIDTH - 390, middle), fit_text(first, chart_font(13), 135), 13, anchor="lm")
            text((WIDTH - 250, middle), fit_text(second, chart_font(13), 110), 13, MUTED, anchor="lm")
            text((WIDTH - MARGIN - 10, middle), fit_text(third, chart_font(13), 105), 13, MUTED, anchor="rm")
        y += _board_height(standings)
    return canvas.png()


def stats_card_png(
    title: str,
    subtitle: str,
    columns: Sequence[str],
    figures: Sequence[tuple[str, Sequence[str]]],
    chart_title: str,
    all_time: Sequence[float],
    seasons: Sequence[tuple[str, Sequence[tuple[int, float]]]],
) -> bytes:
    """A player's card: `figures` (a label, and a value per column: a season, all time) beside
    their rating after each game (`all_time[i]` after game i+1) with a line per season (its
    name, and (game number, season rating) pairs), oldest season first."""
    if any(len(values) != len(columns) for _, values in figures):
        raise ValueError(f"every figure needs a value for each of the {len(columns)} columns")
    canvas = _Canvas(CARD_HEIGHT)
    canvas.heading(title, subtitle)
    draw, text = canvas.draw, canvas.text

    # The figures, a column each for a season and all time.
    panel_right = 330
    draw.rounded_rectangle((MARGIN * SCALE, 72 * SCALE, panel_right * SCALE, (CARD_HEIGHT - MARGIN) * SCALE),
                           radius=8 * SCALE, fill=PANEL)
    label_width = 112
    column_width = (panel_right - MARGIN - 16 - label_width) / max(1, len(columns))
    for index, header in enumerate(columns):
        x = MARGIN + 8 + label_width + column_width * (index + 0.5)
        text((x, 88), fit_text(_name(header), chart_font(13, bold=True), column_width - 6), 13, GOLD if index == 0
             and len(columns) > 1 else TEXT, bold=True, anchor="mt")
    for row, (label, values) in enumerate(figures):
        y = 126 + row * 48
        text((MARGIN + 10, y), label, 13, MUTED, anchor="lm")
        for index, value in enumerate(values):
            x = MARGIN + 8 + label_width + column_width * (index + 0.5)
            text((x, y), fit_text(value, chart_font(16, bold=True), column_width - 6), 16, bold=True, anchor="mm")

    # The rating over time.
    left, right, top, bottom = panel_right + 48, WIDTH - MARGIN - 8, 112, CARD_HEIGHT - 80
    text((panel_right + 20, 76), chart_title, 14, bold=True)
    games = len(all_time)
    if games == 0:
        text(((left + right) / 2, (top + bottom) / 2), "No rated games yet", 14, MUTED, anchor="mm")
    else:
        ratings = [*all_time, *(rating for _, points in seasons for _, rating in points)]
        low, high = min(ratings), max(ratings)
        y_step = nice_step(high - low, 5)
        y_low, y_high = math.floor(low / y_step) * y_step, math.ceil(high / y_step) * y_step
        if y_high == y_low:
            y_high += y_step

        def x_of(game: float) -> float:
            return left + (right - left) * (game - 1) / max(games - 1, 1)

        def y_of(rating: float) -> float:
            return bottom - (bottom - top) * (rating - y_low) / (y_high - y_low)

        for tick in range(y_low, y_high + 1, y_step):
            grid_y = round(y_of(tick)) * SCALE
            draw.line([(left * SCALE, grid_y), (right * SCALE, grid_y)], fill=AXIS if tick == 0 else GRID, width=SCALE)
            text((left - 8, round(y_of(tick))), number(tick), 12, MUTED, anchor="rm")
        x_step = nice_step(games, 6)
        for tick in sorted({1, *range(x_step, games + 1, x_step)}):
            text((x_of(tick), bottom + 7), str(tick), 12, MUTED, anchor="mt")
        text(((left + right) / 2, bottom + 26), "game", 12, MUTED, anchor="mt")

        def series(points: Sequence[tuple[float, float]], colour: Colour, width: int) -> None:
            scaled = [(x_of(g) * SCALE, y_of(r) * SCALE) for g, r in points]
            if len(scaled) > 1:
                draw.line(scaled, fill=colour, width=width * SCALE, joint="curve")
            if len(scaled) <= 40 or len(scaled) == 1:
                for x, y in scaled:
                    r = (width + 1) * SCALE
                    draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)

        series([(n + 1, r) for n, r in enumerate(all_time)], EARLIER, 1)
        first_own = max(0, len(seasons) - SEASON_LINES)
        own: list[tuple[str, Colour]] = []
        for index, (name, points) in enumerate(seasons):
            colour = SIDE_COLOURS[(index - first_own) % SEASON_LINES] if index >= first_own else EARLIER
            series(points, colour, 2)
            if index >= first_own:
                own.append((_name(name), colour))
        legend = [("all time", EARLIER), *reversed(own)]  # the latest season first
        if first_own:
            legend.append((f"{first_own} earlier season{'s' if first_own > 1 else ''}", EARLIER))
        x = panel_right + 20
        for label, colour in legend:
            shown = fit_text(label, chart_font(12), 120)
            if x + 22 + chart_font(12).getlength(shown) > WIDTH - MARGIN:
                break  # no room left for the oldest
            draw.line([(x * SCALE, (CARD_HEIGHT - 24) * SCALE), ((x + 16) * SCALE, (CARD_HEIGHT - 24) * SCALE)],
                      fill=colour, width=3 * SCALE)
            text((x + 22, CARD_HEIGHT - 24), shown, 12, MUTED if colour == EARLIER else TEXT, anchor="lm")
            x += 22 + chart_font(12).getlength(shown) + 18
    return canvas.png()
