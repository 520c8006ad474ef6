"""The game-over score chart: a small PNG of the right size for every mode and length of game, whatever
the names, that shows each side, the lines it is asked for, and the winner."""

from __future__ import annotations

import io
import itertools
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw, ImageFont

from bot.discord_ui.pictures import chart as chart_module
from bot.discord_ui.pictures.chart import (
    BACKGROUND,
    GOLD,
    HEIGHT,
    MERCY,
    SHOWN_WIDTH,
    SIDE_COLOURS,
    WIDTH,
    chart_font,
    draw_text,
    fit_text,
    printable_text,
    score_chart_png,
)


def running_scores(sides: int, hands: int, seed: int, low: int = -120, high: int = 130) -> list[list[int]]:
    """Scores after each hand, moving by whole tens with a few bags, as Spades scores do."""
    rng = random.Random(seed)
    totals = [0] * sides
    rows = []
    for _ in range(hands):
        totals = [t + rng.randrange(low, high, 10) + rng.randrange(3) for t in totals]
        rows.append(list(totals))
    return rows


def opened(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    assert image.size == (WIDTH, HEIGHT)
    image.load()
    return image


def pixels_near(image: Image.Image, colour: tuple[int, int, int], tolerance: int = 24) -> int:
    counts = image.convert("RGB").getcolors(WIDTH * HEIGHT)
    assert counts is not None
    return sum(n for n, rgb in counts
               if isinstance(rgb, tuple) and max(abs(a - b) for a, b in zip(rgb, colour, strict=True)) <= tolerance)


GAMES = {
    "cutthroat": (["Alice", "Bob", "Carol"], 300),
    "solo": (["Alice", "Bob", "Carol", "Dave"], 500),
    "partners": (["Alice & Carol", "Bob & Dave"], 500),
    "duo": (["Alice", "Bob"], 300),
    "five": (["Alice", "Bob", "Carol", "Dave", "Erin"], 300),
    "six": (["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"], 300),  # six played each for themselves
}


@pytest.mark.parametrize("mode", GAMES)
def test_each_mode_gives_a_small_png_with_a_colour_for_each_side(mode):
    names, target = GAMES[mode]
    png = score_chart_png(names, running_scores(len(names), 12, seed=7), target, title=f"{mode} game",
                          winners=[0])
    image = opened(png)
    assert len(png) < 60_000
    for side in range(len(names)):
        assert pixels_near(image, SIDE_COLOURS[side]) > 200, f"side {side} is not drawn"
    for unused in SIDE_COLOURS[len(names):]:
        assert pixels_near(image, unused, tolerance=10) == 0


def test_lines_are_smooth_each_side_blends_into_the_background_along_its_edges():
    image = opened(score_chart_png(["Alice", "Bob", "Carol"], running_scores(3, 12, seed=7), 300, winners=[0]))
    for colour in SIDE_COLOURS[:3]:
        half = ((colour[0] + BACKGROUND[0]) // 2, (colour[1] + BACKGROUND[1]) // 2, (colour[2] + BACKGROUND[2]) // 2)
        assert pixels_near(image, half, tolerance=8) > 100, f"{colour} has jagged edges"


@pytest.mark.parametrize("anchor", ["la", "lm", "rm", "mt", "mb", "lb", "lt"])
def test_text_kept_from_an_earlier_chart_is_drawn_exactly_as_pillow_draws_it(anchor):
    font = chart_font(19, bold=True)
    for text, xy in itertools.product(["Ågjy ★", "−120 mercy"], [(200.0, 100.0), (200.37, 100.81), (201.9, 99.5)]):
        expected = Image.new("RGB", (400, 200), BACKGROUND)
        ImageDraw.Draw(expected).text(xy, text, font=font, fill=GOLD, anchor=anchor)
        for _ in range(2):  # drawn, then kept
            image = Image.new("RGB", (400, 200), BACKGROUND)
            draw_text(image, xy, text, font, GOLD, anchor)
            assert image.tobytes() == expected.tobytes(), f"{text!r} at {xy} is not drawn as Pillow draws it"


@pytest.mark.parametrize("hands", [0, 1, 150])
def test_any_length_of_game_fits_the_same_picture(hands):
    png = score_chart_png(["Alice", "Bob", "Carol"], running_scores(3, hands, seed=hands), 500, winners=[2])
    opened(png)
    assert len(png) < 60_000


def test_the_winner_is_marked_and_the_mercy_line_is_drawn_only_when_asked():
    scores = running_scores(2, 20, seed=3, low=-150, high=40)  # mostly falling: deep negative scores
    assert min(min(row) for row in scores) < -500
    plain = opened(score_chart_png(["Alice", "Bob"], scores, 200))
    marked = opened(score_chart_png(["Alice", "Bob"], scores, 200, winners=[1], mercy=200))
    assert pixels_near(plain, GOLD, tolerance=12) == 0
    assert pixels_near(marked, GOLD, tolerance=12) > 30
    assert pixels_near(plain, MERCY, tolerance=12) == 0
    assert pixels_near(marked, MERCY, tolerance=12) > 200


def test_the_same_game_gives_the_same_bytes_and_another_game_does_not():
    scores = running_scores(4, 30, seed=11)
    first = score_chart_png(["A", "B", "C", "D"], scores, 500, title="t", winners=[0], mercy=300)
    again = score_chart_png(["A", "B", "C", "D"], [list(row) for row in scores], 500, title="t", winners=[0],
                            mercy=300)
    assert first == again
    scores[-1][0] += 50
    assert score_chart_png(["A", "B", "C", "D"], scores, 500, title="t", winners=[0], mercy=300) != first


def test_long_and_exotic_names_are_shortened_and_never_drawn_as_boxes():
    names = ["Bartholomew the Magnificent, Destroyer of Trumps", "李小龍", "🔥🔥🔥", "Zoë\nÅsa\u200d"]
    opened(score_chart_png(names, running_scores(4, 8, seed=5), 300, title="🏆 " + "very long title " * 10))
    font = chart_font(14)
    short = fit_text(names[0], font, 150)
    assert short.endswith("…") and names[0].startswith(short[:-1])
    assert font.getlength(short) <= 150
    assert fit_text("Bob", font, 150) == "Bob"
    assert printable_text("José Дмитрий Ωmega") == "José Дмитрий Ωmega"
    assert printable_text("李小龍 Bruce") == "??? Bruce"
    assert printable_text("🔥Blaze🔥") == "Blaze"
    assert printable_text("Zoë\nÅsa\u200d") == "Zoë Åsa"
    assert printable_text("\u01fb") == "a"  # an accented letter the font lacks keeps its letter


def test_text_reads_at_the_size_discord_shows_the_chart_and_negatives_have_a_real_minus(monkeypatch):
    drawn: list[tuple[str, float]] = []
    draw_text = chart_module.draw_text

    def spy(image: Image.Image, xy: Any, text: str, font: ImageFont.FreeTypeFont, *args: Any, **kwargs: Any) -> None:
        drawn.append((text, font.size))
        draw_text(image, xy, text, font, *args, **kwargs)

    monkeypatch.setattr(chart_module, "draw_text", spy)
    score_chart_png(["Alice", "Bob"], [[-40, 60], [-130, 120]], 200, title="Solo", winners=[1], mercy=150)
    texts = {text for text, _ in drawn}
    assert {"−100", "−130", "mercy −150", "target 200", "Solo"} <= texts
    assert not [text for text in texts if re.search(r"-\d", text)]
    assert min(size for _, size in drawn) * SHOWN_WIDTH / WIDTH >= 11  # px, as a channel shows it


@pytest.mark.parametrize(("names", "scores", "winners", "message"), [
    (["A", "B", "C", "D", "E", "F", "G"], [], (), "1 to 6 sides"),
    ([], [], (), "1 to 6 sides"),
    (["A", "B"], [[10, 20], [30]], (), "each of the 2 sides"),
    (["A", "B"], [[10, 20]], (2,), "from 0 to 1"),
])
def test_bad_input_is_refused_with_a_clear_message(names, scores, winners, message):
    with pytest.raises(ValueError, match=message):
        score_chart_png(names, scores, 500, winners=winners)


@st.composite
def charts(draw):
    sides = draw(st.integers(1, len(SIDE_COLOURS)))
    hands = draw(st.integers(0, 160))
    names = draw(st.lists(st.text(max_size=60), min_size=sides, max_size=sides))
    scores = draw(st.lists(st.lists(st.integers(-100_000, 100_000), min_size=sides, max_size=sides),
                           min_size=hands, max_size=hands))
    winners = draw(st.lists(st.integers(0, sides - 1), max_size=sides, unique=True))
    return names, scores, draw(st.integers(1, 10_000)), {
        "title": draw(st.text(max_size=120)), "winners": winners, "mercy": draw(st.none() | st.integers(1, 5000))}


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(charts())
def test_any_valid_game_draws_without_error(chart):
    names, scores, target, options = chart
    opened(score_chart_png(names, scores, target, **options))
