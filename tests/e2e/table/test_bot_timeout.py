"""A player who doesn't act is mentioned a few seconds into their turn, reminded after
TURN_TIMEOUT, and after twice that a computer player moves for them; the game goes on."""

from __future__ import annotations

import re

import pytest

from devkit.fake_discord import FakeMessage
from tests.e2e.helpers.server import Spades, name_of
from tests.e2e.helpers.table import start_game


@pytest.mark.parametrize("bot_env", [{"TURN_TIMEOUT": "2"}])
async def test_silent_player_is_mentioned_reminded_then_a_computer_moves_for_them(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    spades.fake.grant_manage_guild(spades.guild, alice)
    channel = spades.channel("spades")
    await spades.command(alice, channel, "settings", turn_ping_delay=1)
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "bid"
    silent = turn.user
    name = name_of(silent)

    ping = await spades.fake.wait_for_message(channel, lambda m: m.content.startswith(f"<@{silent.id}>, your turn"),
                                              timeout=5)
    assert table.hand_button in ping.custom_ids()  # the way back to one's cards, right there
    reminder = await spades.fake.wait_for_message(channel, lambda m: "it's still your turn" in m.content, timeout=5)
    assert reminder.content.startswith(f"<@{silent.id}>, it's still your turn.")
    moved = await spades.fake.wait_for_message(channel, lambda m: "ran out of time" in m.content, timeout=5)
    assert moved.content == f"{name} ran out of time, so a computer player moved for them."
    await spades.fake.wait_until(lambda: ping.deleted, 5, "the mention to go once the turn was taken")

    # The panels have their own worker: the silent player's stops asking them to bid soon after.
    await spades.fake.wait_until(lambda: table.phase_in(table.panels[silent.id]) is None, 5,
                                 "the silent player's panel to follow the computer's bid")
    after = await table.whose_turn()
    assert after is not None and after.user is not silent and after.phase == "bid"
    move = await table.act(after, "command")
    assert move is not None
    record = await spades.record(alice, channel)
    bids = record["hands"][0]["bids"]
    assert [b["seat"] for b in bids] == [table.seat_of(silent), move.seat]
    assert (bids[1]["bid"], bids[1]["blind"]) == move.key()[2:]
    shown = re.compile(rf"\*\*{name}\*\*(?: \(dealer\))? — bid\s(?P<bid>[^·]+)\s·")

    def computer_bid_shown(message: FakeMessage) -> bool:
        found = shown.search(message.text)
        return found is not None and found["bid"].strip() != "—"

    await table.wait_table(computer_bid_shown, "the table to show the bid made for the silent player")
