"""What a tournament looks like in Discord: its sign-up message, a table's call to its thread, the
standings after a round, and the podium (drawn by `bot.discord_ui.pictures.podium`, as a season's is)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction

from bot.discord_ui.pictures.chart import has_glyph
from bot.discord_ui.pictures.podium import Figures, podium_png
from bot.discord_ui.pictures.podium import Standing as PodiumLine
from bot.discord_ui.safe_text import quoted_parts, shown
from bot.discord_ui.text import MODE_TITLES, number, plural, within_limit
from bot.engine.tournaments.swiss import Standing
from bot.engine.tournaments.tournament import Stage
from bot.service.tournaments import LiveTournament, TableSeat

PODIUM_LINES = 10
FRACTIONS = {Fraction(1, 2): "½", Fraction(1, 3): "⅓", Fraction(2, 3): "⅔", Fraction(1, 4): "¼", Fraction(3, 4): "¾"}
# The podium's numbers: tournament points rank it, "won" counts tables won, and the last column is game points.
PODIUM_FIGURES = Figures("{score} pts · {wins}/{games} tables won",
                         ("{score} tournament pts", "{wins}/{games} tables won", "{points} game pts"))


def points_text(points: Fraction, drawable: Callable[[str], bool] = lambda _: True) -> str:
    """Tournament points as people write them: 3, 2½, 1⅓ (1 1/3 where `drawable` says a picture's
    font lacks the fraction)."""
    whole, part = divmod(points, 1)
    if part == 0:
        return number(int(whole))
    glyph = FRACTIONS.get(Fraction(part))
    if glyph is not None and drawable(glyph):
        return f"{number(int(whole)) if whole else ''}{glyph}"
    plain = f"{part.numerator}/{part.denominator}"
    return f"{number(int(whole))} {plain}" if whole else plain


def title(live: LiveTournament) -> str:
    engine = live.engine
    return f"{MODE_TITLES[engine.mode]} Spades tournament · {plural(engine.rounds, 'round')} · to {engine.rules.target}"


def signup_text(live: LiveTournament) -> str:
    """The tournament's message: its setup, where it stands, and who is in."""
    engine = live.engine
    lines = [f"## 🏆 {title(live)}",
             f"Organiser: <@{live.organiser_id}> · leftover seats: computer players ({live.level})"
             + (f" · {live.round_minutes} min per round" if live.round_minutes else "")]
    stage = engine.stage
    if stage is Stage.SIGNUP:
        closes = (f"Sign-up closes <t:{int(live.deadline)}:R>, then round 1 starts."
                  if live.deadline is not None else "The organiser starts round 1 with `/spades tournament start`.")
        partner = " with `/spades tournament join partner:`" if engine.mode.value == "partners" else ""
        lines.append(f"**Sign-up is open:** press **Join**{partner}. {closes}")
    elif stage is Stage.PLAYING:
        lines.append(f"**Round {live.round_number} of {engine.rounds}** is being played in the threads below.")
    elif stage is Stage.BETWEEN:
        lines.append(f"Round {live.round_number} of {engine.rounds} is over; the next one is seated shortly. "
                     "Late entries are welcome now.")
    elif stage is Stage.OVER:
        lines.append("**The tournament is over.** `/spades tournament standings` shows the final standings.")
    else:
        lines.append("**The tournament was cancelled;** none of it counts.")
    entrants = engine.entrants
    lines.append(f"**Entrants ({len(engine.active)}):**")
    names = [f"{shown(e.name)}{' (out)' if e.entrant_id in engine.dropped else ''}" for e in entrants]
    return within_limit(lines, names or ["nobody yet"], separator=" · ")


def seat_text(seat: TableSeat) -> str:
    return f"<@{seat.user_id}>" if seat.user_id is not None else shown(seat.name)


def table_call_head(round_number: int, table: int) -> str:
    """How a table's call begins: what finds it again after a crash."""
    return f"**Round {round_number} · Table {table + 1}:** "


def table_call(live: LiveTournament, round_number: int, table: int, seats: Sequence[TableSeat]) -> str:
    """The message a table's thread starts from, in the tournament's channel."""
    return table_call_head(round_number, table) + ", ".join(seat_text(s) for s in seats) + " — play in the thread."


def thread_welcome(live: LiveTournament, round_number: int, seats: Sequence[TableSeat]) -> str:
    people = " ".join(seat_text(s) for s in seats if s.user_id is not None)
    computers = [shown(s.name) for s in seats if s.user_id is None]
    verb = "fills" if len(computers) == 1 else "fill"
    extra = f" {', '.join(computers)} {verb} the empty seats." if computers else ""
    return (f"{people}: your table for round {round_number} of {title(live)}. The game starts here; press "
            f"**My hand** on the table to play.{extra} If you don't show up, a computer player plays for you.")


def standings_lines(rows: Sequence[Standing]) -> list[str]:
    """A line per entrant (`within_limit` keeps as many as fit in the message)."""
    return [f"{row.rank}. **{shown(row.name)}**{' (out)' if row.dropped else ''} — {points_text(row.points)} pts · "
            f"{number(row.game_points)} game points · {plural(row.games, 'game')}" for row in rows]


def standings_text(live: LiveTournament, round_number: int, next_in: float | None = None,
                   stopped: Sequence[str] = ()) -> str:
    """`stopped`: the round's tables stopped before their end, and why (decided by the score then)."""
    engine = live.engine
    head = (f"**{title(live)} — standings after round {round_number} of {engine.rounds}**" if round_number
            else f"**{title(live)} — no round played yet**")
    after = ([f"Round {round_number + 1} is seated in about {round(next_in)} s."]
             if next_in is not None and round_number < engine.rounds else [])
    return within_limit([head], standings_lines(live.standings_after(round_number)),
                        [*(quoted_parts(line) for line in stopped), *after])


def podium_text(live: LiveTournament, stopped: Sequence[str] = ()) -> str:
    rows = live.standings_after(live.round_number)
    lines = [f"## 🏆 {title(live)} — final standings", *(quoted_parts(line) for line in stopped)]
    medals = ("🥇", "🥈", "🥉")
    lines += [f"{medals[row.rank - 1]} **{shown(row.name)}** — {points_text(row.points)} pts"
              for row in rows[:3]]
    return within_limit(lines, standings_lines(rows[3:]), ["Every game counted on the leaderboard as usual."])


def podium_picture(live: LiveTournament) -> bytes | None:
    rows = live.standings_after(live.round_number)
    if not rows:
        return None
    wins: Counter[str] = Counter()
    for played in live.engine.played:
        for seating, result in zip(played.tables, played.results, strict=True):
            if result is None:
                continue
            for entrant, place in zip(seating.seats, result.places, strict=True):
                if entrant is not None and place == 1:
                    wins[entrant] += 1
    lines = [PodiumLine(row.rank, row.name, points_text(row.points, has_glyph), wins[row.entrant_id], row.games,
                        row.game_points) for row in rows[:PODIUM_LINES]]
    return podium_png(f"{title(live)} — final standings", "by tournament points · tables won · game points",
                      [("Standings", lines)], PODIUM_FIGURES)


def cancelled_text(live: LiveTournament, reason: str) -> str:
    return f"The {title(live)} was cancelled ({reason}). None of it counts."
