"""Text for what follows play: a hand's score, the game's end and ratings, a cancel request, and the
scoreboard, leaderboard and stats commands. Pure functions over the public snapshot (`TableView`)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.discord_ui.safe_text import in_code, quoted_parts, shown
from bot.discord_ui.table.house_text import notes_text, scoring_notes
from bot.discord_ui.table.render import last_trick_text, played_itself, shown_names
from bot.discord_ui.text import MODE_TITLES, NBSP, PROVISIONAL_GAMES, SEP, number, ordinal, plural, points, within_limit
from bot.engine import TableView
from bot.service import CancelRequest, FinishOutcome, LeaderboardEntry, PlayerStats, RatingChange

BAG_WARNING = 3  # bags short of the limit from which a summary warns about the penalty

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
