"""A tournament table is stopped by its organiser only: the player the bot made host of the table
can't cancel it (a host ahead could bank the points), the organiser can, and the round's standings
say which table was stopped, by whom, and that the score then decided it."""

from __future__ import annotations

import pytest

from devkit.fake_discord import FakeChannel
from tests.e2e.helpers.server import Spades, refused
from tests.e2e.helpers.table import Table
from tests.e2e.helpers.tournament import FAST, GAME_FOOTER, signed_up


@pytest.mark.parametrize("bot_env", [FAST])
async def test_only_the_organiser_stops_a_table_and_the_standings_say_so(spades: Spades) -> None:
    fake = spades.fake
    organiser = spades.member("Olga")
    players = [spades.member(name) for name in ("Ann", "Ben", "Cat")]
    channel = spades.channel("tourney")
    await signed_up(spades, channel, organiser, players, rounds=2)
    started = await spades.command(organiser, channel, "tournament start")
    await fake.wait_until(lambda: "Round 1 is seated" in started.content, 15, "round 1 to be seated")

    def opened() -> FakeChannel | None:
        threads = [t for t in fake.threads_of(channel)
                   if any(GAME_FOOTER.search(m.text) for m in t.messages.values() if not m.deleted)]
        return threads[0] if threads else None

    thread = await fake.wait_until(opened, 15, "round 1's table")
    footer = next(GAME_FOOTER.search(m.text) for m in thread.messages.values() if GAME_FOOTER.search(m.text))
    assert footer is not None
    table = Table(spades, thread, players, game_id=footer[1])
    await table.wait_table(lambda m: "▶ **" in m.text, "the table")
    table.read_seats()
    await table.play_moves(4)

    for player in players:  # the table's host among them
        refused(await spades.command(player, thread, "cancel"), "only the tournament's organiser")
    await table.play_moves(1)  # the game goes on
    answer = await spades.command(organiser, thread, "cancel")
    assert answer.ephemeral and answer.content == "Game cancelled."
    standings = await fake.wait_for_message(channel, lambda m: "standings after round 1 of 2" in m.content,
                                            timeout=15)
    assert "Table 1: stopped by Olga; it is decided by the score at that moment." in standings.content
