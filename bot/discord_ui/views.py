"""Buttons as DynamicItems: the custom_id names the game and the action, never the user, so every
button still works after a restart and identity always comes from the interaction itself."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord

from bot.engine import Card, Phase, SeatView, card_label, display_sorted
from bot.service import LiveGame

if TYPE_CHECKING:
    from bot.discord_ui.app import SpadesBot

GAME = r"(?P<game>[0-9a-f]{1,32})"
LOBBY_ACTIONS = {"join": "Join", "leave": "Leave", "addbot": "Add bot", "start": "Start", "cancel": "Cancel"}
RED_SUITS = (1, 2)  # diamonds, hearts


def _bot(interaction: discord.Interaction[Any]) -> SpadesBot:
    return interaction.client  # type: ignore[no-any-return]


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=rf"spades:lobby:{GAME}:(?P<action>join|leave|addbot|start|cancel)"):
    def __init__(self, game_id: str, action: str, disabled: bool = False) -> None:
        style = {"join": discord.ButtonStyle.success, "start": discord.ButtonStyle.primary,
                 "cancel": discord.ButtonStyle.danger}.get(action, discord.ButtonStyle.secondary)
        super().__init__(discord.ui.Button(label=LOBBY_ACTIONS[action], style=style, disabled=disabled,
                                           custom_id=f"spades:lobby:{game_id}:{action}"))
        self.game_id, self.action = game_id, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LobbyButton:
        return cls(match["game"], match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).ui.lobby_button(interaction, self.game_id, self.action)


class TableButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                  template=rf"spades:table:{GAME}:(?P<action>hand|act)"):
    def __init__(self, game_id: str, action: str, label: str = "My hand") -> None:
        style = discord.ButtonStyle.primary if action == "act" else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=label, style=style,
                                           custom_id=f"spades:table:{game_id}:{action}"))
        self.game_id, self.action = game_id, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> TableButton:
        return cls(match["game"], match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).ui.table_button(interaction, self.game_id, self.action)


class BidButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                template=rf"spades:bid:{GAME}:(?P<bid>\d{{1,2}}|blind)"):
    def __init__(self, game_id: str, bid: str) -> None:
        label = "Blind nil" if bid == "blind" else "Nil" if bid == "0" else bid
        style = discord.ButtonStyle.danger if bid == "blind" else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=f"spades:bid:{game_id}:{bid}"))
        self.game_id, self.bid = game_id, bid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> BidButton:
        return cls(match["game"], match["bid"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        text = "blind nil" if self.bid == "blind" else self.bid
        await _bot(interaction).ui.bid_button(interaction, self.game_id, text)


class CardButton(discord.ui.DynamicItem[discord.ui.Button[Any]],
                 template=rf"spades:card:{GAME}:(?P<card>\d{{1,2}})"):
    def __init__(self, game_id: str, card: Card, enabled: bool = True) -> None:
        style = discord.ButtonStyle.danger if card < 52 and card // 13 in RED_SUITS else discord.ButtonStyle.secondary
        super().__init__(discord.ui.Button(label=card_label(card), style=style, disabled=not enabled,
                                           custom_id=f"spades:card:{game_id}:{card}"))
        self.game_id, self.card = game_id, card

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> CardButton:
        return cls(match["game"], int(match["card"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).ui.card_button(interaction, self.game_id, self.card)


class RevealButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"spades:reveal:{GAME}"):
    def __init__(self, game_id: str) -> None:
        super().__init__(discord.ui.Button(label="Show my cards", style=discord.ButtonStyle.primary,
                                           custom_id=f"spades:reveal:{game_id}"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> RevealButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _bot(interaction).ui.reveal_button(interaction, self.game_id)


DYNAMIC_ITEMS = (LobbyButton, TableButton, BidButton, CardButton, RevealButton)


def _view(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """A view that is sent, never kept: its buttons are dispatched by their custom_id templates
    (registered once at start-up), so it is stopped before sending and discord.py doesn't store
    it or give every ephemeral hand a 15-minute timer (thousands of live views under load)."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    view.stop()
    return view


def lobby_view(live: LiveGame) -> discord.ui.View | None:
    if live.status != "lobby":
        return None
    return _view(*(LobbyButton(live.game_id, action) for action in LOBBY_ACTIONS))


def table_view(live: LiveGame) -> discord.ui.View | None:
    game = live.game
    if game is None or game.is_over or not live.active:
        return None
    items: list[discord.ui.Item[Any]] = [TableButton(live.game_id, "hand")]
    if game.turn is not None:
        items.append(TableButton(live.game_id, "act", "Bid" if game.phase is Phase.BIDDING else "Play"))
    return _view(*items)


def hidden_view(game_id: str, view: SeatView) -> discord.ui.View:
    """Blind nil or Show my cards. Cards are hidden only from a seat that may bid blind nil, so the
    button is there even before its turn: the hand's direct message is sent once, at the deal."""
    return _view(BidButton(game_id, "blind"), RevealButton(game_id))


def bid_view(game_id: str, view: SeatView) -> discord.ui.View:
    """Exactly the legal bids (at most 19, plus blind nil: within 25 buttons)."""
    items: list[discord.ui.Item[Any]] = [BidButton(game_id, "blind")] if view.can_blind_nil else []
    items += [BidButton(game_id, str(bid)) for bid in view.legal_bids]
    return _view(*items)


def hand_view(game_id: str, view: SeatView) -> discord.ui.View | None:
    """The seat's cards as buttons (at most 18, four rows), only legal ones enabled, on its turn."""
    if view.cards_hidden:
        return hidden_view(game_id, view)
    if not view.hand:
        return None
    legal = set(view.legal_cards)
    items: list[discord.ui.Item[Any]] = [CardButton(game_id, c, c in legal) for c in display_sorted(view.hand)]
    if view.my_turn and view.phase is Phase.BIDDING:
        items.append(TableButton(game_id, "act", "Bid"))
    return _view(*items)


def dm_view(game_id: str, view: SeatView) -> discord.ui.View | None:
    """The hand's direct message is sent once, at the deal, and never updated, so it carries only
    buttons that stay meaningful: the blind nil choice, or Bid for the first bidder."""
    if view.cards_hidden:
        return hidden_view(game_id, view)
    if view.my_turn and view.phase is Phase.BIDDING:
        return _view(TableButton(game_id, "act", "Bid"))
    return None
