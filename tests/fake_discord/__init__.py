"""A fake Discord (REST + gateway) for end-to-end tests of the bot through the real discord.py.

Typical test (fixtures from `tests.fake_discord.pytest_plugin`):

    async def test_play(fake_discord, bot_runner):
        alice = fake_discord.create_user("Alice")
        guild = fake_discord.create_guild("Club", alice)
        channel = fake_discord.create_channel(guild, "spades")
        await bot_runner()  # python -m bot, waits for READY + command registration
        inter = await fake_discord.send_slash_command(alice, channel, "spades", subcommand="play")
        response = await fake_discord.wait_for_response(inter)
        assert response.type == 4 and response.message.content == "..."
"""

from .bot_process import BotProcess, bot_environment, run_bot_subprocess
from .gateway import GatewaySession
from .models import (
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeResponse,
    FakeRole,
    FakeUser,
)
from .pointing import point_discord_py_at
from .server import FailureRule, FakeDiscord, FakeDiscordTimeout, ProtocolError, RequestRecord

__all__ = [
    "BotProcess",
    "FailureRule",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordTimeout",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeResponse",
    "FakeRole",
    "FakeUser",
    "GatewaySession",
    "ProtocolError",
    "RequestRecord",
    "bot_environment",
    "point_discord_py_at",
    "run_bot_subprocess",
]
