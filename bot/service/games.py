"""The game service: games per channel, one lock per game, the engine for rules, the store before
every answer, timers. No discord imports: the Discord layer calls these methods and renders the
changes it is told about.

`GameService` is the one face of the parts it is composed of, each doing one job:

- `bot.service.lobby`: lobbies, seats, starting, leaving, cancelling, server defaults, message ids;
- `bot.service.play` with `bot.service.steps`: bids and plays, worked out as a step (what an
  action owes) and carried out by a thin async shell;
- `bot.service.outbox`: saving an action with what it owes Discord, rewinding when that fails;
- `bot.service.recovery`: carrying on after a restart or a failed save;
- `bot.service.timers` with `bot.service.deadlines`: typed timers, pings, computer players' moves;
- `bot.service.queries`: what a player may see and choose, and a game's record;
- `bot.service.context`: what they share (the store, the listener, the clock, the running games).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bot.engine import Card, RecordView
from bot.service.clock import Clock, SystemClock
from bot.service.context import BOT_LEVELS, DEFAULT_LOBBY_TIMEOUT, Context, Listener, Pace
from bot.service.deadlines import LobbyExpiry, NextDeal, Retry
from bot.service.live import CancelRequest, LiveGame
from bot.service.lobby import Lobby
from bot.service.outbox import Outbox, results
from bot.service.play import Play
from bot.service.presets import Presets
from bot.service.queries import Queries
from bot.service.recovery import Restarts
from bot.service.timers import Chosen, Decider, Due, Timers
from bot.store import Recovery, SeatResult, ShardSet, Store


class GameService:
    def __init__(
        self,
        store: Store,
        listener: Listener,
        *,
        decider: Decider | None = None,
        clock: Clock | None = None,
        bot_move_delay: float = 1.0,
        turn_timeout: float = 120.0,
        lobby_timeout: float = DEFAULT_LOBBY_TIMEOUT,
        hand_pause: float = 0.0,
        takeover_level: str = "normal",
        rng: random.Random | None = None,
        shards: ShardSet | None = None,
    ) -> None:
        self.store = store
        self.presets = Presets(store)
        self._context = Context(
            store, listener, clock or SystemClock(), Pace(bot_move_delay, turn_timeout, lobby_timeout, hand_pause),
            rng=rng, shards=shards, takeover_level=takeover_level if takeover_level in BOT_LEVELS else "random",
        )
        self._outbox = Outbox(self._context)
        self._timers = Timers(self._context, self._due, decider)
        self._play = Play(self._context, self._outbox, self._timers)
        self._lobby = Lobby(self._context, self._outbox, self._timers, self._play)
        self._restarts = Restarts(self._context, self._outbox, self._timers, self._play)
        self._queries = Queries(self._context)

    async def _due(self, live: LiveGame, due: Due) -> None:
        """What a timer that came due sets going, in the part whose job it is. Lock held."""
        if isinstance(due, LobbyExpiry):
            await self._lobby.expire(live)
        elif isinstance(due, NextDeal):
            await self._play.deal_next(live)
        elif isinstance(due, Retry):
            await self._restarts.retry(live)
        elif isinstance(due, Chosen):
            await self._play.computer_move(live, due)

    @property
    def bot_move_delay(self) -> float:
        return self._context.pace.bot_move_delay

    @property
    def turn_timeout(self) -> float:
        """The turn timeout of a server that didn't choose one."""
        return self._context.pace.turn_timeout

    @property
    def lobby_timeout(self) -> float:
        return self._context.pace.lobby_timeout

    @property
    def hand_pause(self) -> float:
        """Seconds the last trick of a hand stays up before the next deal."""
        return self._context.pace.hand_pause

    # ------------------------------------------------------------------ start-up and shutdown
    async def recover(self) -> Recovery:
        return await self._restarts.recover()

    async def synced_commands(self) -> str | None:
        return await self._restarts.synced_commands()

    async def remember_synced_commands(self, digest: str) -> None:
        await self._restarts.remember_synced_commands(digest)

    async def record_clean_stop(self) -> None:
        await self._restarts.record_clean_stop()

    async def close(self) -> None:
        await self._timers.close()

    async def delivered(self, post_id: int) -> None:
        await self._outbox.delivered(post_id)

    async def owes_nothing(self, game_id: str, limit: float) -> bool:
        return await self._outbox.owes_nothing(game_id, limit)

    # ---------------------------------------------------------------------------- lookups
    def running(self) -> Iterable[LiveGame]:
        """The games this process runs, lobbies included (what the metrics count)."""
        return self._context.games.values()

    def game_in_channel(self, channel_id: int) -> LiveGame | None:
        return self._context.game_in_channel(channel_id)

    def require_channel_game(self, channel_id: int) -> LiveGame:
        return self._context.require_channel_game(channel_id)

    def require_game(self, game_id: str, guild_id: int | None, channel_id: int | None = None) -> LiveGame:
        return self._context.require_game(game_id, guild_id, channel_id)

    async def last_game(self, guild_id: int, channel_id: int) -> LiveGame:
        return await self._queries.last_game(guild_id, channel_id)

    async def record(self, guild_id: int, channel_id: int, user_id: int, game_id: str | None = None,
                     ) -> tuple[str, RecordView]:
        return await self._queries.record(guild_id, channel_id, user_id, game_id)

    def results(self, live: LiveGame) -> list[SeatResult]:
        return results(live)

    # ------------------------------------------------------------------------- settings
    async def server_defaults(self, guild_id: int) -> dict[str, Any]:
        return await self._lobby.server_defaults(guild_id)

    async def update_settings(self, guild_id: int, changes: Mapping[str, Any]) -> dict[str, Any]:
        return await self._lobby.update_settings(guild_id, changes)

    # ---------------------------------------------------------------------------- lobby
    async def new_lobby(
        self,
        guild_id: int,
        channel_id: int,
        host_id: int,
        host_name: str,
        mode: str | None = None,
        options: Mapping[str, object] | None = None,
        computer_levels: Sequence[str] = (),
    ) -> LiveGame:
        return await self._lobby.new_lobby(guild_id, channel_id, host_id, host_name, mode, options, computer_levels)

    async def rematch(self, finished_game_id: str, guild_id: int, channel_id: int, user_id: int, name: str,
                      ) -> tuple[LiveGame, bool]:
        return await self._lobby.rematch(finished_game_id, guild_id, channel_id, user_id, name)

    async def join(self, live: LiveGame, user_id: int, name: str) -> None:
        await self._lobby.join(live, user_id, name)

    async def add_bot(self, live: LiveGame, user_id: int, level: str) -> None:
        await self._lobby.add_bot(live, user_id, level)

    async def leave(self, live: LiveGame, user_id: int) -> None:
        await self._lobby.leave(live, user_id)

    async def start(self, live: LiveGame, user_id: int) -> None:
        await self._lobby.start(live, user_id)

    async def cancel(self, live: LiveGame, user_id: int, is_admin: bool, name: str) -> CancelRequest | None:
        return await self._lobby.cancel(live, user_id, is_admin, name)

    async def agree_to_cancel(self, live: LiveGame, user_id: int) -> CancelRequest | None:
        return await self._lobby.agree_to_cancel(live, user_id)

    async def cancel_for(self, live: LiveGame, reason: str) -> None:
        await self._lobby.cancel_for(live, reason)

    async def set_lobby_message(self, live: LiveGame, message_id: int) -> None:
        await self._lobby.set_lobby_message(live, message_id)

    async def set_table_message(self, live: LiveGame, message_id: int | None) -> None:
        await self._lobby.set_table_message(live, message_id)

    # ---------------------------------------------------------------------- play actions
    async def bid(self, live: LiveGame, user_id: int, text: str) -> None:
        await self._play.bid(live, user_id, text)

    async def reveal(self, live: LiveGame, user_id: int) -> None:
        await self._play.reveal(live, user_id)

    async def draw(self, live: LiveGame, user_id: int, keep: bool) -> tuple[Card, Card]:
        return await self._play.draw(live, user_id, keep)

    async def play(self, live: LiveGame, user_id: int, card: str | Card) -> Card:
        return await self._play.play(live, user_id, card)

    async def pass_cards(self, live: LiveGame, user_id: int, cards: str | Card) -> list[Card]:
        return await self._play.pass_cards(live, user_id, cards)

    # --------------------------------------------------------------------------- queries
    def bid_choices(self, live: LiveGame, user_id: int) -> list[str]:
        return self._queries.bid_choices(live, user_id)

    def cards_hidden(self, live: LiveGame, user_id: int) -> bool:
        return self._queries.cards_hidden(live, user_id)

    def card_choices(self, live: LiveGame, user_id: int) -> tuple[Card, ...]:
        return self._queries.card_choices(live, user_id)

    def pass_choices(self, live: LiveGame, user_id: int) -> tuple[Card, ...]:
        return self._queries.pass_choices(live, user_id)
