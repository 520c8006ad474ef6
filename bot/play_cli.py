"""`python -m bot play`: a whole game in the terminal against computer players, no Discord needed.

It reads like the Discord table: the full table and your hand (by suit, hearts and diamonds in red
on a colour terminal) only when a hand starts and when it is your turn, one short line per card
as a trick builds, who won each trick, and a summary of every hand. A refused move says why.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import TextIO

from bot.ai import BLIND_NIL, LEVELS, REVEAL, ComputerPlayer, Move, make_player
from bot.ai.drive import drive
from bot.engine import (
    ACCEPTED_FORMS,
    BIG_JOKER,
    LITTLE_JOKER,
    Card,
    EngineError,
    Game,
    Mode,
    Phase,
    Rules,
    SeatView,
    card_label,
    display_sorted,
    export_record,
    fast_finish,
    nil_pass,
    parse_card,
    seat_view,
)
from bot.engine.card_order import ORDERS
from bot.engine.cards import DIAMONDS, HEARTS, RANKS, SUIT_OF, SUIT_SYMBOLS
from bot.selfplay import (
    DEFAULT_LEVEL,
    UsageError,
    at_least,
    budget_text,
    levels_list,
    open_out,
    parse_rules,
    seat_levels,
)

LONGEST_ANSWER = 40  # characters; "queen of diamonds" is 17, so anything longer is a mistake
LEAVE_WORDS = ("quit", "exit")
TABLE_WORDS = ("?", "help", "table", "hand")
_RED = "\x1b[31m"
_RESET = "\x1b[0m"
_SUIT_LINE_ORDER = (3, 2, 0, 1)  # ♠ ♥ ♣ ♦, as players hold them: colours alternate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", default="cutthroat", choices=[m.value for m in Mode],
                        help="cutthroat (3 players, each for themselves, the one unless given), solo (4, each for "
                             "themselves), partners (4 in two teams: your partner sits opposite you), duo (2, the "
                             "hands drawn card by card) or five (5, each for themselves, 10 cards each)")
    parser.add_argument("--players", type=levels_list, default=None,
                        help=f"the computer players' level ({', '.join(LEVELS)}; default: {DEFAULT_LEVEL}), "
                             "or comma-separated levels, one per other seat")
    parser.add_argument("--name", default="You", help="your name at the table (You unless given)")
    parser.add_argument("--seat", type=at_least(0), default=0, help="your seat, from 0")
    parser.add_argument("--seed", type=int, default=None,
                        help="a whole number the deals and the computer players' choices follow from: the same seed "
                             "plays the same game again (a random one unless given)")
    parser.add_argument("--budget", type=budget_text, default=None,
                        help="the hard players' thinking time (seconds) or 200it")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option of docs/rules.md; repeatable")
    parser.add_argument("--out", default=None, metavar="FILE",
                        help="write the game's spades-record/1 JSON there when it stops, finished or not, "
                             "to review it (python -m bot review FILE) or replay it")


class Style:
    """How cards look: red hearts and diamonds on a colour terminal, plain text anywhere else."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour

    @classmethod
    def for_stream(cls, out: TextIO) -> Style:
        """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
        return cls(out.isatty() and not os.environ.get("NO_COLOR"))

    def red(self, text: str, suit: int) -> str:
        return f"{_RED}{text}{_RESET}" if self.colour and suit in (HEARTS, DIAMONDS) else text

    def card(self, card: Card) -> str:
        return self.red(card_label(card), SUIT_OF[card])

    def cards(self, cards: Iterable[Card]) -> str:
        return " ".join(self.card(c) for c in display_sorted(cards))


def hand_lines(cards: Sequence[Card], style: Style, trumps: str = "standard") -> list[str]:
    """One line per suit, high to low; a suit you lack shows a dash so a void is plain to see. Under
    ``trumps`` the deuces played as spades are on the spades' line, with their own suit shown."""
    place = ORDERS[trumps].place
    lines = []
    for suit in _SUIT_LINE_ORDER:
        ranks = [card_label(c) if c in (BIG_JOKER, LITTLE_JOKER) or SUIT_OF[c] != suit else RANKS[c % 13]
                 for c in display_sorted(cards, place) if SUIT_OF[place[c]] == suit]
        lines.append("  " + style.red(f"{SUIT_SYMBOLS[suit]}  {' '.join(ranks) or '—'}", suit))
    return lines


def bid_text(bid: int | None, blind: bool) -> str:
    if bid is None:
        return "–"
    return ("blind " if blind else "") + ("nil" if bid == 0 else str(bid))


def own_cards_lines(view: SeatView, style: Style) -> list[str]:
    if view.cards_hidden:
        return ["Your cards are face down: you may bid blind before you look at them."]
    return ["Your hand:", *hand_lines(view.hand, style, view.rules.trumps)] if view.hand else []


def table_lines(view: SeatView, style: Style) -> list[str]:
    """The whole table, for the start of a hand and a bidding turn: every seat's bid, tricks,
    score and bags, the cards on the current trick, and your hand."""
    where = {Phase.BIDDING: "bidding", Phase.DRAWING: "the draw"}.get(
        view.phase, f"trick {len(view.tricks) + 1} of {view.tricks_per_hand}")
    spades = "spades broken" if view.spades_broken else "spades not broken"
    lines = [f"Hand {view.hand_number} · {where} · {spades}"]
    width = max(len(name) for name in view.names)
    for seat, name in enumerate(view.names):
        marks = ("  dealer" if seat == view.dealer else "") + ("  ◀ to act" if seat == view.turn else "")
        lines.append(f"  {name:<{width}}  bid {bid_text(view.bids[seat], view.blind[seat]):<9} "
                     f"won {view.tricks_won[seat]:>2} │ score {view.scores[seat]:>5}  bags {view.bags[seat]:>2}"
                     f"{marks}")
    if view.trick:
        lines.append("  On the table: " + " · ".join(f"{view.names[s]} {style.card(c)}" for s, c in view.trick))
    return lines + own_cards_lines(view, style)


def play_turn_lines(view: SeatView) -> list[str]:
    """The start of a playing turn, compact: scores can't change mid-hand and each card on the
    trick has just been shown, so only tricks won against bids, and your hand."""
    spades = "spades broken" if view.spades_broken else "spades not broken"
    standing = " · ".join(f"{name} {won}/{bid_text(bid, blind)}" for name, won, bid, blind
                          in zip(view.names, view.tricks_won, view.bids, view.blind, strict=True))
    return [f"Your turn · trick {len(view.tricks) + 1} of {view.tricks_per_hand} · {spades} · won/bid: {standing}"]


def trick_line(names: Sequence[str], number: int, plays: Sequence[tuple[int, Card]], style: Style,
               winner: int | None = None) -> str:
    """A trick as it stands: who played what, in order, and who won it once it is complete."""
    line = f"Trick {number}: " + " · ".join(f"{names[s]} {style.card(c)}" for s, c in plays)
    return line if winner is None else f"{line}  → {winner_text(names[winner])}"


def winner_text(name: str) -> str:
    """“Ann wins”, but “You win”: You is the default name of the person at the terminal."""
    return f"{name} win" if name.lower() == "you" else f"{name} wins"


def summary_lines(game: Game, style: Style) -> list[str]:
    """The last scored hand: per player (per team in partners) bid against tricks won, the hand's
    points with any bag penalty, bags and running score."""
    logs = game.hand_logs
    hand = logs[-1]
    result = hand.result
    assert result is not None
    previous = logs[-2].result if len(logs) > 1 else None
    bids = {b.seat: b for b in hand.bids}
    lines = [f"Hand {hand.number} scored:"]
    rows = []
    for side in range(game.sides):
        members = game.side_seats(side)
        first = members[0]
        before = previous.bags[first] if previous else 0
        bag_outs = (before + result.new_bags[first] - result.bags[first]) // game.rules.bag_limit
        penalty = f"  (bag penalty −{bag_outs * game.rules.bag_penalty})" if bag_outs else ""
        texts = (" & ".join(game.names[s] for s in members),
                 " + ".join(bid_text(bids[s].bid, bids[s].blind) for s in members),
                 " + ".join(str(result.tricks_won[s]) for s in members))
        rows.append((texts, f"{result.hand_points[first]:+d}", result.bags[first], result.scores[first], penalty))
    name_width, bid_width, won_width = (max(len(texts[i]) for texts, *_ in rows) for i in range(3))
    for (name, bid, won), points, bags, score, penalty in rows:
        lines.append(f"  {name:<{name_width}}  bid {bid:<{bid_width}}  won {won:<{won_width}}  {points:>5}  "
                     f"bags {bags:>2}  score {score:>5}{penalty}")
    return lines


def bid_choices(legal: Sequence[int]) -> str:
    """``nil, 1–4, 6–17``: the legal bids as ranges."""
    runs: list[list[int]] = []
    for bid in legal:
        if runs and bid == runs[-1][-1] + 1 and runs[-1][0] != 0:
            runs[-1].append(bid)
        else:
            runs.append([bid])
    return ", ".join("nil" if run == [0] else str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}"
                     for run in runs)


class LeaveGame(Exception):
    """The person typed quit (or their input ended): stop here, the game unfinished."""


def ask_human(game: Game, seat: int, read: Callable[[str], str], out: TextIO, style: Style) -> Move:
    """Ask until the answer is a legal move; every refusal says why, in the engine's words."""
    view = seat_view(game, seat)
    if view.cards_hidden and not view.can_blind_nil and not view.blind_bids:  # e.g. the total rule forbids the 0
        try:
            game.verify_bid(seat, 0, blind=True)
        except EngineError as error:
            print(f"{error} So no blind nil: here are your cards.", file=out)
        return REVEAL
    while True:
        blind = (["nil"] if view.can_blind_nil else []) + [str(b) for b in view.blind_bids]
        if view.drawn is not None:
            prompt = f"You drew {style.card(view.drawn)}. Keep it (the next card is discarded)? [y/n]: "
        elif view.cards_hidden and view.blind_bids:  # trailing blind bids too
            prompt = f"Bid blind ({', '.join(blind)}) before seeing your cards, or n to look? [n]: "
        elif view.cards_hidden:
            prompt = "Bid blind nil, before seeing your cards? [y/N]: "
        elif view.legal_bids:
            prompt = f"Your bid ({bid_choices(view.legal_bids)}): "
        elif view.to_pass:
            partner = game.names[(seat + game.sides) % game.seats]  # teams of two: partners, six's pairs
            prompt = f"{nil_pass.explain(view.to_pass, partner)} One card ({style.cards(view.hand)}): "
        else:
            prompt = f"Your card ({style.cards(view.legal_cards)}): "
        try:
            answer = read(prompt).strip()
        except EOFError:
            raise LeaveGame("Input ended") from None
        word = answer.lower()
        if len(answer) > LONGEST_ANSWER:
            print(f"That answer is {len(answer):,} characters long; a move is a word or two, like 4, nil or 10h.",
                  file=out)
            continue
        if word in LEAVE_WORDS:
            raise LeaveGame("You left")
        if word in TABLE_WORDS:
            print("\n".join(table_lines(view, style)), file=out)
            print("\n".join(wrapped(f"Cards can be typed as {card_forms(game.rules)}. Type quit to leave.")), file=out)
            continue
        if view.drawn is not None:
            if word in ("y", "yes", "keep"):
                return Move.draw(True)
            if word in ("n", "no", "discard"):
                return Move.draw(False)
            print("Answer y to keep the card, or n to discard it and keep the next one.", file=out)
        elif view.cards_hidden:
            said = word.removeprefix("blind").strip()
            if view.can_blind_nil and word in ("y", "yes", "blind", "blind nil", "nil"):
                return BLIND_NIL
            if said in blind[view.can_blind_nil:]:
                return Move.blind(int(said))
            if word in ("", "n", "no", "show", "show my cards"):
                return REVEAL
            print(f"Answer a blind bid ({', '.join(blind)}), or n to look at your cards first." if view.blind_bids
                  else "Answer y to bid blind nil, or n to look at your cards first.", file=out)
        elif view.legal_bids:
            bid = 0 if word == "nil" else int(word) if word.isascii() and word.isdigit() and len(word) <= 3 else None
            if bid is None:
                print(f"“{answer}” isn't a bid: type a number or nil ({bid_choices(view.legal_bids)}).", file=out)
                continue
            try:
                game.verify_bid(seat, bid)
            except EngineError as error:
                print(f"{error} You can bid {bid_choices(view.legal_bids)}.", file=out)
                continue
            return Move.bid(bid)
        elif view.to_pass:
            try:
                card = parse_card(answer)
                game.verify_pass(seat, (card,))
            except EngineError as error:
                print(f"{error} You can pass {style.cards(view.hand)}.", file=out)
                continue
            return Move.pass_card(card)
        else:
            try:
                card = parse_card(answer)
                game.verify_play(seat, card)
            except EngineError as error:
                print(f"{error} You can play {style.cards(view.legal_cards)}.", file=out)
                continue
            return Move.play(card)


class TerminalGame:
    """One person at the table with computer players; prints what a player at a real table sees."""

    def __init__(self, game: Game, human: int, bots: dict[int, ComputerPlayer], out: TextIO, style: Style) -> None:
        self.game = game
        self.human = human
        self.bots = bots
        self.out = out
        self.style = style
        self.table_shown_at = -1  # event count when the table was last printed
        self.hand_announced = game.hand_number  # a hand dealt before play began isn't announced
        self.tricks_before = 0  # tricks of the hand done before the move being narrated

    def say(self, *lines: str) -> None:
        print("\n".join(lines), file=self.out)

    def show_table(self) -> None:
        """The full table, or while cards are played a compact line; never twice for one moment."""
        if self.table_shown_at == self.game.event_count:
            return
        view = seat_view(self.game, self.human)
        if view.phase is Phase.PLAYING and view.turn == self.human:
            self.say(*play_turn_lines(view), *own_cards_lines(view, self.style))
        elif view.phase is Phase.DRAWING and view.hand:  # the whole table once, then only the cards kept
            self.say(f"The draw · you hold {self.style.cards(view.hand)}")
        else:
            self.say(*table_lines(view, self.style))
        self.table_shown_at = self.game.event_count

    def play(self, read: Callable[[str], str]) -> None:
        drive(self.game, lambda game, seat: self.choose(game, seat, read), moved=self.narrate)

    def choose(self, game: Game, seat: int, read: Callable[[str], str]) -> Move:
        """The person's move, asked at the terminal, or a computer player's; a new hand is announced first."""
        if game.hand_number != self.hand_announced:
            self.hand_announced = game.hand_number
            self.say("", f"══ Hand {game.hand_number} · dealer: {game.names[game.dealer]} · "
                         f"game to {game.rules.target} ══")
            self.show_table()
        self.tricks_before = len(game.hand_logs[-1].tricks)
        if seat == self.human:
            self.show_table()
            return ask_human(game, seat, read, self.out, self.style)
        return self.bots[seat].choose(seat_view(game, seat))

    def narrate(self, game: Game, seat: int, move: Move) -> None:
        tricks_before = self.tricks_before
        if move.kind in ("bid", "blind_nil"):
            who = "You bid" if seat == self.human else f"{game.names[seat]} bids"
            self.say(f"{who} {bid_text(move.value, move.kind == 'blind_nil')}.")
        elif move.kind == "draw" and seat == self.human:
            first, second = game.hand_logs[-1].draws[-2:]
            kept, dropped = (first, second) if first.kept else (second, first)
            self.say(f"You keep {self.style.card(kept.card)} and discard {self.style.card(dropped.card)}.")
        elif move.kind == "pass":
            gave = "You pass" if seat == self.human else f"{game.names[seat]} passes"
            what = card_label(move.value) if seat == self.human else "a card"  # partners' secret
            self.say(f"{gave} {what} to {'your partner' if seat == self.human else 'a partner'}.")
        elif move.kind == "play":
            hand = game.hand_logs[-1]
            if len(hand.tricks) == tricks_before:
                self.say(trick_line(game.names, tricks_before + 1, game.trick, self.style))
            else:
                auto_from = len(hand.tricks) - hand.fast_finished
                for number in range(tricks_before, len(hand.tricks)):
                    if number == auto_from:  # the rest of the hand played itself
                        self.say(fast_finish.summary(game.names, [t.winner for t in hand.tricks[auto_from:]]))
                    done = hand.tricks[number]
                    self.say(trick_line(game.names, number + 1, done.plays, self.style, done.winner))
                if hand.result is not None:
                    self.say("", *summary_lines(game, self.style))


def setup(args: argparse.Namespace) -> tuple[Game, dict[int, ComputerPlayer], list[dict[str, str | int]]]:
    """The game, its computer players and the record's `players` list from the command line; bad
    input is a :class:`UsageError`."""
    mode = Mode.parse(args.mode)
    rules = parse_rules(args.rule, mode)
    if not 0 <= args.seat < mode.seats:
        raise UsageError(f"{mode} has seats 0 to {mode.seats - 1}, not {args.seat}.")
    levels = seat_levels(args.players, mode.seats - 1, f"{mode} has {mode.seats - 1} computer players")
    if len(args.name) > LONGEST_ANSWER or not args.name.strip():
        raise UsageError(f"--name takes a name of 1 to {LONGEST_ANSWER} characters.")
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    others = iter(levels)
    bots: dict[int, ComputerPlayer] = {}
    players: list[dict[str, str | int]] = []
    for place in range(mode.seats):
        if place == args.seat:
            players.append({"seat": place, "name": args.name.strip(), "kind": "human", "id": "terminal"})
            continue
        level = next(others)
        bots[place] = make_player(level, seed * 10 + place, args.budget)
        players.append({"seat": place, "name": f"{level}-bot-{place}", "kind": "bot", "id": level})
    names = [str(player["name"]) for player in players]
    return Game.new(f"terminal-{seed}", mode, rules, seed, names), bots, players


def wrapped(text: str) -> list[str]:
    """A long line broken between words to fit the terminal (80 columns at most), never mid-word."""
    width = min(80, shutil.get_terminal_size().columns)
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)


def card_forms(rules: Rules) -> str:
    """How cards can be typed: the engine's forms, without the jokers in a game that has none."""
    jokers = rules.jokers or rules.trumps == "jokers_deuces"
    return ", ".join(form for form in ACCEPTED_FORMS.split(", ") if jokers or "joker" not in form)


def sides_text(game: Game, seat: int) -> str:
    """“Ann against a, b”, or in partners “Ann and her partner against the other two”."""
    side = next(side for side in range(game.sides) if seat in game.side_seats(side))
    own = [seat, *(s for s in game.side_seats(side) if s != seat)]
    others = [game.names[s] for s in range(len(game.names)) if s not in own]
    if len(own) == 1:
        return f"{game.names[seat]} against {', '.join(others)}"
    return f"{' and '.join(game.names[s] for s in own)} against {' and '.join(others)}"


def run(args: argparse.Namespace, read: Callable[[str], str] = input, out: TextIO | None = None) -> Game:
    out = out or sys.stdout
    style = Style.for_stream(out)
    game, bots, players = setup(args)
    record = open_out(args.out)  # before any card is dealt, so a path that can't be written costs nothing
    table = TerminalGame(game, args.seat, bots, out, style)
    table.say(*wrapped(f"{game.mode.value.capitalize()} Spades to {game.rules.target}: {sides_text(game, args.seat)}."),
              *wrapped(f"Type cards as {card_forms(game.rules)}. ? shows the table, quit leaves."))
    try:
        try:
            table.play(read)
        except LeaveGame as leaving:
            table.say("", f"{leaving}: the game stops here, unfinished (hand {game.hand_number}).")
        else:
            winners = " & ".join(game.names[s] for s in game.winners) or "nobody"
            how = {"target": "reached the target", "mercy": "the mercy rule"}.get(str(game.ended), str(game.ended))
            table.say("", f"Game over ({how}): {winners} won.",
                      "Final scores: " + " · ".join(f"{n} {s}" for n, s in zip(game.names, game.scores, strict=True)))
    finally:  # Ctrl-C too: what was played can still be reviewed
        if record is not None:
            with record:
                record.write(json.dumps(export_record(game, players)) + "\n")
            table.say(f"The game's record is in {args.out}: python -m bot review {args.out} reviews it.")
    return game
