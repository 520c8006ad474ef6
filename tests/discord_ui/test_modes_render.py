"""What duo, five and six look like: the draw on the panel and the table, six's teams and identical
cards, and the rules in words."""

from __future__ import annotations

from bot.discord_ui import layout
from bot.discord_ui.table import faces, help_text, render
from bot.discord_ui.text import SEP
from bot.engine import Game, Mode, Rules, card_label, parse_card, seat_view, table_view
from bot.engine.cards import SECOND_COPY
from bot.service import LiveGame
from bot.store import Seat


def live_game(mode: Mode, rules: Rules | None = None) -> LiveGame:
    names = ["alice", "bob", "carol", "dave", "erin", "frank"][: mode.seats]
    seats = [Seat(i, n, user_id=i + 1) for i, n in enumerate(names)]
    live = LiveGame("abc123", 1, 2, mode, rules or Rules(), 1, seats, 120.0, status="playing")
    live.game = Game.new("abc123", mode, rules or Rules(), seed=3, names=names)
    live.game.deal()
    return live


def buttons(face: layout.Face) -> list[layout.Button]:
    return [b for part in face.parts if isinstance(part, layout.Row) for b in part.buttons]


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
    text = "\n".join(p.content for p in mine.parts if isinstance(p, layout.Text))
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


def test_a_six_pairs_table_marks_the_teams_and_which_of_two_identical_cards_won() -> None:
    live = live_game(Mode.SIX, Rules(teams="pairs", identical="last"))
    game = live.game
    assert game is not None
    table = render.table_text(table_view(game))
    seats = table.splitlines()[1:7]
    assert [line.split("**")[1] for line in seats] == list(game.names)
    assert [line.rsplit("team\u00a0", 1)[1] for line in seats] == ["1", "2", "3", "1", "2", "3"]
    ace = parse_card("AS")
    trick = render.trick_text(game.names, [(0, ace), (1, parse_card("3S")), (2, ace + SECOND_COPY)], winner=2)
    assert trick.split(SEP) == ["alice\u00a0A♠\u00a0(1st)", "bob\u00a03♠", "**carol\u00a0A♠\u00a0(2nd)**\u00a0✔"]
    rules = help_text.rules_text(Mode.SIX, game.rules, "Rules")
    assert "the last played ranks higher" in rules and "three pairs (seats 1+4, 2+5, 3+6)" in rules
    assert "a team's bids add up to one contract" in rules
    while game.turn is not None and game.legal_bids(game.turn):
        game.bid(game.turn, 1)
    assert game.turn is not None
    shown = [b for part in faces.panel(live, seat_view(game, game.turn)).parts if isinstance(part, layout.Cards)
             for row in part.as_rows() for b in row.buttons]
    # One button a physical card: a card held twice shows twice, each button naming its own copy.
    assert sorted(b.label for b in shown) == sorted(card_label(c) for c in game.hand_of(game.turn))
    assert len({b.custom_id for b in shown}) == 17
