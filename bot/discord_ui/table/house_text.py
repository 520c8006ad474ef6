"""The house rules in plain words: one table of descriptions (`HOUSE_RULES`) from which the lobby,
`/spades rules` and the hand summaries say what is in force and what it changes in scoring.

A house rule's option is described only when it differs from the standard game; another option
joins the list by adding its line to the table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.engine import Rules, TableView
from bot.engine.bidding_rules import BLIND_BID_MAX
from bot.engine.contracts import OVERTRICK_POINTS, TEN_FOR_200, seven_bonus
from bot.engine.events import BidMade
from bot.engine.game import LAST_TRICK_BONUS, HandResult

_BIDDING = {
    "whiz": "**Whiz:** bid exactly your spades, or nil; no blind bids. With no spades, the bot bids your nil.",
    "mirrors": "**Mirrors:** bid exactly your spades (nil with none); no blind bids. The bot makes every bid.",
    "suicide": "**Suicide:** in each team one player bids nil and the other at least 4; if the first "
               "doesn't bid nil, the bot bids it for the second.",
    "fredieu": "**Fredieu:** every bid is nil, blind nil, or at least 4.",
}
_OVERTRICKS = {
    "none": "**No overs:** tricks over the contract score nothing, and bags cost nothing.",
    "negative": "**Negative overtricks:** −1 for each trick over the contract; no bag penalty.",
    "quicksand": "**Quicksand:** −10 for each trick over the contract; a set loses 10 a missing trick "
                 "(not a trick bid); no bag penalty.",
}

_TRUMPS = {
    "deuces_high": "**Deuces high:** the four 2s are the top spades, 2♠ 2♦ 2♣ 2♥ above the A♠; a 2♦, 2♣ "
                   "or 2♥ is a spade (it follows spades, trumps, breaks spades).",
    "jokers_deuces": "**Jokers & deuces:** big joker, little joker, 2♠ and 2♦ are the top spades, above the "
                     "A♠; the 2♦ is a spade. 2♣ and 2♥ are out (cutthroat keeps them: 18 cards each).",
}

HOUSE_RULES: dict[str, Callable[[Rules], str]] = {
    "bidding": lambda r: _BIDDING[r.bidding],
    "min_bid": lambda r: f"**Least bid {r.min_bid}:** a contract (a team's, in team modes) is at least "
                         f"{r.min_bid} tricks; nil aside.",
    "ten_for_200": lambda r: f"**10 for 200:** a contract of exactly 10 scores **+200** made (tricks over 10 "
                             f"are overtricks), **−{r.ten_for_200_loss}** set.",
    "moon": lambda r: "**Moon:** bid every trick and take them all to **win the game at once**; short of "
                      "that it scores as a set. No moon after a double nil, nor a double nil after a moon.",
    "double_nil": lambda r: "**Double nil:** both partners on nil score twice their nil values if both make "
                            "it, and nothing either way if one fails.",
    "blind_bids": lambda r: f"**Trailing blind bids:** {r.blind_nil_deficit}+ points behind, bid blind 1–"
                            f"{BLIND_BID_MAX} before looking: **+20** a trick bid made (no bags), −10 a "
                            "trick bid set.",
    "overtricks": lambda r: _OVERTRICKS[r.overtricks],
    "double_back": lambda r: "**Double back:** take twice your contract or more and score **−20** a trick "
                             "bid instead.",
    "seven_bonus": lambda r: "**Seven or more:** a made contract of 7+ scores **+10** more for each trick "
                             "bid above 6.",
    "last_trick": lambda r: f"**Last trick:** **+{LAST_TRICK_BONUS}** to whoever takes the last trick.",
    "trumps": lambda r: _TRUMPS[r.trumps],
}


# Every option the lines above describe (a line says the value of its companions, such as the loss).
HOUSE_OPTIONS = frozenset(HOUSE_RULES) | {"ten_for_200_loss"}


def house_rule_lines(rules: Rules) -> list[str]:
    """A line for each house rule in force, in the table's order."""
    standard = Rules()
    return [describe(rules) for name, describe in HOUSE_RULES.items()
            if getattr(rules, name) != getattr(standard, name)]


def blind_offer(rules: Rules) -> str:
    """What a player far enough behind may bid before looking, in words."""
    offers = [f"**blind nil** (±{rules.blind_nil_value})"] if rules.blind_nil else []
    if rules.blind_bids:
        offers.append(f"a **blind bid** of 1–{BLIND_BID_MAX} (+20 a trick made, −10 a trick set)")
    return " or ".join(offers)


def forced_line(table: TableView, names: Sequence[str]) -> str | None:
    """The bids of this hand the bot made because the rules left no choice, said once on the table."""
    hand = table.hands[-1] if table.hands else None
    forced = [b for b in hand.bids if b.forced] if hand is not None else []
    if not forced:
        return None
    said = " · ".join(f"{names[b.seat]} {'nil' if b.bid == 0 else b.bid}" for b in forced)
    return f"-# Bid by the bot, the only bid the rules left ({table.rules.bidding}): {said}"


def scoring_notes(rules: Rules, bids: Sequence[BidMade], result: HandResult, members: Sequence[int],
                  last_winner: int | None) -> list[str]:
    """What the house rules did to one side's score this hand, e.g. ``+10 last trick``."""
    mine = [b for b in bids if b.seat in members]
    contract = sum(b.bid for b in mine)
    blind = sum(b.bid for b in mine if b.blind)
    taken = sum(result.tricks_won[b.seat] for b in mine if b.bid or rules.nil_tricks_help_partner)
    notes = []
    if rules.double_nil == "double" and len(mine) > 1 and not contract:
        notes.append("double nil")
    if contract and taken >= contract:
        over = taken - contract
        if blind:
            notes.append(f"+{20 * blind} blind")
        elif rules.ten_for_200 and contract == TEN_FOR_200:
            notes.append("10 for 200")
        elif rules.double_back and taken >= 2 * contract:
            notes.append("double back")
        elif seven_bonus(rules, contract):
            notes.append(f"+{seven_bonus(rules, contract)} seven or more")
        if over and not blind and rules.overtricks in ("negative", "quicksand"):
            notes.append(f"{OVERTRICK_POINTS[rules.overtricks] * over} overtricks")
    elif contract and rules.ten_for_200 and contract == TEN_FOR_200 and not blind:
        notes.append("10 for 200 set")
    if rules.last_trick and last_winner in members:
        notes.append(f"+{LAST_TRICK_BONUS} last trick")
    return notes


def notes_text(notes: list[str]) -> str:
    return f" ({', '.join(notes)})" if notes else ""
