"""When the bot can no longer post in a game's channel (permission taken away, or the channel
deleted), the game is cancelled with a log line saying why; the bot itself carries on."""

from __future__ import annotations

from tests.e2e.conftest import Spades, start_game
from tests.fake_discord.models import SEND_MESSAGES


async def test_losing_send_permission_cancels_the_game_and_says_why(spades: Spades) -> None:
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [alice, bob, carol], target=50, mercy=50)
    await table.play_moves(2)
    fake.set_channel_overwrite(channel, fake.bot_user, deny=SEND_MESSAGES)

    answer = await spades.command(alice, channel, "table")  # the repost is refused by Discord
    assert answer.ephemeral
    bot = spades.bot
    assert bot is not None
    await fake.wait_until(lambda: "lost permission to post" in bot.log_text(), 10, "the cancel log line")
    late = await spades.command(bob, channel, "bid", bid="3")  # mid-cancel or after: either refusal
    assert late.ephemeral
    assert late.content.startswith("There's no game in this channel.") or late.content == "This game is over."
    record = await spades.record(carol, channel)
    assert record["final"]["ended"] == "cancelled"


async def test_a_deleted_channel_cancels_its_game_and_other_games_go_on(spades: Spades) -> None:
    fake = spades.fake
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    doomed, other = spades.channel("doomed"), spades.channel("other")
    first = await start_game(spades, doomed, [alice, bob, carol], target=50, mercy=50)
    second = await start_game(spades, other, [alice, bob, carol], target=50, mercy=50)
    await first.play_moves(2)
    del fake.channels[doomed.id]  # deleted: Discord answers 10003 Unknown Channel from now on

    await second.play_moves(3)  # the table edit after each move of the first game would now fail...
    bot = spades.bot
    assert bot is not None
    first_turn = await first.whose_turn()  # ...so make one more move there, which the bot can't show
    assert first_turn is not None
    await first.act(first_turn)
    await fake.wait_until(lambda: "was deleted" in bot.log_text(), 10, "the cancel log line")
    await second.play_moves(3)
