"""What seasons look like: the podium post and its picture, the stats card, and the words for dates."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from PIL import Image

from bot.discord_ui.pictures.chart import GOLD, SIDE_COLOURS
from bot.discord_ui.pictures.podium import BRONZE, CARD_HEIGHT, SILVER, WIDTH, Standing, podium_png, stats_card_png
from bot.discord_ui.seasons.render import card_picture, list_text, podium_text, span, started_text, until
from bot.engine import Mode
from bot.service.seasons import PlayerCard, Podium
from bot.store import LeaderboardEntry, PlayerStats, RatingPoint, Season

NOV_1 = datetime(2026, 11, 1, tzinfo=UTC).timestamp()
DEC_1 = datetime(2026, 12, 1, tzinfo=UTC).timestamp()


def season(name: str = "Spring", *, ends_at: float | None = DEC_1, ended_at: float | None = None) -> Season:
    return Season(7, 1, name, 55, 9, None, NOV_1, ends_at, ended_at)


def entry(rank: int, name: str) -> LeaderboardEntry:
    return LeaderboardEntry(rank=rank, user_id=rank, name=name, games=4, wins=4 - rank % 4, win_rate=0.5,
                            points=1000 - 100 * rank, average_score=100.0, rating=20.0 - rank, mu=25.0, sigma=2.0)


def stats(games: int) -> PlayerStats:
    return PlayerStats(guild_id=1, user_id=1, mode=None, games=games, wins=games // 2, win_rate=0.5,
                       average_score=120.0, bids_made=3 * games, bids_total=4 * games, nils_made=1, nils_tried=2,
                       hands=10 * games, bags=7 * games, bags_per_hand=0.7, ratings=())


def opened(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image.convert("RGB")


def share(image: Image.Image, colour: tuple[int, int, int], tolerance: int = 20) -> float:
    counts = image.getcolors(image.width * image.height)
    assert counts is not None
    near = sum(n for n, rgb in counts
               if isinstance(rgb, tuple) and max(abs(a - b) for a, b in zip(rgb, colour, strict=True)) <= tolerance)
    return near / (image.width * image.height)


def test_ends_are_said_as_people_say_them() -> None:
    assert until(DEC_1) == "at the end of 2026-11-30 (UTC)"
    assert until(DEC_1 + 18 * 3600 + 5 * 60) == "2026-12-01 18:05 UTC"
    assert span(season()) == "since 2026-11-01, ending at the end of 2026-11-30 (UTC)"
    assert span(season(ends_at=None)) == "since 2026-11-01, until an admin ends it"
    assert span(season(ended_at=DEC_1)) == "2026-11-01 to 2026-11-30"
    assert "It ends at the end of 2026-11-30 (UTC)." in started_text(season()) and "<#55>" in started_text(season())
    assert "until someone with Manage Server" in started_text(season(ends_at=None))


def test_the_podium_post_names_three_per_mode_and_escapes_markdown() -> None:
    boards = ((Mode.CUTTHROAT, tuple(entry(n, f"p{n}") for n in range(1, 11))), (Mode.SOLO, (entry(1, "a_b*"),)))
    text = podium_text(Podium(season("Spring *2026*", ended_at=DEC_1), boards, 3))
    lines = text.splitlines()
    assert lines[0] == "## 🏆 Season “Spring \\*2026\\*” is over" and lines[1] == "2026-11-01 to 2026-11-30"
    assert lines[2:6] == ["**Cutthroat**", "🥇 **p1** — rating 19.0 · 3 of 4\u00a0games won · 900\u00a0points",
                          "🥈 **p2** — rating 18.0 · 2 of 4\u00a0games won · 800\u00a0points",
                          "🥉 **p3** — rating 17.0 · 1 of 4\u00a0games won · 700\u00a0points"]
    assert lines[6:8] == ["**Solo**", "🥇 **a\\_b\\*** — rating 19.0 · 3 of 4\u00a0games won · 900\u00a0points"]
    empty = podium_text(Podium(season(ended_at=DEC_1), (), 3))
    assert "nobody is on its podium" in empty and "picture" not in empty


def test_the_podium_picture_grows_with_its_boards_and_shows_the_three_steps() -> None:
    ten = [Standing(n, f"player {n}", f"{20 - n}.0", 3, 4, 100 * n) for n in range(1, 11)]
    one = opened(podium_png("Season", "dates", [("Cutthroat", ten)]))
    two = opened(podium_png("Season", "dates", [("Cutthroat", ten), ("Solo", ten[:2])]))
    assert one.width == two.width == WIDTH and two.height > one.height
    for colour in (GOLD, SILVER, BRONZE):
        assert share(one, colour) > 0.02, colour  # each step is a sizeable block of its colour
    assert share(two, BRONZE) < share(one, BRONZE)  # the second board has no third step
    with pytest.raises(ValueError, match="someone on it"):
        podium_png("Season", "dates", [("Solo", [])])


def card(history: list[RatingPoint], names: dict[int, str], *, in_season: PlayerStats | None) -> PlayerCard:
    return PlayerCard(stats(len(history)), season() if in_season is not None else None, in_season,
                      Mode.CUTTHROAT if history else None, tuple(history), names)


def test_the_stats_card_draws_a_line_per_season_over_all_time() -> None:
    history = [RatingPoint(f"g{n}", "cutthroat", float(n), float(n % 3), (n // 4 + 1) if n >= 2 else None,
                           float(-n) if n >= 2 else None) for n in range(12)]  # seasons 1 and 2, then 3
    names = {1: "Winter", 2: "Spring", 3: "Summer"}
    image = opened(card_picture("Alice", "Spades Club", card(history, names, in_season=stats(3))))
    assert image.size == (WIDTH, CARD_HEIGHT)
    for colour in SIDE_COLOURS[:3]:
        assert share(image, colour, 30) > 0.0002, colour  # a line (and legend swatch) per season
    assert share(image, SIDE_COLOURS[3], 30) < 0.0001  # and no more

    many = {n: f"season {n}" for n in range(1, 9)}
    crowded = [RatingPoint(f"g{n}", "cutthroat", float(n), 1.0, n + 1, float(n)) for n in range(8)]
    assert opened(card_picture("Bo", "Club", card(crowded, many, in_season=None))).size == (WIDTH, CARD_HEIGHT)
    assert opened(card_picture("Cy", "Club", card([], {}, in_season=None))).size == (WIDTH, CARD_HEIGHT)
    with pytest.raises(ValueError, match="each of the 2 columns"):
        stats_card_png("x", "y", ["a", "b"], [("Games", ["1"])], "chart", [], [])


def test_the_season_list_shows_the_running_one_and_the_rhythm() -> None:
    text = list_text([season("Summer"), season("Spring", ended_at=NOV_1 + 86400)], "monthly")
    assert "• “Summer” — **running**, since 2026-11-01" in text and "• “Spring” — 2026-11-01 to 2026-11-01" in text
    assert "every calendar month" in text
    assert "None yet" in list_text([], None)
