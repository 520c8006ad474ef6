"""What tells one version of the rule-based player from another, so earlier versions stay playable.

Today's ``normal`` and the frozen yardstick ``normal-v1`` run the same code; the habits switch the
few decisions that changed between them. The hard player's rollouts use today's habits.
"""

from __future__ import annotations

from typing import NamedTuple


class Habits(NamedTuple):
    # Blind nil only where the chance model gives it a real chance (v1: whenever far behind late on).
    blind_nil_by_chance: bool
    # Open nil by per-mode risk limits, never beside a partner's nil (v1: almost never outside partners).
    careful_nil: bool
    # Nil play: the bidder ducks under later cards, the partner covers cheaply.
    nil_play: bool
    # Set an opponent's clean nil by playing low before the nil bidder: in partners even at the cost
    # of our own contract (a set nil is a 200-point swing), alone once our contract is safe.
    nil_attack: bool
    # Cutthroat bids closer to the expected tricks (v1: a wide margin, many bags).
    closer_cutthroat_bids: bool


FIRST = Habits(*[False] * len(Habits._fields))  # normal-v1: none of them
CURRENT = Habits(*[True] * len(Habits._fields))
VERSIONS = {1: FIRST, 2: CURRENT}
