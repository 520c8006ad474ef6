"""Buttons: the custom_id names the game and the action, never the user, so every button still works
after a restart and identity always comes from the interaction itself.

Views are sent, never kept. They are built straight as Discord's component payload, and a click is
routed by parsing its custom_id (`parse_button`), not by rebuilding the clicked message's view:
under load, discord.py's per-button objects for every hand panel sent and every click received were
a fifth of the bot's CPU and most of its garbage-collector work.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import discord

from bot.engine import Card, Phase, SeatView, card_label, display_sorted
from bot.service import LiveGame

LOBBY_ACTIONS = {"join": "Join", "leave": "Leave", "addbot": "Add bot", "start": "Start", "cancel": "Cancel"}
RED_SUITS = (1, 2)  # diamonds, hearts
ROW_WIDTH = 5  # Discord's limit of buttons per action row

GAME_ID = re.compile(r"[0-9a-f]{1,32}")
BUTTON_ACTIONS = {  # each kind of button and the actions its custom_id may carry
    "lobby": re.compile("|".join(LOBBY_ACTIONS)),
    "table": re.compile(r"hand|act"),
    "bid": re.compile(r"\d{1,2}|blind"),
    "card": re.compile(r"\d{1,2}"),
    "reveal": re.compile(""),
}


class Click(NamedTuple):
    """What a button's custom_id says: the kind of button, its game, and its action (if any)."""

    kind: str
    game_id: str
    action: str


def parse_button(custom_id: str) -> Click | None:
    """None for anything that isn't one of this bot's buttons (or is from a layout it no longer uses)."""
    parts = custom_id.split(":")
    if len(parts) not in (3, 4) or parts[0] != "spades":
        return None
    kind, game_id, action = parts[1], parts[2], parts[3] if len(parts) == 4 else ""
    actions = BUTTON_ACTIONS.get(kind)
    if actions is None or not GAME_ID.fullmatch(game_id) or not actions.fullmatch(action):
        return None
    return Click(kind, game_id, action)


class Buttons(discord.ui.View):
    """A row-wrapped list of button payloads, stopped at once so discord.py never stores it."""

    def __init__(self, buttons: Sequence[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self.buttons = tuple(buttons)
        self.stop()

    def to_components(self) -> list[dict[str, Any]]:
        return [{"type": 1, "components": list(self.buttons[i:i + ROW_WIDTH])}
                for i in range(0, len(self.buttons), ROW_WIDTH)]


def _button(label: str, custom_id: str, style: discord.ButtonStyle = discord.ButtonStyle.secondary,
            disabled: bool = False) -> dict[str, Any]:
    return {"type": 2, "style": style.value, "label": label, "custom_id": custom_id, "disabled": disabled}


def lobby_button(game_id: str, action: str) -> dict[str, Any]:
    style = {"join": discord.ButtonStyle.success, "start": discord.ButtonStyle.primary,
             "cancel": discord.ButtonStyle.danger}.get(action, discord.ButtonStyle.secondary)
    return _button(LOBBY_ACTIONS[action], f"spades:lobby:{game_id}:{action}", style)


def table_button(game_id: str, action: str, label: str = "My hand") -> dict[str, Any]:
    style = discord.ButtonStyle.primary if action == "act" else discord.ButtonStyle.secondary
    return _button(label, f"spades:table:{game_id}:{action}", style)


def bid_button(game_id: str, bid: str) -> dict[str, Any]:
    label = "Blind nil" if bid == "blind" else "Nil" if bid == "0" else bid
    style = discord.ButtonStyle.danger if bid == "blind" else discord.ButtonStyle.secondary
    return _button(label, f"spades:bid:{game_id}:{bid}", style)


def card_button(game_id: str, card: Card, enabled: bool = True) -> dict[str, Any]:
    red = card < 52 and card // 13 in RED_SUITS
    style = discord.ButtonStyle.danger if red else discord.ButtonStyle.secondary
    return _button(card_label(card), f"spades:card:{game_id}:{card}", style, disabled=not enabled)


def reveal_button(game_id: str) -> dict[str, Any]:
    return _button("Show my cards", f"spades:reveal:{game_id}", discord.ButtonStyle.primary)


def lobby_view(live: LiveGame) -> Buttons | None:
    if live.status != "lobby":
        return None
    return Buttons([lobby_button(live.game_id, action) for action in LOBBY_ACTIONS])


def table_view(live: LiveGame) -> Buttons | None:
    game = live.game
    if game is None or game.is_over or not live.active:
        return None
    buttons = [table_button(live.game_id, "hand")]
    if game.turn is not None:
        buttons.append(table_button(live.game_id, "act", "Bid" if game.phase is Phase.BIDDING else "Play"))
    return Buttons(buttons)


def hidden_view(game_id: str) -> Buttons:
    """Blind nil or Show my cards. Cards are hidden only from a seat that may bid blind nil, so the
    button is there even before its turn: the hand's direct message is sent once, at the deal."""
    return Buttons([bid_button(game_id, "blind"), reveal_button(game_id)])


def bid_view(game_id: str, view: SeatView) -> Buttons:
    """Exactly the legal bids (at most 19, plus blind nil: within 25 buttons)."""
    buttons = [bid_button(game_id, "blind")] if view.can_blind_nil else []
    buttons += [bid_button(game_id, str(bid)) for bid in view.legal_bids]
    return Buttons(buttons)


def hand_view(game_id: str, view: SeatView) -> Buttons | None:
    """The seat's cards as buttons (at most 18, four rows), only legal ones enabled, on its turn."""
    if view.cards_hidden:
        return hidden_view(game_id)
    if not view.hand:
        return None
    legal = set(view.legal_cards)
    buttons = [card_button(game_id, c, c in legal) for c in display_sorted(view.hand)]
    if view.my_turn and view.phase is Phase.BIDDING:
        buttons.append(table_button(game_id, "act", "Bid"))
    return Buttons(buttons)


def dm_view(game_id: str, view: SeatView) -> Buttons | None:
    """The hand's direct message is sent once, at the deal, and never updated, so it carries only
    buttons that stay meaningful: the blind nil choice, or Bid for the first bidder."""
    if view.cards_hidden:
        return hidden_view(game_id)
    if view.my_turn and view.phase is Phase.BIDDING:
        return Buttons([table_button(game_id, "act", "Bid")])
    return None
