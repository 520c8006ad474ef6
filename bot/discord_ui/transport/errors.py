"""What a failed call to Discord means, in one place: the errors the callers catch, and the one
retry policy they all follow (`Backoff`)."""

from __future__ import annotations

import random
from collections.abc import Callable
from enum import Enum
from typing import Any

import aiohttp
import discord
import orjson

from bot.discord_ui.transport.http import Reply
from bot.discord_ui.transport.limits import BAN_DEFAULT, rate_limit_answer, seconds_in

NO_ACCESS = (50001, 50013)  # missing access, missing permissions
UNKNOWN_CHANNEL = 10003
THREAD_ARCHIVED = 50083  # an edit in a thread archived since: a new post reopens it
ALREADY_ANSWERED = 40060  # an interaction acknowledged already: a repeated callback took effect before
RETRY_FIRST, RETRY_MAX = 1.0, 60.0
NETWORK = (aiohttp.ClientError, OSError)  # OSError: a dropped connection, a timeout, `Unanswered`


class Held(Exception):
    """The call was not made: Discord's edge banned the bot for a while, or the invalid-request
    breaker is open (see `transport.limits`)."""


CALL_FAILED = (discord.HTTPException, Held, *NETWORK)  # whatever a call to Discord may raise


class TooManyRequests(discord.HTTPException):
    """A 429 of a bucket or the global limit, with how long Discord asked to wait: nothing is sent
    there again before."""

    def __init__(self, response: Any, data: Any, retry_after: float) -> None:
        super().__init__(response, data)  # it reads only the status and reason
        self.retry_after = retry_after


def error_for(reply: Reply) -> discord.HTTPException:
    """The exception discord.py would raise for this answer (a 429: `TooManyRequests`)."""
    try:
        data: Any = orjson.loads(reply.body)
    except orjson.JSONDecodeError:
        data = reply.body.decode(errors="replace")
    response: Any = reply  # discord.py's errors read its status and reason
    if reply.status == 429:
        answer = rate_limit_answer(reply.headers, reply.body)
        if answer is None:  # a ban: the transport holds every call until it ends
            return TooManyRequests(response, "banned by Discord's edge", seconds_in(reply.headers.get("retry-after"),
                                                                                  BAN_DEFAULT))
        return TooManyRequests(response, answer, float(answer["retry_after"]))
    if reply.status == 404:
        return discord.NotFound(response, data)
    if reply.status == 403:
        return discord.Forbidden(response, data)
    if reply.status >= 500:
        return discord.DiscordServerError(response, data)
    return discord.HTTPException(response, data)


class Fault(Enum):
    LIMITED = "rate limited"  # try again exactly when Discord said
    PASSING = "passing"  # a 5xx, the network: try again with backoff
    NO_ACCESS = "no access"  # the channel is closed to the bot: an admin may open it again
    GONE = "gone"  # 404: the channel or message is no more
    REFUSED = "refused"  # any other refusal, or a call held back: trying again won't help


def fault(error: BaseException) -> Fault:
    if isinstance(error, TooManyRequests):
        return Fault.LIMITED
    if isinstance(error, Held):
        return Fault.REFUSED
    if isinstance(error, discord.NotFound):
        return Fault.GONE
    if isinstance(error, discord.Forbidden):
        return Fault.NO_ACCESS if error.code in NO_ACCESS else Fault.REFUSED
    if isinstance(error, (discord.DiscordServerError, TimeoutError, *NETWORK)) \
            or (isinstance(error, discord.HTTPException) and error.status == 429):
        return Fault.PASSING
    return Fault.REFUSED


def describe(error: BaseException) -> str:
    """A failure in a few words for the log (never a whole error page)."""
    if isinstance(error, discord.HTTPException):
        return f"{error.status} {error.response.reason}" + (f" (code {error.code})" if error.code else "")
    return f"{type(error).__name__}: {error}"[:200]


def passing(error: BaseException) -> bool:
    """A failure that goes away by itself: a rate limit, a 5xx, the network."""
    return fault(error) in (Fault.LIMITED, Fault.PASSING)


class Backoff:
    """The one retry policy: a 429 is honoured to the letter (tried again then, no sooner, no later);
    other passing faults wait twice as long each time up to `most`, with jitter (half to all of the
    step) so that games failing together don't retry together."""

    def __init__(self, first: float = RETRY_FIRST, most: float = RETRY_MAX,
                 jitter: Callable[[], float] = random.random) -> None:
        self.first, self.most, self._jitter = first, most, jitter
        self._step = 0.0

    def delay(self, error: BaseException) -> float:
        """Seconds to wait before trying again after `error` (a passing fault or a 429)."""
        if isinstance(error, TooManyRequests):
            return error.retry_after
        self._step = min(max(self._step * 2, self.first), self.most)
        return self._step * (0.5 + self._jitter() / 2)

    def reset(self) -> None:
        self._step = 0.0
