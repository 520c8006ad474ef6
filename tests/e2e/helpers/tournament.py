"""A tournament through Discord: its sign-up, the footer that names each table's game, and the podium."""

from __future__ import annotations

import re

from devkit.fake_discord import FakeChannel, FakeMessage, FakeUser
from tests.e2e.helpers.server import Spades

GAME_FOOTER = re.compile(r"-# game ([0-9a-f]+)")
FAST = {"BOT_MOVE_DELAY": "0", "TOURNAMENT_ROUND_PAUSE": "0"}  # the bot_env: no pause between moves or rounds


async def signed_up(spades: Spades, channel: FakeChannel, organiser: FakeUser, players: list[FakeUser],
                    **options: object) -> FakeMessage:
    """A short tournament opened by `organiser` (given Manage Server for it), `players` signed up; its sign-up post."""
    spades.fake.grant_manage_guild(spades.guild, organiser)
    signup = await spades.command(organiser, channel, "tournament new", target=50, mercy=50, **options)
    for user in players:
        assert "You're in" in (await spades.command(user, channel, "tournament join")).content
    return signup


def is_podium(message: FakeMessage) -> bool:
    """The post of the tournament's final standings."""
    return message.content.splitlines()[0].endswith("— final standings") if message.content else False
