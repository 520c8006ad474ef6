"""Seasons of a server's leaderboard: started and ended by its admins or by a monthly rhythm, ended
on their date by a timer, their podiums owed through the store's outbox. No discord imports.

Nothing is acted on before it is saved: a season starts once its row is stored; its end and the
podium it owes are one transaction, and the podium is published from the outbox (at start-up too)
until the listener confirms it. The timer is worked out from the store each time it is armed, so
an end that passed while the bot was down is simply due at start-up: it ends as of its planned
date, and its podium is posted once. With shards, a process handles the seasons of its servers.

Ratings in a season start fresh at openskill's defaults (see `bot.store.seasons`); all time goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from bot.engine import Mode
from bot.service.clock import Clock, SystemClock
from bot.service.errors import Refusal
from bot.store import (
    LeaderboardEntry,
    LeaderboardSort,
    PlayerStats,
    Post,
    RatingPoint,
    Season,
    SeasonConflictError,
    SeasonRhythm,
    ShardSet,
    Store,
    StoreError,
)

log = logging.getLogger(__name__)

ALL_TIME = "all time"  # what the leaderboard's and stats' season option says for all time
RHYTHMS: tuple[SeasonRhythm, ...] = ("monthly",)
PODIUM = "season_podium"  # the outbox post a season's end owes
PODIUM_PLACES = 10  # the final board drawn with the podium
NAME_LIMIT = 40
RECHECK = 3600.0  # the timer looks at the store at least this often, whatever it expects
RETRY = 60.0  # after the store failed
LONGEST_SEASON = timedelta(days=10 * 366)  # an end further off is a typo, and far years don't fit a date
# Characters that draw nothing: format controls (zero-width spaces, joiners, direction marks), spaces,
# combining marks alone, and the blank letters (Hangul fillers, the blank Braille pattern).
_INVISIBLE_CATEGORIES = ("Cf", "Cc", "Zs", "Zl", "Zp", "Mn", "Me")
_BLANK_LETTERS = frozenset(map(chr, (0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800)))
_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_DATE_TIME = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})[ t](\d{1,2}):(\d{2})(?::(\d{2}))?")


class SeasonListener(Protocol):
    """Publishes a season's podium; calls `SeasonService.delivered(podium.post_id)` once it is out.
    Must not block."""

    def season_ended(self, podium: Podium) -> None: ...


@dataclass(frozen=True, slots=True)
class Podium:
    """An ended season's final boards, one per mode played in it: the top `PODIUM_PLACES` by rating."""

    season: Season
    boards: tuple[tuple[Mode, tuple[LeaderboardEntry, ...]], ...]
    post_id: int


@dataclass(frozen=True, slots=True)
class PlayerCard:
    """A player's record for `/spades stats`: all time, one season beside it (None if no season was
    asked for and none runs), and the ratings after each game in their most played mode."""

    all_time: PlayerStats
    season: Season | None
    in_season: PlayerStats | None
    mode: Mode | None  # their most played mode, the one `history` follows; None before any game
    history: tuple[RatingPoint, ...]
    season_names: dict[int, str]  # every season of the server, by id


def month_of(now: float) -> tuple[str, float, float]:
    """The calendar month (UTC) holding `now`: its season's name ("2026-11"), start and end."""
    at = datetime.fromtimestamp(now, tz=UTC)
    start = datetime(at.year, at.month, 1, tzinfo=UTC)
    end = datetime(at.year + at.month // 12, at.month % 12 + 1, 1, tzinfo=UTC)
    return f"{at.year:04d}-{at.month:02d}", start.timestamp(), end.timestamp()


def parse_end(text: str, now: float) -> float:
    """A season's end as typed, in UTC: `2026-12-31` (the season ends as that day ends) or
    `2026-12-31 18:00` (or with seconds, or a `T`); it must be in the future."""
    cleaned = " ".join(text.strip().lower().removesuffix("utc").removesuffix("z").split())
    try:
        if match := _DATE_TIME.fullmatch(cleaned):
            year, month, day, hour, minute, second = (int(part or 0) for part in match.groups())
            end = datetime(year, month, day, hour, minute, second, tzinfo=UTC).timestamp()
        elif match := _DATE.fullmatch(cleaned):
            year, month, day = (int(part) for part in match.groups())
            end = datetime(year, month, day, tzinfo=UTC).timestamp() + timedelta(days=1).total_seconds()
        else:
            raise ValueError("not a date")
    except ValueError:
        raise Refusal(f"“{text.strip()}” isn't a date: write it like 2026-12-31, or 2026-12-31 18:00 (UTC).") from None
    if end <= now:
        raise Refusal(f"“{text.strip()}” has passed already: a season's end must be in the future.")
    if end > now + LONGEST_SEASON.total_seconds():
        raise Refusal(f"“{text.strip()}” is more than {LONGEST_SEASON.days // 366} years away: pick a nearer end, "
                      "or leave `end` out and end the season with `/spades season end`.")
    return end


def clean_name(text: str) -> str:
    """A season's name as typed, on one line, checked."""
    name = " ".join(text.split())
    if all(unicodedata.category(c) in _INVISIBLE_CATEGORIES or c in _BLANK_LETTERS for c in name):
        raise Refusal("A season needs a name people can see, like “Spring 2026”.")
    if len(name) > NAME_LIMIT:
        raise Refusal(f"A season's name can be up to {NAME_LIMIT} characters long.")
    if name.lower() == ALL_TIME:
        raise Refusal(f"“{ALL_TIME}” means the whole leaderboard: give the season another name.")
    return name


class SeasonService:
    def __init__(self, store: Store, listener: SeasonListener, *, clock: Clock | None = None,
                 shards: ShardSet | None = None) -> None:
        self.store = store
        self._listener = listener
        self._clock = clock or SystemClock()
        self._shards = shards  # the servers this process serves (None: all)
        self._lock = asyncio.Lock()  # one catch-up or admin change at a time
        self._timer: asyncio.Task[None] | None = None
        self._in_flight: set[int] = set()  # podium posts handed to the listener, not yet confirmed

    # ------------------------------------------------------------------ start-up and shutdown
    async def recover(self) -> None:
        """Post the podiums still owed, end the seasons whose date passed while the bot was down
        (their podiums follow), start the seasons rhythms owe, and set the timer."""
        await self._catch_up()

    async def close(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer

    async def delivered(self, post_id: int) -> None:
        """The listener posted a podium: it won't be posted again after a restart."""
        try:
            await self.store.posts_delivered([post_id])
        except StoreError:
            log.warning("podium post %s went out but couldn't be marked; it may be repeated after a restart",
                        post_id, exc_info=True)
        self._in_flight.discard(post_id)

    # ------------------------------------------------------------------ what admins do
    async def start(self, guild_id: int, channel_id: int, user_id: int, name: str, end: str | None = None,
                    ) -> Season:
        """Start a season now, its podium to be posted in `channel_id`."""
        name = clean_name(name)
        now = self._clock.now()
        ends_at = parse_end(end, now) if end else None
        async with self._lock:
            try:
                season = await self.store.start_season(guild_id, name, channel_id=channel_id, started_at=now,
                                                       ends_at=ends_at, started_by=user_id)
            except SeasonConflictError:
                raise await self._conflict(guild_id, name) from None
        await self._catch_up()  # the timer may be due sooner now
        return season

    async def _conflict(self, guild_id: int, name: str) -> Refusal:
        running = await self.running(guild_id)
        if running is not None:
            return Refusal(f"Season “{running.name}” is running: end it first with `/spades season end`.")
        return Refusal(f"This server already had a season named “{name}”: give the new one another name.")

    async def end(self, guild_id: int) -> Season:
        """End the running season now; its podium is posted where it was asked for."""
        async with self._lock:
            running = await self.running(guild_id)
            if running is None:
                raise Refusal("No season is running. Start one with `/spades season start`.")
            ended = await self.store.end_season(running.season_id, self._clock.now(), [Post(PODIUM, {})])
        await self._catch_up()
        return ended or running

    async def set_rhythm(self, guild_id: int, rhythm: str, channel_id: int) -> None:
        """`monthly`: a season every calendar month (UTC), named like 2026-11, the first one now
        unless a season runs; podiums in `channel_id`. `off`: no more new ones (a running one goes on)."""
        if rhythm != "off" and rhythm not in RHYTHMS:
            raise Refusal(f"A season rhythm is one of off, {', '.join(RHYTHMS)}, not “{rhythm}”.")
        async with self._lock:
            await self.store.set_season_rhythm(guild_id, None if rhythm == "off" else "monthly", channel_id)
        await self._catch_up()

    # ------------------------------------------------------------------ reading
    async def seasons(self, guild_id: int) -> list[Season]:
        """The server's seasons, newest first."""
        return await self.store.seasons(guild_id)

    async def running(self, guild_id: int) -> Season | None:
        return next((s for s in await self.store.seasons(guild_id) if s.running), None)

    async def rhythm(self, guild_id: int) -> SeasonRhythm | None:
        return await self.store.season_rhythm(guild_id)

    async def choices(self, guild_id: int, typed: str) -> list[str]:
        """What the season option offers while `typed` is typed: all time, then seasons, newest first."""
        wanted = " ".join(typed.lower().split())
        names = [ALL_TIME, *(s.name for s in await self.store.seasons(guild_id))]
        return [name for name in names if wanted in name.lower()][:25]

    async def pick(self, guild_id: int, season: str | None) -> Season | None:
        """The season an option names (None for all time); unnamed, the running season, if any."""
        seasons = await self.store.seasons(guild_id)
        if season is None:
            return next((s for s in seasons if s.running), None)
        wanted = " ".join(season.lower().split())
        if wanted == ALL_TIME:
            return None
        found = next((s for s in seasons if s.name.lower() == wanted), None)
        if found is None:
            raise Refusal(f"There's no season “{season.strip()}” on this server; `/spades season list` shows them.")
        return found

    async def leaderboard(self, guild_id: int, mode: str, sort: LeaderboardSort, season: str | None = None,
                          ) -> tuple[Season | None, list[LeaderboardEntry]]:
        """A board and the season it is of (None: all time); by default the running season's."""
        picked = await self.pick(guild_id, season)
        entries = await self.store.leaderboard(guild_id, mode, sort,
                                               season_id=None if picked is None else picked.season_id)
        return picked, entries

    async def card(self, guild_id: int, user_id: int, season: str | None = None) -> PlayerCard:
        picked = await self.pick(guild_id, season)
        all_time = await self.store.player_stats(guild_id, user_id)
        in_season = None if picked is None else await self.store.player_stats(guild_id, user_id,
                                                                               season_id=picked.season_id)
        ratings = sorted(all_time.ratings, key=lambda r: (-r.games, r.mode))
        mode = Mode.parse(ratings[0].mode) if ratings else None
        history = await self.store.rating_history(guild_id, user_id, mode.value) if mode is not None else []
        names = {s.season_id: s.name for s in await self.store.seasons(guild_id)}
        return PlayerCard(all_time, picked, in_season, mode, tuple(history), names)

    # ------------------------------------------------------------------ the timer
    async def _catch_up(self) -> None:
        """End what is due, start what rhythms owe, publish owed podiums, and set the timer for the
        next thing due; if the store fails, try again a little later."""
        async with self._lock:
            now = self._clock.now()
            try:
                for season in await self.store.due_seasons(now, self._shards):
                    assert season.ends_at is not None
                    if await self.store.end_season(season.season_id, season.ends_at, [Post(PODIUM, {})]):
                        log.info("season %r of server %s ended on its date", season.name, season.guild_id)
                name, _, month_end = month_of(now)
                for due in await self.store.rhythms_due(name, self._shards):
                    with contextlib.suppress(SeasonConflictError):  # an admin started one meanwhile
                        await self.store.start_season(due.guild_id, name, channel_id=due.channel_id, started_at=now,
                                                      ends_at=month_end, rhythm=due.rhythm)
                await self._publish_owed()
                next_end = await self.store.next_season_end(self._shards)
            except StoreError:
                log.warning("seasons: couldn't catch up; trying again in %.0f s", RETRY, exc_info=True)
                self._arm(now + RETRY)
                return
            self._arm(min(t for t in (next_end, month_end, now + RECHECK) if t is not None))

    async def _publish_owed(self) -> None:
        for post in await self.store.pending_season_posts(self._shards):
            if post.post_id in self._in_flight:
                continue
            if post.kind != PODIUM:
                log.error("season %s: dropping an owed %r post this version can't make", post.season.name, post.kind)
                await self.store.posts_delivered([post.post_id])
                continue
            boards = await self._final_boards(post.season)
            self._in_flight.add(post.post_id)
            self._listener.season_ended(Podium(post.season, boards, post.post_id))

    async def _final_boards(self, season: Season) -> tuple[tuple[Mode, tuple[LeaderboardEntry, ...]], ...]:
        boards: list[tuple[Mode, tuple[LeaderboardEntry, ...]]] = []
        for mode in Mode:
            entries = await self.store.leaderboard(season.guild_id, mode.value, "rating", limit=PODIUM_PLACES,
                                                   season_id=season.season_id)
            if entries:
                boards.append((mode, tuple(entries)))
        return tuple(boards)

    def _arm(self, at: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.create_task(self._wake_at(at))

    async def _wake_at(self, at: float) -> None:
        await self._clock.sleep_until(at)
        self._timer = None  # this task is ending: catching up arms the next one
        await self._catch_up()

