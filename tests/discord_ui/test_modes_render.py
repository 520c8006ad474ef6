"""What duo and five look like: the draw on the panel and the table, and the rules in words."""

from __future__ import annotations

from bot.discord_ui.table import faces, help_text, render
from bot.engine import Game, Mode, Rules, card_label, seat_view, table_view
from bot.service import LiveGame
from bot.store import Seat


def live_game(mode: Mode, rules: Rules | None = None) -> LiveGame:
    names = ["alice", "bob", "carol", "dave", "erin"][: mode.seats]
    seats = [Seat(i, n, user_id=i + 1) for i, n in enumerate(names)]
    live = LiveGame("abc123", 1, 2, mode, rules or Rules(), 1, seats, 120.0, status="playing")
    live.game = Game.new("abc123", mode, rules or Rules(), seed=3, names=names)
    live.game.deal()
    return live


def buttons(face: faces.Face) -> list[faces.Button]:
    return [b for part in face.parts if isinstance(part, faces.Row) for b in part.buttons]


def test_the_drawer_sees_the_card_drawn_with_keep_and_discard_and_the_other_sees_neither() -> None:
    live = live_game(Mode.DUO)
    game = live.game
    assert game is not None and game.turn is not None
    drawer, other = game.turn, 1 - game.turn
    drawn = game.drawn_card(drawer)
    assert drawn is not None
    mine = faces.panel(live, seat_view(game, drawer))
    assert [(b.label, b.custom_id) for b in buttons(mine)] == [
        ("Keep", "spades:draw:abc123:keep"), ("Discard", "spades:draw:abc123:discard")]
    text = "\n".join(p.content for p in mine.parts if isinstance(p, faces.Text))
    assert f"**You drew {card_label(drawn)}.**" in text and "/spades draw keep:yes" in text
    theirs = faces.panel(live, seat_view(game, other))
    assert buttons(theirs) == [] and card_label(drawn) not in str(theirs)
    table = render.table_text(table_view(game))
    assert f"▶ **{game.names[drawer]}** to draw" in table and "52\u00a0cards left" in table
    assert card_label(drawn) not in table
    game.draw(drawer, False)
    view = seat_view(game, drawer)
    assert render.panel_details(view).endswith(f"-# Discarded: {card_label(drawn)}")
    assert render.ping_text(table_view(game), 7) == "<@7>, your turn to draw."


def test_the_rules_of_duo_leave_out_blind_nil_and_five_says_ten_cards() -> None:
    duo = help_text.rules_text(Mode.DUO, Rules(), "Rules")
    assert "draws a card and keeps it" in duo and "lind nil" not in duo and "blind_nil" not in duo
    assert render.rules_summary(Rules(blind_nil=False), Mode.DUO) == "standard rules"
    five = help_text.rules_text(Mode.FIVE, Rules(), "Rules")
    assert "5 players" in five and "2♦ and 2♥ removed, 10 cards each" in five and "Blind nil" in five
