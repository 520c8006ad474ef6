"""Hints on request and reviews of finished games, on top of `GameService`'s public API.

A hint is the hard player's choice for the asker's seat, worked out from that seat's view only and
bounded like a computer player's move; a hint taken is saved (who and when) before it is told, so a
game's record and its results say that help was used. A review is computed from the finished
game's record, one at a time per process and never on the event loop, then kept in the store: the
second request for it is answered from there at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from bot.ai.coach import Hint, advise
from bot.ai.review import review_game, review_text
from bot.engine import Phase, SeatView, seat_view
from bot.service.errors import Refusal, SaveFailed
from bot.service.games import GameService
from bot.service.live import LiveGame
from bot.store import GameInfo, HintTaken, StoreError

log = logging.getLogger(__name__)

REVIEW_VERSION = 1  # bump when the reviewer changes what it says: kept reviews are then made again
RECENT_GAMES = 20  # how far back "your last game here" looks


class Coach(Protocol):
    """Does the thinking: the AI runner's process pool, or in-process for tests and offline use."""

    async def hint(self, view: SeatView, seed: int) -> Hint: ...

    async def review(self, record: Mapping[str, Any], seat: int, seed: int) -> str: ...


class ThreadCoach:
    """Thinks in a worker thread with a fixed search budget (deterministic: tests, small setups)."""

    def __init__(self, budget: str = "60it") -> None:
        self.budget = budget

    async def hint(self, view: SeatView, seed: int) -> Hint:
        return await asyncio.to_thread(advise, view, seed, self.budget)

    async def review(self, record: Mapping[str, Any], seat: int, seed: int) -> str:
        return await asyncio.to_thread(lambda: review_text(review_game(record, seat, seed)))


def is_rated(live: LiveGame) -> bool:
    """A game among people only: no computer player was seated from the start (one taking over
    for a player who left doesn't make it one)."""
    return not any(s.bot_level is not None and s.left_user_id is None for s in live.seats)


def hints_refusal(live: LiveGame) -> str | None:
    """Why this game offers no hints (None: it does). Hints are for games whose results don't count
    for anyone's standing among people: never at a tournament table, never in a game among people
    only (whatever its `hints` option says), and not where the game's option is off (a server whose
    default is off opens every game with it off)."""
    if live.organiser_id is not None:
        return "No hints at a tournament table: its results count in the tournament."
    if is_rated(live):
        return ("No hints in a game among people only (a rated game), whatever its hints option. Play with a "
                "computer player to use them.")
    if live.rules.hints == "off":
        return "Hints are off in this game (it was opened with hints=off)."
    return None


@dataclass(frozen=True)
class ReviewAnswer:
    """A review kept earlier (`text`), or one on its way (`pending`); `waiting` says whether it
    waits for another review to finish first."""

    game_id: str
    text: str | None
    pending: asyncio.Future[str] | None
    waiting: bool


class CoachService:
    def __init__(self, games: GameService, coach: Coach) -> None:
        self.games = games
        self.store = games.store
        self.coach = coach
        self._one_at_a_time = asyncio.Lock()
        self._running: dict[tuple[str, int], asyncio.Task[str]] = {}

    # ------------------------------------------------------------------------------ hints
    async def hint(self, live: LiveGame, user_id: int) -> str:
        """The hint for the asker's turn, in one line; refusals in plain words."""
        seat = live.seat_of(user_id)
        if seat is None:
            raise Refusal("You're not playing in this game.")
        if live.status != "playing" or live.game is None:
            raise Refusal("Hints are for a game in play." if live.status == "lobby" else "This game is over.")
        refusal = hints_refusal(live)
        if refusal is not None:
            raise Refusal(refusal)
        with contextlib.suppress(StoreError):  # can't read the settings: the game's own option stands
            if (await self.store.get_settings(live.guild_id)).get("rules", {}).get("hints") == "off":
                raise Refusal("Hints are turned off on this server.")
        game = live.game
        if game.turn != seat:
            raise Refusal("A hint is for your turn, and it isn't your turn yet.")
        if game.phase is Phase.DRAWING:
            raise Refusal("Hints are for bidding and play. In the draw, high spades and aces are worth keeping.")
        view, token = seat_view(game, seat), live.token
        hint = await self.coach.hint(view, zlib.crc32(f"{live.game_id}/hint/{token}".encode()))
        if live.token != token or live.game is not game:
            raise Refusal("The game moved on while I was thinking; ask again on your next turn.")
        phase: Literal["bid", "blind_nil", "pass", "play"] = (
            "blind_nil" if view.cards_hidden else "play" if view.phase is Phase.PLAYING
            else "pass" if view.phase is Phase.PASSING else "bid")
        trick = len(view.tricks) + 1 if phase == "play" else None
        try:
            await self.store.add_hint(live.game_id, HintTaken(seat, game.hand_number, phase, trick, time.time()))
        except StoreError as error:
            log.warning("game %s: a hint couldn't be saved: %s", live.game_id, error)
            raise SaveFailed("I couldn't note the hint just now, so I won't give it. Please try again.") from error
        return f"💡 {hint.text}"

    # ----------------------------------------------------------------------------- reviews
    async def review(self, guild_id: int, channel_id: int, user_id: int, game_id: str | None = None) -> ReviewAnswer:
        """The asker's review of a finished game (by default their last one in this channel):
        kept, or started (or joined, if someone's request already started it)."""
        info = await self._finished_game(guild_id, channel_id, user_id, game_id)
        seat = next((s.seat for s in info.seats if user_id in (s.user_id, s.left_user_id)), None)
        if seat is None:
            raise Refusal(f"You didn't play in game `{info.game_id}`: a review is of your own game.")
        kept = await self.store.review(info.game_id, seat, REVIEW_VERSION)
        if kept is not None:
            return ReviewAnswer(info.game_id, kept, None, waiting=False)
        key = (info.game_id, seat)
        task = self._running.get(key)
        waiting = self._one_at_a_time.locked()
        if task is None:
            record = await self.store.game_record(info.game_id)
            if record is None or not any("result" in hand for hand in record["hands"]):
                raise Refusal("That game ended before any hand was scored: there's nothing to review.")
            task = asyncio.create_task(self._compute(info.game_id, seat, record))
            self._running[key] = task
            task.add_done_callback(lambda _: self._running.pop(key, None))
        return ReviewAnswer(info.game_id, None, task, waiting)

    async def _compute(self, game_id: str, seat: int, record: Mapping[str, Any]) -> str:
        async with self._one_at_a_time:
            text = await self.coach.review(record, seat, zlib.crc32(f"{game_id}/review/{seat}".encode()))
        try:
            await self.store.save_review(game_id, seat, REVIEW_VERSION, text)
        except StoreError as error:  # the asker still gets it; the next request computes it again
            log.warning("game %s: a review couldn't be kept: %s", game_id, error)
        return text

    async def _finished_game(self, guild_id: int, channel_id: int, user_id: int, game_id: str | None) -> GameInfo:
        if game_id is not None:
            info = await self.store.get_game(game_id) if _looks_like_game_id(game_id) else None
            if info is None or info.guild_id != guild_id:
                raise Refusal(f"There's no game “{game_id}” on this server.")
            if info.status in ("lobby", "playing"):
                raise Refusal("That game is still going: a review comes once it's over.")
            return info
        for summary in await self.store.recent_games(guild_id, channel_id, limit=RECENT_GAMES):
            info = summary.info
            if info.status in ("finished", "cancelled") and any(
                    user_id in (s.user_id, s.left_user_id) for s in info.seats):
                return info
        raise Refusal("You haven't finished a game in this channel yet: a review comes after a game.")


def _looks_like_game_id(text: str) -> bool:
    return 1 <= len(text) <= 32 and all(c in "0123456789abcdef" for c in text)
