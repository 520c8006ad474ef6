"""Bids and plays: a player's action, or a computer's, taken as a step and carried out.

`bot.service.steps` works out what an action owes; this is the thin async shell that carries it
out under the game's lock: save it all in one write, finish the game if it is over, tell the
listener, arm the next timer. Every accepted action is saved before the caller hears "yes"; if
the save fails the player hears that the move didn't count and the game is as the store has it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.ai import apply_move
from bot.engine import Card, EngineError, Game, parse_card
from bot.service import steps
from bot.service.changes import ActedForPlayer, Change, GameOver, TableChanged
from bot.service.context import Context, require_playing
from bot.service.errors import Refusal
from bot.service.inputs import parse_bid, parse_cards
from bot.service.live import LiveGame
from bot.service.outbox import Outbox
from bot.service.steps import Step
from bot.service.timers import Chosen, Timers
from bot.store import StoreError

log = logging.getLogger(__name__)


class Play:
    def __init__(self, context: Context, outbox: Outbox, timers: Timers) -> None:
        self._context = context
        self._outbox = outbox
        self._timers = timers

    async def bid(self, live: LiveGame, user_id: int, text: str) -> None:
        tricks, blind = parse_bid(text)
        await self._player_action(live, user_id, lambda game, seat: game.bid(seat, tricks, blind=blind))

    async def reveal(self, live: LiveGame, user_id: int) -> None:
        await self._player_action(live, user_id, lambda game, seat: game.reveal(seat))

    async def draw(self, live: LiveGame, user_id: int, keep: bool) -> tuple[Card, Card]:
        """Duo: keep or discard the card drawn; the card kept and the card discarded, to tell the
        player alone."""
        taken: list[tuple[Card, Card]] = []

        def action(game: Game, seat: int) -> None:
            game.draw(seat, keep)
            first, second = game.hand_logs[-1].draws[-2:]
            taken.append((first.card, second.card) if keep else (second.card, first.card))

        await self._player_action(live, user_id, action)
        return taken[0]

    async def play(self, live: LiveGame, user_id: int, card: str | Card) -> Card:
        try:
            chosen = parse_card(card) if isinstance(card, str) else card
        except EngineError as error:
            raise Refusal(str(error)) from None
        await self._player_action(live, user_id, lambda game, seat: game.play(seat, chosen))
        return chosen

    async def pass_cards(self, live: LiveGame, user_id: int, cards: str | Card) -> list[Card]:
        """nil_pass: the cards typed (or the one clicked) go to the partner."""
        chosen = parse_cards(cards) if isinstance(cards, str) else [cards]
        await self._player_action(live, user_id, lambda game, seat: game.pass_cards(seat, chosen))
        return chosen

    async def _player_action(self, live: LiveGame, user_id: int, action: Callable[[Game, int], object]) -> None:
        async with live.lock:
            require_playing(live)
            seat = live.seat_of(user_id)
            if seat is None:
                raise Refusal("You're not playing in this game.")
            game = live.game
            assert game is not None
            await self.carry_out(live, self._act(live, lambda: action(game, seat)))

    async def computer_move(self, live: LiveGame, chosen: Chosen) -> None:
        """A computer player's move, for its own seat or for a person whose time ran out. Lock held."""
        game = live.game
        assert game is not None
        extra: list[Change] = [ActedForPlayer(chosen.seat)] if chosen.for_person else []
        await self.carry_out(live, self._act(live, lambda: apply_move(game, chosen.seat, chosen.move), extra))

    async def deal_next(self, live: LiveGame) -> None:
        """Deal the hand that is due (the previous one paused, ended just before a stop, or its save failed)."""
        await self.carry_out(live, steps.deal(live, self._context.clock.now(), self._context.pace))

    def _act(self, live: LiveGame, action: Callable[[], object], extra: list[Change] | None = None) -> Step:
        return steps.act(live, action, extra or [], self._context.clock.now(), self._context.pace)

    async def carry_out(self, live: LiveGame, step: Step) -> None:
        """Save a step with its next timer and what it owes Discord in one write; then finish the
        game if it is over, tell the listener and arm the timers. Lock held."""
        saved = await self._outbox.save(live, step)
        changes = saved.changes
        if step.game_over:
            try:
                outcome = await self._outbox.finish(live)
            except StoreError:  # the events are saved: finishing (and its post) is retried
                log.warning("game %s: finishing failed; retrying", live.game_id, exc_info=True)
                self._context.publish(live, [*changes, TableChanged()])
                self._timers.retry(live)
                return
            if outcome is not None:
                changes.append(GameOver(outcome, saved.game_over_post))
        changes.append(TableChanged())
        self._context.publish(live, changes)
        self._timers.arm(live, step.timer)
        self._timers.arm_ping(live)
