"""What a panel or a table shows, decided once as a `layout.Face` and drawn two ways.

discord.py draws a face as a view of dynamic buttons (for answers to clicks, which route the next
click); `fastpath` writes the same face straight to JSON for the edits the bot makes most. A face
is also what a panel is compared by: a panel whose face hasn't changed isn't edited, so a player
waiting for their turn costs nothing while others play.
"""

from __future__ import annotations

import functools

from bot.discord_ui.layout import (
    DANGER,
    PRIMARY,
    SECONDARY,
    SUCCESS,
    Button,
    Cards,
    Divider,
    Face,
    Part,
    Row,
    Text,
    rows,
)
from bot.discord_ui.safe_text import quoted_parts
from bot.discord_ui.table import render, results_text
from bot.engine import Phase, SeatView, TableView
from bot.engine.bidding_rules import BLIND_BID_MAX
from bot.service import LiveGame
from bot.service.coach import hints_refusal

TABLE_COLOUR = 0x2E7D4F  # card-table green
YOUR_TURN_COLOUR = 0xF0B232
SUMMARY_COLOUR = 0x4E5058


# ------------------------------------------------------------------------------ buttons
def hand_button(game_id: str) -> Button:
    return Button("hand", (game_id,), f"spades:table:{game_id}:hand", "My hand", PRIMARY, emoji="🃏")


# A panel is drawn again each time it may have changed (to compare it with what it shows): its bid
# buttons, frozen and the same for every player of a game, are made once.
@functools.lru_cache(maxsize=8192)
def bid_button(game_id: str, bid: str, enabled: bool = True) -> Button:
    """``bid``: a number, ``blind`` (blind nil) or ``blind3`` (a trailing blind bid)."""
    label = "Blind nil" if bid == "blind" else "Nil" if bid == "0" else bid.replace("blind", "Blind ")
    return Button("bid", (game_id, bid), f"spades:bid:{game_id}:{bid}", label,
                  DANGER if bid.startswith("blind") else PRIMARY, disabled=not enabled)


def reveal_button(game_id: str) -> Button:
    return Button("reveal", (game_id,), f"spades:reveal:{game_id}", "Show my cards", SECONDARY)


def draw_button(game_id: str, choice: str) -> Button:
    """**Keep** or **Discard** the card drawn (duo)."""
    keep = choice == "keep"
    return Button("draw", (game_id, choice), f"spades:draw:{game_id}:{choice}", "Keep" if keep else "Discard",
                  SUCCESS if keep else SECONDARY)


def hint_button(game_id: str) -> Button:
    return Button("hint", (game_id,), f"spades:hint:{game_id}", "Hint", SECONDARY, emoji="💡")


# ------------------------------------------------------------------------------ faces
def panel(live: LiveGame, view: SeatView, notice: str | None = None) -> Face:
    """A player's private panel: their cards by suit (a row per suit, wrapped at five) and on their
    turn the trick so far with exactly the legal cards, or the bids, enabled for one click. While
    others play it shows nothing that changes with their moves."""
    my_turn = view.my_turn and live.status == "playing"
    parts: list[Part] = [Text(f"{render.panel_title(view)}\n{render.panel_status(view)}")]
    if notice:  # a refusal: the names in it shown as written
        parts.append(Text(f"⚠️ {quoted_parts(notice)}"))
    game_id = live.game_id
    if view.cards_hidden:  # only a seat that may bid blind is ever hidden; it counts on its turn
        blind = ["blind"] if view.rules.blind_nil else []
        blind += [f"blind{b}" for b in range(1, BLIND_BID_MAX + 1)] if view.rules.blind_bids else []
        parts += rows([bid_button(game_id, bid) for bid in blind] + [reveal_button(game_id)])
    elif view.phase is Phase.DRAWING:
        parts.append(Text(render.hand_text(view.hand, "\n", view.rules.trumps)))
        if my_turn and view.drawn is not None:
            parts.append(Row((draw_button(game_id, "keep"), draw_button(game_id, "discard"))))
    elif view.phase is Phase.BIDDING:
        parts.append(Text(render.hand_text(view.hand, "\n", view.rules.trumps)))
        if my_turn:
            bids = [bid_button(game_id, "blind")] if view.can_blind_nil else []
            parts += rows(bids + [bid_button(game_id, str(bid)) for bid in view.legal_bids])
    elif view.hand:
        legal = set(view.hand if view.to_pass else view.legal_cards) if my_turn else set()  # to_pass: nil_pass
        for _, cards in render.suit_groups(view.hand, view.rules.trumps):
            parts.append(Cards(game_id, cards, tuple(card in legal for card in cards)))
    if my_turn and view.phase is not Phase.DRAWING and hints_refusal(live) is None:
        parts.append(Row((hint_button(game_id),)))
    parts.append(Text(render.panel_details(view)))
    return Face(YOUR_TURN_COLOUR if my_turn else TABLE_COLOUR, tuple(parts))


def closed_panel(text: str) -> Face:
    """A panel for a game that isn't running any more: no buttons left to press. `text` may be a
    refusal: the names in it are shown as written."""
    return Face(TABLE_COLOUR, (Text(quoted_parts(text)),))


def table(public: TableView, playing: bool) -> Face:
    """The table: seats, scores, the trick with who played what, whose turn; My hand while the game
    is `playing` (its status: a cancelled or finished game has nothing left to press)."""
    parts: list[Part] = [Text(render.table_header(public)), Text(render.table_seats(public)), Divider(),
                         Text(render.table_play(public))]
    if playing and not public.is_over:
        parts.append(Row((hand_button(public.game_id),)))
    parts.append(Text(render.table_footer(public)))
    return Face(TABLE_COLOUR, tuple(parts))


def summary(public: TableView, number: int) -> Face:
    """Scored hand `number`: what each bid and won, the points, bags and distance to go, its last trick."""
    return Face(SUMMARY_COLOUR, (Text(results_text.hand_summary(public, number)),))
