"""What the bot posts in channels: complete, within Discord's limits, and never a hidden card."""

from __future__ import annotations

import random
import re

import pytest

from bot.discord_ui.render import (
    game_over_text,
    hand_summary,
    hand_text,
    lobby_text,
    private_hand_text,
    scoreboard_text,
    table_text,
)
from bot.discord_ui.views import Click, bid_view, hand_view, parse_button
from bot.engine import Game, Mode, Phase, Rules, card_label, mask_of, parse_card, seat_view
from bot.service import LiveGame
from bot.store import FinishOutcome, Seat

LABEL = re.compile(r"(?:10|[2-9JQKA])[♠♥♦♣]|Big🃏|Little🃏")


def _live(mode: Mode, rules: Rules, seed: int) -> LiveGame:
    names = ["alice", "bob", "carol", "dave"][: mode.seats]
    seats = [Seat(i, n, user_id=i + 1) for i, n in enumerate(names)]
    live = LiveGame("abc123", 1, 2, mode, rules, 1, seats, 120.0, status="playing")
    live.game = Game.new("abc123", mode, rules, seed=seed, names=names)
    return live


def _held_labels(game: Game) -> set[str]:
    return {card_label(c) for s in range(game.seats) for c in game.hand_of(s)}


def test_channel_texts_never_show_a_card_still_in_a_hand() -> None:
    for mode in Mode:
        rules = Rules(target=100, mercy=100, jokers=mode is Mode.CUTTHROAT)
        live = _live(mode, rules, seed=5)
        game = live.game
        assert game is not None
        rng = random.Random(1)
        while not game.is_over:
            if game.phase is Phase.DEALING:
                game.deal()
            seat = game.turn
            assert seat is not None
            if game.phase is Phase.BIDDING:
                if game.cards_hidden(seat):
                    game.reveal(seat)
                game.bid(seat, rng.choice(game.legal_bids(seat)))
            else:
                game.play(seat, rng.choice(game.legal_cards(seat)))
            text = table_text(live)
            assert len(text) <= 2000
            assert not set(LABEL.findall(text)) & _held_labels(game), text
            for log in game.hand_logs:
                if log.result is not None:
                    assert not LABEL.findall(hand_summary(live, log))
        assert len(scoreboard_text(live)) <= 2000
        outcome = FinishOutcome(live.game_id, (), False)
        assert "🏆" in game_over_text(live, outcome)


def test_the_table_shows_seats_bids_scores_turn_and_spades() -> None:
    live = _live(Mode.CUTTHROAT, Rules(target=300, nil=False), seed=3)
    game = live.game
    assert game is not None
    game.deal()
    seat = game.turn
    assert seat is not None
    game.bid(seat, 4)
    text = table_text(live)
    for name in ("alice", "bob", "carol"):
        assert name in text
    assert "to 300" in text and "bid 4" in text and "nil=off" in text
    assert f"Turn: **{live.seats[game.turn or 0].name}** to bid" in text
    assert "Spades: not broken yet" in text


def _cards_in(hand_line: str) -> list[int]:
    """Read back ``♠ A K · ♥ 10`` the way a player reads it."""
    cards = []
    for group in hand_line.split(" · "):
        symbol, *ranks = group.split()
        cards += [parse_card(r if r.endswith("🃏") else r + symbol) for r in ranks]
    return cards


def test_private_hand_and_buttons_follow_discord_limits() -> None:
    live = _live(Mode.CUTTHROAT, Rules(jokers=True), seed=9)
    game = live.game
    assert game is not None
    game.deal()
    seat = game.turn
    assert seat is not None
    view = seat_view(game, seat)
    buttons = bid_view(live.game_id, view).buttons
    assert len(buttons) == 19 and len({b["custom_id"] for b in buttons}) == 19
    hand = hand_view(live.game_id, view)
    assert hand is not None and len(hand.buttons) == 19  # 18 cards and a Bid button
    rows = hand.to_components()
    assert len(rows) == 4 and all(len(row["components"]) <= 5 for row in rows)
    for button in hand.buttons:
        assert len(button["custom_id"]) <= 100 and parse_button(button["custom_id"]) is not None
    enabled = [parse_button(b["custom_id"]) for b in hand.buttons if not b["disabled"]]
    assert {int(c.action) for c in enabled if c is not None and c.kind == "card"} == set(view.legal_cards)
    shown = private_hand_text(live, view).splitlines()[1]
    assert mask_of(_cards_in(shown)) == game.hand_mask(seat)


def test_hidden_cards_are_not_in_the_private_text_either() -> None:
    live = _live(Mode.CUTTHROAT, Rules(), seed=2)
    game = live.game
    assert game is not None
    game.deal()
    view = seat_view(game, 0)._replace(hand=(), cards_hidden=True, can_blind_nil=True)
    text = private_hand_text(live, view)
    assert "Blind nil" in text and not LABEL.findall(text)
    buttons = hand_view(live.game_id, view)
    assert buttons is not None
    assert [b["label"] for b in buttons.buttons] == ["Blind nil", "Show my cards"]


def test_lobby_and_hand_text() -> None:
    live = _live(Mode.SOLO, Rules(), seed=1)
    live.status = "lobby"
    live.seats = live.seats[:2]
    assert "Waiting for players" in lobby_text(live) and "alice (host)" in lobby_text(live)
    assert hand_text([parse_card(c) for c in ("AS", "2S", "10H", "3C", "KD")]) == "♠ A 2 · ♥ 10 · ♣ 3 · ♦ K"


def test_the_hand_dm_only_carries_buttons_that_stay_meaningful() -> None:
    from bot.discord_ui.views import dm_view

    live = _live(Mode.CUTTHROAT, Rules(), seed=4)
    game = live.game
    assert game is not None
    game.deal()
    first = game.turn
    assert first is not None
    bidder = dm_view(live.game_id, seat_view(game, first))
    assert bidder is not None and [b["label"] for b in bidder.buttons] == ["Bid"]
    assert dm_view(live.game_id, seat_view(game, (first + 1) % 3)) is None
    hidden = seat_view(game, first)._replace(hand=(), cards_hidden=True, can_blind_nil=False)
    hidden_buttons = dm_view(live.game_id, hidden)
    assert hidden_buttons is not None
    assert [b["label"] for b in hidden_buttons.buttons] == ["Blind nil", "Show my cards"]


@pytest.mark.parametrize(("custom_id", "click"), [
    ("spades:card:0a1b:51", Click("card", "0a1b", "51")),
    ("spades:bid:0a1b:blind", Click("bid", "0a1b", "blind")),
    ("spades:lobby:ff:addbot", Click("lobby", "ff", "addbot")),
    ("spades:table:ff:act", Click("table", "ff", "act")),
    ("spades:reveal:ff", Click("reveal", "ff", "")),
    ("spades:reveal:ff:x", None),
    ("spades:card:ff:AS", None),
    ("spades:lobby:ff:kick", None),
    ("spades:card:NOTHEX:1", None),
    ("other:card:ff:1", None),
    ("spades:card:ff", None),
])
def test_a_click_is_read_from_its_custom_id_alone(custom_id: str, click: Click | None) -> None:
    assert parse_button(custom_id) == click
