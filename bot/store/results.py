"""Finishing a game: its results, everyone's rating and running totals, and what that did to their
ranks, in one transaction every backend runs (see `bot.store.sql`).

Two processes may finish games of one server at once (PostgreSQL): the game's row is locked first,
so finishing one game twice answers the same, then the server-and-mode's leaderboard
(`Transaction.lock_board`), so each game is rated from the ratings the other left and every rank is
counted on a settled board. A game finished while a season runs is rated again in the season, from
the season's own ratings, with the season's row locked last (`bot.store.seasons`). The locks are
always taken in that order, so two finishes never deadlock.

A player who leaves a running game forfeits it: their result is written then (`forfeit`), with the
same locks in the same order, and finishing the game later writes the other seats' only.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence

from bot.store import coach, games, rows, seasons
from bot.store.errors import GameNotFoundError, GameStateError
from bot.store.models import FinishOutcome, RatingChange, Seat, SeatResult
from bot.store.ratings import Rating, rate_game
from bot.store.rows import PostRow
from bot.store.sql import Transaction, placeholders

# Per player key: rating before and after, rank before and after (None where it has none).
Moves = dict[str, tuple[float | None, float, int | None, int | None]]


async def finish(
    tx: Transaction, game_id: str, results: Sequence[SeatResult], posts: Sequence[PostRow]
) -> FinishOutcome:
    game = await tx.fetchrow(
        f"SELECT guild_id, mode, status FROM games WHERE game_id = $1{tx.dialect.lock_rows}", game_id
    )
    if game is None:
        raise GameNotFoundError(f"no game {game_id!r}")
    if game["status"] == "finished":
        return FinishOutcome(game_id, await stored_changes(tx, game_id), already_finished=True)
    if game["status"] != "playing":
        raise GameStateError(f"game {game_id!r} is {game['status']}; only a game in play can finish")
    # Seats forfeited earlier keep the result written when their player left.
    forfeited = {row["seat"] for row in await tx.fetch("SELECT seat FROM results WHERE game_id = $1", game_id)}
    now = await _record(tx, game_id, game["guild_id"], game["mode"], results,
                        {r.seat for r in results} - forfeited)
    await coach.count_hints_in_results(tx, game_id)
    await tx.execute(
        "UPDATE games SET status = 'finished', ended_at = $1, deadline_kind = NULL, deadline_at = NULL"
        " WHERE game_id = $2",
        now, game_id,
    )  # fmt: skip
    await games.insert_posts(tx, posts, now)
    return FinishOutcome(game_id, await stored_changes(tx, game_id), already_finished=False)


async def forfeit(
    tx: Transaction, game_id: str, seats: Sequence[Seat], standing: Sequence[SeatResult], seat: int
) -> None:
    """A player left a running game: the new seats and their result, rated against the table as it
    stands (`standing`: every seat's result if the game ended now), in one transaction. That
    result counts whatever becomes of the game; the others are written when it finishes."""
    game = await tx.fetchrow(
        f"SELECT guild_id, mode, status FROM games WHERE game_id = $1{tx.dialect.lock_rows}", game_id
    )
    if game is None:
        raise GameNotFoundError(f"no game {game_id!r}")
    if game["status"] != "playing":
        raise GameStateError(f"game {game_id!r} is {game['status']}; only a game in play can be forfeited")
    if await tx.fetchrow("SELECT 1 FROM results WHERE game_id = $1 AND seat = $2", game_id, seat) is not None:
        raise GameStateError(f"game {game_id!r}: seat {seat} has already forfeited")
    rows.check_seats(game["mode"], seats)
    await tx.execute("DELETE FROM seats WHERE game_id = $1", game_id)
    await games.insert_seats(tx, game_id, seats)
    await _record(tx, game_id, game["guild_id"], game["mode"], standing, {seat})


async def _record(
    tx: Transaction, game_id: str, guild_id: int, mode: str, results: Sequence[SeatResult], seats: set[int]
) -> float:
    """Rate the game from every seat's result; save the ratings and result rows of `seats` only
    (the others were written before, or will be later). When it was done."""
    rows.check_results(mode, results)
    await tx.lock_board(guild_id, mode)
    now = time.time()  # once the board is ours: a game rated later also counts as finished later
    keys = {r.player_key for r in results if r.seat in seats}
    moves = await _rate(tx, guild_id, mode, results, keys, now)
    season_id = await seasons.running_for_game(tx, guild_id, now)
    in_season = {} if season_id is None else await _rate_in_season(tx, season_id, mode, results, keys, now)
    await tx.executemany(
        "INSERT INTO results (game_id, guild_id, mode, is_bot, rating_before, rating_after,"
        f" rank_before, rank_after, finished_at, season_id, season_rating, {rows.RESULT_COLUMNS})"
        f" VALUES ({placeholders(23)})",
        [
            (game_id, guild_id, mode, int(r.is_bot), *moves[r.player_key], now, season_id,
             in_season.get(r.player_key), r.seat, r.player_key, r.name, r.final_score, r.place, int(r.won),
             r.hands, r.bids_made, r.bids_set, r.nils_tried, r.nils_made, r.bags)
            for r in results if r.seat in seats
        ],
    )  # fmt: skip
    return now


def _by_key(results: Sequence[SeatResult]) -> dict[str, list[SeatResult]]:
    seats_of: dict[str, list[SeatResult]] = defaultdict(list)
    for r in results:
        seats_of[r.player_key].append(r)
    return seats_of


async def _rate(
    tx: Transaction, guild_id: int, mode: str, results: Sequence[SeatResult], keys: set[str], now: float
) -> Moves:
    """Update the rating and running totals of the players `keys`, rated in the whole game. Ranks
    are for humans only, as leaderboards are."""
    seats_of = _by_key(results)
    before = await _ratings(tx, ALL_TIME, guild_id, mode, seats_of)
    after = rate_game(mode, results, before)
    seats_of = {key: seats for key, seats in seats_of.items() if key in keys}
    humans = [key for key, seats in seats_of.items() if not seats[0].is_bot]
    rank_before = {k: await rank(tx, guild_id, mode, before[k].ordinal) for k in humans if k in before}
    await _save_ratings(tx, ALL_TIME, guild_id, mode, seats_of, after, now)
    rank_after = {k: await rank(tx, guild_id, mode, after[k].ordinal) for k in humans}
    return {
        key: (
            before[key].ordinal if key in before else None,
            after[key].ordinal,
            rank_before.get(key),
            rank_after.get(key),
        )
        for key in seats_of
    }


async def _rate_in_season(
    tx: Transaction, season_id: int, mode: str, results: Sequence[SeatResult], keys: set[str], now: float
) -> dict[str, float]:
    """Rate the game again in the running season, from the season's own ratings (fresh ones for a
    player new to it), saving those of `keys`; their season rating (ordinal) after it."""
    seats_of = _by_key(results)
    after = rate_game(mode, results, await _ratings(tx, SEASON, season_id, mode, seats_of))
    seats_of = {key: seats for key, seats in seats_of.items() if key in keys}
    await _save_ratings(tx, SEASON, season_id, mode, seats_of, after, now)
    return {key: after[key].ordinal for key in seats_of}


# The tables ratings are kept in, and the column that says whose board a row is on.
ALL_TIME = ("ratings", "guild_id")
SEASON = ("season_ratings", "season_id")


async def _ratings(
    tx: Transaction, board: tuple[str, str], owner: int, mode: str, seats_of: dict[str, list[SeatResult]]
) -> dict[str, Rating]:
    table, owner_column = board
    found = await tx.fetch(
        f"SELECT player_key, mu, sigma FROM {table} WHERE {owner_column} = $1 AND mode = $2"
        f" AND player_key IN ({placeholders(len(seats_of), first=3)})",
        owner, mode, *seats_of,
    )  # fmt: skip
    return {row["player_key"]: Rating(row["mu"], row["sigma"]) for row in found}


async def _save_ratings(
    tx: Transaction,
    board: tuple[str, str],
    owner: int,
    mode: str,
    seats_of: dict[str, list[SeatResult]],
    after: dict[str, Rating],
    now: float,
) -> None:
    table, owner_column = board
    await tx.executemany(
        f"INSERT INTO {table} ({owner_column}, mode, player_key, is_bot, name, mu, sigma, ordinal,"
        " games, wins, points, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
        f" ON CONFLICT ({owner_column}, mode, player_key) DO UPDATE SET name = excluded.name,"
        " mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal,"
        f" games = {table}.games + excluded.games, wins = {table}.wins + excluded.wins,"
        f" points = {table}.points + excluded.points, updated_at = excluded.updated_at",
        [
            (owner, mode, key, int(seats[0].is_bot), seats[0].name, after[key].mu, after[key].sigma,
             after[key].ordinal, len(seats), sum(r.won for r in seats),
             sum(r.final_score for r in seats), now)
            for key, seats in seats_of.items()
        ],
    )  # fmt: skip


async def rank(tx: Transaction, guild_id: int, mode: str, ordinal: float) -> int:
    """Place on the rating leaderboard: one more than the humans rated strictly higher."""
    row = await tx.fetchrow(
        "SELECT count(*) + 1 AS place FROM ratings WHERE guild_id = $1 AND mode = $2 AND is_bot = 0 AND ordinal > $3",
        guild_id, mode, ordinal,
    )  # fmt: skip
    assert row is not None
    return int(row["place"])


async def stored_changes(tx: Transaction, game_id: str) -> tuple[RatingChange, ...]:
    """What finishing the game did to each human, as kept with its results."""
    found = await tx.fetch(
        "SELECT seat, player_key, name, rating_before, rating_after, rank_before, rank_after,"
        " (SELECT count(*) FROM results AS o WHERE o.guild_id = r.guild_id AND o.player_key = r.player_key"
        "  AND o.mode = r.mode AND o.finished_at <= r.finished_at) AS games"
        " FROM results AS r WHERE game_id = $1 AND is_bot = 0 ORDER BY seat",
        game_id,
    )
    return tuple(rows.rating_change(r) for r in found)
