"""The bot is killed with SIGKILL in the middle of a hand and started again on the same database."""

from __future__ import annotations

from tests.e2e.conftest import Spades, record_moves, start_game
from tests.record_check import check_record


async def test_game_survives_sigkill_mid_hand(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    old_table = table.table_message()
    assert spades.bot is not None

    # Killed before anyone bid: the first bidder still bids from the direct message sent before.
    spades.bot.kill()
    await spades.bot.restart()
    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "bid"
    move = await table.act(turn, "dm")
    assert move.how == "dm"

    await table.play_moves(2 + 3 * 4 + 1)  # the other bids, four tricks and the lead of the fifth

    # Two players look at their cards; then the bot dies without any chance to clean up.
    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "play"
    waiting = next(u for u in table.players if u is not turn.user)
    waiting_panel = await table.hand(waiting)
    before = (await spades.record(alice, channel))["hands"][0]
    spades.bot.kill()
    assert await spades.bot.wait_exit() == -9
    await spades.bot.restart()

    # Nothing acknowledged was lost: every completed trick is in the record after the restart.
    after = (await spades.record(bob, channel))["hands"][0]
    assert after == before and len(after["tricks"]) == 4 and len(after["bids"]) == 3

    # Buttons on messages from before the crash still work: the card panel opened before the
    # kill plays its card, and My hand on the old table message answers.
    await table.act(turn, "panel")
    again = await spades.click(waiting, old_table, f"spades:table:{table.game_id}:hand")
    assert again.ephemeral and again.content.splitlines()[1] != ""
    assert waiting_panel.content.splitlines()[1] == again.content.splitlines()[1]  # the same cards

    await table.play_moves()  # the game goes on to its end

    await spades.fake.wait_for_message(channel, lambda m: m.content.startswith("🏆"))
    record = await spades.record(carol, channel)
    check_record(record)
    assert record_moves(record) == table.acknowledged()  # no action lost, none doubled
    assert spades.bot.starts == 3
    assert "Traceback" not in spades.bot.log_text()
