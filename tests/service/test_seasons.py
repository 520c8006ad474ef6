"""Seasons as admins and the calendar drive them: started, ended by command or on their date (also
one that passed while the bot was down), each podium published once it is saved, and only once
confirmed; a monthly rhythm; boards and stats cards by season."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.engine import Mode
from bot.service import ManualClock, Refusal
from bot.service.seasons import ALL_TIME, Podium, SeasonService, clean_name, month_of, parse_end
from bot.store import Store, open_store
from tests.store.helpers import finished_game, result

GUILD, CHANNEL, PODIUM_CHANNEL, ADMIN = 10, 20, 21, 99
DAY = 24 * 3600.0
ONE = [result(0, "1", 510, 1, name="ann"), result(1, "2", 300, 2, name="bo"), result(2, "3", 90, 3, name="cy")]
TWO = [result(0, "4", 505, 1, name="di"), result(1, "1", 200, 2, name="ann"), result(2, "bot:hard", 9, 3)]


class PodiumRecorder:
    """A listener that remembers each podium and, like the Discord layer, confirms it once out,
    unless `confirm` is off (the process dies before it went out)."""

    def __init__(self, confirm: bool = True) -> None:
        self.podiums: list[Podium] = []
        self.confirm = confirm
        self.service: SeasonService | None = None
        self._confirming: set[asyncio.Task[None]] = set()

    def season_ended(self, podium: Podium) -> None:
        self.podiums.append(podium)
        if self.confirm and self.service is not None:
            task = asyncio.create_task(self.service.delivered(podium.post_id))
            self._confirming.add(task)
            task.add_done_callback(self._confirming.discard)

    async def settle(self) -> None:
        while self._confirming:
            await asyncio.gather(*self._confirming)


class Bot:
    """The season service on a SQLite file, booted and stopped like the bot, on a clock moved by hand
    that starts at the wall clock's time (the store stamps finished games with the wall clock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.clock = ManualClock(start=time.time())
        self.store: Store | None = None
        self.service: SeasonService | None = None
        self.recorder = PodiumRecorder()

    async def boot(self, confirm: bool = True) -> SeasonService:
        self.store = await open_store(f"sqlite:///{self.path}")
        self.recorder = PodiumRecorder(confirm)
        self.service = SeasonService(self.store, self.recorder, clock=self.clock)
        self.recorder.service = self.service
        await self.service.recover()
        await self.recorder.settle()
        return self.service

    async def stop(self) -> None:
        await self.recorder.settle()
        if self.service is not None:
            await self.service.close()
        if self.store is not None:
            await self.store.close()
        self.service = self.store = None

    async def advance(self, seconds: float) -> None:
        await self.clock.advance(seconds)
        await self.recorder.settle()


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[Bot]:
    world = Bot(tmp_path / "spades.db")
    yield world
    await world.stop()


def day_after(now: float, days: int) -> str:
    return (datetime.fromtimestamp(now, tz=UTC) + timedelta(days=days)).strftime("%Y-%m-%d")


def test_what_people_type_for_an_end_and_a_name() -> None:
    now = datetime(2026, 11, 14, 12, tzinfo=UTC).timestamp()
    assert parse_end("2026-11-30", now) == datetime(2026, 12, 1, tzinfo=UTC).timestamp()  # as the day ends
    assert parse_end(" 2026-11-30 18:05 UTC", now) == datetime(2026, 11, 30, 18, 5, tzinfo=UTC).timestamp()
    assert parse_end("2026-11-14T12:00:30Z", now) == now + 30
    for typed, said in (("2026-11-13", "has passed"), ("2026-11-14 12:00", "has passed"),
                        ("next friday", "isn't a date"), ("2026-02-30", "isn't a date")):
        with pytest.raises(Refusal, match=said):
            parse_end(typed, now)
    assert clean_name("  Spring \n 2026 ") == "Spring 2026"
    for typed, said in (("", "needs a name"), ("x" * 41, "up to 40"), ("All  Time", "whole leaderboard")):
        with pytest.raises(Refusal, match=said):
            clean_name(typed)
    assert month_of(datetime(2026, 12, 31, 23, 59, tzinfo=UTC).timestamp()) == (
        "2026-12", datetime(2026, 12, 1, tzinfo=UTC).timestamp(), datetime(2027, 1, 1, tzinfo=UTC).timestamp())


async def test_a_season_ends_on_its_date_and_its_podium_is_published_once(bot: Bot) -> None:
    service = await bot.boot()
    season = await service.start(GUILD, PODIUM_CHANNEL, ADMIN, "Spring", end=day_after(bot.clock.now(), 2))
    assert bot.store is not None
    await finished_game(bot.store, "g1", "cutthroat", ONE, guild_id=GUILD)
    await bot.advance(DAY)
    assert bot.recorder.podiums == [] and (await service.running(GUILD)) == season

    await bot.advance(2 * DAY)  # past the end
    [podium] = bot.recorder.podiums
    assert podium.season.name == "Spring" and podium.season.channel_id == PODIUM_CHANNEL
    assert podium.season.ended_at == season.ends_at  # ended as of its date
    [(mode, board)] = podium.boards
    assert mode is Mode.CUTTHROAT and [e.name for e in board] == ["ann", "bo", "cy"]
    assert await service.running(GUILD) is None
    await bot.advance(40 * DAY)
    assert len(bot.recorder.podiums) == 1
    assert bot.store is not None and await bot.store.pending_season_posts() == []


async def test_an_end_that_passes_while_the_bot_is_down_is_posted_at_start_up_once(bot: Bot) -> None:
    service = await bot.boot()
    await service.start(GUILD, PODIUM_CHANNEL, ADMIN, "Spring", end=day_after(bot.clock.now(), 1))
    await bot.stop()
    await bot.clock.advance(3 * DAY)  # nobody is running to notice

    await bot.boot(confirm=False)  # published, then the process dies before it went out
    assert [p.season.name for p in bot.recorder.podiums] == ["Spring"]
    await bot.stop()
    await bot.boot()  # still owed: published again, and confirmed this time
    assert [p.season.name for p in bot.recorder.podiums] == ["Spring"]
    await bot.stop()
    await bot.boot()
    assert bot.recorder.podiums == []


async def test_admins_start_and_end_seasons_with_plain_refusals(bot: Bot) -> None:
    service = await bot.boot()
    with pytest.raises(Refusal, match="No season is running"):
        await service.end(GUILD)
    with pytest.raises(Refusal, match="isn't a date"):
        await service.start(GUILD, CHANNEL, ADMIN, "Spring", end="soon")
    assert await service.seasons(GUILD) == []  # a refusal changes nothing
    await service.start(GUILD, CHANNEL, ADMIN, "Spring")
    with pytest.raises(Refusal, match="Season “Spring” is running: end it first"):
        await service.start(GUILD, CHANNEL, ADMIN, "Summer")
    ended = await service.end(GUILD)
    assert not ended.running and [p.season.name for p in bot.recorder.podiums] == ["Spring"]
    assert bot.recorder.podiums[0].boards == ()  # nobody played: the podium says so
    with pytest.raises(Refusal, match="already had a season named “SPRING”"):
        await service.start(GUILD, CHANNEL, ADMIN, "SPRING")
    await service.start(GUILD, CHANNEL, ADMIN, "Summer")
    assert [(s.name, s.running, s.started_by) for s in await service.seasons(GUILD)] == [
        ("Summer", True, ADMIN), ("Spring", False, ADMIN)]


async def test_a_monthly_rhythm_starts_a_season_each_month(bot: Bot) -> None:
    service = await bot.boot()
    name, _, month_end = month_of(bot.clock.now())
    await service.set_rhythm(GUILD, "monthly", CHANNEL)
    running = await service.running(GUILD)
    assert running is not None and (running.name, running.ends_at, running.rhythm) == (name, month_end, "monthly")
    assert await service.rhythm(GUILD) == "monthly"

    await bot.advance(month_end - bot.clock.now())
    next_name, _, next_end = month_of(month_end)
    assert [p.season.name for p in bot.recorder.podiums] == [name]
    running = await service.running(GUILD)
    assert running is not None and (running.name, running.ends_at) == (next_name, next_end)

    await service.end(GUILD)  # ended early: the next one starts with the next month
    assert await service.running(GUILD) is None
    await bot.advance(next_end - bot.clock.now() - 1)
    assert await service.running(GUILD) is None
    await bot.advance(1)
    running = await service.running(GUILD)
    assert running is not None and running.name == month_of(next_end)[0]

    await service.set_rhythm(GUILD, "off", CHANNEL)  # the running season goes on to its end
    await bot.advance(month_of(next_end)[2] - bot.clock.now())
    assert await service.running(GUILD) is None and await service.rhythm(GUILD) is None
    with pytest.raises(Refusal, match="one of off, monthly"):
        await service.set_rhythm(GUILD, "weekly", CHANNEL)


async def test_boards_and_cards_by_season_and_all_time(bot: Bot) -> None:
    service = await bot.boot()
    assert bot.store is not None
    await service.start(GUILD, CHANNEL, ADMIN, "Spring")
    await finished_game(bot.store, "g1", "cutthroat", ONE, guild_id=GUILD)
    await service.end(GUILD)
    await service.start(GUILD, CHANNEL, ADMIN, "Summer")
    await finished_game(bot.store, "g2", "cutthroat", TWO, guild_id=GUILD)

    summer, entries = await service.leaderboard(GUILD, "cutthroat", "rating")
    assert summer is not None and summer.name == "Summer" and [e.name for e in entries] == ["di", "ann"]
    _, spring = await service.leaderboard(GUILD, "cutthroat", "rating", " spring ")
    assert [e.name for e in spring] == ["ann", "bo", "cy"]
    picked, everyone = await service.leaderboard(GUILD, "cutthroat", "wins", "All time")
    assert picked is None and {e.name for e in everyone} == {"ann", "bo", "cy", "di"}
    with pytest.raises(Refusal, match="no season “Winter”"):
        await service.leaderboard(GUILD, "cutthroat", "rating", "Winter")
    assert await service.choices(GUILD, "") == [ALL_TIME, "Summer", "Spring"]
    assert await service.choices(GUILD, "SU") == ["Summer"]

    card = await service.card(GUILD, 1)
    assert card.season is not None and card.season.name == "Summer"
    assert card.in_season is not None and (card.in_season.games, card.all_time.games) == (1, 2)
    assert card.mode is Mode.CUTTHROAT and [p.game_id for p in card.history] == ["g1", "g2"]
    assert [card.season_names[p.season_id] for p in card.history if p.season_id] == ["Spring", "Summer"]
    spring_card = await service.card(GUILD, 4, "Spring")
    assert spring_card.in_season is not None and spring_card.in_season.games == 0
    await service.end(GUILD)
    assert (await service.card(GUILD, 1)).season is None  # none running: all time alone
    nobody = await service.card(GUILD, 12345)
    assert nobody.mode is None and nobody.history == ()
