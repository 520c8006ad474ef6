"""Buttons and the messages that carry them.

One `DynamicItem` class per kind of button: its custom_id names the game and the action, never the
user, so every button still works after a restart and identity always comes from the click itself.
A click goes to the handler of its kind (`SpadesBot.handlers`), which checks that the game belongs
to the server the click came from before anything else. Views are built of dynamic items only, so
discord.py keeps nothing per message sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord
from discord import ui

from bot.discord_ui import coach_ui, render
from bot.engine import Card, HandLog, Phase, SeatView, card_label
from bot.service import LiveGame
from bot.service.coach import hints_refusal

GAME = r"(?P<game>[0-9a-f]{1,32})"
ROW_WIDTH = 5  # buttons per action row
RED_SUITS = (1, 2)  # diamonds, hearts
TABLE_COLOUR = discord.Colour(0x2E7D4F)  # card-table green
YOUR_TURN_COLOUR = discord.Colour(0xF0B232)
SUMMARY_COLOUR = discord.Colour(0x4E5058)
LOBBY_ACTIONS = {"join": "Join", "leave": "Leave", "addbot": "Add bot", "start": "Start", "cancel": "Cancel"}
LOBBY_STYLES = {"join": discord.ButtonStyle.success, "start": discord.ButtonStyle.primary,
                "cancel": discord.ButtonStyle.danger}


LOBBY_TEMPLATE = rf"spades:lobby:{GAME}:(?P<action>join|leave|addbot|start|cancel)"


class LobbyButton(ui.DynamicItem[ui.Button[Any]], template=LOBBY_TEMPLATE):
    def __init__(self, game_id: str, action: str) -> None:
        super().__init__(ui.Button(label=LOBBY_ACTIONS[action], custom_id=f"spades:lobby:{game_id}:{action}",
                                   style=LOBBY_STYLES.get(action, discord.ButtonStyle.secondary)))
        self.game_id, self.action = game_id, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> LobbyButton:
        return cls(match["game"], match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.client.handlers.lobby(interaction, self.game_id, self.action)


class HandButton(ui.DynamicItem[ui.Button[Any]], template=rf"spades:table:{GAME}:(?:hand|act)"):
    """**My hand**: opens (or replaces) the clicker's private panel. `act` is an older layout's id."""

    def __init__(self, game_id: str, label: str = "My hand") -> None:
        super().__init__(ui.Button(label=label, custom_id=f"spades:table:{game_id}:hand",
                                   style=discord.ButtonStyle.primary, emoji="🃏"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> HandButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.client.handlers.open_panel(interaction, self.game_id)


class BidButton(ui.DynamicItem[ui.Button[Any]], template=rf"spades:bid:{GAME}:(?P<bid>\d{{1,2}}|blind)"):
    def __init__(self, game_id: str, bid: str, enabled: bool = True) -> None:
        label = "Blind nil" if bid == "blind" else "Nil" if bid == "0" else bid
        style = discord.ButtonStyle.danger if bid == "blind" else discord.ButtonStyle.primary
        super().__init__(ui.Button(label=label, custom_id=f"spades:bid:{game_id}:{bid}", style=style,
                                   disabled=not enabled))
        self.game_id, self.bid = game_id, bid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> BidButton:
        return cls(match["game"], match["bid"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        text = "blind nil" if self.bid == "blind" else self.bid
        await interaction.client.handlers.panel_action(interaction, self.game_id, "bid", text)


class CardButton(ui.DynamicItem[ui.Button[Any]], template=rf"spades:card:{GAME}:(?P<card>\d{{1,2}})"):
    def __init__(self, game_id: str, card: Card, enabled: bool = True) -> None:
        red = card < 52 and card // 13 in RED_SUITS
        style = discord.ButtonStyle.danger if red else discord.ButtonStyle.secondary
        super().__init__(ui.Button(label=card_label(card), custom_id=f"spades:card:{game_id}:{card}", style=style,
                                   disabled=not enabled))
        self.game_id, self.card = game_id, card

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> CardButton:
        return cls(match["game"], int(match["card"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.client.handlers.panel_action(interaction, self.game_id, "play", self.card)


class RevealButton(ui.DynamicItem[ui.Button[Any]], template=rf"spades:reveal:{GAME}"):
    """Gives up blind nil: show my cards."""

    def __init__(self, game_id: str) -> None:
        super().__init__(ui.Button(label="Show my cards", custom_id=f"spades:reveal:{game_id}",
                                   style=discord.ButtonStyle.secondary))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> RevealButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.client.handlers.panel_action(interaction, self.game_id, "reveal", None)


class RematchButton(ui.DynamicItem[ui.Button[Any]], template=rf"spades:rematch:{GAME}"):
    def __init__(self, game_id: str) -> None:
        super().__init__(ui.Button(label="Rematch", custom_id=f"spades:rematch:{game_id}",
                                   style=discord.ButtonStyle.success, emoji="🔁"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> RematchButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.client.handlers.rematch(interaction, self.game_id)


class HintButton(ui.DynamicItem[ui.Button[Any]], template=rf"spades:hint:{GAME}"):
    """**Hint** on the panel, on the player's turn, in a game that allows hints."""

    def __init__(self, game_id: str) -> None:
        super().__init__(ui.Button(label="Hint", custom_id=f"spades:hint:{game_id}",
                                   style=discord.ButtonStyle.secondary, emoji="💡"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> HintButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await coach_ui.hint(interaction, self.game_id)


class ReviewButton(ui.DynamicItem[ui.Button[Any]], template=rf"spades:review:{GAME}"):
    """**Review** on the game-over post: the clicker's own game, reviewed privately."""

    def __init__(self, game_id: str) -> None:
        super().__init__(ui.Button(label="Review", custom_id=f"spades:review:{game_id}",
                                   style=discord.ButtonStyle.secondary, emoji="🔎"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> ReviewButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await coach_ui.review(interaction, self.game_id)


BUTTON_KINDS = (LobbyButton, HandButton, BidButton, CardButton, RevealButton, RematchButton, HintButton,
                ReviewButton)


def _buttons(items: Sequence[ui.Item[Any]]) -> ui.View:
    view = ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def _rows(items: Sequence[ui.Item[Any]]) -> list[ui.ActionRow[Any]]:
    return [ui.ActionRow(*items[i:i + ROW_WIDTH]) for i in range(0, len(items), ROW_WIDTH)]


def lobby_view(live: LiveGame) -> ui.View | None:
    if live.status != "lobby":
        return None
    return _buttons([LobbyButton(live.game_id, action) for action in LOBBY_ACTIONS])


def hand_button_view(game_id: str) -> ui.View:
    """A lone **My hand** button, for the turn mention."""
    return _buttons([HandButton(game_id)])


def rematch_view(game_id: str) -> ui.View:
    return _buttons([RematchButton(game_id), ReviewButton(game_id)])


def table_view(live: LiveGame) -> ui.LayoutView:
    """The table: seats, scores, the trick with who played what, whose turn; My hand while it runs."""
    game = live.game
    assert game is not None
    container: ui.Container[Any] = ui.Container(accent_colour=TABLE_COLOUR)
    container.add_item(ui.TextDisplay(render.table_header(live)))
    container.add_item(ui.TextDisplay(render.table_seats(live)))
    container.add_item(ui.Separator())
    container.add_item(ui.TextDisplay(render.table_play(live)))
    if live.status == "playing" and not game.is_over:
        container.add_item(ui.ActionRow(HandButton(live.game_id)))
    container.add_item(ui.TextDisplay(render.table_footer(live)))
    view = ui.LayoutView(timeout=None)
    view.add_item(container)
    return view


def summary_view(live: LiveGame, hand: HandLog) -> ui.LayoutView:
    """A finished hand: what each bid and won, the points, bags and distance to go, its last trick."""
    view = ui.LayoutView(timeout=None)
    view.add_item(ui.Container(ui.TextDisplay(render.hand_summary(live, hand)), accent_colour=SUMMARY_COLOUR))
    return view


def panel_view(live: LiveGame, seat_view: SeatView, notice: str | None = None) -> ui.LayoutView:
    """A player's private panel: their cards by suit (a row per suit, wrapped at five), the trick
    so far, and on their turn exactly the legal cards, or the bids, enabled for one click."""
    my_turn = seat_view.my_turn and live.status == "playing"
    container: ui.Container[Any] = ui.Container(accent_colour=YOUR_TURN_COLOUR if my_turn else TABLE_COLOUR)
    container.add_item(ui.TextDisplay(f"{render.panel_title(live, seat_view)}\n{render.panel_status(live, seat_view)}"))
    if notice:
        container.add_item(ui.TextDisplay(f"⚠️ {notice}"))
    game_id = live.game_id
    if seat_view.cards_hidden:  # only a seat that may bid blind nil is ever hidden; it counts on its turn
        container.add_item(ui.ActionRow(BidButton(game_id, "blind"), RevealButton(game_id)))
    elif seat_view.phase is Phase.BIDDING:
        container.add_item(ui.TextDisplay(render.hand_text(seat_view.hand, "\n")))
        if my_turn:
            bids = [BidButton(game_id, "blind")] if seat_view.can_blind_nil else []
            bids += [BidButton(game_id, str(bid)) for bid in seat_view.legal_bids]
            for row in _rows(bids):
                container.add_item(row)
    elif seat_view.hand:
        legal = set(seat_view.legal_cards) if my_turn else set()
        for _, cards in render.suit_groups(seat_view.hand):
            for row in _rows([CardButton(game_id, card, card in legal) for card in cards]):
                container.add_item(row)
    if my_turn and hints_refusal(live) is None:
        container.add_item(ui.ActionRow(HintButton(game_id)))
    container.add_item(ui.TextDisplay(render.panel_details(live, seat_view)))
    view = ui.LayoutView(timeout=None)
    view.add_item(container)
    return view


def closed_panel_view(text: str) -> ui.LayoutView:
    """A panel for a game that isn't running any more: no buttons left to press."""
    view = ui.LayoutView(timeout=None)
    view.add_item(ui.Container(ui.TextDisplay(text), accent_colour=TABLE_COLOUR))
    return view
