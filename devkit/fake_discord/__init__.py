"""A fake Discord (REST + gateway) for end-to-end tests of the bot through the real discord.py.

Typical test (fixtures from `devkit.fake_discord.pytest_plugin`):

    async def test_play(fake_discord, bot_runner):
        alice = fake_discord.create_user("Alice")
        guild = fake_discord.create_guild("Club", alice)
        channel = fake_discord.create_channel(guild, "spades")
        await bot_runner()  # python -m bot, waits for READY + command registration
        inter = await fake_discord.send_slash_command(alice, channel, "spades", subcommand="play")
        response = await fake_discord.wait_for_response(inter)
        assert response.type == 4 and response.message.content == "..."

Beyond that (see each method's docstring):
- Sharding: `FakeDiscord(recommended_shards=n)` for GET /gateway/bot; `create_guild(..., shard=k,
  shard_count=n)` places a guild; `inter.delivered_to` / `inter.shards` tell which sessions got an
  interaction; `gateway.sessions_for(k, n)`, `gateway.ready_count_for(k, n)`,
  `wait_for_ready(shard=k, shard_count=n)`, `drop_gateway(shard=k)`.
- Rate limits (ratelimits.py), off in a bare `FakeDiscord()`, on in the pytest fixture;
  `FakeDiscord(**DISCORD_LIMITS)` enforces Discord's:
  `global_rate` (50 calls a second; interaction callbacks and webhooks exempt) and per-route
  buckets (`route_limits`), with Discord's headers and 429s. Counted either way: `calls_by_kind`,
  `global_calls`, `count_429s(scope)`, `earned_429s()`, `rate_limit_summary()`,
  `RequestRecord.kind`. Forced 429s:
  `force_429(scope, seconds)`, `force_429_on_message(message, seconds)`,
  `force_429_on_token(interaction, seconds)`.
- Faults: `fail_requests(method, pattern, status, code, ...)`, `rate_limit_next(...)`,
  `revoke_bot_permissions(channel)` / `restore_bot_permissions(channel)`, `fail_dms_for(user)`,
  `expire_token(inter)` (tokens live `token_lifetime` = 900 s).
- What a person sees: `visible_messages(user, channel)`, `new_messages_for(user, since)`,
  `transcript(user, channel=None)`; `request_counts` per route.
"""

from .bot_process import BotProcess, bot_environment, run_bot_subprocess
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
from .records import FailureRule, FakeDiscordTimeout, ProtocolError, RequestRecord
from .server import FakeDiscord
from .sessions import GatewaySession

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
