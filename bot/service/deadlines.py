"""A game's next timer, one type per thing that happens when it comes due.

The service matches on these types; the store keeps a deadline as a (kind, at) pair, and only the
kinds that must outlive a restart (a person's turn, an idle lobby). `to_stored` and `from_stored`
convert at that boundary, so no kind is ever spelled as a string anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.store import Deadline


@dataclass(frozen=True, slots=True)
class Timer:
    """Something due at unix time `at`."""

    at: float


@dataclass(frozen=True, slots=True)
class ComputerMove(Timer):
    """A computer player's turn: it moves after a short pause, so people can follow the table."""


@dataclass(frozen=True, slots=True)
class NextDeal(Timer):
    """The last trick of a hand stays up a moment before the next hand is dealt."""


@dataclass(frozen=True, slots=True)
class Retry(Timer):
    """What a failed save left undone (a computer's move, a deal, finishing the game) is tried again."""


@dataclass(frozen=True, slots=True)
class Remind(Timer):
    """A person whose turn it is hears that the table is waiting for them."""


@dataclass(frozen=True, slots=True)
class Takeover(Timer):
    """A person who didn't act after the reminder: a computer player moves for them."""


@dataclass(frozen=True, slots=True)
class LobbyExpiry(Timer):
    """A lobby nobody started closes by itself."""


_STORED_KINDS: dict[type[Timer], str] = {Remind: "remind", Takeover: "takeover", LobbyExpiry: "expire"}
_BY_KIND = {kind: timer_type for timer_type, kind in _STORED_KINDS.items()}


def to_stored(timer: Timer | None) -> Deadline | None:
    """What the store keeps of a timer: a person's and a lobby's survive restarts; the rest are simply redone."""
    kind = _STORED_KINDS.get(type(timer)) if timer is not None else None
    return Deadline(kind, timer.at) if kind is not None and timer is not None else None


def from_stored(deadline: Deadline | None) -> Timer | None:
    """The timer a stored deadline stands for (a kind this version doesn't keep is no timer)."""
    timer_type = _BY_KIND.get(deadline.kind) if deadline is not None else None
    return timer_type(deadline.at) if timer_type is not None and deadline is not None else None
