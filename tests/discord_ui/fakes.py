"""A stand-in for the game service behind the publisher's port, for tests of the publisher alone."""

from __future__ import annotations

from bot.service import LiveGame


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
