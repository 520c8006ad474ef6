"""The tournament's podium picture names its own numbers: tournament points, tables won and game
points, not a season's rating and games won."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from bot.discord_ui.pictures import podium
from bot.discord_ui.pictures.chart import has_glyph
from bot.discord_ui.tournaments.render import podium_picture, points_text
from bot.engine import Mode
from bot.engine.tournaments.swiss import TableResult
from bot.engine.tournaments.tournament import Tournament
from bot.service.tournaments import LiveTournament
from bot.store import TournamentInfo


def finished(names: list[str]) -> LiveTournament:
    """Two rounds of cutthroat: a table of three, then the same three again."""
    engine = Tournament.new("t1", Mode.CUTTHROAT, rounds=2, seed=4)
    for index, name in enumerate(names):
        engine.join(str(index), name, (str(index),))
    for scores in ((120, 80, 80), (60, 140, 20)):
        engine.seat()
        seats = engine.played[-1].tables[0].seats
        by_seat = tuple(scores[int(s)] if s is not None else 0 for s in seats)
        places = tuple(1 + sum(o > v for o in by_seat) for v in by_seat)
        engine.record(0, TableResult(by_seat, places))
    info = TournamentInfo("t1", 1, 2, 3, {}, None, None, "over", 0.0)
    return LiveTournament(info, engine, "normal", None, None)


def test_the_podium_picture_shows_tournament_points_and_tables_won(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    original = podium._Canvas.text

    def spy(self: Any, at: tuple[float, float], what: str, size: int, *args: Any, **kwargs: Any) -> None:
        drawn.append(what)
        original(self, at, what, size, *args, **kwargs)

    monkeypatch.setattr(podium._Canvas, "text", spy)
    png = podium_picture(finished(["ann", "ben", "cat"]))
    assert png is not None and png.startswith(b"\x89PNG")
    # ann: first, then second (3 + 1); ben: tied second, then first (½ + 3); cat: tied second, then last
    steps = [text for text in drawn if text.endswith("tables won")]
    assert steps == ["4 pts · 1/2 tables won", "3½ pts · 1/2 tables won", "½ pts · 0/2 tables won"]
    assert not any("rating" in text or (text.endswith(" won") and "tables" not in text) for text in drawn)


def test_points_are_written_with_fractions_the_picture_can_draw() -> None:
    assert [points_text(Fraction(n, 6)) for n in (12, 9, 8, 2)] == ["2", "1½", "1⅓", "⅓"]
    assert [points_text(Fraction(n, 6), has_glyph) for n in (9, 8, 2)] == ["1½", "1 1/3", "1/3"]
