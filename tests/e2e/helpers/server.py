"""`Spades`: one server with the bot running as it ships (`python -m bot`) against the fake Discord,
and helpers that act as its members: slash commands, clicks, autocomplete, the record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from devkit.fake_discord import FakeChannel, FakeDiscord, FakeGuild, FakeInteraction, FakeMessage, FakeUser
from devkit.fake_discord.bot_process import BotProcess
from devkit.fake_discord.pytest_plugin import BotRunner

ACK_LIMIT = 1.0  # seconds: every interaction must be acknowledged faster than this
# Fast tables for tests: no pause between hands, panels and tables refreshed 20 times a second, and
# seeded deals so a test plays the same cards every run. The fake enforces Discord's rate limits and
# the bot paces itself as it does against Discord; a test fails if the bot gets a 429 it earned.
TEST_ENV = {"HAND_PAUSE": "0", "REFRESH_INTERVAL": "0.05", "GAME_SEED": "11"}


def name_of(user: FakeUser) -> str:
    return user.global_name or user.username


async def every_card_by_hand(spades: Spades) -> None:
    """Make fast_finish=off the server's default, so that every card of a hand is a player's move
    (for tests that count a hand's moves, or stop before its last card)."""
    admin = spades.member("Admin")
    spades.fake.grant_manage_guild(spades.guild, admin)
    answer = await spades.command(admin, spades.channel("settings"), "settings", rules="fast_finish=off")
    assert answer.ephemeral and "`fast_finish` = off" in answer.content, answer.content


class Spades:
    """A server with the bot in it, and helpers that act as its members."""

    def __init__(self, fake: FakeDiscord, runner: BotRunner, db_path: Path, *, shard: int | None = None,
                 shard_count: int | None = None) -> None:
        self.fake = fake
        self.runner = runner
        self.db_path = db_path
        self.bot: BotProcess | None = None
        self.owner = fake.create_user("Owner")
        self.guild: FakeGuild = fake.create_guild("Spades Club", self.owner, shard=shard, shard_count=shard_count)
        self.clicks = 0

    def member(self, name: str) -> FakeUser:
        user = self.fake.create_user(name)
        self.fake.add_member(self.guild, user)
        return user

    def channel(self, name: str) -> FakeChannel:
        return self.fake.create_channel(self.guild, name)

    async def start_bot(self, extra_env: dict[str, str] | None = None) -> BotProcess:
        self.bot = await self.runner(db_path=self.db_path, extra_env={**TEST_ENV, **(extra_env or {})})
        return self.bot

    # ----------------------------------------------------------------- what members do
    async def command(self, user: FakeUser, channel: FakeChannel, sub: str, /, **options: Any) -> FakeMessage:
        """`/spades <sub> option:value …`; returns the bot's answer (it must answer with a message)."""
        inter = await self.fake.send_slash_command(user, channel, "spades", subcommand=sub, options=options)
        return await self._answer(inter)

    async def click(self, user: FakeUser, message: FakeMessage, custom_id: str) -> FakeMessage:
        self.clicks += 1
        inter = await self.fake.click_button(user, message, custom_id)
        return await self._answer(inter)

    async def choices(self, user: FakeUser, channel: FakeChannel, sub: str, option: str, typed: str) -> list[str]:
        """What autocomplete offers while `user` types `typed` into `option`."""
        inter = await self.fake.send_autocomplete(user, channel, "spades", subcommand=sub,
                                                  options={option: typed}, focused=option)
        response = await self.fake.wait_for_response(inter)
        assert response.type == 8, response
        return [str(c["value"]) for c in response.choices]

    async def _answer(self, inter: FakeInteraction) -> FakeMessage:
        response = await self.fake.wait_for_response(inter)
        assert response.message is not None, f"{inter} was answered without a message: {response}"
        return response.message

    async def record(self, user: FakeUser, channel: FakeChannel, game: str | None = None) -> dict[str, Any]:
        """`/spades record`: the attached JSON document."""
        options = {"game": game} if game else {}
        answer = await self.command(user, channel, "record", **options)
        [attachment] = answer.attachments
        assert attachment.filename.endswith(".json")
        document: dict[str, Any] = json.loads(attachment.data)
        return document

    # ----------------------------------------------------------------- checks
    def assert_acknowledged(self) -> None:
        """Every interaction got an answer, each in under ACK_LIMIT seconds."""
        unanswered = [i for i in self.fake.interactions.values() if i.response is None]
        assert not unanswered, f"interactions never acknowledged: {unanswered}"
        assert self.fake.ack_latencies, "no interaction was acknowledged"
        slowest = max(self.fake.ack_latencies)
        assert slowest < ACK_LIMIT, f"slowest acknowledgement {slowest:.3f}s"


def refused(message: FakeMessage, *phrases: str) -> None:
    """An ephemeral refusal in plain words that contains each of `phrases`."""
    assert message.ephemeral, f"a refusal must be ephemeral: {message}"
    for phrase in phrases:
        assert phrase in message.text, f"{phrase!r} not in {message.text!r}"
    assert "Something went wrong" not in message.text, message.text


async def settled(spades: Spades, message: FakeMessage, what: str, timeout: float = 30.0) -> str:
    """The text of a private answer once it is final (a 'thinking' placeholder or a note replaced)."""
    await spades.fake.wait_until(lambda: not message.loading and not message.text.startswith("🔎"), timeout, what,
                                 lambda: message.text)
    return message.text


async def game_over_message(spades: Spades, channel: FakeChannel) -> FakeMessage:
    return await spades.fake.wait_for_message(channel, lambda m: m.content.startswith("## 🏆"))

