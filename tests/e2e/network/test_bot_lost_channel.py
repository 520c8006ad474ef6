"""When the bot can't post in a game's channel: a permission lost for a few seconds is waited out;
only access lost for longer than CHANNEL_LOST_TIMEOUT, or a deleted channel, ends the game, and the
players are told by direct message where the channel can't be used."""

from __future__ import annotations

import asyncio

import pytest

from devkit.fake_discord.models import SEND_MESSAGES, VIEW_CHANNEL
from tests.e2e.helpers.record import record_moves
from tests.e2e.helpers.server import Spades, game_over_message
from tests.e2e.helpers.table import start_game


async def test_losing_send_permission_for_a_moment_changes_nothing(spades: Spades) -> None:
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    await table.play_moves(2)
    before = table.table_message()
    fake.revoke_bot_permissions(channel, SEND_MESSAGES)
    answer = await spades.command(alice, channel, "table")  # posting the table again is refused for now
    assert answer.ephemeral
    await table.play_moves(2)
    await asyncio.sleep(3)
    fake.restore_bot_permissions(channel, SEND_MESSAGES)

    await table.wait_table(lambda m: m.id != before.id, "the table, posted once the permission is back", 20)
    await table.play_moves()
    await game_over_message(spades, channel)
    record = await spades.record(carol, channel)
    assert record["final"]["ended"] in ("target", "mercy") and record_moves(record) == table.acknowledged()
    assert spades.bot is not None and "cancelling game" not in spades.bot.log_text()


@pytest.mark.parametrize("bot_env", [{"CHANNEL_LOST_TIMEOUT": "10"}])
async def test_a_game_whose_channel_the_bot_can_no_longer_see_is_played_to_its_end(spades: Spades) -> None:
    """The bot loses sight of the channel mid-hand. Everything a game shows goes through the webhooks
    the players' clicks lend it (table, summaries, mentions, the game-over post), which need no
    permission in the channel: the game is played to its end, nothing lost, nothing cancelled."""
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    await table.play_moves(2)
    fake.set_channel_overwrite(channel, fake.bot_user, deny=VIEW_CHANNEL)
    await table.play_moves()
    over = await game_over_message(spades, channel)
    assert over.attachments
    record = await spades.record(carol, channel, table.game_id)
    assert record["final"]["ended"] in ("target", "mercy") and record_moves(record) == table.acknowledged()
    assert spades.bot is not None and "cancelling game" not in spades.bot.log_text()


async def test_a_deleted_channel_cancels_its_game_and_other_games_go_on(spades: Spades) -> None:
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    doomed, other = spades.channel("doomed"), spades.channel("other")
    first = await start_game(spades, doomed, [alice, bob, carol], target=50, mercy=50)
    second = await start_game(spades, other, [alice, bob, carol], target=50, mercy=50)
    await first.play_moves(2)
    del fake.channels[doomed.id]  # deleted: Discord answers 10003 Unknown Channel from now on

    await second.play_moves(3)
    first_turn = await first.whose_turn()  # one more move in the deleted channel's game, if it is still on
    assert first_turn is not None
    custom_id = next(b["custom_id"] for b in first_turn.panel.buttons() if not b.get("disabled"))
    await spades.click(first_turn.user, first_turn.panel, custom_id)
    for user in (alice, bob, carol):
        await fake.wait_for_dm(user, lambda m: "was cancelled (its channel was deleted)" in m.content, timeout=10)
    await second.play_moves(3)
    bot = spades.bot
    assert bot is not None and "was deleted" in bot.log_text()
