"""Saving with the outbox: an action's events, its next timer and what it owes Discord in one write.

Memory never runs ahead of the store: if a save fails, the game is put back as the store has it.
What an action owes Discord (a hand's summary, the new hands, the game-over post) is saved with
it as a post, published, and marked delivered once the listener confirms; a post still owed after
a crash is rebuilt from the game as it stands and published again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

from bot.engine import Ending, Game, event_to_json, seat_tallies
from bot.ops.metrics import SAVE_SECONDS
from bot.service.changes import Change, GameCancelled, GameOver, HandDealt, HandScored
from bot.service.context import Context
from bot.service.deadlines import Timer, to_stored
from bot.service.errors import SaveFailed
from bot.service.live import LiveGame
from bot.service.steps import Step, hidden_seats
from bot.store import FinishOutcome, PendingPost, Post, Seat, SeatResult, StoreError

log = logging.getLogger(__name__)


class Saved(NamedTuple):
    """A step as saved: its changes carrying their post ids, and the id of the game-over post if
    the step ended the game."""

    changes: list[Change]
    game_over_post: int | None


class Outbox:
    def __init__(self, context: Context) -> None:
        self._context = context
        self._store = context.store
        self._delivery = asyncio.Event()  # set (and replaced) each time a post is confirmed

    async def save(self, live: LiveGame, step: Step) -> Saved:
        """Save a step's events with its next timer and the posts its changes owe; the changes
        come back carrying their post ids."""
        ids = await self.persist(live, step.before, step.timer, step.posts)
        changes = list(step.changes)
        for (index, _), post_id in zip(step.owed, ids, strict=False):
            changes[index] = replace(changes[index], post_id=post_id)  # type: ignore[arg-type]
        live.save_failures = 0
        return Saved(changes, ids[-1] if step.game_over and ids else None)

    async def persist(self, live: LiveGame, before: int, timer: Timer | None, posts: Sequence[Post] = (),
                      ) -> Sequence[int]:
        """Save events ``before``..end, the next timer and the owed posts as one write; their
        post ids. On any failure the game goes back to what the store holds."""
        game = live.game
        assert game is not None
        events = [event_to_json(e) for e in game.events[before:]]
        try:
            with SAVE_SECONDS.time():
                return await self._store.append_events(live.game_id, before + 1, events, to_stored(timer), posts=posts)
        except asyncio.CancelledError:
            raise  # an action already handed to the store is saved all the same
        except Exception as error:
            await self._rewind(live, before)
            if not isinstance(error, StoreError):
                raise
            log.warning("game %s: saving an action failed: %s", live.game_id, error)
            raise SaveFailed("I couldn't save that just now, so it didn't count. Please try again.") from error

    async def _rewind(self, live: LiveGame, before: int) -> None:
        """Put the game back as the store has it (or, if the store can't even be read, as it was
        before the unsaved action), so memory never runs ahead of the store."""
        game = live.game
        assert game is not None
        try:
            stored = await self._store.load_game(live.game_id)
        except StoreError:
            stored = None
        if stored is not None and stored.game is not None:
            live.game = stored.game
        else:
            rewound = Game(game.game_id, game.mode, game.rules, game.seed, game.first_dealer, game.names)
            rewound.replay(game.events[:before])
            live.game = rewound
        live.name_seats()

    async def finish(self, live: LiveGame) -> FinishOutcome | None:
        """Store the result of a game that is over (None: it was cancelled) and forget it."""
        game = live.game
        assert game is not None
        if game.ended is Ending.CANCELLED:
            await self._store.cancel_game(live.game_id)
            self._context.end(live, "cancelled")
            return None
        outcome = await self._store.finish_game(live.game_id, results(live))
        self._context.end(live, "finished")
        return outcome

    async def delivered(self, post_id: int) -> None:
        """The listener published an owed post: it won't be published again after a restart."""
        try:
            await self._store.posts_delivered([post_id])
        except StoreError:
            log.warning("post %s was published but couldn't be marked; it may be repeated after a restart",
                        post_id, exc_info=True)
        woken, self._delivery = self._delivery, asyncio.Event()
        woken.set()

    async def owes_nothing(self, game_id: str, limit: float) -> bool:
        """Wait until every post game `game_id` owes Discord is confirmed (what comes after them, such
        as archiving the game's thread, would stop them), for at most `limit` seconds; whether it was."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + limit
        while True:
            next_delivery = self._delivery  # taken before reading: a confirmation meanwhile isn't missed
            if not any(post.game_id == game_id for post in await self._store.pending_posts()):
                return True
            if loop.time() >= give_up:
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(next_delivery.wait(), give_up - loop.time())

    async def changes_of(self, live: LiveGame, posts: Sequence[PendingPost], outcome: FinishOutcome | None,
                         ) -> list[Change]:
        """The changes saved posts stand for; a post this version doesn't know is dropped, once."""
        changes: list[Change] = []
        for post in posts:
            change = await self._change_of(live, post, outcome)
            if change is None:
                log.error("game %s: dropping an owed %r post it can't rebuild", live.game_id, post.kind)
                await self.delivered(post.post_id)
            else:
                changes.append(change)
        return changes

    async def _change_of(self, live: LiveGame, post: PendingPost, outcome: FinishOutcome | None) -> Change | None:
        """Rebuild the change a saved post stands for, from the game as it is now."""
        game = live.game
        number = int(post.payload.get("hand", 0))
        if post.kind == "hand_scored" and game is not None and 0 < number <= len(game.hand_logs):
            table = post.payload.get("table")
            return HandScored(number, int(table) if table else None, post.post_id)
        if post.kind == "hand_dealt" and game is not None:
            return HandDealt(number, hidden_seats(game) if game.hand_number == number else (), post.post_id)
        if post.kind == "game_over" and game is not None and game.ended is not Ending.CANCELLED:
            if outcome is None:  # finished before the stop: this answers what finishing did
                outcome = await self._store.finish_game(live.game_id, results(live))
            return GameOver(outcome, post.post_id)
        if post.kind == "cancelled":
            return GameCancelled(str(post.payload.get("reason", "")), post.post_id)
        return None


def results(live: LiveGame, seats: Sequence[Seat] | None = None) -> list[SeatResult]:
    """Each seat's result of a game that is over, as the store records it; of a game still running,
    each seat's result if it ended now (what a forfeit is rated against), with `seats` as they will be."""
    game = live.game
    assert game is not None
    tallies = seat_tallies(game)
    places = game.places()
    scores = game.scores
    last = game.sides
    return [
        SeatResult(
            seat=s.seat, player_key=str(s.left_user_id) if s.left_user_id else s.player_key,
            name=s.left_name or s.name, final_score=scores[s.seat],
            # Whoever left forfeited: last place and no win, whatever the computer made of the seat.
            place=last if s.left_user_id else places[s.seat],
            won=s.seat in game.winners and not s.left_user_id, hands=tallies[s.seat].hands,
            bids_made=tallies[s.seat].bids_made, bids_set=tallies[s.seat].bids_set,
            nils_tried=tallies[s.seat].nils_tried, nils_made=tallies[s.seat].nils_made,
            bags=tallies[s.seat].bags,
        )
        for s in (live.seats if seats is None else seats)
    ]
