"""Text for the lobby, the table, the panel and the turn's messages. Pure functions, so they are easy
to test (what follows play is in ``results_text``, help and rules in ``help_text``).

Only the panel and the direct message take a seat's cards, and only from that seat's own view
(`SeatView`); everything posted in a channel is drawn from the game's public snapshot (`TableView`),
never from the game itself. No game ids in what players read: the table's footer and the record
keep them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import UTC, datetime

from bot.discord_ui.safe_text import shown
from bot.discord_ui.table.house_text import (
    blind_offer,
    forced_line,
    house_rule_lines,
)
from bot.discord_ui.table.modes_text import discards_text, draw_line, draw_status, not_in_mode
from bot.discord_ui.text import (
    MODE_TITLES,
    NBSP,
    SEP,
    plural,
    points,
)
from bot.engine import (
    Card,
    Mode,
    Phase,
    PublicHand,
    Rules,
    SeatView,
    TableView,
    TrickLog,
    card_label,
    display_sorted,
    fast_finish,
    nil_pass,
)
from bot.engine.card_order import ORDERS, card_order
from bot.engine.cards import SUIT_NAMES, SUIT_OF, SUIT_SYMBOLS
from bot.service import LiveGame
from bot.service.coach import hints_refusal

SUIT_DISPLAY_ORDER = (3, 2, 0, 1)  # ♠ ♥ ♣ ♦: colours alternate, as players hold cards
MODE_OPTIONS = {  # the options that mean something in each mode
    Mode.CUTTHROAT: ("leftover", "jokers"),
    Mode.SOLO: ("jokers",),
    Mode.PARTNERS: ("nil_tricks_help_partner", "jokers"),
    Mode.DUO: (),
    Mode.FIVE: (),
    Mode.SIX: ("teams", "identical", "nil_tricks_help_partner"),
}
MODE_ONLY = {name for names in MODE_OPTIONS.values() for name in names}


def seat_name(live: LiveGame, seat: int) -> str:
    """A seat's name from the game's seats, as shown (lobby notices; the table reads its snapshot's names)."""
    return shown(live.seats[seat].name)


@functools.lru_cache(maxsize=1024)
def shown_names(names: tuple[str, ...]) -> tuple[str, ...]:
    """The seats' names as shown in a message (`safe_text.shown`): every renderer that names players
    takes them from here (a game's names rarely change: remembered by the tuple)."""
    return tuple(shown(name) for name in names)


def option_value(value: object) -> str:
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


@functools.lru_cache(maxsize=256)
def rules_summary(rules: Rules, mode: Mode | None = None) -> str:
    """The options that differ from the defaults, for lobby and footer lines (every table edit's
    footer: a game's rules never change, and working them out took 9 µs)."""
    changed = rules.changed()
    changed.pop("target", None)
    changed.pop("hints", None)  # not a rule of play; the lobby says what applies (`hints_text`)
    if mode is not None:
        changed = {k: v for k, v in changed.items()
                   if (k not in MODE_ONLY or k in MODE_OPTIONS[mode]) and not not_in_mode(mode, k)}
    if not changed:
        return "standard rules"
    return ", ".join(f"{k}={option_value(v)}" for k, v in changed.items())


# ---------------------------------------------------------------------------------- cards
@functools.lru_cache(maxsize=4096)
def suit_groups(cards: tuple[Card, ...], trumps: str = "standard") -> tuple[tuple[int, tuple[Card, ...]], ...]:
    """Cards by the suit they play as, in display order, high to low within a suit (jokers and,
    under ``trumps``, deuces lead the spades). A hand is drawn again at every move of the others:
    remembered by its cards."""
    place = ORDERS[trumps].place
    by_suit: dict[int, list[Card]] = {}
    for card in display_sorted(cards, place):
        by_suit.setdefault(SUIT_OF[place[card]], []).append(card)
    return tuple((suit, tuple(by_suit[suit])) for suit in SUIT_DISPLAY_ORDER if suit in by_suit)


def hand_text(cards: Sequence[Card], separator: str = " · ", trumps: str = "standard") -> str:
    """Cards by suit, high to low: ``♠ A K 4 · ♥ Q 10``; a deuce played as a spade keeps its own
    suit's symbol among the spades (``♠ 2 2♦ A K``)."""
    groups = [f"{SUIT_SYMBOLS[suit]} {' '.join(_rank(c) if SUIT_OF[c] == suit else card_label(c) for c in group)}"
              for suit, group in suit_groups(tuple(cards), trumps)]
    return separator.join(groups) or "(no cards)"


def _rank(card: Card) -> str:
    label = card_label(card)
    return label[:-1] if label[-1] in SUIT_SYMBOLS else label


TWIN = f"{NBSP}(2nd)"  # the second of two identical cards on a trick (six)


def trick_text(names: Sequence[str], plays: Sequence[tuple[int, Card]], winner: int | None = None) -> str:
    """Each card with who played it; the winner's card in bold. Two identical cards (six) are marked
    1st and 2nd, so the table's line on which of them ranks higher can be followed."""
    shown = []
    labels = [card_label(card) for _, card in plays]
    seen: set[str] = set()
    for (seat, _), label in zip(plays, labels, strict=True):
        order = "" if labels.count(label) < 2 else TWIN if label in seen else f"{NBSP}(1st)"
        seen.add(label)
        text = f"{names[seat]}{NBSP}{label}{order}"
        shown.append(f"**{text}**{NBSP}✔" if seat == winner else text)
    return SEP.join(shown)


def last_trick_text(names: Sequence[str], trick: TrickLog) -> str:
    return f"{trick_text(names, trick.plays, trick.winner)} — **{names[trick.winner]}**{NBSP}takes{NBSP}it"


# ---------------------------------------------------------------------------------- lobby
def hints_text(live: LiveGame) -> str:
    """Whether this game will offer hints, as it is seated now (what the lobby promises is what applies)."""
    refusal = hints_refusal(live)
    return "💡 Hints: on (the **Hint** button on your turn)." if refusal is None else f"💡 {refusal}"


def lobby_text(live: LiveGame) -> str:
    seats = []
    for i, s in enumerate(live.seats):
        role = " (host)" if s.user_id is not None and s.user_id == live.host_id else ""
        seats.append(f"{i + 1}. {shown(s.name)}{role}")
    open_seats = live.mode.seats - len(live.seats)
    seats += [f"{len(live.seats) + i + 1}. —" for i in range(open_seats)]
    lines = [
        f"## ♠ {MODE_TITLES[live.mode]} Spades — new game",
        f"To **{live.rules.target}** points · {rules_summary(live.rules, live.mode)}",
        *house_rule_lines(live.rules),
        *seats,
        hints_text(live),
    ]
    if live.status == "lobby":
        lines.append("Waiting for players: **Join**, or the host can **Add bot**."
                     if open_seats else "Every seat is taken: the host can **Start**.")
    elif live.status == "playing":
        lines.append("The game has started.")
    else:
        lines.append("This lobby is closed.")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------- table
def bid_text(table: TableView, seat: int) -> str:
    bid = table.bids[seat]
    if bid is None:
        return "—"
    if bid == 0:
        return "blind nil" if table.blind[seat] else "nil"
    return f"blind {bid}" if table.blind[seat] else str(bid)


def table_header(table: TableView) -> str:
    return f"### ♠ {MODE_TITLES[table.mode]} Spades · hand {max(table.hand_number, 1)} · to {table.rules.target}"


def table_seats(table: TableView) -> str:
    """A line per seat: name, bid, tricks this hand, score and bags; who acts, who deals."""
    scores, bags, names = table.scores, table.bags, shown_names(table.names)
    lines = []
    for seat in range(table.seats):
        marker = "▶ " if table.turn == seat else ""
        dealer = " (dealer)" if table.dealer == seat and not table.is_over else ""
        team = f"{SEP}team{NBSP}{table.side_of(seat) + 1}" if table.sides < table.seats else ""
        lines.append(f"{marker}**{names[seat]}**{dealer} — bid{NBSP}{bid_text(table, seat)}{SEP}"
                     f"won{NBSP}{table.tricks_won[seat]}{SEP}{points(scores[seat])}{SEP}{plural(bags[seat], 'bag')}"
                     f"{team}")
    return "\n".join(lines)


def table_play(table: TableView) -> str:
    """The trick in progress, the last trick taken, and what happens next."""
    lines = []
    names = shown_names(table.names)
    hand = table.hands[-1] if table.hands else None
    if table.phase is Phase.PLAYING:
        number = len(hand.tricks) + 1 if hand else 1
        played = trick_text(names, table.trick) if table.trick else "no card yet"
        lines.append(f"**Trick {number}:** {played}")
    if hand is not None and hand.tricks and table.phase is not Phase.BIDDING:
        lines += played_itself(names, hand)
        lines.append(f"Last trick: {last_trick_text(names, hand.tricks[-1])}")
    if any(TWIN in line for line in lines):  # six: which of two identical cards on a trick ranks higher
        lines.append(f"-# Of two identical cards, the {table.rules.identical} played ranks higher.")
    if table.phase is not Phase.DEALING and (forced := forced_line(table, names)):
        lines.append(forced)
    if table.is_over:
        lines.append("**The game is over.**")
    elif table.phase is Phase.DEALING:
        lines.append("Hand over: the next one is being dealt.")
    elif table.phase is Phase.DRAWING:
        lines.append(draw_line(names, table))
    elif table.turn is not None:
        action = {Phase.BIDDING: "bid", Phase.PASSING: "pass a card"}.get(table.phase, "play")
        spades = "" if table.phase is not Phase.PLAYING else (" · spades broken" if table.spades_broken
                                                          else " · spades not broken")
        lines.append(f"▶ **{names[table.turn]}** to {action}{spades}")
    return "\n".join(lines)


def table_footer(table: TableView) -> str:
    return f"-# game {table.game_id} · {rules_summary(table.rules, table.mode)}"


def table_text(table: TableView) -> str:
    """The whole table as plain text (the same parts the table message lays out)."""
    return "\n".join([table_header(table), table_seats(table), table_play(table), table_footer(table)])


# ---------------------------------------------------------------------------------- panel
# Both ways out of a blind-nil offer, for people who click and for people who only type.
BLIND_NIL_WAYS = ("**Blind nil** or **Show my cards** on your panel (**My hand**, or `/spades hand`), "
                  "or type `/spades bid blind nil` or `/spades bid show my cards`")
CHOOSE_BLIND_NIL_FIRST = f"First choose: bid blind nil, or look at your cards. {BLIND_NIL_WAYS}."
CARDS_SHOWN = "You looked at your cards: no blind nil this hand. Bid here or with `/spades bid`."


def panel_status(view: SeatView) -> str:
    """One line that tells the player what to do now."""
    if view.phase is Phase.OVER:
        return "The game is over."
    if view.cards_hidden:
        when = "It's your turn to bid." if view.my_turn else "Decide before your turn to bid."
        return (f"You're far enough behind to bid {blind_offer(view.rules)}, before seeing your cards. "
                f"{when} Choose below, or type `/spades bid blind nil` (or `blind 3`…) or "
                "`/spades bid show my cards`.")
    if view.turn is None:
        return "Hand over: the next one is being dealt."
    if view.phase is Phase.DRAWING:
        return draw_status(view)
    if not view.my_turn:  # the same words whoever is to act: a waiting panel isn't edited while others play
        action = {Phase.BIDDING: "bid", Phase.PASSING: "pass"}.get(view.phase, "play")
        return f"Not your turn yet: this panel lights up when it's yours to {action}. The table shows the play."
    if view.phase is Phase.BIDDING:
        return "**Your turn to bid.**"
    if view.to_pass:  # nil_pass
        partner = shown(view.names[(view.seat + view.sides) % view.seats])  # teams of two: partners, six's pairs
        return (f"**{nil_pass.explain(view.to_pass, partner)}** Click a card (one at a time), or type "
                "`/spades pass`. You see what comes once you've both chosen.")
    if not view.trick:
        if view.play_note:  # a house rule of play holds cards back: say which, in the words of its refusal
            return f"**Your lead.** {view.play_note}"
        if view.rules.spades_must_break and not view.spades_broken and len(view.legal_cards) < len(view.hand):
            return "**Your lead.** Spades aren't broken yet."
        return "**Your lead.**"
    order = card_order(view.rules)
    led = order.suit_of(view.trick[0][1])
    follow = any(order.suit_of(c) == led for c in view.hand)
    how = f"follow {SUIT_SYMBOLS[led]}" if follow else f"no {SUIT_NAMES[led]}: play anything"
    led_line = f"**Your turn:** {shown(view.names[view.trick[0][0]])} led {card_label(view.trick[0][1])}"
    return f"{led_line}. {view.play_note}" if view.play_note else f"{led_line}, {how}."


def panel_title(view: SeatView) -> str:
    return f"### Your hand · {MODE_TITLES[view.mode]} · hand {view.hand_number}"


def panel_details(view: SeatView) -> str:
    """On the player's turn the trick so far (or the bids); always their own bid, tricks and score."""
    lines = []
    names = shown_names(view.names)
    if view.my_turn and view.phase is Phase.PLAYING:
        lines.append(f"Trick: {trick_text(names, view.trick)}" if view.trick else "Trick: no card yet")
    elif view.my_turn and view.phase is Phase.BIDDING:
        bids = [f"{names[s]} {_bid_word(view, s)}" for s in range(view.seats) if view.bids[s] is not None]
        lines.append("Bids: " + (" · ".join(bids) if bids else "none yet"))
    if view.passed:  # nil_pass: what went, and (once both chose) what came
        came = f" · received {hand_text(view.received, ' ', view.rules.trumps)}" if view.received else ""
        lines.append(f"-# You passed {hand_text(view.passed, ' ', view.rules.trumps)}{came}")
    bid = _bid_word(view, view.seat) if view.bids[view.seat] is not None else "—"
    lines.append(f"-# You: bid {bid} · won {view.tricks_won[view.seat]} · {points(view.scores[view.seat])} · "
                 f"{plural(view.bags[view.seat], 'bag')}")
    if view.discards:
        lines.append(discards_text(view))
    return "\n".join(lines)


def _bid_word(view: SeatView, seat: int) -> str:
    bid = view.bids[seat]
    if bid == 0:
        return "blind nil" if view.blind[seat] else "nil"
    return f"blind {bid}" if view.blind[seat] else str(bid)


# ------------------------------------------------------------------------------ direct message
def dm_text(view: SeatView, table_link: str) -> str:
    """The dealt hand by direct message, sorted, with a link to the table: sent once a deal and
    never edited (the live panel follows the cards as they are played). No buttons."""
    title = f"**Your hand** · {MODE_TITLES[view.mode]} Spades · hand {view.hand_number}"
    hand = hand_text(view.hand, "\n", view.rules.trumps)
    return f"{title}\n{hand}\nPlay at the table: {table_link}"


# ------------------------------------------------------------------------------ turn mention
def ping_text(table: TableView, user_id: int | None) -> str:
    """The mention of a person whose turn it is (`user_id`), with what they need to act."""
    mention = f"<@{user_id}>"
    names = shown_names(table.names)
    if table.phase is Phase.DRAWING:
        return f"{mention}, your turn to draw."
    if table.phase is Phase.BIDDING:
        bids = [f"{names[s]} {bid_text(table, s)}" for s in range(table.seats) if table.bids[s] is not None]
        so_far = f" Bids so far: {' · '.join(bids)}." if bids else ""
        return f"{mention}, your turn to bid.{so_far}"
    if table.trick:
        leader, card = table.trick[0]
        led = f"{names[leader]} led {card_label(card)}"
        return f"{mention}, your turn: {led} ({trick_text(names, table.trick)})."
    return f"{mention}, your lead."

def played_itself(names: Sequence[str], hand: PublicHand) -> list[str]:
    """The line for a hand whose last tricks played themselves (fast_finish), if it did."""
    if not hand.fast_finished:
        return []
    return [fast_finish.summary(names, [t.winner for t in hand.tricks[-hand.fast_finished:]])]



def age_seconds(message_id: int) -> float:
    """How old a message is, from its snowflake id (Discord stops edits of old messages)."""
    created = datetime.fromtimestamp(((message_id >> 22) + 1420070400000) / 1000, tz=UTC)
    return (datetime.now(tz=UTC) - created).total_seconds()
