"""A stand-in for the game service behind the publisher's port, for tests of the publisher alone."""

from __future__ import annotations

from bot.engine import SeatView, seat_view
from bot.service import LiveGame, Refusal


class Games:
    """Answers `PublisherPort` as the service would, without a store: seats' views are read from
    the game, message ids kept on it, and nothing is owed or cancelled."""

    async def cancel_for(self, live: LiveGame, reason: str) -> None:
        live.status = "cancelled"

    async def delivered(self, post_id: int) -> None:
        pass

    async def set_lobby_message(self, live: LiveGame, message_id: int) -> None:
        live.lobby_message_id = message_id

    async def set_table_message(self, live: LiveGame, message_id: int | None) -> None:
        live.table_message_id = message_id

    def view_for(self, live: LiveGame, user_id: int) -> SeatView:
        seat = live.seat_of(user_id)
        if seat is None or live.game is None:
            raise Refusal("You're not playing in this game.")
        return seat_view(live.game, seat)
