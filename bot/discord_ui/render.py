"""Text for every message the bot posts. Pure functions of public state, so they are easy to test.

Only the hand renderers take a seat's cards, and only from that seat's own view; everything posted
in a channel is built from public information.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from bot.engine import (
    OPTIONS,
    Card,
    Game,
    HandLog,
    Mode,
    Phase,
    Rules,
    SeatView,
    card_label,
    display_sorted,
)
from bot.engine.cards import SUIT_OF, SUIT_SYMBOLS
from bot.service import LiveGame
from bot.store import FinishOutcome, LeaderboardEntry, PlayerStats

MODE_TITLES = {Mode.CUTTHROAT: "Cutthroat", Mode.SOLO: "Solo", Mode.PARTNERS: "Partners"}


def rules_summary(rules: Rules) -> str:
    changed = rules.changed()
    changed.pop("target", None)
    if not changed:
        return "standard rules"
    return ", ".join(f"{k}={_value(v)}" for k, v in changed.items())


def _value(value: object) -> str:
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def rules_text(mode: Mode | None, rules: Rules, title: str) -> str:
    lines = [f"**{title}**"]
    if mode is not None:
        lines.append(f"Mode: {MODE_TITLES[mode]} ({mode.seats} players)")
    for name, option in OPTIONS.items():
        lines.append(f"• `{name}` = {_value(getattr(rules, name))} — {option.help}")
    return "\n".join(lines)


def lobby_text(live: LiveGame) -> str:
    seats = [f"{i + 1}. {s.name}{' (host)' if s.user_id == live.host_id else ''}" for i, s in enumerate(live.seats)]
    open_seats = live.mode.seats - len(live.seats)
    seats += ["…"] * open_seats
    lines = [
        f"**{MODE_TITLES[live.mode]} Spades** — lobby · game `{live.game_id}`",
        f"Target {live.rules.target} · {rules_summary(live.rules)}",
        *seats,
    ]
    if live.status == "lobby":
        lines.append("Waiting for players: **Join**, or the host can **Add bot**."
                     if open_seats else "All seats are filled: the host can **Start**.")
    elif live.status == "playing":
        lines.append("The game has started.")
    else:
        lines.append(f"This lobby is closed ({live.status}).")
    return "\n".join(lines)


def _seat_label(live: LiveGame, game: Game, seat: int) -> str:
    marker = "▶ " if game.turn == seat else ""
    dealer = " (dealer)" if game.dealer == seat else ""
    return f"{marker}**{live.seats[seat].name}**{dealer}"


def _bid_text(game: Game, seat: int) -> str:
    bid = game.bids[seat]
    if bid is None:
        return "—"
    if bid == 0:
        return "blind nil" if game.blind[seat] else "nil"
    return str(bid)


def table_text(live: LiveGame) -> str:
    """The table message: mode, target, seats with bid/tricks/score/bags, the trick, whose turn."""
    game = live.game
    assert game is not None
    header = (f"**{MODE_TITLES[live.mode]} Spades** · to {live.rules.target} · hand {game.hand_number}"
              f" · game `{live.game_id}`")
    lines = [header]
    if live.rules.changed().keys() - {"target"}:
        lines.append(f"Rules: {rules_summary(live.rules)}")
    scores, bags = game.scores, game.bags
    for seat in range(game.seats):
        team = f" · team {game.side_of(seat) + 1}" if live.mode is Mode.PARTNERS else ""
        lines.append(
            f"{_seat_label(live, game, seat)} — bid {_bid_text(game, seat)} · won {game.tricks_won[seat]}"
            f" · score {scores[seat]} · bags {bags[seat]}{team}"
        )
    if game.phase is Phase.PLAYING or game.trick:
        shown = " · ".join(f"{live.seats[s].name} {card_label(c)}" for s, c in game.trick) or "(empty)"
        lines.append(f"Trick: {shown}")
    logs = game.hand_logs
    if logs and logs[-1].tricks and game.phase is Phase.PLAYING:
        last = logs[-1].tricks[-1]
        cards = " ".join(card_label(c) for _, c in last.plays)
        lines.append(f"Last trick: {live.seats[last.winner].name} won ({cards})")
    lines.append("Spades: broken ♠" if game.spades_broken else "Spades: not broken yet")
    if game.is_over:
        lines.append("The game is over.")
    elif game.turn is not None:
        action = "bid" if game.phase is Phase.BIDDING else "play"
        lines.append(f"Turn: **{live.seats[game.turn].name}** to {action}")
    return "\n".join(lines)


def hand_text(cards: Sequence[Card]) -> str:
    """Cards by suit, high to low: ``♠ A K 4 · ♥ Q 10``."""
    groups: dict[int, list[str]] = {}
    for card in display_sorted(cards):
        groups.setdefault(SUIT_OF[card], []).append(card_label(card).rstrip("♠♥♦♣"))
    return " · ".join(f"{SUIT_SYMBOLS[suit]} {' '.join(ranks)}" for suit, ranks in groups.items()) or "(no cards)"


def private_hand_text(live: LiveGame, view: SeatView) -> str:
    """A player's own hand (a direct message or an ephemeral reply to that player only)."""
    title = f"Your hand — {MODE_TITLES[live.mode]} game `{live.game_id}`, hand {view.hand_number}"
    if view.cards_hidden:
        when = "It's your turn to bid." if view.my_turn else "**Blind nil** counts when it's your turn to bid."
        return (f"{title}\nYou're far enough behind to bid **blind nil** (before seeing your cards, "
                f"worth ±{live.rules.blind_nil_value}). Choose **Blind nil** or **Show my cards**.\n{when}")
    lines = [title, hand_text(view.hand)]
    if view.my_turn and view.phase is Phase.BIDDING:
        lines.append("It's your turn to bid.")
    elif view.my_turn and view.phase is Phase.PLAYING:
        lines.append("It's your turn to play: legal cards are enabled.")
    return "\n".join(lines)


def hand_summary(live: LiveGame, hand: HandLog) -> str:
    result = hand.result
    assert result is not None
    lines = [f"**Hand {hand.number} scored**"]
    bids = {b.seat: ("blind nil" if b.blind else "nil" if b.bid == 0 else str(b.bid)) for b in hand.bids}
    game = live.game
    assert game is not None
    if live.mode is Mode.PARTNERS:
        for side in (0, 1):
            members = game.side_seats(side)
            who = " & ".join(f"{live.seats[s].name} (bid {bids[s]}, won {result.tricks_won[s]})" for s in members)
            s0 = members[0]
            lines.append(f"Team {side + 1}: {who} → {result.hand_points[s0]:+d} · bags {result.bags[s0]}"
                         f" · score **{result.scores[s0]}**")
    else:
        for seat in range(len(live.seats)):
            lines.append(f"{live.seats[seat].name}: bid {bids[seat]}, won {result.tricks_won[seat]} → "
                         f"{result.hand_points[seat]:+d} · bags {result.bags[seat]} · score **{result.scores[seat]}**")
    return "\n".join(lines)


def game_over_text(live: LiveGame, outcome: FinishOutcome | None) -> str:
    game = live.game
    if game is None or outcome is None:
        return f"Game `{live.game_id}` was cancelled. Nothing counts toward the leaderboard."
    names = [live.seats[s].name for s in game.winners]
    how = {"target": "reached the target", "mercy": "leads when the mercy rule ended it",
           "forfeit": "wins by forfeit"}.get(game.ended.value if game.ended else "", "wins")
    lines = [f"🏆 **{' & '.join(names)}** {how}! Game `{live.game_id}` is over after {game.hands_played} hands."]
    places = game.places()
    order = sorted(range(game.seats), key=lambda s: (places[s], s))
    seen_sides: set[int] = set()
    for seat in order:
        side = game.side_of(seat)
        if side in seen_sides:
            continue
        seen_sides.add(side)
        who = " & ".join(live.seats[s].name for s in game.side_seats(side))
        lines.append(f"{places[seat]}. {who}: {game.scores[seat]}")
    if outcome.changes:
        lines.append("Leaderboard:")
        for change in outcome.changes:
            before = f"{change.rating_before:.1f}" if change.rating_before is not None else "new"
            rank_before = f"#{change.rank_before}" if change.rank_before is not None else "unranked"
            lines.append(f"• {change.name}: rating {before} → {change.rating_after:.1f}, "
                         f"rank {rank_before} → #{change.rank_after}")
    return "\n".join(lines)


def scoreboard_text(live: LiveGame) -> str:
    game = live.game
    if game is None:
        return "The game hasn't started yet."
    heads = ([f"Team {side + 1}" for side in range(game.sides)] if live.mode is Mode.PARTNERS
             else [s.name[:10] for s in live.seats])
    rows = ["Hand  " + "  ".join(f"{h:>12}" for h in heads)]
    for hand in game.hand_logs:
        if hand.result is None:
            continue
        cells = []
        for side in range(game.sides):
            seat = game.side_seats(side)[0]
            cells.append(f"{hand.result.hand_points[seat]:+5d} ={hand.result.scores[seat]:5d}")
        rows.append(f"{hand.number:>4}  " + "  ".join(f"{c:>12}" for c in cells))
    text = "\n".join(rows)
    if len(text) > 1800:  # a very long game: keep the latest hands
        text = "\n".join([rows[0], "   …", *rows[-(1800 // len(rows[0]) - 2):]])
    return f"**Scores, game `{live.game_id}`**\n```\n{text}\n```"


def leaderboard_text(guild_name: str, mode: str, sort: str, entries: Sequence[LeaderboardEntry]) -> str:
    if not entries:
        return f"No finished {mode} games on {guild_name} yet (win rate needs a few games per player)."
    lines = [f"**{guild_name} — {mode} leaderboard** (by {sort.replace('_', ' ')})"]
    for e in entries:
        lines.append(f"#{e.rank} **{e.name}** — rating {e.rating:.1f} · {e.wins} wins / {e.games} games "
                     f"({e.win_rate:.0%}) · {e.points} points")
    return "\n".join(lines)


def stats_text(name: str, stats: PlayerStats) -> str:
    if stats.games == 0:
        return f"{name} hasn't finished a game on this server yet."
    lines = [
        f"**{name}** — {stats.games} games, {stats.wins} wins ({stats.win_rate:.0%})",
        f"Average final score {stats.average_score:.0f}",
        f"Bids made {stats.bids_made}/{stats.bids_total} · nils made {stats.nils_made}/{stats.nils_tried}",
        f"Bags per hand {stats.bags_per_hand:.2f} over {stats.hands} hands",
    ]
    for rating in stats.ratings:
        lines.append(f"{rating.mode}: rating {rating.rating:.1f}, rank #{rating.rank} "
                     f"({rating.wins}/{rating.games} won)")
    return "\n".join(lines)


def age_seconds(message_id: int) -> float:
    """How old a message is, from its snowflake id (Discord stops edits of old messages)."""
    created = datetime.fromtimestamp(((message_id >> 22) + 1420070400000) / 1000, tz=UTC)
    return (datetime.now(tz=UTC) - created).total_seconds()
