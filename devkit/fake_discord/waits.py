"""What a person sees (visible messages, transcripts) and the wait helpers tests await.

The read side of the fake: it only looks at state and sleeps on `notify`, never changes the world.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TypeVar

from .jsontypes import JSON
from .models import FakeChannel, FakeGuild, FakeInteraction, FakeMessage, FakeResponse, FakeUser, new_snowflake
from .records import FakeDiscordTimeout
from .transcript import messages_seen, render_transcript
from .world import World

T = TypeVar("T")


class Waits(World):
    """Read what users see and wait, with a timeout that says what was awaited, for the bot to act."""

    # ================================================================== what a person sees

    def visible_messages(self, user: FakeUser, channel: FakeChannel, *, since: int | None = None) -> list[FakeMessage]:
        """What `user` sees in `channel`: public messages and their own ephemerals, not deleted,
        oldest first; `since` a `checkpoint()`. Empty if they cannot view the channel."""
        return messages_seen(self, user, [channel], since=since)

    def messages_for(
        self, user: FakeUser, since: int | None = None, *, include_deleted: bool = False
    ) -> list[FakeMessage]:
        """Messages created after `since` that `user` sees anywhere (public ones in channels they
        can view, ephemerals shown to them, DMs to them), excluding their own, oldest first.
        `include_deleted` also counts those deleted since (they did appear)."""
        seen = messages_seen(self, user, since=since, include_deleted=include_deleted)
        return [msg for msg in seen if msg.author.id != user.id]

    def new_messages_for(self, user: FakeUser, since: int, *, include_deleted: bool = False) -> int:
        """How many messages reached `user` since checkpoint `since` (see `messages_for`)."""
        return len(self.messages_for(user, since, include_deleted=include_deleted))

    def transcript(
        self,
        user: FakeUser,
        channel: FakeChannel | None = None,
        *,
        since: int | None = None,
        width: int = 100,
        actions: bool = True,
    ) -> str:
        """A readable plain-text transcript of what `user` sees in `channel` (everywhere, DMs
        included, when None): each message with its time offset, author, content with edits
        applied, buttons as [Label] or (Label) when disabled, V2 layouts, attachments, and
        ephemerals marked; with `actions`, the user's own commands, clicks and modals too."""
        return render_transcript(self, user, channel, since=since, width=width, actions=actions)

    # ================================================================== wait helpers

    def checkpoint(self) -> int:
        """A marker: pass as `after=` to wait only for messages created from now on."""
        return new_snowflake()

    async def wait_until(
        self,
        condition: Callable[[], T | None],
        timeout: float = 5.0,
        what: str = "condition",
        describe: Callable[[], str] | None = None,
    ) -> T:
        """Re-check `condition` on every fake state change until it returns a truthy value."""
        deadline = time.monotonic() + timeout
        while True:
            result = condition()
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                extra = f"\n{describe()}" if describe is not None else ""
                errors = "".join(f"\n  recorded error: {e}" for e in self.errors)
                raise FakeDiscordTimeout(f"timed out after {timeout}s waiting for {what}{extra}{errors}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.1))

    async def wait_for_response(self, interaction: FakeInteraction, timeout: float = 5.0) -> FakeResponse:
        """The interaction's initial response (type 4/5/6/7/8/9)."""
        return await self.wait_until(
            lambda: interaction.response, timeout, f"a response to {interaction}", self._describe_gateway
        )

    async def wait_for_original(
        self,
        interaction: FakeInteraction,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
    ) -> FakeMessage:
        """The @original message once it is no longer a 'thinking' placeholder (and matches)."""

        def check() -> FakeMessage | None:
            msg = interaction.original
            if msg is None or msg.loading or msg.deleted:
                return None
            return msg if predicate is None or predicate(msg) else None

        return await self.wait_until(
            check,
            timeout,
            f"the original response of {interaction}",
            lambda: f"original: {interaction.original}",
        )

    async def wait_for_followup(
        self,
        interaction: FakeInteraction,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
    ) -> FakeMessage:
        def check() -> FakeMessage | None:
            for msg in interaction.followups:
                if not msg.deleted and (predicate is None or predicate(msg)):
                    return msg
            return None

        return await self.wait_until(
            check, timeout, f"a follow-up to {interaction}", lambda: f"follow-ups: {interaction.followups}"
        )

    def _message_finder(
        self,
        channel: Callable[[], FakeChannel | None],
        predicate: Callable[[FakeMessage], bool] | None,
        after: FakeMessage | int | None,
        include_ephemeral: bool,
    ) -> Callable[[], FakeMessage | None]:
        after_id = after.id if isinstance(after, FakeMessage) else (after or 0)

        def check() -> FakeMessage | None:
            ch = channel()
            if ch is None:
                return None
            for msg in list(ch.messages.values()):
                if msg.id <= after_id or msg.deleted or msg.loading:
                    continue
                if msg.ephemeral and not include_ephemeral:
                    continue
                if predicate is None or predicate(msg):
                    return msg
            return None

        return check

    def _describe_gateway(self) -> str:
        gw = self.gateway
        sessions = ", ".join(repr(s) for s in gw.live_sessions())
        return (
            f"gateway: connected={gw.connected} identifies={gw.identify_count} resumes={gw.resume_count} "
            f"intents={gw.intents} sessions=[{sessions}]"
        )

    @staticmethod
    def _describe_channel(channel: FakeChannel | None) -> str:
        if channel is None:
            return "no such channel yet"
        recent = list(channel.messages.values())[-10:]
        return "recent messages:\n" + "\n".join(f"  {msg}" for msg in recent)

    async def wait_for_message(
        self,
        channel: FakeChannel,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
        *,
        after: FakeMessage | int | None = None,
        include_ephemeral: bool = False,
    ) -> FakeMessage:
        """First (oldest) live message in `channel` matching `predicate`, created after `after`."""
        check = self._message_finder(lambda: channel, predicate, after, include_ephemeral)
        return await self.wait_until(check, timeout, f"a message in {channel}", lambda: self._describe_channel(channel))

    async def wait_for_dm(
        self,
        user: FakeUser,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
        *,
        after: FakeMessage | int | None = None,
    ) -> FakeMessage:
        """A message the bot sent to `user` in their DM channel."""
        check = self._message_finder(lambda: self.dm_channels.get(user.id), predicate, after, False)
        return await self.wait_until(
            check,
            timeout,
            f"a DM to {user}",
            lambda: self._describe_channel(self.dm_channels.get(user.id)),
        )

    async def wait_for_commands(self, guild: FakeGuild | None = None, timeout: float = 5.0) -> list[JSON]:
        """Wait until the bot registered at least one command (globally, or in `guild`)."""
        return await self.wait_until(
            lambda: self.registered_commands(guild), timeout, f"command registration ({guild or 'global'})"
        )

    async def wait_for_ready(
        self, timeout: float = 5.0, *, count: int = 1, shard: int | None = None, shard_count: int | None = None
    ) -> None:
        """Wait until READY was sent `count` times in total (one per IDENTIFY), or, with `shard`,
        `count` times to sessions of that shard (of `shard_count` when given)."""
        if shard is None:
            await self.wait_until(lambda: self.gateway.ready_count >= count, timeout, f"READY #{count}")
            return
        await self.wait_until(
            lambda: self.gateway.ready_count_for(shard, shard_count) >= count,
            timeout,
            f"READY #{count} on shard {shard}",
            self._describe_gateway,
        )

    async def wait_for_resume(self, timeout: float = 5.0) -> None:
        """Wait for a successful RESUME after the last `drop_gateway` / `send_gateway_reconnect`."""
        baseline = self._resume_baseline
        await self.wait_until(lambda: self.gateway.resume_count > baseline, timeout, "a gateway RESUME")
