"""Names are shown as written in markdown text and in code blocks, and long lists stop whole,
with "… and N more", inside Discord's 2,000 characters."""

from __future__ import annotations

import random
import string
from typing import Literal

from bot.ai import apply_move
from bot.ai.drive import random_moves, turns
from bot.discord_ui import layout
from bot.discord_ui.errors import DISCORD_LIMIT
from bot.discord_ui.safe_text import BACKTICK_LOOKALIKE, in_code, quoted_parts, shown
from bot.discord_ui.seasons.render import list_text
from bot.discord_ui.table import faces
from bot.discord_ui.table.results_text import leaderboard_text, scoreboard_text
from bot.discord_ui.tournaments.render import podium_text, signup_text, standings_text
from bot.engine import Game, Mode, Rules, seat_view, table_view
from bot.engine.names import named
from bot.engine.tournaments.swiss import TableResult
from bot.engine.tournaments.tournament import Tournament
from bot.service import LeaderboardEntry, Season
from bot.service.tournaments import LiveTournament
from bot.store import TournamentInfo
from tests.discord_ui.live_games import live_game


def test_markup_in_a_name_is_escaped_and_mentions_are_broken() -> None:
    assert shown("**b**||s||[x](http://evil.example)") == r"\*\*b\*\*\|\|s\|\|\[x\](http\://evil.example)"
    assert shown("<@&123> @everyone") == r"\<\@&123> \@everyone"
    assert [shown(n) for n in ("# big", "-# small", "> quote", "1. list", "+ item")] == [
        r"\# big", r"\-# small", r"\> quote", r"1\. list", r"\+ item"]
    assert shown("Mary-Jane #2 (ok) 1.5") == "Mary-Jane #2 (ok) 1.5"  # nothing to escape: unchanged
    assert shown("a\u202eb\nc\u2068d") == "ab cd"  # no direction override, no new line


def test_in_a_code_block_a_name_cannot_close_the_block() -> None:
    assert in_code("```x`") == BACKTICK_LOOKALIKE * 3 + "x" + BACKTICK_LOOKALIKE
    assert in_code("**b** <@1>") == "**b** <@1>"  # nothing else is markup there


def test_names_and_echoes_in_a_refusal_are_escaped_the_rest_kept() -> None:
    said = quoted_parts(f"It's {named('**x**')}'s turn. “<@&1>” isn't a bid: use `/spades bid`.")
    assert said == r"It's \*\*x\*\*'s turn. “\<\@&1>” isn't a bid: use `/spades bid`."


def test_the_score_table_keeps_one_code_block_whatever_the_names() -> None:
    names = ["```", "a`b", "**c**"]
    game = Game.new("abc123", Mode.CUTTHROAT, Rules(), seed=3, names=names)
    random_move = random_moves(random.Random(3))
    for seat in turns(game, until=lambda g: bool(g.hand_logs) and g.hand_logs[0].result is not None):
        apply_move(game, seat, random_move(game, seat))
    text = scoreboard_text(table_view(game))
    assert text.count("```") == 2 and "**c**" in text, text  # one block; inside it a name is as written
    assert BACKTICK_LOOKALIKE * 3 in text


NAMES = [f"{i:03d}" + "".join(string.ascii_letters[(i + k) % 52] for k in range(27)) + "*_" for i in range(100)]


def crowded(rounds_played: int) -> LiveTournament:
    """100 entrants with 32-character names (two of them markup), `rounds_played` rounds recorded."""
    engine = Tournament.new("t1", Mode.CUTTHROAT, rounds=2, seed=4)
    for index, name in enumerate(NAMES):
        engine.join(str(index), name, (str(index),))
    for _ in range(rounds_played):
        engine.seat()
        for table, seating in enumerate(engine.played[-1].tables):
            scores = tuple(10 * n for n in range(len(seating.seats)))
            engine.record(table, TableResult(scores, tuple(len(scores) - n for n in range(len(scores)))))
    stage: Literal["open", "over"] = "over" if rounds_played == 2 else "open"
    info = TournamentInfo("t1", 1, 2, 3, {}, None, None, stage, 0.0)
    return LiveTournament(info, engine, "normal", None, None)


def whole_names(text: str) -> int:
    """How many of the entrants are named in `text`, each checked to be there whole."""
    return sum(1 for name in NAMES if shown(name) in text)


def test_a_hundred_entrants_are_listed_as_far_as_they_fit_then_counted() -> None:
    text = signup_text(crowded(0))
    listed = whole_names(text)
    assert len(text) <= DISCORD_LIMIT and 10 < listed < 100
    assert text.endswith(f" · … and {100 - listed} more")
    for after in (standings_text(crowded(1), 1, next_in=30), podium_text(crowded(2))):
        assert len(after) <= DISCORD_LIMIT
        listed = whole_names(after)
        assert f"… and {100 - listed} more" in after, after[-200:]
    assert standings_text(crowded(1), 1, next_in=30).endswith("Round 2 is seated in about 30 s.")
    assert podium_text(crowded(2)).endswith("Every game counted on the leaderboard as usual.")


def test_a_long_list_of_seasons_stops_at_a_whole_line() -> None:
    seasons = [Season(i, 1, f"Season {'x' * 30} {i}", 1, 1, None, 1_700_000_000.0 + i, None, 1_700_000_100.0 + i)
               for i in range(80)]
    text = list_text(seasons, None)
    assert len(text) <= DISCORD_LIMIT and "… and " in text and text.endswith("shows any of them, or all time.")


def test_a_leaderboard_of_long_markup_names_fits_one_message() -> None:
    entries = [LeaderboardEntry(rank, rank, "*_`|" * 8, 9, 1, 0.11, 40, 4.4, 1.5, 20.0, 7.0) for rank in range(1, 26)]
    text = leaderboard_text("**Spades Club**", "cutthroat", "rating", entries, "all time")
    assert len(text) <= DISCORD_LIMIT and text.startswith(r"**\*\*Spades Club\*\* (all time) — cutthroat")
    assert "… and " in text and "#1 **" + shown("*_`|" * 8) + "**" in text


def test_a_refusal_shown_on_a_panel_names_the_player_as_written() -> None:
    live = live_game(Mode.CUTTHROAT, Rules(), seed=3)
    assert live.game is not None
    view = seat_view(live.game, 0)
    texts = [part.content for part in faces.panel(live, view, f"It's {named('**x**')}'s turn.").parts
             if isinstance(part, layout.Text)]
    assert "⚠️ It's \\*\\*x\\*\\*'s turn." in texts
    [closed] = faces.closed_panel(f"{named('<@1>')} took the seat.").parts
    assert isinstance(closed, layout.Text) and closed.content == r"\<\@1> took the seat."
