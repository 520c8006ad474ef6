"""Pictures of a channel for humans: a real Spades game's messages (table, a player's hand panel,
the hand summary, the game over with its chart) come out as a Discord-like PNG."""

from __future__ import annotations

import ast
import io
from collections.abc import Callable
from pathlib import Path

from PIL import Image

import bot
from bot.ai import ComputerPlayer, make_player
from bot.ai.drive import computer_players, drive
from bot.discord_ui.pictures.chart import (
    HEIGHT,
    SHOWN_WIDTH,
    WIDTH,
    chart_font,
    has_glyph,
    printable_text,
    score_chart_png,
)
from bot.discord_ui.table.render import lobby_text
from bot.discord_ui.table.results_text import chart_series, game_over_text
from bot.discord_ui.table.views import lobby_view, panel_view, rematch_view, summary_view, table_view
from bot.engine import Game, Mode, Phase, Rules, TableView, seat_view
from bot.service import FinishOutcome, LiveGame, RatingChange
from bot.store import Seat
from devkit.fake_discord.picture import (
    BODY,
    BUTTON_COLOURS,
    EMOJI,
    GUTTER,
    JOINERS,
    LINK,
    PAD,
    ShownMessage,
    render_messages_png,
)

PLAYERS = {"1": "Alice", "2": "Bob", "3": "Carol"}


def play_until(game: Game, players: list[ComputerPlayer], stop: Callable[[Game], bool]) -> None:
    """Computer players' moves until `stop(game)` or the game's end."""
    drive(game, computer_players(players), until=stop)


def public(live: LiveGame) -> TableView:
    table = live.table_view()
    assert table is not None
    return table


def sample_game() -> list[ShownMessage]:
    """The messages of a seeded cutthroat game, as the bot builds them and a channel shows them."""
    mode, rules = Mode.CUTTHROAT, Rules(target=250)
    seats = [Seat(i, name, user_id=int(uid)) for i, (uid, name) in enumerate(PLAYERS.items())]
    live = LiveGame("3f9a2c", 1, 2, mode, rules, 1, seats, 120.0, status="lobby")
    buttons = lobby_view(live)
    assert buttons is not None
    lobby = ShownMessage("Spades", lobby_text(live), bot=True, timestamp="Today at 21:02",
                         components=buttons.to_components())
    live.status = "playing"
    live.game = game = Game.new(live.game_id, mode, rules, seed=7, names=list(PLAYERS.values()))
    players = [make_player("normal", seed=seat) for seat in range(mode.seats)]
    play_until(game, players, lambda g: g.phase is Phase.PLAYING)  # the first lead: a full hand of 17 cards
    table = ShownMessage("Spades", bot=True, edited=True, components=table_view(public(live), True).to_components(),
                         timestamp="Today at 21:03")
    panel = ShownMessage("Spades", bot=True, ephemeral=True,
                         components=panel_view(live, seat_view(game, game.turn or 0)).to_components())
    play_until(game, players, lambda g: len(g.hand_logs) == 2 and g.hand_logs[0].result is not None)
    summary = ShownMessage("Spades", bot=True, components=summary_view(public(live), 1).to_components())
    chat = ShownMessage("Carol", "gg <@2>, that *nil* was **brave** — `/spades hand` again? 🃏♠♥",
                        timestamp="Today at 21:07", edited=True)
    play_until(game, players, lambda g: False)
    outcome = FinishOutcome(live.game_id, (RatingChange(0, "u1", "Alice", None, 3.2, None, 1, games=1),
                                           RatingChange(1, "u2", "Bob", 4.1, 2.9, 1, 2, games=7)), False)
    names, scores = chart_series(public(live))
    chart = score_chart_png(names, scores, rules.target, title="Cutthroat Spades", winners=game.winners)
    over = ShownMessage("Spades", game_over_text(public(live), outcome), bot=True, attachments=[("scores.png", chart)],
                        components=rematch_view(live.game_id).to_components())
    return [lobby, table, panel, summary, chat, over]


def opened(png: bytes, width: int) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.width == width
    image.load()
    return image.convert("RGB")


def colour_count(image: Image.Image, colour: tuple[int, int, int], tolerance: int = 6) -> int:
    counts = image.getcolors(image.width * image.height)
    assert counts is not None
    return sum(n for n, rgb in counts
               if isinstance(rgb, tuple) and max(abs(a - b) for a, b in zip(rgb, colour, strict=True)) <= tolerance)


def test_a_game_renders_as_a_channel_with_buttons_the_hand_panel_and_the_chart():
    messages = sample_game()
    png = render_messages_png(messages, names=PLAYERS)
    image = opened(png, 720)
    assert 1200 < image.height < 4000
    assert colour_count(image, BUTTON_COLOURS[3]) > 500  # the lobby's green Join
    assert colour_count(image, BUTTON_COLOURS[4]) > 2000  # red-suited cards and Cancel
    assert colour_count(image, LINK) > 20  # "Dismiss message" under the ephemeral panel
    chart_only = render_messages_png([messages[-1]], names=PLAYERS)
    without_chart = render_messages_png([ShownMessage(messages[-1].author, messages[-1].content, bot=True)])
    shown = opened(chart_only, 720).height - opened(without_chart, 720).height
    assert shown >= SHOWN_WIDTH * HEIGHT // WIDTH  # the chart, as large as a channel shows it


def test_the_same_messages_give_the_same_bytes():
    messages = sample_game()
    assert render_messages_png(messages, names=PLAYERS) == render_messages_png(sample_game(), names=PLAYERS)


def test_markdown_and_unknown_glyphs_change_the_picture_and_never_fail():
    plain = render_messages_png([ShownMessage("Alice", "hello there")])
    for content in ["**hello** there", "*hello* there", "`hello` there", "# hello there", "-# hello there",
                    "> hello there", "```\nhello there\n```", "hello <@1>", "hello 🏆 there", "hello 李 there"]:
        assert render_messages_png([ShownMessage("Alice", content)], names=PLAYERS) != plain, content
    odd = "\u200d\ufe0f🇫🇷👨‍👩‍👧 ||x|| ~~y~~ __z__ <#9> <@&8> " + "long" * 80 + "\n" * 5 + "```unclosed"
    opened(render_messages_png([ShownMessage("李小龍🔥" * 10, odd, edited=True, ephemeral=True)], width=400), 400)


def test_every_kind_of_component_and_attachment_is_drawn():
    chart = score_chart_png(["A", "B"], [[10, -20], [60, 30]], 100)
    button_styles = [{"type": 2, "style": s, "label": f"style {s}", "disabled": s == 2} for s in range(1, 6)]
    container = {"type": 17, "accent_color": 0xE67E22, "components": [
        {"type": 9, "components": [{"type": 10, "content": "**Section** with a thumbnail"}],
         "accessory": {"type": 11, "media": {"url": "attachment://chart.png"}}},
        {"type": 9, "components": [{"type": 10, "content": "and with a button"}],
         "accessory": {"type": 2, "style": 1, "label": "Go", "emoji": {"name": "▶"}}},
        {"type": 14, "divider": True, "spacing": 2},
        {"type": 12, "items": [{"media": {"url": "attachment://chart.png"}}, {"media": {"url": "https://x/y.png"}}]},
        {"type": 13, "file": {"url": "attachment://record.json"}},
        {"type": 1, "components": [{"type": 3, "placeholder": "Pick a bid", "options": []}]},
    ]}
    message = ShownMessage("Spades", bot=True, components=[{"type": 1, "components": button_styles}, container],
                           attachments=[("chart.png", chart), ("record.json", b"{}"), ("notes.txt", b"x" * 3000)])
    image = opened(render_messages_png([message]), 720)
    assert colour_count(image, BUTTON_COLOURS[1]) > 300
    assert colour_count(image, (0xE6, 0x7E, 0x22)) > 100  # the container's accent
    alone = opened(render_messages_png([ShownMessage("Spades", bot=True, components=[container],
                                                     attachments=[("chart.png", chart),
                                                                  ("record.json", b"{}")])]), 720)
    with_loose_file = opened(render_messages_png([ShownMessage("Spades", bot=True, components=[container],
                                                               attachments=[("chart.png", chart),
                                                                            ("record.json", b"{}"),
                                                                            ("notes.txt", b"x")])]), 720)
    assert with_loose_file.height > alone.height  # files the panel doesn't show come after it as chips


def _strings_in(path: Path) -> str:
    """Every string literal of a module but its docstrings: the text the bot can send."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, documented) and node.body and isinstance(node.body[0], ast.Expr)}
    return "".join(node.value for node in ast.walk(tree)
                   if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings)


def test_every_symbol_the_bot_sends_is_drawn_never_as_a_missing_glyph_box():
    not_posted = {"play_cli.py", "chart.py"}  # a terminal game; text drawn into the chart's own image
    sent = {c for path in Path(bot.__file__).parent.rglob("*.py") if path.name not in not_posted
            for c in _strings_in(path) if ord(c) > 127}
    assert {"🔁", "🏆", "🃏", "⚠", "▶", "♠", "−"} <= sent  # the bot's emoji, its suits and its minus are found
    spelled = {c for c in sent if not has_glyph(c) and "/" in printable_text(c)}  # ⅓ drawn as 1/3
    assert not {c for c in sent if not has_glyph(c) and c not in EMOJI and c not in JOINERS and c not in spelled}
    assert printable_text("2⅓ points") == "2 1/3 points" and printable_text("⅔") == "2/3"
    lacking = sorted(c for c in sent if not has_glyph(c) and c not in JOINERS and c not in spelled)
    for emoji in lacking:  # each painted as itself: no two alike, none the blank tile of an unknown emoji
        drawn = [render_messages_png([ShownMessage("Alice", f"a {c} b")]) for c in (emoji, "\U0001f9ff")]
        assert drawn[0] != drawn[1], emoji
    assert len({render_messages_png([ShownMessage("Alice", f"a {c} b")]) for c in lacking}) == len(lacking)


def test_a_number_and_its_word_joined_by_a_no_break_space_wrap_together():
    font = chart_font(BODY)
    words = "Alice won the hand and has"
    width = round(font.getlength(f"{words} 12")) + 4  # "12" fits on the first line, "12 bags" does not
    picture = GUTTER + PAD + width

    def png(text: str) -> bytes:
        return render_messages_png([ShownMessage("Alice", text)], width=picture)

    assert png(f"{words} 12\u00a0bags") == png(f"{words}\n12\u00a0bags")
    assert png(f"{words} 12 bags") != png(f"{words}\n12 bags")  # an ordinary space breaks after "12"
