"""Buttons and the messages that carry them.

One `DynamicItem` class per kind of button: its custom_id names the game and the action, never the
user, so every button still works after a restart and identity always comes from the click itself.
A click goes to the handler of its kind (`services(interaction).table`), which checks that the game belongs
to the server the click came from before anything else. Views are built of dynamic items only, so
discord.py keeps nothing per message sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import discord
from discord import ui

from bot.discord_ui import coach as coach_ui
from bot.discord_ui import layout
from bot.discord_ui.services import services
from bot.discord_ui.table import faces
from bot.engine import Card, SeatView, TableView
from bot.service import LiveGame

GAME = r"(?P<game>[0-9a-f]{1,32})"
LOBBY_ACTIONS = {"join": "Join", "leave": "Leave", "addbot": "Add bot", "start": "Start", "cancel": "Cancel"}
LOBBY_STYLES = {"join": discord.ButtonStyle.success, "start": discord.ButtonStyle.primary,
                "cancel": discord.ButtonStyle.danger}


LOBBY_TEMPLATE = rf"spades:lobby:{GAME}:(?P<action>join|leave|addbot|start|cancel)"
BID_TEMPLATE = rf"spades:bid:{GAME}:(?P<bid>\d{{1,2}}|blind\d?)"
CARD_TEMPLATE = rf"spades:card:{GAME}:(?P<card>\d{{1,3}})"  # six's second copies are 64 and up
REVEAL_TEMPLATE = rf"spades:reveal:{GAME}"
DRAW_TEMPLATE = rf"spades:draw:{GAME}:(?P<choice>keep|discard)"


class LobbyButton(ui.DynamicItem[ui.Button[Any]], template=LOBBY_TEMPLATE):
    def __init__(self, game_id: str, action: str) -> None:
        super().__init__(ui.Button(label=LOBBY_ACTIONS[action], custom_id=f"spades:lobby:{game_id}:{action}",
                                   style=LOBBY_STYLES.get(action, discord.ButtonStyle.secondary)))
        self.game_id, self.action = game_id, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> LobbyButton:
        return cls(match["game"], match["action"])

    @classmethod
    async def clicked(cls, interaction: discord.Interaction[Any], match: re.Match[str]) -> None:
        await services(interaction).table.lobby(interaction, match["game"], match["action"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await services(interaction).table.lobby(interaction, self.game_id, self.action)


HAND_TEMPLATE = rf"spades:table:{GAME}:(?:hand|act)"


class HandButton(ui.DynamicItem[ui.Button[Any]], template=HAND_TEMPLATE):
    """**My hand**: opens (or replaces) the clicker's private panel. `act` is an older layout's id."""

    def __init__(self, game_id: str) -> None:
        super().__init__(_button(faces.hand_button(game_id)))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> HandButton:
        return cls(match["game"])

    @classmethod
    async def clicked(cls, interaction: discord.Interaction[Any], match: re.Match[str]) -> None:
        await services(interaction).table.open_panel(interaction, match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await services(interaction).table.open_panel(interaction, self.game_id)


class BidButton(ui.DynamicItem[ui.Button[Any]], template=BID_TEMPLATE):
    def __init__(self, game_id: str, bid: str, enabled: bool = True) -> None:
        super().__init__(_button(faces.bid_button(game_id, bid, enabled)))
        self.game_id, self.bid = game_id, bid

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str]) -> BidButton:
        return cls(match["game"], match["bid"])

    @classmethod
    async def clicked(cls, interaction: discord.Interaction[Any], match: re.Match[str]) -> None:
        await _bid(interaction, match["game"], match["bid"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _bid(interaction, self.game_id, self.bid)


class CardButton(ui.DynamicItem[ui.Button[Any]], template=CARD_TEMPLATE):
    def __init__(self, game_id: str, card: Card, enabled: bool = True) -> None:
        super().__init__(_button(layout.card_button(game_id, card, enabled)))
        self.game_id, self.card = game_id, card

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str]) -> CardButton:
        return cls(match["game"], int(match["card"]))

    @classmethod
    async def clicked(cls, interaction: discord.Interaction[Any], match: re.Match[str]) -> None:
        await _play(interaction, match["game"], int(match["card"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _play(interaction, self.game_id, self.card)


class RevealButton(ui.DynamicItem[ui.Button[Any]], template=REVEAL_TEMPLATE):
    """Gives up blind nil: show my cards."""

    def __init__(self, game_id: str) -> None:
        super().__init__(_button(faces.reveal_button(game_id)))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str]) -> RevealButton:
        return cls(match["game"])

    @classmethod
    async def clicked(cls, interaction: discord.Interaction[Any], match: re.Match[str]) -> None:
        await _reveal(interaction, match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _reveal(interaction, self.game_id)


class DrawButton(ui.DynamicItem[ui.Button[Any]], template=DRAW_TEMPLATE):
    """Duo: **Keep** the card drawn (the next is discarded) or **Discard** it (the next is kept)."""

    def __init__(self, game_id: str, choice: str) -> None:
        super().__init__(_button(faces.draw_button(game_id, choice)))
        self.game_id, self.choice = game_id, choice

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: re.Match[str]) -> DrawButton:
        return cls(match["game"], match["choice"])

    @classmethod
    async def clicked(cls, interaction: discord.Interaction[Any], match: re.Match[str]) -> None:
        await services(interaction).table.panel_action(interaction, match["game"], "draw", match["choice"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await services(interaction).table.panel_action(interaction, self.game_id, "draw", self.choice)


async def _bid(interaction: discord.Interaction[Any], game_id: str, bid: str) -> None:
    said = "blind nil" if bid == "blind" else bid.replace("blind", "blind ")  # blind3: a trailing blind bid
    await services(interaction).table.panel_action(interaction, game_id, "bid", said)


async def _play(interaction: discord.Interaction[Any], game_id: str, card: Card) -> None:
    await services(interaction).table.panel_action(interaction, game_id, "play", card)


async def _reveal(interaction: discord.Interaction[Any], game_id: str) -> None:
    await services(interaction).table.panel_action(interaction, game_id, "reveal", None)


REMATCH_TEMPLATE = rf"spades:rematch:{GAME}"


class RematchButton(ui.DynamicItem[ui.Button[Any]], template=REMATCH_TEMPLATE):
    def __init__(self, game_id: str) -> None:
        super().__init__(ui.Button(label="Rematch", custom_id=f"spades:rematch:{game_id}",
                                   style=discord.ButtonStyle.success, emoji="🔁"))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> RematchButton:
        return cls(match["game"])

    @classmethod
    async def clicked(cls, interaction: discord.Interaction[Any], match: re.Match[str]) -> None:
        await services(interaction).table.rematch(interaction, match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await services(interaction).table.rematch(interaction, self.game_id)


class HintButton(ui.DynamicItem[ui.Button[Any]], template=rf"spades:hint:{GAME}"):
    """**Hint** on the panel, on the player's turn, in a game that allows hints."""

    def __init__(self, game_id: str) -> None:
        super().__init__(_button(faces.hint_button(game_id)))
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


class AgreeCancelButton(ui.DynamicItem[ui.Button[Any]], template=rf"spades:agree_cancel:{GAME}"):
    """**Agree to cancel**, under the host's request to cancel a running game."""

    def __init__(self, game_id: str) -> None:
        super().__init__(ui.Button(label="Agree to cancel", custom_id=f"spades:agree_cancel:{game_id}",
                                   style=discord.ButtonStyle.danger))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: ui.Item[Any],
                             match: Any) -> AgreeCancelButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await services(interaction).table.agree_to_cancel(interaction, self.game_id)


def agree_cancel_view(game_id: str) -> ui.View:
    return _buttons([AgreeCancelButton(game_id)])


# The panel's buttons, clicked on almost every move, and the buttons every player of every game
# presses once (My hand, which opens a panel; Rematch, on a game-over post that carries a chart):
# answered by `fastgateway` without discord.py's dispatch (the DynamicItems still draw them, and
# answer them should the fast route pass one on).
FAST_CLICKS = ((CARD_TEMPLATE, CardButton), (BID_TEMPLATE, BidButton), (REVEAL_TEMPLATE, RevealButton),
               (DRAW_TEMPLATE, DrawButton), (HAND_TEMPLATE, HandButton), (REMATCH_TEMPLATE, RematchButton),
               (LOBBY_TEMPLATE, LobbyButton))
BUTTON_KINDS = (LobbyButton, HandButton, BidButton, CardButton, RevealButton, DrawButton, RematchButton, HintButton,
                ReviewButton, AgreeCancelButton)


STRAY_CLICK = "That button isn't one I answer (it may be from an older version of me): nothing happened."


def answers(custom_id: str, kinds: Sequence[type[ui.DynamicItem[Any]]]) -> bool:
    """Whether one of the button `kinds` answers a click on `custom_id` (a forged or outdated id
    reaches none of them, and would get no answer at all)."""
    return any(kind.__discord_ui_compiled_template__.fullmatch(custom_id) for kind in kinds)


def _buttons(items: Sequence[ui.Item[Any]]) -> ui.View:
    view = ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return view


def lobby_view(live: LiveGame) -> ui.View | None:
    if live.status != "lobby":
        return None
    return _buttons([LobbyButton(live.game_id, action) for action in LOBBY_ACTIONS])


def lobby_rows(live: LiveGame) -> list[dict[str, Any]]:
    """The lobby's buttons as Discord's JSON, for an edit that skips discord.py (`FastEdits.edit_text`)."""
    view = lobby_view(live)
    return [] if view is None else view.to_components()


def hand_button_view(game_id: str) -> ui.View:
    """A lone **My hand** button, for the turn mention."""
    return _buttons([HandButton(game_id)])


def rematch_view(game_id: str) -> ui.View:
    return _buttons([RematchButton(game_id), ReviewButton(game_id)])


def table_view(table: TableView, playing: bool) -> ui.LayoutView:
    """The table message (see `faces.table`)."""
    return draw(faces.table(table, playing))


def summary_view(table: TableView, number: int) -> ui.LayoutView:
    return draw(faces.summary(table, number))


def panel_view(live: LiveGame, seat_view: SeatView, notice: str | None = None) -> ui.LayoutView:
    return draw(faces.panel(live, seat_view, notice))


def _button(face: layout.Button) -> ui.Button[Any]:
    return ui.Button(label=face.label, custom_id=face.custom_id, style=discord.ButtonStyle(face.style),
                     disabled=face.disabled, emoji=face.emoji)


def _item(face: layout.Button) -> ui.Item[Any]:
    """The dynamic item that answers a face's button (it draws the same button)."""
    game_id, *rest = face.args
    assert isinstance(game_id, str)
    if face.kind == "card":
        return CardButton(game_id, int(rest[0]), not face.disabled)
    if face.kind == "bid":
        return BidButton(game_id, str(rest[0]), not face.disabled)
    if face.kind == "draw":
        return DrawButton(game_id, str(rest[0]))
    return {"hand": HandButton, "reveal": RevealButton, "hint": HintButton}[face.kind](game_id)


def draw(face: layout.Face) -> ui.LayoutView:
    """A face as discord.py's view, of dynamic items only (so discord.py keeps nothing per message)."""
    container: ui.Container[Any] = ui.Container(accent_colour=discord.Colour(face.colour))
    for part in face.parts:
        if isinstance(part, layout.Text):
            container.add_item(ui.TextDisplay(part.content))
        elif isinstance(part, layout.Divider):
            container.add_item(ui.Separator())
        else:
            for row in part.as_rows() if isinstance(part, layout.Cards) else [part]:
                container.add_item(ui.ActionRow(*(_item(button) for button in row.buttons)))
    view = ui.LayoutView(timeout=None)
    view.add_item(container)
    return view
