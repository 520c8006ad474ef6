"""Failure injection: forced errors and 429s, revoked permissions, closed DMs, expired tokens,
dropped gateway sessions.

Kept in one place so a test's faults read as one vocabulary; the REST plumbing consults them.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

from . import models as m
from .models import FakeChannel, FakeInteraction, FakeMessage, FakeUser
from .ratelimits import Storm
from .records import DEFAULT_FAILURE_MESSAGES, FailureRule, template_regex
from .world import World


class Faults(World):
    """Make the fake misbehave the ways Discord does, so tests can watch the bot cope."""

    # ================================================================== failure injection

    def fail_dms_for(self, user: FakeUser, closed: bool = True) -> None:
        """DMs to `user` fail with 403 / 50007 'Cannot send messages to this user'."""
        user.dms_closed = closed

    def rate_limit_next(
        self,
        method: str,
        route_pattern: str,
        *,
        retry_after: float = 0.05,
        is_global: bool = False,
        scope: str = "user",
        times: int = 1,
    ) -> None:
        """Answer the next `times` matching requests with a Discord-shaped 429.

        `route_pattern` is a path under /api/v10 with `{placeholders}` for one segment and
        `*` for anything, e.g. '/channels/{channel_id}/messages'; method '*' matches all.
        """
        pattern = route_pattern.removeprefix("/api/v10")
        self.limits.limit_next(method.upper(), template_regex(pattern), retry_after, is_global, scope, times)

    def force_429(self, scope: str = "global", seconds: float = 5.0, *, retry_after: float | None = None) -> Storm:
        """For `seconds`, answer every call that counts against the global limit (not interaction
        callbacks or webhooks) with a 429 of `scope` ("global", or "user"/"shared" for a route's).

        `retry_after` None: each 429 says to wait until the storm is over (discord.py retries once,
        then succeeds); shorter, the client retries until it gives up (discord.py: after 5 tries,
        HTTPException 429). `storm.cancel()` ends it early; `storm.hits` counts its 429s.
        """
        return self.limits.storm(seconds, scope, retry_after)

    def force_429_on_message(
        self,
        message: FakeMessage | int,
        seconds: float = 10.0,
        *,
        scope: str = "shared",
        retry_after: float | None = None,
    ) -> Storm:
        """For `seconds`, 429 every REST call that reads or changes `message`: channel GET/PATCH/DELETE
        and reactions, and interaction webhook GET/PATCH/DELETE by id or as @original (interaction
        callbacks, UPDATE_MESSAGE included, are never refused). See `force_429` for `retry_after`."""
        message_id = message.id if isinstance(message, FakeMessage) else message
        return self.limits.storm(seconds, scope, retry_after, message_id=message_id)

    def force_429_on_token(
        self,
        interaction: FakeInteraction | str,
        seconds: float = 10.0,
        *,
        scope: str = "user",
        retry_after: float | None = None,
    ) -> Storm:
        """For `seconds`, 429 every webhook call made with the interaction's token (follow-ups, edits,
        deletes, gets; not its callback). See `force_429` for `retry_after`."""
        token = interaction.token if isinstance(interaction, FakeInteraction) else interaction
        return self.limits.storm(seconds, scope, retry_after, token=token)

    @property
    def calls_by_kind(self) -> Counter[str]:
        """Every REST request received, by kind (ratelimits.kind_of), 429'd ones included."""
        return self.limits.calls

    @property
    def global_calls(self) -> int:
        """REST requests that counted against the global limit (every one but interaction endpoints)."""
        return self.limits.global_calls

    def count_429s(self, scope: str | None = None) -> int:
        """429s answered (by any limit or forced), of one scope ("global", "user", "shared") or all."""
        return sum(self.limits.limited.values()) if scope is None else self.limits.limited[scope]

    def earned_429s(self) -> int:
        """429s the limits answered because the bot went over them (forced ones left out)."""
        return self.count_429s() - self.limits.forced

    def rate_limit_summary(self) -> dict[str, Any]:
        """Calls by kind, globally counted calls, 429s by scope and counted calls per interaction."""
        return self.limits.summary(len(self.interactions))

    def fail_requests(
        self,
        method: str,
        route_pattern: str,
        status: int,
        code: int = 0,
        message: str | None = None,
        *,
        times: int | None = None,
        seconds: float | None = None,
    ) -> FailureRule:
        """Answer matching REST calls with a Discord-shaped error `{"message", "code"}` and `status`.

        For the next `times` matching requests and/or for `seconds` from now (whichever ends
        first; with neither, until `rule.cancel()` or `clear_failures()`). `route_pattern` is as
        for `rate_limit_next`. These answers are expected, so they are not protocol errors.
        Note discord.py itself retries 500, 502, 504 (and 524) up to 5 tries in all, sleeping
        1, 3, 5, 7 s between them, then raises DiscordServerError; 503 is raised at once.
        """
        if times is not None and times < 1:
            raise ValueError("times must be at least 1")
        pattern = route_pattern.removeprefix("/api/v10")
        rule = FailureRule(
            method.upper(),
            pattern,
            template_regex(pattern),
            status,
            code,
            message if message is not None else DEFAULT_FAILURE_MESSAGES.get(status, f"{status}: Error"),
            remaining=times,
            until=None if seconds is None else time.monotonic() + seconds,
        )
        self._failures.append(rule)
        return rule

    def clear_failures(self) -> None:
        """Cancel every `fail_requests` rule."""
        for rule in self._failures:
            rule.cancel()
        self._failures.clear()

    def _take_failure(self, method: str, path: str) -> FailureRule | None:
        self._failures = [r for r in self._failures if r.active]
        for rule in self._failures:
            if rule.matches(method, path):
                rule.hits += 1
                if rule.remaining is not None:
                    rule.remaining -= 1
                return rule
        return None

    def revoke_bot_permissions(self, channel: FakeChannel, permissions: int = m.SEND_MESSAGES) -> None:
        """Deny the bot `permissions` in `channel` through a member overwrite (CHANNEL_UPDATE is dispatched)."""
        own = channel.overwrites.get(self.bot_user.id)
        allow, deny = (own.allow, own.deny) if own is not None else (0, 0)
        self.set_channel_overwrite(channel, self.bot_user, allow=allow & ~permissions, deny=deny | permissions)

    def restore_bot_permissions(self, channel: FakeChannel, permissions: int = m.SEND_MESSAGES) -> None:
        """Undo `revoke_bot_permissions`: the bot's overwrite stops denying `permissions` (and goes if empty)."""
        own = channel.overwrites.get(self.bot_user.id)
        if own is None:
            return
        if own.allow == 0 and own.deny & ~permissions == 0:
            self.remove_channel_overwrite(channel, self.bot_user)
        else:
            self.set_channel_overwrite(channel, self.bot_user, allow=own.allow, deny=own.deny & ~permissions)

    def expire_token(self, interaction: FakeInteraction) -> None:
        """End the interaction token's life now, as if `token_lifetime` (15 minutes) had passed."""
        interaction.token_expires_at = time.monotonic()

    async def drop_gateway(self, code: int = 4000, *, shard: int | None = None) -> None:
        """Close the bot's websocket (the newest session's, or shard `shard`'s) without invalidating
        the session: it should RESUME."""
        self._resume_baseline = self.gateway.resume_count
        await self.gateway.drop(code, shard=shard)
        self.notify()

    def send_gateway_reconnect(self, *, shard: int | None = None) -> None:
        """Send op 7 RECONNECT: the bot should reconnect and RESUME."""
        self._resume_baseline = self.gateway.resume_count
        self.gateway.send_reconnect(shard=shard)

    def invalidate_session(self, resumable: bool = False, *, shard: int | None = None) -> None:
        """Send op 9 INVALID_SESSION; the bot should IDENTIFY again (or RESUME if resumable)."""
        self._resume_baseline = self.gateway.resume_count
        self.gateway.invalidate(resumable, shard=shard)
