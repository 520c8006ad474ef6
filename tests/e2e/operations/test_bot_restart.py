"""The bot is killed with SIGKILL in the middle of a hand and started again on the same database;
and killed right after the last card of a hand, and of the game: what it owed is posted after the
restart, once."""

from __future__ import annotations

from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import Spades, every_card_by_hand, game_over_message
from tests.e2e.helpers.table import start_game
from tests.record_check import check_record


async def test_game_survives_sigkill_mid_hand(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    old_table = table.table_message()
    assert spades.bot is not None

    # Killed before anyone bid: the first bidder still bids on the panel opened before.
    spades.bot.kill()
    await spades.bot.restart()
    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "bid"
    assert (await table.act(turn, "panel")) is not None
    await table.reopen_panels()  # the others' panels were opened before the restart: open them again

    await table.play_moves(2 + 3 * 4 + 1)  # the other bids, four tricks and the lead of the fifth

    # Then the bot dies without any chance to clean up.
    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "play"
    waiting = next(u for u in table.players if u is not turn.user)
    before = (await spades.record(alice, channel))["hands"][0]
    spades.bot.kill()
    assert await spades.bot.wait_exit() == -9
    await spades.bot.restart()

    # Nothing acknowledged was lost: every card is in the record after the restart.
    after = (await spades.record(alice, channel))["hands"][0]
    assert after == before and len(after["tricks"]) == 5 and len(after["bids"]) == 3
    assert after["tricks"][-1]["winner"] is None and len(after["tricks"][-1]["plays"]) == 1

    # Buttons on messages from before the crash still work: the panel opened before the kill plays
    # its card, and My hand on the old table message answers with the same cards.
    await table.act(turn, "panel")
    again = await spades.click(waiting, old_table, table.hand_button)
    assert again.ephemeral and table.held_cards(again) == table.held_cards(table.panels[waiting.id])
    await table.reopen_panels()

    await table.play_moves()  # the game goes on to its end

    await game_over_message(spades, channel)
    record = await spades.record(carol, channel)
    check_record(record)
    assert record_moves(record) == table.acknowledged()  # no action lost, none doubled
    assert spades.bot.starts == 3
    assert "Traceback" not in spades.bot.log_text()


async def test_what_a_hands_last_card_owes_is_posted_after_a_sigkill(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    await every_card_by_hand(spades)  # the hand's last card is a move of its own
    table = await start_game(spades, channel, [alice, bob, carol], target=300)
    assert spades.bot is not None
    await table.play_moves(3 + 3 * 17 - 1)  # everything but the hand's last card
    turn = await table.whose_turn()
    assert turn is not None and turn.phase == "play"
    mark = spades.fake.checkpoint()
    move = await table.act(turn, "panel")  # acknowledged: the bot owes a summary and a new deal
    assert move is not None
    spades.bot.kill()
    await spades.bot.wait_exit()
    await spades.bot.restart()
    await table.reopen_panels()

    summary = await spades.fake.wait_for_message(channel, lambda m: m.text.startswith("### Hand 1 scored"))
    assert "Last trick:" in summary.text
    sent = [await table.hand_dm(user, 2, after=mark) for user in (alice, bob, carol)]
    await table.wait_table(lambda m: "hand 2" in m.text and "▶ **" in m.text, "the second hand's table")
    summaries = [m for m in channel.messages.values() if m.text.startswith("### Hand 1 scored") and not m.deleted]
    assert len(summaries) == 1
    hands = [m for u in (alice, bob, carol) for m in spades.fake.dm_channels[u.id].messages.values()
             if "hand 2" in m.content]
    assert len(hands) == sum(dm is not None for dm in sent) >= 1  # each new hand sent once


async def test_the_game_over_post_is_not_lost_to_a_sigkill(spades: Spades) -> None:
    """Killed right after every hand's last card, until one of them ends the game."""
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    await every_card_by_hand(spades)  # a hand's last card is a move of its own
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    assert spades.bot is not None

    def over_or_next_hand() -> str | None:
        if any(m.content.startswith("## 🏆") for m in channel.messages.values()):
            return "over"
        table_now = table.find_table()
        return "next" if table_now is not None and f"hand {hands + 1}" in table_now.text else None

    hands = 0
    while True:
        await table.play_moves(3 + 3 * 17 - 1)
        turn = await table.whose_turn()
        assert turn is not None and turn.phase == "play"
        await table.act(turn, "panel")  # the hand's last card, perhaps the game's
        hands += 1
        spades.bot.kill()
        await spades.bot.wait_exit()
        await spades.bot.restart()
        if await spades.fake.wait_until(over_or_next_hand, 10, "the game-over post or the next hand") == "over":
            break
        await table.reopen_panels()
    over = await game_over_message(spades, channel)
    assert over.attachments and "wins!" in over.content
    await spades.bot.restart()  # and not again on the next start
    posts = [m for m in channel.messages.values() if m.content.startswith("## 🏆") and not m.deleted]
    assert len(posts) == 1
    record = await spades.record(alice, channel)
    check_record(record)
    assert record_moves(record) == table.acknowledged()
