"""The house rules as players read them: the lobby and /spades rules list those in force in plain
words, the table says when the bot bid for someone, hand summaries say what a rule changed, and
blind bids are offered on the panel."""

from __future__ import annotations

import re

from bot.discord_ui.table import help_text, render, results_text
from bot.discord_ui.table.faces import panel
from bot.discord_ui.table.house_text import HOUSE_RULES, house_rule_lines
from bot.engine import Game, Mode, Phase, Rules, parse_card, seat_view
from bot.service import LiveGame
from bot.service.inputs import parse_bid
from bot.store import Seat
from tests.engine.helpers import deal, play_out

MAX_CONTENT = 2000
EVERY_HOUSE_RULE = Rules(bidding="fredieu", min_bid=4, ten_for_200=True, ten_for_200_loss=100, moon=True,
                         double_nil="double", blind_bids=True, overtricks="quicksand", double_back=True,
                         seven_bonus=True, last_trick=True, trumps="deuces_high")


def _live(mode: Mode, rules: Rules, game: Game | None = None) -> LiveGame:
    names = ["alice", "bob", "carol", "dave"][: mode.seats]
    live = LiveGame("abc123", 1, 2, mode, rules, 1, [Seat(i, n, user_id=i + 1) for i, n in enumerate(names)],
                    120.0, status="playing")
    live.game = game or Game.new("abc123", mode, rules, seed=1, names=names)
    return live


def test_every_house_rule_has_one_plain_line_with_its_figures():
    lines = house_rule_lines(EVERY_HOUSE_RULE)
    assert len(lines) == len(HOUSE_RULES)
    text = "\n".join(lines)
    for words in ("nil, blind nil, or at least 4", "Least bid 4", "+200", "−100", "win the game at once",
                  "twice their nil values", "+20", "−10 for each trick over", "−20", "+10** more", "last trick",
                  "2♠ 2♦ 2♣ 2♥ above the A♠"):
        assert words in text, words
    assert house_rule_lines(Rules()) == []


def test_rules_text_lists_house_rules_in_force_and_stays_within_a_message():
    text = help_text.rules_text(Mode.PARTNERS, EVERY_HOUSE_RULE, "The rules of this game")
    assert "**House rules:**" in text and "**Quicksand:**" in text and len(text) <= MAX_CONTENT
    assert "`overtricks`" not in text, "a house rule is said in words, not as an option line"
    # So many house rules leave room only for the options changed (none, then mercy) on the options line.
    assert text.endswith("**Options:** standard")
    crowded = help_text.rules_text(Mode.PARTNERS, EVERY_HOUSE_RULE.with_options(mercy=100), "The rules of this game")
    assert crowded.endswith("**Options** (the others standard): `mercy`=100") and len(crowded) <= MAX_CONTENT
    few = help_text.rules_text(Mode.PARTNERS, Rules(last_trick=True), "Rules")
    assert "`nil_pass`=off" in few, "with room, every option's value is listed"
    assert "**Bags:** none." in text and "(a bag)" not in text
    plain = help_text.rules_text(Mode.PARTNERS, Rules(), "Rules")
    assert "House rules" not in plain and "every 10 bags cost 100 points" in plain
    assert not re.search(r"-\d", text), "minus signs, and no 10-for-200 read as a negative number"


def test_the_lobby_lists_the_house_rules():
    live = _live(Mode.PARTNERS, Rules(bidding="suicide", last_trick=True))
    live.status = "lobby"
    text = render.lobby_text(live)
    assert "**Suicide:**" in text and "**Last trick:**" in text


def test_the_table_says_the_bot_bid_for_a_player_and_why():
    game = Game("abc123", Mode.PARTNERS, Rules(bidding="suicide"), 1, 3, ["alice", "bob", "carol", "dave"])
    deal(game, {})
    game.bid(0, 5)
    game.bid(1, 4)  # carol (seat 2) must now bid nil: the bot does
    table = _live(Mode.PARTNERS, game.rules, game).table_view()
    assert table is not None
    assert "Bid by the bot, the only bid the rules left (suicide): carol nil" in render.table_text(table)


def test_hand_summary_says_what_the_house_rules_changed():
    rules = Rules(last_trick=True, seven_bonus=True)
    game = Game("abc123", Mode.SOLO, rules, 1, 3, ["alice", "bob", "carol", "dave"])
    deal(game, {0: "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S"})
    play_out(game, {0: 8, 1: 1, 2: 1, 3: 1})
    assert game.phase is Phase.DEALING
    table = _live(Mode.SOLO, rules, game).table_view()
    assert table is not None
    summary = results_text.hand_summary(table, 1)
    # 80 for 8 bid, +20 for the two tricks bid above 6, 5 bags, +10 for the last trick
    assert "**alice** bid 8, won 13\u00a0→ **+115** (+20 seven or more, +10 last trick)" in summary


def test_a_far_behind_player_is_offered_blind_bids_on_the_panel_and_by_typing():
    rules = Rules(blind_bids=True, blind_nil_deficit=0)
    live = _live(Mode.SOLO, rules)
    assert live.game is not None
    live.game.deal()
    seat = live.game.turn or 0
    face = panel(live, seat_view(live.game, seat))
    labels = [b.label for part in face.parts for b in getattr(part, "buttons", ())]
    assert labels == ["Blind nil", *(f"Blind {n}" for n in range(1, 8)), "Show my cards"]
    assert "a **blind bid** of 1–7" in render.panel_status(seat_view(live.game, seat))
    assert parse_bid("blind 3") == (3, True) and parse_bid("Blind nil") == (0, True)
    assert parse_card("AS") == 51  # the same typing rules as cards: nothing else changed


def test_a_hand_shows_the_top_spades_of_the_trump_orders_among_the_spades():
    hand = [parse_card(c) for c in "2D AS BJ 3D 2S 2C".split()]
    assert render.hand_text(hand, " · ", "jokers_deuces") == "♠ Big🃏 2 2♦ A · ♣ 2 · ♦ 3"
    assert render.hand_text(hand, " · ") == "♠ Big🃏 A 2 · ♣ 2 · ♦ 3 2"
    deuces = [parse_card(c) for c in "2D AS 3D 2S 2C 2H".split()]
    assert render.hand_text(deuces, " · ", "deuces_high") == "♠ 2 2♦ 2♣ 2♥ A · ♦ 3"
