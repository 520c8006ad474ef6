"""The modes in words: how each one deals, and what the duo draw tells the table and the player.

Kept apart from `render` (which stays the one place for the common texts) so a mode's words are
found together; `render` calls in here where a mode changes what it says.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.discord_ui.text import NBSP, SEP
from bot.engine import Mode, Rules, SeatView, TableView, card_label
from bot.engine.modes import tricks_for

# Options that mean nothing in a mode: not listed in its rules nor its lobby line.
NOT_IN_MODE: dict[Mode, frozenset[str]] = {
    Mode.DUO: frozenset({"blind_nil", "blind_nil_deficit", "blind_nil_value", "blind_bids"}),  # the draw shows all
}

SIX_TEAMS = {"solo": "each for themselves", "pairs": "in three pairs (seats 1+4, 2+5, 3+6)",
             "trios": "in two teams of three (seats 1, 3, 5 against 2, 4, 6)"}

DRAW_WAYS = "**Keep** or **Discard** on your panel, or type `/spades draw keep:yes` or `keep:no`"


def deal_text(mode: Mode, rules: Rules) -> str:
    """Who plays and how the cards come, in a few words."""
    return {
        Mode.CUTTHROAT: f"3 players, each for themselves, {tricks_for(mode, rules)} cards each",
        Mode.SOLO: "4 players, each for themselves, 13 cards each",
        Mode.PARTNERS: "4 players in two teams (partners sit opposite), 13 cards each",
        Mode.DUO: ("2 players, each for themselves; no deal: in turn each draws a card and keeps it "
                   "(discarding the next unseen) or discards it (keeping the next), 13 cards each"),
        Mode.FIVE: "5 players, each for themselves, 2♦ and 2♥ removed, 10 cards each",
        Mode.SIX: f"6 players, {SIX_TEAMS[rules.teams]}; two decks without their 2♣, 17 cards each; of two "
                  f"identical cards on a trick the {rules.identical} played ranks higher",
    }[mode]


def not_in_mode(mode: Mode | None, name: str) -> bool:
    return mode is not None and name in NOT_IN_MODE.get(mode, frozenset())


def draw_line(names: Sequence[str], table: TableView) -> str:
    """The table's line during the draw: who draws, and how much of the stock is left."""
    assert table.turn is not None
    return f"▶ **{names[table.turn]}** to draw{SEP}{table.stock_left}{NBSP}cards left in the stock"


def draw_status(view: SeatView) -> str:
    """The panel's line during the draw: the card drawn on the player's turn, and both ways to answer."""
    if view.drawn is None:
        return "Not your turn yet: this panel lights up when it's yours to draw. The table shows the draw."
    return (f"**You drew {card_label(view.drawn)}.** Keep it (the next card is discarded unseen by the others) "
            f"or discard it (and keep the next card): {DRAW_WAYS}.")


def discards_text(view: SeatView) -> str:
    """The player's own discards, for their panel only."""
    return f"-# Discarded: {' '.join(card_label(c) for c in view.discards)}" if view.discards else ""
