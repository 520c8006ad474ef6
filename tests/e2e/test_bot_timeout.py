"""A player who doesn't act is reminded after TURN_TIMEOUT, and after twice that a computer player
moves for them; the game goes on."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import Spades, start_game
from tests.fake_discord import FakeMessage


@pytest.mark.parametrize("bot_env", [{"TURN_TIMEOUT": "1"}])
async def test_silent_player_is_reminded_then_a_computer_moves_for_them(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "bid"
    silent = turn.user
    name = silent.global_name

    reminder = await spades.fake.wait_for_message(channel, lambda m: "it's your turn" in m.content, timeout=5)
    assert reminder.content.startswith(f"<@{silent.id}>, it's your turn in game `{table.game_id}`")
    moved = await spades.fake.wait_for_message(channel, lambda m: "ran out of time" in m.content, timeout=5)
    assert moved.content.startswith(f"{name} ran out of time, so a computer player moved for them.")

    after = await table.whose_turn(table.guess_next(silent))
    assert after is not None and after.user is table.guess_next(silent) and after.phase == "bid"
    move = await table.act(after, "command")
    record = await spades.record(alice, channel)
    bids = record["hands"][0]["bids"]
    assert [b["seat"] for b in bids] == [table.seat_of(silent), move.seat]
    assert (bids[1]["bid"], bids[1]["blind"]) == move.key()[2:]
    shown = re.compile(rf"\*\*{name}\*\*(?: \(dealer\))? — bid (?P<bid>[^·]+) ·")

    def computer_bid_shown(message: FakeMessage) -> bool:
        found = shown.search(message.content)
        return found is not None and found["bid"].strip() != "—"

    await table.wait_table(computer_bid_shown, "the table to show the bid made for the silent player")
