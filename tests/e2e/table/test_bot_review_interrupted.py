"""A review under way when the bot is killed: its note says to ask again, and asking again after
the restart gets the review."""

from __future__ import annotations

from tests.e2e.helpers.server import Spades, settled
from tests.e2e.helpers.table import play_game


async def test_a_review_cut_short_by_a_crash_says_to_ask_again_and_asking_again_works(spades: Spades) -> None:
    alice, bob, carol = spades.member("Alice"), spades.member("Bob"), spades.member("Carol")
    channel = spades.channel("reviews")
    await play_game(spades, channel, [alice, bob, carol])
    note = await spades.command(alice, channel, "review")
    assert spades.bot is not None
    spades.bot.kill()  # while the review is worked out
    await spades.bot.wait_exit()
    assert note.text.startswith("🔎 Reviewing your game") and "ask again with `/spades review`" in note.text

    await spades.bot.restart()
    again = await spades.command(alice, channel, "review")
    text = await settled(spades, again, "Alice's review after the restart")
    assert text.startswith("**Review of game `") and "for Alice, by the hard computer player" in text
