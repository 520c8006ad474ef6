"""Text and pictures for seasons: what `/spades season` answers, the podium post, the season beside
all time in `/spades stats`, and the stats card. Pure functions of the service's values."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from bot.discord_ui.pictures.podium import Standing, podium_png, rating_text, stats_card_png
from bot.discord_ui.safe_text import shown
from bot.discord_ui.text import MODE_TITLES, PROVISIONAL_GAMES, number, plural, within_limit
from bot.service import LeaderboardEntry, PlayerStats, Season, SeasonRhythm
from bot.service.seasons import ALL_TIME, PlayerCard, Podium

MEDALS = ("🥇", "🥈", "🥉")


def day(at: float) -> str:
    return datetime.fromtimestamp(at, tz=UTC).strftime("%Y-%m-%d")


def until(at: float) -> str:
    """An end as people say it, in UTC: a season ending at midnight ends as the day before ends."""
    moment = datetime.fromtimestamp(at, tz=UTC)
    if (moment.hour, moment.minute, moment.second) == (0, 0, 0):
        return f"at the end of {day(at - 1)} (UTC)"
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def last_day(season: Season) -> str:
    end = season.ended_at if season.ended_at is not None else season.ends_at
    assert end is not None
    return day(end - 1 if datetime.fromtimestamp(end, tz=UTC).strftime("%H:%M:%S") == "00:00:00" else end)


def title(season: Season) -> str:
    return f"season “{shown(season.name)}”"


def span(season: Season) -> str:
    """When it ran: from its first day to its last, or so far and until when."""
    if season.ended_at is not None:
        return f"{day(season.started_at)} to {last_day(season)}"
    if season.ends_at is not None:
        return f"since {day(season.started_at)}, ending {until(season.ends_at)}"
    return f"since {day(season.started_at)}, until an admin ends it"


def started_text(season: Season) -> str:
    ends = (f"It ends {until(season.ends_at)}." if season.ends_at is not None
            else "It runs until someone with Manage Server types `/spades season end`.")
    return (f"## ♠ Season “{shown(season.name)}” has started\n"
            f"Every game finished on this server from now on counts on its leaderboard too, where everyone "
            f"starts with a fresh rating; all time goes on as before. {ends} "
            f"Its podium will be posted in <#{season.channel_id}>.")


def ended_text(season: Season) -> str:
    return f"Season “{shown(season.name)}” has ended; its podium goes to <#{season.channel_id}>."


def list_text(seasons: Sequence[Season], rhythm: SeasonRhythm | None) -> str:
    head = "**Seasons on this server**"
    if not seasons:
        head += "\nNone yet. Someone with Manage Server can start one with `/spades season start`."
    listed = [f"• “{shown(season.name)}” — {'**running**, ' if season.running else ''}{span(season)}"
              for season in seasons]
    after = []
    if rhythm is not None:
        after.append("A new season starts every calendar month (UTC), named by the month, like 2026-11.")
    if seasons:
        after.append("`/spades leaderboard season:` shows any of them, or all time.")
    return within_limit([head], listed, after)


def board_label(season: Season | None, any_seasons: bool) -> str:
    """Which board a leaderboard shows, once there are seasons to tell it from."""
    if season is not None:
        return title(season) + ("" if season.running else ", final")
    return ALL_TIME if any_seasons else ""


def _rating(entry: LeaderboardEntry) -> str:
    return f"rating {number(entry.rating, '.1f')}"


def podium_text(podium: Podium) -> str:
    """The season's end: its first three per mode played, with their figures."""
    lines = [f"## 🏆 Season “{shown(podium.season.name)}” is over", span(podium.season)]
    if not podium.boards:
        lines.append("No game was finished in it, so nobody is on its podium.")
    for mode, entries in podium.boards:
        lines.append(f"**{MODE_TITLES[mode]}**")
        for medal, entry in zip(MEDALS, entries, strict=False):
            lines.append(f"{medal} **{shown(entry.name)}** — {_rating(entry)} · "
                         f"{entry.wins} of {plural(entry.games, 'game')} won · {plural(entry.points, 'point')}")
    if podium.boards:
        lines.append("The final top ten is in the picture; `/spades leaderboard season:` shows it any time.")
    return "\n".join(lines)


def podium_picture(podium: Podium) -> bytes | None:
    if not podium.boards:
        return None
    boards = [(MODE_TITLES[mode], [Standing(e.rank, e.name, rating_text(e.rating), e.wins, e.games, e.points)
               for e in entries])
              for mode, entries in podium.boards]
    return podium_png(f"Season “{podium.season.name}” — final standings", f"{span(podium.season)} · by rating",
                      boards)


def season_stats_text(season: Season, stats: PlayerStats) -> str:
    """The season's lines under the all-time ones of `/spades stats`."""
    head = f"**Season “{shown(season.name)}”**" + ("" if season.running else " (ended)")
    if stats.games == 0:
        return f"{head}: no finished game yet."
    lines = [f"{head}: {plural(stats.games, 'game')}, {plural(stats.wins, 'win')} ({stats.win_rate:.0%})",
             f"Bids made {stats.bids_made}/{stats.bids_total} · nils made {stats.nils_made}/{stats.nils_tried} · "
             f"bags per hand {stats.bags_per_hand:.2f}"]
    for rating in stats.ratings:
        figure = (f"rating {number(rating.rating, '.1f')}, rank #{rating.rank}" if rating.games >= PROVISIONAL_GAMES
                  else f"rating {number(rating.rating, '.1f')}, provisional ({rating.games} of "
                       f"{plural(PROVISIONAL_GAMES, 'game')})")
        lines.append(f"{rating.mode} this season: {figure}")
    return "\n".join(lines)


def _figures(stats: PlayerStats) -> list[str]:
    if stats.games == 0:
        return ["0", "–", "–", "–", "–"]
    bids = f"{stats.bids_made / stats.bids_total:.0%}" if stats.bids_total else "–"
    return [str(stats.games), f"{stats.wins} ({stats.win_rate:.0%})", bids,
            f"{stats.nils_made} of {stats.nils_tried}", f"{stats.bags_per_hand:.2f}"]


def card_picture(name: str, guild_name: str, card: PlayerCard) -> bytes:
    """The stats card: the season beside all time, and the rating over time with a line per season."""
    labels = ["Games", "Wins", "Bid success", "Nils made", "Bags per hand"]
    columns = [_figures(card.all_time)]
    headers = ["All time"]
    if card.season is not None and card.in_season is not None:
        columns.insert(0, _figures(card.in_season))
        headers.insert(0, card.season.name)
    figures = [(label, [column[row] for column in columns]) for row, label in enumerate(labels)]
    all_time = [point.rating for point in card.history]
    lines: dict[int, list[tuple[int, float]]] = {}
    for game_number, point in enumerate(card.history, start=1):
        if point.season_id is not None and point.season_rating is not None:
            lines.setdefault(point.season_id, []).append((game_number, point.season_rating))
    seasons = [(card.season_names.get(season_id, "?"), points) for season_id, points in lines.items()]
    chart_title = f"Rating over time · {MODE_TITLES[card.mode]}" if card.mode is not None else "Rating over time"
    return stats_card_png(name, f"Spades on {guild_name}", headers, figures, chart_title, all_time, seasons)
