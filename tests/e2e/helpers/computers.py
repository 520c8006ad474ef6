"""A table of two people and two computer players, for the house-rule games that need partners."""

from __future__ import annotations

from devkit.fake_discord import FakeMessage
from tests.e2e.helpers.server import Spades
from tests.e2e.helpers.table import Table

FAST = [{"BOT_MOVE_DELAY": "0"}]  # the bot_env of these games: computer players move at once


def non_nil(table: Table, user: object, legal: list[str]) -> str:
    """People here never volunteer a nil: under suicide the bot then bids their partner's."""
    return "4" if "4" in legal else legal[0]


async def start_with_two_computers(spades: Spades, table: Table, lobby: FakeMessage) -> None:
    """The table's second person joins, its host adds two normal computer players and starts."""
    host, other = table.players
    await spades.click(other, lobby, f"spades:lobby:{table.game_id}:join")
    for _ in range(2):
        await spades.command(host, table.channel, "addbot", level="normal")
    await spades.fake.wait_until(lambda: "Every seat is taken" in lobby.content, what="a full lobby")
    answer = await spades.command(host, table.channel, "start")
    assert answer.ephemeral and "Dealing!" in answer.content
    await table.wait_table(lambda m: "▶ **" in m.text, "the table")
    table.read_seats()
