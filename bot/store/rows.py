"""Rows to the store's values and back, and the checks made before anything is written; the same for
every backend, since both return rows that answer to column names."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from bot.engine import Mode
from bot.store import replay
from bot.store.errors import DamagedGameError
from bot.store.models import Deadline, GameInfo, Post, RatingChange, Seat, SeatResult, StoredGame
from bot.store.sql import Row

PostRow = tuple[str, str, str]  # game_id, kind, payload_json

RESULT_COLUMNS = (
    "seat, player_key, name, final_score, place, won, hands, bids_made, bids_set, nils_tried, nils_made, bags"
)


def post_rows(game_id: str, posts: Sequence[Post]) -> list[PostRow]:
    """Serialised before anything is queued or written, so a payload that isn't JSON fails its caller only."""
    return [(game_id, post.kind, replay.dumps(post.payload)) for post in posts]


def deadline_columns(deadline: Deadline | None) -> tuple[str | None, float | None]:
    return (deadline.kind, deadline.at) if deadline else (None, None)


def check_seats(mode: str, seats: Sequence[Seat]) -> None:
    numbers = [s.seat for s in seats]
    if len(set(numbers)) != len(numbers) or not all(0 <= n < Mode.parse(mode).seats for n in numbers):
        raise ValueError(f"seats {numbers} do not fit a {mode} table")


def check_results(mode: str, results: Sequence[SeatResult]) -> None:
    if sorted(r.seat for r in results) != list(range(Mode.parse(mode).seats)):
        raise ValueError(f"a {mode} game needs one result per seat, got seats {[r.seat for r in results]}")
    if any(r.place < 1 for r in results):
        raise ValueError("places count from 1")


def seat(row: Row) -> Seat:
    return Seat(row["seat"], row["name"], row["user_id"], row["bot_level"], row["left_user_id"], row["left_name"])


def seat_result(row: Row) -> SeatResult:
    return SeatResult(
        seat=row["seat"],
        player_key=row["player_key"],
        name=row["name"],
        final_score=row["final_score"],
        place=row["place"],
        won=bool(row["won"]),
        hands=row["hands"],
        bids_made=row["bids_made"],
        bids_set=row["bids_set"],
        nils_tried=row["nils_tried"],
        nils_made=row["nils_made"],
        bags=row["bags"],
    )


def rating_change(row: Row) -> RatingChange:
    return RatingChange(
        row["seat"],
        row["player_key"],
        row["name"],
        row["rating_before"],
        row["rating_after"],
        row["rank_before"],
        row["rank_after"],
        row["games"],
    )


def game_info(row: Row, seat_rows: Iterable[Row]) -> GameInfo:
    deadline = None
    if row["deadline_kind"] is not None and row["deadline_at"] is not None:
        deadline = Deadline(row["deadline_kind"], row["deadline_at"])
    return GameInfo(
        game_id=row["game_id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        mode=row["mode"],
        rules=replay.loads_object(row["rules_json"]),
        status=row["status"],
        host_id=row["host_id"],
        created_at=row["created_at"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        lobby_message_id=row["lobby_message_id"],
        table_message_id=row["table_message_id"],
        deadline=deadline,
        seats=tuple(sorted((seat(s) for s in seat_rows), key=lambda s: s.seat)),
    )


def rebuild(row: Row, seat_rows: Iterable[Row], event_rows: Sequence[Row]) -> StoredGame:
    """A game from its row, seats and `(seq, event_json)` rows; raises on anything unreadable."""
    info = game_info(row, seat_rows)
    if row["setup_json"] is None:
        if info.status != "lobby":
            raise DamagedGameError(f"game is {info.status} but has no setup")
        return StoredGame(info, None)
    setup = replay.loads_object(row["setup_json"])
    game = replay.rebuild_game(setup, [(e["seq"], e["event_json"]) for e in event_rows])
    for seated in info.seats:  # names change without an event when a computer player takes over
        game.rename(seated.seat, seated.name)
    return StoredGame(info, game)


def group_by_game(rows: Iterable[Row]) -> dict[str, list[Row]]:
    grouped: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        grouped[row["game_id"]].append(row)
    return grouped

