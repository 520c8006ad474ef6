"""What the bot shows: complete, within Discord's limits, and never a card someone else holds."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest
from discord import ui

from bot.ai import apply_move
from bot.ai.drive import random_moves, turns
from bot.discord_ui.table import help_text, render, results_text
from bot.discord_ui.table.views import (
    BUTTON_KINDS,
    AgreeCancelButton,
    BidButton,
    CardButton,
    DrawButton,
    HandButton,
    HintButton,
    LobbyButton,
    RematchButton,
    RevealButton,
    ReviewButton,
    lobby_view,
    panel_view,
    summary_view,
    table_view,
)
from bot.discord_ui.text import number
from bot.engine import Game, Mode, Phase, Rules, TableView, card_label, mask_of, parse_card, seat_view
from bot.service import FinishOutcome, LeaderboardEntry, LiveGame, PlayerStats, RatingChange
from bot.store import ModeRating, Seat
from tests.discord_ui.live_games import live_game

LABEL = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]|Big🃏|Little🃏")
MAX_V2_COMPONENTS, MAX_V2_TEXT, MAX_CONTENT = 40, 4000, 2000


def _public(live: LiveGame) -> TableView:
    """What the channel is shown of a started game."""
    table = live.table_view()
    assert table is not None
    return table


def _walk(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for component in components:
        found.append(component)
        inner = component.get("components")
        if isinstance(inner, list):
            found.extend(_walk(inner))
        accessory = component.get("accessory")
        if isinstance(accessory, dict):
            found.extend(_walk([accessory]))
    return found


def _layout(view: ui.LayoutView | ui.View) -> tuple[list[dict[str, Any]], str]:
    """The view's components, and every text in it (labels included)."""
    components = _walk(view.to_components())
    texts = [str(c.get("content", "")) + " " + str(c.get("label", "")) for c in components]
    return components, "\n".join(texts)


def _within_limits(view: ui.LayoutView) -> None:
    components, _ = _layout(view)
    assert len(components) <= MAX_V2_COMPONENTS, len(components)
    assert sum(len(str(c.get("content", ""))) for c in components if c.get("type") == 10) <= MAX_V2_TEXT
    for row in (c for c in components if c.get("type") == 1):
        assert len(row["components"]) <= 5
    for button in (c for c in components if c.get("type") == 2):
        assert len(button["custom_id"]) <= 100 and len(button["label"]) <= 80


def _held_by_others(game: Game, seat: int | None) -> set[str]:
    """Cards `seat` may not see: other hands, the cards set aside, and in duo the others' discards
    (a seat's own discards are its to see). Six: a label counts while every copy of it is hidden."""
    own_discards = set(game.discards_of(seat)) if seat is not None and not game.is_over else set()
    hidden = Counter(card_label(c) for s in range(game.seats) if s != seat for c in game.hand_of(s))
    hidden.update(card_label(c) for c in (game.hand_logs[-1].set_aside if game.hand_logs and not game.is_over else ())
                  if c not in own_discards)
    hidden.update(card_label(c) for s in range(game.seats) if s != seat and not game.is_over
                  for c in game.discards_of(s))
    copies = Counter(card_label(c) for c in game.deck())
    return {label for label, count in hidden.items() if count >= copies[label]}


@pytest.mark.parametrize("mode", list(Mode))
def test_nothing_shown_ever_holds_a_card_someone_else_still_has(mode: Mode) -> None:
    rules = Rules(target=100, mercy=100, jokers=mode is Mode.CUTTHROAT, blind_nil_deficit=0)
    live = live_game(mode, rules, seed=5)
    game = live.game
    assert game is not None
    rng = random.Random(1)
    outcome = FinishOutcome(live.game_id, (), False)
    random_move = random_moves(rng)
    for turn in turns(game):
        public = _held_by_others(game, None)
        _, table = _layout(table_view(_public(live), True))
        assert not set(LABEL.findall(table)) & public, table
        assert len(results_text.scoreboard_text(live.table_view())) <= MAX_CONTENT
        assert not set(LABEL.findall(render.ping_text(_public(live), live.seats[turn].user_id))) & public
        for seat in range(game.seats):
            mine = seat_view(game, seat)
            private = _layout(panel_view(live, mine))[1] + render.dm_text(mine, "https://example.invalid/t")
            shown = set(LABEL.findall(private))
            assert not shown & _held_by_others(game, seat), private
            if game.cards_hidden(seat):
                assert not shown & {card_label(c) for c in game.hand_of(seat)}, private
        apply_move(game, turn, random_move(game, turn))
        for hand in game.hand_logs:
            if hand.result is not None and hand is game.hand_logs[-1]:
                summary = _layout(summary_view(_public(live), hand.number))[1]
                assert not set(LABEL.findall(summary)) & _held_by_others(game, None)
    over = results_text.game_over_text(_public(live), outcome)
    assert over.startswith("## 🏆") and len(over) <= MAX_CONTENT


def test_a_panel_of_eighteen_cards_with_jokers_and_nineteen_bids_fits_discord() -> None:
    live = live_game(Mode.CUTTHROAT, Rules(jokers=True), seed=9)
    game = live.game
    assert game is not None
    game.deal()
    seat = game.turn
    assert seat is not None
    bidding = panel_view(live, seat_view(game, seat))
    _within_limits(bidding)
    components, text = _layout(bidding)
    bids = [c for c in components if c.get("type") == 2 and c["custom_id"].startswith("spades:bid:")]
    assert len(bids) == 19 and not [c for c in components if c.get("custom_id", "").startswith("spades:card:")]
    assert mask_of(_cards_in(text)) == game.hand_mask(seat)  # the cards as text while bidding
    for _ in range(3):
        game.bid(game.turn or 0, 2)
    playing = panel_view(live, seat_view(game, game.turn or 0))
    _within_limits(playing)
    cards = [c for c in _layout(playing)[0] if c.get("custom_id", "").startswith("spades:card:")]
    assert len(cards) == 18
    enabled = {int(c["custom_id"].rsplit(":", 1)[1]) for c in cards if not c.get("disabled")}
    assert enabled == set(game.legal_cards(game.turn or 0))
    rows = [c for c in _layout(playing)[0] if c.get("type") == 1]
    suits = [{parse_card(b["label"]) // 13 if not b["label"].endswith("🃏") else 3 for b in row["components"]}
             for row in rows]
    assert all(len(s) == 1 for s in suits)  # a row never mixes suits


def _cards_in(text: str) -> list[int]:
    """Read back a hand shown as lines of ``♠ A K 4`` the way a player reads them."""
    cards = []
    for line in text.splitlines():
        if line[:1] in "♠♥♦♣":
            symbol, *ranks = line.split()
            cards += [parse_card(r if r.endswith("🃏") else r + symbol) for r in ranks]
    return cards


def test_a_hidden_seat_sees_only_the_blind_nil_choice() -> None:
    live = live_game(Mode.CUTTHROAT, Rules(blind_nil_deficit=0), seed=2)
    game = live.game
    assert game is not None
    game.deal()
    view = seat_view(game, 0)
    assert view.cards_hidden
    components, text = _layout(panel_view(live, view))
    assert [c["label"] for c in components if c.get("type") == 2] == ["Blind nil", "Show my cards"]
    assert not LABEL.findall(text) and "blind nil" in text


def test_the_table_shows_seats_bids_scores_turn_tricks_and_the_game_in_its_footer() -> None:
    live = live_game(Mode.CUTTHROAT, Rules(target=300, nil=False), seed=3)
    game = live.game
    assert game is not None
    game.deal()
    for _ in range(3):
        game.bid(game.turn or 0, 4)
    for _ in range(4):
        game.play(game.turn or 0, game.legal_cards(game.turn or 0)[0])
    _within_limits(table_view(_public(live), True))
    components, text = _layout(table_view(_public(live), True))
    for name in ("alice", "bob", "carol"):
        assert f"**{name}**" in text
    last = game.hand_logs[-1].tricks[-1]
    assert render.last_trick_text(game.names, last) in text
    assert f"▶ **{live.seats[game.turn or 0].name}** to play" in text and "to 300" in text
    assert "-# game abc123 · nil=off" in text and "Trick 2:" in text
    assert [c["custom_id"] for c in components if c.get("type") == 2] == ["spades:table:abc123:hand"]


def test_every_button_is_read_back_from_its_custom_id_alone() -> None:
    buttons = [LobbyButton("ab12", "addbot"), HandButton("ab12"), BidButton("ab12", "blind"), BidButton("ab12", "7"),
               CardButton("ab12", 51), RevealButton("ab12"), RematchButton("ab12"), HintButton("ab12"),
               ReviewButton("ab12"), AgreeCancelButton("ab12"), DrawButton("ab12", "keep"),
               DrawButton("ab12", "discard")]
    assert {type(b) for b in buttons} == set(BUTTON_KINDS)
    for button in buttons:
        match = type(button).__discord_ui_compiled_template__.fullmatch(button.custom_id)
        assert match is not None and match["game"] == "ab12"
    assert CardButton.__discord_ui_compiled_template__.fullmatch("spades:card:ab12:AS") is None
    assert LobbyButton.__discord_ui_compiled_template__.fullmatch("spades:lobby:ab12:kick") is None
    assert DrawButton.__discord_ui_compiled_template__.fullmatch("spades:draw:ab12:maybe") is None
    assert HandButton.__discord_ui_compiled_template__.fullmatch("spades:table:ab12:act")  # an older table's button


def test_lobby_and_hand_text() -> None:
    live = live_game(Mode.SOLO, Rules(), seed=1)
    live.status = "lobby"
    live.seats = live.seats[:2]
    text = render.lobby_text(live)
    assert "Waiting for players" in text and "alice (host)" in text and "abc123" not in text
    assert lobby_view(live) is not None
    assert render.hand_text([parse_card(c) for c in ("AS", "2S", "10H", "3C", "KD")]) == "♠ A 2 · ♥ 10 · ♣ 3 · ♦ K"


def test_the_lobby_says_whether_hints_will_actually_be_offered() -> None:
    people = live_game(Mode.CUTTHROAT, Rules(hints="on"), seed=1)
    people.status = "lobby"
    text = render.lobby_text(people)
    assert "hints=on" not in text and "No hints in a game among people only" in text
    with_computer = live_game(Mode.CUTTHROAT, Rules(hints="on"), seed=1)
    with_computer.status = "lobby"
    with_computer.seats[2] = Seat(2, "Bot 1 (easy)", bot_level="easy")
    assert "Hints: on" in render.lobby_text(with_computer)
    with_computer.organiser_id = 100
    assert "No hints at a tournament table" in render.lobby_text(with_computer)


def test_rules_show_only_what_applies_to_the_mode_and_how_scoring_works() -> None:
    cutthroat = help_text.rules_text(Mode.CUTTHROAT, Rules(), "Rules")
    partners = help_text.rules_text(Mode.PARTNERS, Rules(), "Rules")
    assert "`jokers`" in cutthroat and "`nil_tricks_help_partner`" not in cutthroat
    assert "`nil_tricks_help_partner`" in partners and "`leftover`" not in partners
    assert "`jokers`" in partners and "`jokers`" in help_text.rules_text(Mode.SOLO, Rules(), "Rules")
    for text in (cutthroat, partners):
        assert "+10 a trick bid" in text and "bag" in text and len(text) <= MAX_CONTENT
    assert len(help_text.HELP_TEXT) <= MAX_CONTENT and "My hand" in help_text.HELP_TEXT


def test_new_players_ratings_are_provisional_not_a_bare_number() -> None:
    first = RatingChange(0, "1", "alice", None, -2.8, None, 3, games=1)
    settled = RatingChange(0, "1", "alice", 11.2, 12.5, 4, 2, games=9)
    assert results_text.rating_change_text(first) == "rating provisional (1 of 5\u00a0games)"
    assert results_text.rating_change_text(settled) == "rating 12.5 (+1.3) · #2, was #4"


def test_a_summary_names_a_bag_penalty_and_warns_near_the_limit() -> None:
    live = live_game(Mode.CUTTHROAT, Rules(bag_limit=2, bag_penalty=50), seed=6)
    game = live.game
    assert game is not None
    rng = random.Random(3)
    penalised: list[int] = []
    random_move = random_moves(rng)
    for seat in turns(game, until=lambda _: bool(penalised)):
        apply_move(game, seat, random_move(game, seat))
        hand = game.hand_logs[-1]
        if hand.result is not None and game.phase is not Phase.PLAYING:
            before = game.hand_logs[-2].result.bags if len(game.hand_logs) > 1 else (0, 0, 0)  # type: ignore[union-attr]
            penalised.extend(s for s in range(3) if before[s] + hand.result.new_bags[s] >= 2)
            penalties = [(before[s] + hand.result.new_bags[s] - hand.result.bags[s]) // 2 for s in range(3)]
    text = results_text.hand_summary(_public(live), hand.number)
    lines = {name: next(line for line in text.splitlines() if line.startswith(f"**{name}**"))
             for name in ("alice", "bob", "carol")}
    for seat, name in enumerate(("alice", "bob", "carol")):
        said = f"(−{50 * penalties[seat]} for {2 * penalties[seat]}\u00a0bags)"
        assert (said in lines[name]) == (seat in penalised) and ("bags)" in lines[name]) == (seat in penalised)
    assert f"### Hand {hand.number} scored" in text and "Last trick:" in text
    assert "-# ⚠️ 2\u00a0bags cost 50\u00a0points." in text  # the limit is always near with 2


HYPHEN_NUMBER = re.compile(r"-\d")  # a negative number written with the hyphen-minus
LOOSE_NUMBER = re.compile(r"\d (?:pts|bags?|points?|hands?|games?|wins?|to go)\b")  # a number apart from its unit


def test_negative_numbers_show_one_minus_sign_and_numbers_stay_with_their_words() -> None:
    assert (number(-10), number(7, "+d"), number(-1.26, "+.1f")) == ("−10", "+7", "−1.3")
    assert number(-5, "+5d") == "   −5"  # the same width as "-5" had: the scoreboard's columns hold
    live = live_game(Mode.CUTTHROAT, Rules(target=150, mercy=100), seed=4)
    game = live.game
    assert game is not None
    rng = random.Random(2)
    shown: list[str] = []
    random_move = random_moves(rng)
    for seat in turns(game):
        apply_move(game, seat, random_move(game, seat))
        shown += [render.table_seats(_public(live)), *(render.panel_details(seat_view(game, s)) for s in range(3))]
        if game.hand_logs[-1].result is not None:
            shown.append(results_text.hand_summary(_public(live), game.hand_number))
    assert min(game.scores) < 0  # random bids go set: negative scores to show
    outcome = FinishOutcome(live.game_id, (RatingChange(0, "1", "alice", 1.5, -2.8, 3, 4, games=9),
                                           RatingChange(1, "2", "bob", None, 3.0, None, 1, games=1)), False)
    shown.append(results_text.game_over_text(_public(live), outcome))
    shown.append(results_text.leaderboard_text("Table", "cutthroat", "rating", [
        LeaderboardEntry(1, 1, "alice", 9, 1, 0.11, -40, -4.4, -1.5, 20.0, 7.0)]))
    shown.append(results_text.stats_text("alice", PlayerStats(1, 1, None, 9, 1, 0.11, -4.4, 5, 9, 0, 1, 40, 30, 0.75,
                                                        (ModeRating("cutthroat", -1.5, 20.0, 7.0, 1, 9, 1),))))
    for text in shown:
        assert not HYPHEN_NUMBER.search(text) and not LOOSE_NUMBER.search(text), text
    scoreboard = results_text.scoreboard_text(live.table_view())
    rules = help_text.rules_text(Mode.CUTTHROAT, live.rules, "Rules")
    for text in (scoreboard, rules):
        assert not HYPHEN_NUMBER.search(text), text
    for text in (scoreboard, rules, *shown[-3:]):
        assert "−" in text, text
    assert any(f"{number(score)}\u00a0pts" in shown[-3] for score in game.scores if score < 0)
