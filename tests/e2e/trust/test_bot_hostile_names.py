"""Players named like markup play a whole game: every message the bot sends (lobby, table, panels,
turn mentions, direct messages, hand summaries, game over, score, reviews, leaderboard, stats, refusals)
shows their names as written, never as a link, a mention, a heading or a broken code block."""

from __future__ import annotations

from bot.discord_ui.safe_text import BACKTICK_LOOKALIKE
from tests.e2e.helpers.hostile import HEADING_NAME, LINK_NAME, leaks, mention_name
from tests.e2e.helpers.server import Spades, game_over_message, name_of, refused, settled
from tests.e2e.helpers.table import start_game

ROLE_ID = 1234567890123456789


async def test_a_game_of_hostile_names_shows_every_name_as_written(spades: Spades) -> None:
    dave = spades.member("Dave")  # on the server, not playing: a name mentions him
    link, mention, heading = (spades.member(LINK_NAME), spades.member(mention_name(dave.id, ROLE_ID)),
                              spades.member(HEADING_NAME))
    channel = spades.channel("spades")
    table = await start_game(spades, channel, [link, mention, heading], target=50, mercy=50)
    turn = await table.whose_turn()
    assert turn is not None
    idle = next(user for user in table.players if user is not turn.user)
    refused(await spades.command(idle, channel, "bid", bid="3"), "'s turn.")  # names whose turn it is
    await table.play_moves()
    over = await game_over_message(spades, channel)
    assert r"\*\*b\*\*\|\|s\|\|\[x\]" in over.content  # the name, every character of it shown
    score = await spades.command(dave, channel, "score")
    assert "```" in score.content and score.content.count("```") == 2, score.content  # one block, whole
    assert f"{BACKTICK_LOOKALIKE * 3}b" in score.content
    board = await spades.command(dave, channel, "leaderboard")
    assert "leaderboard" in board.content
    for user in (link, mention, heading):
        review = await settled(spades, await spades.command(user, channel, "review"), "a review")
        assert review.startswith("**Review of game `") and "\u2068" not in review, review
        stats = await spades.command(dave, channel, "stats", user=user)
        assert "1\u00a0game" in stats.content, stats.content
        assert name_of(user) not in stats.content

    assert not leaks(spades.fake, forbidden=(f"<@{dave.id}>",)), "\n".join(leaks(spades.fake))
