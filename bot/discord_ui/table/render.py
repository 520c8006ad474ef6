"""Text for everything the bot shows. Pure functions, so they are easy to test.

Only the panel and the direct message take a seat's cards, and only from that seat's own view
(`SeatView`); everything posted in a channel is drawn from the game's public snapshot (`TableView`),
never from the game itself. No game ids in what players read: the table's footer and the record
keep them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import UTC, datetime

from bot.discord_ui.safe_text import in_code, quoted_parts, shown
from bot.discord_ui.table.house_text import (
    HOUSE_OPTIONS,
    blind_offer,
    forced_line,
    house_rule_lines,
    notes_text,
    scoring_notes,
)
from bot.discord_ui.table.modes_text import deal_text, discards_text, draw_line, draw_status, not_in_mode
from bot.discord_ui.text import (
    MESSAGE_LIMIT,
    MODE_TITLES,
    NBSP,
    PROVISIONAL_GAMES,
    SEP,
    number,
    ordinal,
    plural,
    points,
    within_limit,
)
from bot.engine import (
    OPTIONS,
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
from bot.service import CancelRequest, FinishOutcome, LeaderboardEntry, LiveGame, PlayerStats, RatingChange
from bot.service.coach import hints_refusal

BAG_WARNING = 3  # bags short of the limit from which a summary warns about the penalty
SUIT_DISPLAY_ORDER = (3, 2, 0, 1)  # ♠ ♥ ♣ ♦: colours alternate, as players hold cards
MODE_OPTIONS = {  # the options that mean something in each mode
    Mode.CUTTHROAT: ("leftover", "jokers"),
    Mode.SOLO: ("jokers",),
    Mode.PARTNERS: ("nil_tricks_help_partner", "jokers"),
    Mode.DUO: (),
    Mode.FIVE: (),
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


def _value(value: object) -> str:
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
    return ", ".join(f"{k}={_value(v)}" for k, v in changed.items())


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


def trick_text(names: Sequence[str], plays: Sequence[tuple[int, Card]], winner: int | None = None) -> str:
    """Each card with who played it; the winner's card in bold."""
    shown = []
    for seat, card in plays:
        text = f"{names[seat]}{NBSP}{card_label(card)}"
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
        team = f"{SEP}team{NBSP}{table.side_of(seat) + 1}" if table.mode is Mode.PARTNERS else ""
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
        partner = shown(view.names[(view.seat + 2) % view.seats])
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


# ------------------------------------------------------------------------------ after a hand
def hand_summary(table: TableView, hand_number: int) -> str:
    """Bid against tricks won, points (a bag penalty said in words), running bags with a warning near
    the limit, the distance to the target, and the last trick of hand `hand_number` (a scored one)."""
    hand = table.hands[hand_number - 1]
    result = hand.result
    assert result is not None
    rules = table.rules
    previous = table.hands[hand_number - 2].result if hand_number > 1 else None
    bids = {b.seat: ("blind " if b.blind else "") + ("nil" if b.bid == 0 else str(b.bid)) for b in hand.bids}
    last_winner = hand.tricks[-1].winner if hand.tricks else None
    lines = [f"### Hand {hand_number} scored"]
    names = shown_names(table.names)
    warn = False
    for side in range(table.sides):
        members = table.side_seats(side)
        first = members[0]
        who = " & ".join(f"**{names[s]}** bid {bids.get(s, '—')}, won {result.tricks_won[s]}"
                         for s in members)
        score = result.scores[first]
        to_go = rules.target - score
        distance = f"{to_go}{NBSP}to{NBSP}go" if to_go > 0 else "past the target"
        bags = result.bags[first]
        before = previous.bags[first] if previous is not None else 0
        penalties = (before + result.new_bags[first] - bags) // rules.bag_limit
        penalty = (f" ({number(-penalties * rules.bag_penalty)} for {plural(penalties * rules.bag_limit, 'bag')})"
                   if penalties else "")
        near = bags >= rules.bag_limit - BAG_WARNING
        warn = warn or near
        notes = notes_text(scoring_notes(rules, hand.bids, result, members, last_winner))
        lines.append(f"{who}{NBSP}→ **{number(result.hand_points[first], '+d')}**{notes}{penalty}{SEP}{points(score)} "
                     f"({distance}){SEP}{plural(bags, 'bag')}{NBSP + '⚠️' if near else ''}")
    if warn:
        lines.append(f"-# ⚠️ {plural(rules.bag_limit, 'bag')} cost {plural(rules.bag_penalty, 'point')}.")
    if hand.tricks:
        lines += played_itself(names, hand)
        lines.append(f"Last trick: {last_trick_text(names, hand.tricks[-1])}")
    return "\n".join(lines)


def played_itself(names: Sequence[str], hand: PublicHand) -> list[str]:
    """The line for a hand whose last tricks played themselves (fast_finish), if it did."""
    if not hand.fast_finished:
        return []
    return [fast_finish.summary(names, [t.winner for t in hand.tricks[-hand.fast_finished:]])]


# ------------------------------------------------------------------------------ game over
def game_over_text(table: TableView, outcome: FinishOutcome) -> str:
    """The winner, the final standings and what the game did to each person's rating."""
    shown_as = shown_names(table.names)
    names = " & ".join(shown_as[s] for s in table.winners)
    hands = plural(table.hands_played, "hand")
    rules = table.rules
    how = {"target": f"Past the target of {rules.target} after {hands}.",
           "mercy": f"The mercy rule ended the game after {hands}: a score fell to {number(-(rules.mercy or 0))}.",
           "forfeit": f"By forfeit, after {hands}.",
           "moon": f"Shot the moon: every trick bid and taken, after {hands}."}.get(
        table.ended.value if table.ended else "", f"After {hands}.")
    lines = [f"## 🏆 {names} {'win' if len(table.winners) > 1 else 'wins'}!", how]
    changes = {c.seat: c for c in outcome.changes}
    places = table.places
    seen_sides: set[int] = set()
    for seat in sorted(range(table.seats), key=lambda s: (places[s], s)):
        side = table.side_of(seat)
        if side in seen_sides:
            continue
        seen_sides.add(side)
        who = " & ".join(shown_as[s] for s in table.side_seats(side))
        ratings = [rating_change_text(changes[s]) for s in table.side_seats(side) if s in changes]
        rated = f" · {'; '.join(ratings)}" if ratings else ""
        lines.append(f"{ordinal(places[seat])} **{who}** — {points(table.scores[seat])}{rated}")
    return "\n".join(lines)


def rating_change_text(change: RatingChange) -> str:
    games = change.games
    if games < PROVISIONAL_GAMES:
        return f"rating provisional ({games} of {plural(PROVISIONAL_GAMES, 'game')})"
    delta = change.rating_after - (change.rating_before or 0.0)
    was = f", was #{change.rank_before}" if change.rank_before is not None and change.rank_before != change.rank_after \
        else ""
    return f"rating {number(change.rating_after, '.1f')} ({number(delta, '+.1f')}) · #{change.rank_after}{was}"


def chart_series(table: TableView) -> tuple[list[str], list[list[int]]]:
    """Side names and each side's running score after every scored hand, for the score chart."""
    names = [" & ".join(table.names[s] for s in table.side_seats(side)) for side in range(table.sides)]
    scores = [[hand.result.scores[table.side_seats(side)[0]] for side in range(table.sides)]
              for hand in table.hands if hand.result is not None]
    return names, scores


def cancel_request_text(request: CancelRequest) -> str:
    """The host's request to cancel a running game, and who has yet to agree (mentions)."""
    waiting = " ".join(f"<@{user}>" for user in sorted(request.asked - request.agreed))
    return (f"The host asks to cancel this game: nothing would count for those still seated. {waiting}: press "
            f"**Agree to cancel** within a minute if you agree; the game goes on unless everyone does.")


def cancelled_text(reason: str) -> str:
    return (f"This game was cancelled ({quoted_parts(reason)}). Nothing counts toward the leaderboard for "
            "those still seated; anyone who left it earlier keeps their loss.")


# ------------------------------------------------------------------------------ commands
def scoreboard_text(table: TableView | None) -> str:
    """The scores hand by hand (`table` None: the game hasn't started)."""
    if table is None:
        return "The game hasn't started yet."
    heads = [" & ".join(in_code(table.names[s])[:8] for s in table.side_seats(side)) for side in range(table.sides)]
    width = max(12, *(len(h) for h in heads))
    rows = ["Hand  " + "  ".join(f"{h:>{width}}" for h in heads)]
    for hand in table.hands:
        if hand.result is None:
            continue
        cells = []
        for side in range(table.sides):
            seat = table.side_seats(side)[0]
            cells.append(f"{number(hand.result.hand_points[seat], '+5d')} ={number(hand.result.scores[seat], '5d')}")
        rows.append(f"{hand.number:>4}  " + "  ".join(f"{c:>{width}}" for c in cells))
    text = "\n".join(rows)
    if len(text) > 1700:  # a very long game: keep the latest hands
        text = "\n".join([rows[0], "   …", *rows[-(1700 // len(rows[0]) - 2):]])
    state = "final scores" if table.is_over else f"to {table.rules.target}"
    return f"**Scores** · {MODE_TITLES[table.mode]} · {state}\n```\n{text}\n```"


def leaderboard_text(guild_name: str, mode: str, sort: str, entries: Sequence[LeaderboardEntry],
                     board: str = "") -> str:
    """`board` says which board it is (a season's, or all time) once the server has seasons."""
    where = f"{shown(guild_name)}{f' ({board})' if board else ''}"
    if not entries:
        return f"No finished {mode} games on {where} yet (win rate needs a few games per player)."
    lines = []
    for e in entries:
        rating = (f"rating {number(e.rating, '.1f')}" if e.games >= PROVISIONAL_GAMES
                  else f"rating provisional ({e.games} of {plural(PROVISIONAL_GAMES, 'game')})")
        lines.append(f"#{e.rank} **{shown(e.name)}** — {rating} · {plural(e.wins, 'win')} / {plural(e.games, 'game')} "
                     f"({e.win_rate:.0%}) · {plural(e.points, 'point')}")
    return within_limit([f"**{where} — {mode} leaderboard** (by {sort.replace('_', ' ')})"], lines)


def stats_text(name: str, stats: PlayerStats) -> str:
    name = shown(name)
    if stats.games == 0:
        return f"{name} hasn't finished a game on this server yet."
    lines = [
        f"**{name}** — {plural(stats.games, 'game')}, {plural(stats.wins, 'win')} ({stats.win_rate:.0%})",
        f"Average final score {number(stats.average_score, '.0f')}",
        f"Bids made {stats.bids_made}/{stats.bids_total} · nils made {stats.nils_made}/{stats.nils_tried}",
        f"Bags per hand {stats.bags_per_hand:.2f} over {plural(stats.hands, 'hand')}",
    ]
    if stats.hinted_games:
        lines.append(f"Played with hints: {stats.hinted_games} of {plural(stats.games, 'game')}")
    for rating in stats.ratings:
        figure = (f"rating {number(rating.rating, '.1f')}, rank #{rating.rank}" if rating.games >= PROVISIONAL_GAMES
                  else f"rating provisional ({rating.games} of {plural(PROVISIONAL_GAMES, 'game')})")
        lines.append(f"{rating.mode}: {figure} ({rating.wins}/{rating.games} won)")
    return "\n".join(lines)


HELP_TEXT = """\
## ♠ Spades here
**Start:** `/spades new` opens a game in this channel (cutthroat: 3 players, each for themselves). \
Others press **Join**; the host can **Add bot** for empty seats, then **Start**.
**Play:** press **My hand** on the table: your private panel shows your cards and stays up to date. \
On your turn your legal cards (or the bids) light up: one click plays. You also get your hand by \
direct message. If you're slow, I'll mention you once.
**Score:** make your bid (10 a trick, +1 a bag), or lose 10 a trick. Nil: take no trick for +100. \
Too many bags cost points. First to the target wins.
**House rules:** `/spades new rules:` takes a preset (Whiz, Suicide, Short game…) or pairs like \
`overtricks=none`; `/spades rules` says what is in force.
**Help:** in a game with a computer player, **Hint** on your panel shows what the hard computer \
player would do, and why; after a game, `/spades review` goes over your bids and costliest plays.
**Seasons:** admins run `/spades season start` (or a monthly rhythm in `/spades settings`); everyone \
starts a season fresh, `/spades leaderboard` shows it (or `season: all time`), and its end posts a podium.
**Tournaments:** `/spades tournament new` (Manage Server) opens a Swiss tournament here; players press \
**Join**, each round's tables play in their own threads, and I post the standings, seat the next round \
and post the podium myself.
**Commands:** `/spades new` · `join` · `leave` · `addbot` · `start` · `hand` · `bid` · `draw` · `pass` · \
`play` · `table` · `score` · `rules` · `record` · `review` · `leaderboard` · `stats` · `season` · `tournament` · \
`cancel` · `settings` (Manage Server) · `help`"""


def rules_text(mode: Mode, rules: Rules, title: str) -> str:
    """The rules in force: the mode, how scoring works with these values, and only the options
    that apply to this mode."""
    deal = deal_text(mode, rules)
    set_penalty = "−10 a trick bid" if rules.set_penalty == "minus" else "0"
    bags = rules.overtricks == "bags"
    nil = (f"Nil (no tricks): +{rules.nil_value} made, {number(-rules.nil_value)} failed."
           if rules.nil else "Nil is off: the lowest bid is 1.")
    blind = (f" Blind nil (before seeing your cards, allowed {rules.blind_nil_deficit}+ points behind): "
             f"±{rules.blind_nil_value}." if rules.blind_nil and rules.nil and not mode.draws else "")
    lines = [
        f"**{title}**",
        f"**{MODE_TITLES[mode]}** — {deal}. Spades are trump; follow suit if you can"
        + ("; spades can't be led until broken." if rules.spades_must_break else "."),
        f"**Scoring:** make your bid: +10 a trick bid{', +1 for each extra trick (a bag)' if bags else ''}. "
        f"Set: {set_penalty}. {nil}{blind}",
        f"**Bags:** every {rules.bag_limit} bags cost {rules.bag_penalty} points." if bags else "**Bags:** none.",
        f"**Winning:** first to **{rules.target}**; a tie for the lead plays another hand."
        + (f" The game also ends when someone falls to {number(-rules.mercy)}." if rules.mercy else ""),
    ]
    if mode is Mode.PARTNERS:
        lines.append("Partners: the team's bids add up to one contract; a nil bidder is scored alone.")
    if rules.no_exact_total:
        lines.append("The last bidder may not make the bids add up to the number of tricks.")
    house = house_rule_lines(rules)
    lines += ["**House rules:**", *house] if house else []
    shown_options = [(name, option) for name, option in OPTIONS.items() if name != "target" and name not in
                     HOUSE_OPTIONS and (name not in MODE_ONLY or name in MODE_OPTIONS[mode])
                     and not not_in_mode(mode, name)]
    if house:  # the house rules' lines take the room the options' explanations had
        compact = "**Options:** " + " · ".join(f"`{n}`={_value(getattr(rules, n))}" for n, _ in shown_options)
        if len("\n".join(lines)) + 1 + len(compact) > MESSAGE_LIMIT:  # many house rules: the changed ones only
            standard = Rules()
            changed = [f"`{n}`={_value(getattr(rules, n))}" for n, _ in shown_options
                       if getattr(rules, n) != getattr(standard, n)]
            compact = (f"**Options** (the others standard): {' · '.join(changed)}" if changed
                       else "**Options:** standard")
        lines.append(compact)
    else:
        lines.append("**Options:**")
        lines += [f"• `{name}` = {_value(getattr(rules, name))} — {option.help}" for name, option in shown_options]
    return "\n".join(lines)


def age_seconds(message_id: int) -> float:
    """How old a message is, from its snowflake id (Discord stops edits of old messages)."""
    created = datetime.fromtimestamp(((message_id >> 22) + 1420070400000) / 1000, tz=UTC)
    return (datetime.now(tz=UTC) - created).total_seconds()
