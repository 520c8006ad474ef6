"""`python -m bot play`: a scripted person plays in the terminal; we read what they would read."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import pytest

from bot import play_cli
from bot.ai import REVEAL, Move
from bot.engine import Game, Rules, card_code, card_label, parse_card
from tests.ai.cli import ANSI, args, ask, scripted
from tests.engine.helpers import deal, new_game


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_whole_game_reads_like_a_table():
    out = io.StringIO()
    prompts: list[str] = []
    game = play_cli.run(args(), scripted(["eighteen", "99", "3", "the joker", "ZZ"], prompts), out)
    text = out.getvalue()
    lines = text.splitlines()
    assert game.is_over and "Game over" in text
    assert not ANSI.search(text), "no colour codes when the output is not a terminal"
    # Refusals say why, and the game goes on.
    assert "“eighteen” isn't a bid: type a number or nil (nil, 1–17)." in text
    assert "Bids go from 0 (nil) to 17. You can bid nil, 1–17." in text
    assert "“the joker” isn't a card. Try one of: AS, as, A♠, 10h" in text
    # Your hand comes one line per suit, spades, hearts, clubs, diamonds.
    starts = [i for i, line in enumerate(lines) if line == "Your hand:"]
    assert starts
    for i in starts:
        assert [line.split()[0] for line in lines[i + 1:i + 5]] == ["♠", "♥", "♣", "♦"]
    # One short line per card played, each trick ending with who won it; tricks that play themselves
    # (fast_finish) come whole, after a line that says so.
    played = sum(len(t.plays) for hand in game.hand_logs for t in hand.tricks[:len(hand.tricks) - hand.fast_finished])
    trick_lines = [line for line in lines if line.startswith("Trick ")]
    assert len(trick_lines) == played + sum(hand.fast_finished for hand in game.hand_logs)
    assert any(hand.fast_finished for hand in game.hand_logs)
    assert sum(line.startswith("The last ") and " play" in line for line in lines) == sum(
        bool(hand.fast_finished) for hand in game.hand_logs)
    assert all(len(line) < 120 for line in trick_lines)
    finished = [line for line in trick_lines if line.endswith(" wins")]
    assert len(finished) == sum(len(hand.tricks) for hand in game.hand_logs)
    first = game.hand_logs[0].tricks[0]
    names = game.names
    assert finished[0] == ("Trick 1: " + " · ".join(f"{names[s]} {card_label(c)}" for s, c in first.plays)
                           + f"  → {names[first.winner]} wins")
    # The table is not reprinted card by card: once a hand and once per decision of yours at most.
    tables = [line for line in lines if line.startswith(("Hand ", "Your turn ·")) and "scored" not in line]
    assert len(tables) <= len(game.hand_logs) + len(prompts)
    assert len(tables) < played / 2
    # After every hand: bid against won, points, bags and score per player.
    bags_before = [0, 0, 0]
    for hand in game.hand_logs:
        at = lines.index(f"Hand {hand.number} scored:")
        result = hand.result
        assert result is not None
        bids = {b.seat: b for b in hand.bids}
        for seat, row in enumerate(lines[at + 1:at + 4]):
            words = row.split()
            assert words[:10] == [names[seat], "bid", play_cli.bid_text(bids[seat].bid, bids[seat].blind),
                                  "won", str(result.tricks_won[seat]), f"{result.hand_points[seat]:+d}",
                                  "bags", str(result.bags[seat]), "score", str(result.scores[seat])]
            bag_outs = (bags_before[seat] + result.new_bags[seat] - result.bags[seat]) // 10
            assert words[10:] == (["(bag", "penalty", f"−{100 * bag_outs})"] if bag_outs else [])
            bags_before[seat] = result.bags[seat]


def test_the_default_name_you_reads_as_you_win_and_you_bid():
    out = io.StringIO()
    game = play_cli.run(args(name="You"), scripted([]), out)
    lines = out.getvalue().splitlines()
    mine = sum(1 for hand in game.hand_logs for trick in hand.tricks if trick.winner == 0)
    assert mine > 0
    assert sum(line.endswith("→ You win") for line in lines) == mine
    assert not any("You wins" in line or "You bids" in line for line in lines)
    assert "You bid 2." in lines


def test_colour_on_a_terminal_only_and_never_with_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    terminal = Terminal()
    play_cli.run(args(), scripted([], stop_after=1), terminal)
    text = terminal.getvalue()
    assert "\x1b[31m♥  " in text and "\x1b[31m♦  " in text
    assert "\x1b[31m♠" not in text and "\x1b[31m♣" not in text
    assert "Input ended" in text
    monkeypatch.setenv("NO_COLOR", "1")
    terminal = Terminal()
    play_cli.run(args(), scripted([], stop_after=1), terminal)
    assert not ANSI.search(terminal.getvalue())


def your_turn_after(game: Game, plays: list[str]) -> None:
    for code in plays:
        game.play(game.turn or 0, parse_card(code))


def bid_round(game: Game) -> None:
    for bid in (3, 4, 5):
        game.bid(game.turn or 0, bid)


def test_a_refused_card_says_why_in_the_engines_words():
    game = new_game()
    deal(game, {0: "AH KH QC", 1: "2H 3S 4C"}, set_aside="7D")
    bid_round(game)
    your_turn_after(game, ["AH"])
    move, text = ask(game, ["3S", "KH", "2H"])
    assert move == Move.play(parse_card("2H"))
    follow, missing = text.splitlines()
    assert follow.startswith("You must follow hearts. You can play ")
    legal = follow.removeprefix("You must follow hearts. You can play ").rstrip(".").split()
    assert "2♥" in legal and all(card.endswith("♥") for card in legal)
    assert missing == f"You don't have the K♥. You can play {' '.join(legal)}."


def test_spades_must_be_broken_before_they_are_led():
    game = new_game()
    deal(game, {0: "AS KH QC"}, set_aside="7D")
    bid_round(game)
    move, text = ask(game, ["AS", "KH"])
    assert move == Move.play(parse_card("KH"))
    assert text.startswith("Spades haven't been broken: lead another suit. You can play ")


@pytest.mark.parametrize(("typed", "card"), [
    ("AS", "AS"), ("as", "AS"), ("A♠", "AS"), ("ace of spades", "AS"), ("10h", "10H"), ("  10 ♥ ", "10H"),
])
def test_the_same_card_spellings_as_discord(typed, card):
    game = new_game(rules=Rules(spades_must_break=False))
    deal(game, {0: "AS 10H"}, set_aside="7D")
    bid_round(game)
    move, text = ask(game, [typed])
    assert (card_code(move.value), text) == (card, "")


def test_a_bid_the_total_rule_forbids_is_refused_with_the_reason():
    game = new_game(rules=Rules(no_exact_total=True))
    deal(game, {}, set_aside="7D")
    game.bid(0, 6)
    game.bid(1, 6)
    move, text = ask(game, ["5", "nil"])
    assert move == Move.bid(0)
    assert text == "Bids can't total 17. You can bid nil, 1–4, 6–17.\n"


def test_blind_nil_the_total_rule_forbids_is_not_offered():
    game = new_game(rules=Rules(no_exact_total=True, blind_nil_deficit=0))
    deal(game, {}, set_aside="7D")
    for seat, bid in ((0, 9), (1, 8)):
        game.reveal(seat)
        game.bid(seat, bid)
    move, text = ask(game, [])  # nothing is asked
    assert move == REVEAL
    assert text == "Bids can't total 17. So no blind nil: here are your cards.\n"


def test_a_huge_line_is_refused_in_a_short_message_and_the_game_goes_on():
    out = io.StringIO()
    game = play_cli.run(args(), scripted(["x" * 100_000, "3", "AS" * 50_000]), out)
    text = out.getvalue()
    assert game.is_over
    assert text.count("That answer is 100,000 characters long; a move is a word or two, like 4, nil or 10h.") == 2
    assert max(len(line) for line in text.splitlines()) < 200


def test_partners_with_a_hard_player_asks_about_blind_nil_before_showing_cards():
    prompts: list[str] = []
    out = io.StringIO()
    game = play_cli.run(args(mode="partners", players=("hard", "normal", "easy"), seat=2,
                             rule=["target=100", "blind_nil_deficit=0"]), scripted([], prompts), out)
    assert game.is_over
    assert prompts[0].startswith("Bid blind nil, before seeing your cards?")
    assert prompts[1].startswith("Your bid")
    text = out.getvalue()
    assert text.index("Your cards are face down") < text.index("Your hand:")
    assert "  hard-bot-0 & Ann  " in text  # the team's line in each hand summary


def run_play(*argv: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bot", "play", *argv], input=stdin, capture_output=True,
                          text=True, timeout=120)


def test_end_of_input_and_quit_end_the_game_cleanly():
    ended = run_play("--seed", "4", "--players", "easy,easy", stdin="n\n3\n")
    assert ended.returncode == 0 and ended.stderr == ""
    assert "Input ended: the game stops here, unfinished (hand 1)." in ended.stdout
    left = run_play("--seed", "4", "--players", "easy,easy", stdin="n\nquit\n")
    assert left.returncode == 0 and left.stderr == ""
    assert "You left: the game stops here" in left.stdout


def test_players_takes_the_one_level_that_help_names_as_the_default():
    helped = run_play("--help", stdin="")
    default = re.search(r"default: (\w+)", " ".join(helped.stdout.split()))
    assert default is not None
    level = default.group(1)
    started = run_play("--seed", "4", "--players", level, stdin="quit\n")
    assert started.returncode == 0 and started.stderr == ""
    assert f"You against {level}-bot-1, {level}-bot-2." in started.stdout
    partners = run_play("--mode", "partners", "--seed", "4", "--players", "easy", stdin="quit\n")
    assert partners.returncode == 0 and "You and easy-bot-2 against easy-bot-1 and easy-bot-3." in partners.stdout


@pytest.mark.parametrize(("argv", "says"), [
    (["--players", "easy,easy,easy"],
     "cutthroat has 2 computer players: --players takes one level for every seat or 2 levels, got 3"),
    (["--players", "easy,genius"], "unknown level “genius”"),
    (["--seat", "3"], "cutthroat has seats 0 to 2, not 3"),
    (["--seat", "-1"], "--seat: must be at least 0"),
    (["--rule", "nil=maybe"], "nil can't be “maybe”"),
])
def test_bad_arguments_get_one_line_and_exit_code_2(argv, says):
    finished = run_play(*argv, stdin="")
    assert finished.returncode == 2 and finished.stdout == ""
    lines = finished.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("python -m bot play: ") and says in lines[0], finished.stderr


def test_a_nil_in_partners_asks_for_the_card_to_pass_and_keeps_the_pass_secret() -> None:
    """Ann bids nil at every turn to bid, so she passes a card each hand; the others' passes are
    told without their cards."""
    out = io.StringIO()
    prompts: list[str] = []
    answers = ["nil", "ZZ"]  # the first bid, then a card she doesn't hold at her first pass
    game = play_cli.run(args(mode="partners", players=("normal",), rule=["target=100", "mercy=100",
                                                                      "nil_pass=one_two"]),
                        scripted(answers, prompts), out)
    text = out.getvalue()
    passes = [p for p in prompts if p.startswith("Pass a card to your partner")]
    assert passes and game.hand_logs[0].passes
    assert "“ZZ” isn't a card" in text and "You can pass" in text
    mine = [e.card for e in game.hand_logs[0].passes if e.seat == 0]
    assert f"You pass {card_label(mine[0])} to your partner." in text
    partner = game.names[2]
    assert f"{partner} passes a card to a partner." in text
