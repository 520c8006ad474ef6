"""Leaderboards and player stats, read in one snapshot by every backend (see `bot.store.sql`): of all
time (`ratings`, per server), or of one season (`season_ratings`, per season)."""

from __future__ import annotations

from itertools import pairwise

from bot.store.models import LeaderboardEntry, LeaderboardSort, ModeRating, PlayerStats
from bot.store.sql import Transaction


def _board(season_id: int | None) -> tuple[str, str]:
    """The table a board's ratings are kept in, and the column that says whose board a row is on."""
    return ("ratings", "guild_id") if season_id is None else ("season_ratings", "season_id")


def _sort_key(tx: Transaction, sort: LeaderboardSort) -> str:
    """What a leaderboard sorts by; each has an index (V002)."""
    keys = {"rating": "ordinal", "wins": "wins", "win_rate": tx.dialect.win_rate, "points": "points"}
    if sort not in keys:
        raise ValueError(f"unknown leaderboard sort {sort!r}")
    return keys[sort]


async def leaderboard(
    tx: Transaction,
    guild_id: int,
    mode: str,
    sort: LeaderboardSort,
    limit: int,
    offset: int,
    min_games: int,
    season_id: int | None,
) -> list[LeaderboardEntry]:
    key = _sort_key(tx, sort)
    table, owner = _board(season_id)
    on_board = f"{owner} = $1 AND mode = $2 AND is_bot = 0 AND games >= $3"
    board = (guild_id if season_id is None else season_id, mode, min_games if sort == "win_rate" else 1)
    page = await tx.fetch(
        f"SELECT {key} AS sort_key, * FROM {table} WHERE {on_board}"
        f" ORDER BY {key} DESC, ordinal DESC, player_key LIMIT $4 OFFSET $5",
        *board, limit, offset,
    )  # fmt: skip
    if not page:
        return []
    # Only the page's first rank needs counting: after it, a row shares the rank of the row before
    # when their keys tie, and otherwise its rank is its position.
    first = await tx.fetchrow(
        f"SELECT count(*) + 1 AS place FROM {table} WHERE {on_board} AND {key} > $4", *board, page[0]["sort_key"]
    )
    assert first is not None
    ranks = [int(first["place"])]
    for position, (previous, row) in enumerate(pairwise(page), start=offset + 2):
        ranks.append(ranks[-1] if row["sort_key"] == previous["sort_key"] else position)
    return [
        LeaderboardEntry(
            rank=place,
            user_id=int(r["player_key"]),
            name=r["name"],
            games=r["games"],
            wins=r["wins"],
            win_rate=r["wins"] / r["games"],
            points=r["points"],
            average_score=r["points"] / r["games"],
            rating=r["ordinal"],
            mu=r["mu"],
            sigma=r["sigma"],
        )
        for place, r in zip(ranks, page, strict=True)
    ]


async def player_stats(
    tx: Transaction, guild_id: int, user_id: int, mode: str | None, season_id: int | None
) -> PlayerStats:
    key = str(user_id)
    totals = await tx.fetchrow(
        "SELECT count(*) AS games, coalesce(sum(won), 0) AS wins, coalesce(sum(final_score), 0) AS points,"
        " coalesce(sum(bids_made), 0) AS bids_made, coalesce(sum(bids_made + bids_set), 0) AS bids_total,"
        " coalesce(sum(nils_made), 0) AS nils_made, coalesce(sum(nils_tried), 0) AS nils_tried,"
        " coalesce(sum(hands), 0) AS hands, coalesce(sum(bags), 0) AS bags,"
        " coalesce(sum(CASE WHEN hints > 0 THEN 1 ELSE 0 END), 0) AS hinted_games"
        " FROM results WHERE guild_id = $1 AND player_key = $2 AND (CAST($3 AS TEXT) IS NULL OR mode = $3)"
        " AND (CAST($4 AS BIGINT) IS NULL OR season_id = $4)",
        guild_id, key, mode, season_id,
    )  # fmt: skip
    assert totals is not None
    table, owner_column = _board(season_id)
    ratings = await tx.fetch(
        f"SELECT r.*, (SELECT count(*) + 1 FROM {table} AS o WHERE o.{owner_column} = r.{owner_column}"
        " AND o.mode = r.mode AND o.is_bot = 0 AND o.ordinal > r.ordinal) AS place"
        f" FROM {table} AS r WHERE r.{owner_column} = $1"
        " AND r.mode IN ('cutthroat', 'solo', 'partners', 'duo', 'five', 'six')"
        " AND r.player_key = $2 AND (CAST($3 AS TEXT) IS NULL OR r.mode = $3) ORDER BY r.mode",
        guild_id if season_id is None else season_id, key, mode,
    )  # fmt: skip
    games, hands, wins, bags = int(totals["games"]), int(totals["hands"]), int(totals["wins"]), int(totals["bags"])
    return PlayerStats(
        guild_id=guild_id,
        user_id=user_id,
        mode=mode,
        games=games,
        wins=wins,
        win_rate=wins / games if games else 0.0,
        average_score=int(totals["points"]) / games if games else 0.0,
        bids_made=int(totals["bids_made"]),
        bids_total=int(totals["bids_total"]),
        nils_made=int(totals["nils_made"]),
        nils_tried=int(totals["nils_tried"]),
        hands=hands,
        bags=bags,
        bags_per_hand=bags / hands if hands else 0.0,
        ratings=tuple(
            ModeRating(r["mode"], r["ordinal"], r["mu"], r["sigma"], int(r["place"]), r["games"], r["wins"])
            for r in ratings
        ),
        hinted_games=int(totals["hinted_games"]),
    )
