"""What a hostile player types gets a refusal in words: a season ending in the year 9999, a name
made of nothing visible, a partner or replacement who already plays (named, never by their id)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.engine.names import named
from bot.engine.tournaments.tournament import Stage
from bot.service import Refusal
from bot.service.seasons import clean_name, parse_end
from tests.service.tournament_harness import PLAYERS, Harness, harness

__all__ = ["harness"]  # the fixture, used by name


def test_an_end_too_far_away_or_past_the_calendar_is_refused_in_words() -> None:
    now = datetime(2026, 11, 14, 12, tzinfo=UTC).timestamp()
    for typed in ("9999-12-31", "9999-12-31 23:59", "2040-01-01"):
        with pytest.raises(Refusal, match="is more than 10 years away"):
            parse_end(typed, now)
    assert parse_end("2030-06-30", now) == datetime(2030, 7, 1, tzinfo=UTC).timestamp()


@pytest.mark.parametrize("typed", ["\u200b", "\u200b \u2060\ufeff", "\u3164", "\u2800\u200d", "\u0301"])
def test_a_season_name_of_nothing_visible_is_refused(typed: str) -> None:
    with pytest.raises(Refusal, match="name people can see"):
        clean_name(typed)


async def test_a_partner_or_replacement_who_already_plays_is_named_not_numbered(harness: Harness) -> None:
    service = await harness.boot()
    live = await harness.open(mode="partners", players=(101, 102, 103, 104))
    with pytest.raises(Refusal) as refused:
        await service.join(live, 105, PLAYERS[105], (102, PLAYERS[102]))
    assert str(refused.value) == f"{named('ben')} is already in this tournament."
    await service.start(live)
    await harness.play(live)
    assert live.engine.stage is Stage.BETWEEN
    with pytest.raises(Refusal) as refused:
        await service.replace(live, 101, 103, PLAYERS[103])
    assert str(refused.value) == f"{named('cat')} is already in this tournament."
    assert "103" not in str(refused.value)
