"""What a player may see and choose, and the record of a game, running or past; nothing here
changes a game."""

from __future__ import annotations

from bot.engine import Card, RecordView, record_for
from bot.engine.bidding_rules import BLIND_BID_MAX
from bot.service.context import Context, looks_like_game_id
from bot.service.errors import Refusal
from bot.service.inputs import SHOW_MY_CARDS
from bot.service.live import LiveGame
from bot.store.replay import record_players


class Queries:
    def __init__(self, context: Context) -> None:
        self._context = context
        self._store = context.store

    def bid_choices(self, live: LiveGame, user_id: int) -> list[str]:
        """What autocomplete offers for /spades bid: exactly the legal bids, in words; while the
        seat may still bid blind nil, also the way to look at the cards instead."""
        seat = live.seat_of(user_id)
        if seat is None or live.game is None:
            return []
        game = live.game
        show = [SHOW_MY_CARDS] if game.can_reveal(seat) else []
        if game.turn != seat:
            return show
        choices = ["blind nil"] if game.can_bid(seat, 0, blind=True) else []
        if game.rules.blind_bids:
            choices += [f"blind {b}" for b in range(1, BLIND_BID_MAX + 1) if game.can_bid(seat, b, blind=True)]
        choices += show
        for bid in game.legal_bids(seat):
            choices.append("nil" if bid == 0 else str(bid))
        return choices

    def cards_hidden(self, live: LiveGame, user_id: int) -> bool:
        """Whether this player still has to choose between blind nil and looking at their cards."""
        seat = live.seat_of(user_id)
        return seat is not None and live.game is not None and live.game.cards_hidden(seat)

    def card_choices(self, live: LiveGame, user_id: int) -> tuple[Card, ...]:
        seat = live.seat_of(user_id)
        if seat is None or live.game is None:
            return ()
        return live.game.legal_cards(seat)

    def pass_choices(self, live: LiveGame, user_id: int) -> tuple[Card, ...]:
        """nil_pass: the cards the player may pass now (their hand, on their turn to pass)."""
        seat = live.seat_of(user_id)
        if seat is None or live.game is None or not live.game.cards_to_pass(seat):
            return ()
        return live.game.hand_of(seat)

    async def last_game(self, guild_id: int, channel_id: int) -> LiveGame:
        """This channel's running game, or else the last one played here (score and record after the end)."""
        live = self._context.channels.get(channel_id)
        if live is not None:
            return live
        recent = await self._store.recent_games(guild_id, channel_id, limit=5)
        for summary in recent:
            if summary.info.started_at is None:
                continue
            stored = await self._store.load_game(summary.info.game_id)
            if stored is not None and stored.game is not None:
                return self._context.revive(stored.info, stored.game)
        raise Refusal("No game has been played in this channel yet. Start one with /spades new.")

    async def record(self, guild_id: int, channel_id: int, user_id: int, game_id: str | None = None,
                     ) -> tuple[str, RecordView]:
        """A game's record as `user_id` may see it: a running game shows only what is public, plus
        the asker's own cards (then the record is marked private: for the asker's eyes only)."""
        if game_id is None:
            live = await self.last_game(guild_id, channel_id)
        else:
            found = self._context.games.get(game_id)
            if found is None:
                stored = await self._store.load_game(game_id) if looks_like_game_id(game_id) else None
                if stored is not None:
                    found = self._context.revive(stored.info, stored.game)
            if found is None or found.guild_id != guild_id:
                raise Refusal(f"There's no game “{game_id}” on this server.")
            live = found
        if live.game is None:
            raise Refusal("That game never started, so it has no record yet.")
        players = record_players(live.seats)
        shown = record_for(live.game, players, viewer=live.seat_of(user_id))
        hints = await self._store.game_hints(live.game_id)  # who asked for a hint, and when: never what
        if hints:
            shown = RecordView({**shown.document, "hints": [h.to_json() for h in hints]}, shown.private)
        return live.game_id, shown
