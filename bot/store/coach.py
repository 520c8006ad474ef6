"""Hints taken and reviews kept: the coach's rows, written once for both backends (`bot.store.sql`)."""

from __future__ import annotations

from typing import Any

from bot.store.models import HintTaken
from bot.store.sql import Transaction


async def add_hint(tx: Transaction, game_id: str, hint: HintTaken) -> None:
    await tx.execute(
        "INSERT INTO hints (game_id, seat, hand, phase, trick, asked_at) VALUES ($1, $2, $3, $4, $5, $6)",
        game_id, hint.seat, hint.hand, hint.phase, hint.trick, hint.asked_at,
    )  # fmt: skip


async def hints(tx: Transaction, game_id: str) -> list[HintTaken]:
    found = await tx.fetch(
        "SELECT seat, hand, phase, trick, asked_at FROM hints WHERE game_id = $1 ORDER BY hint_id", game_id
    )
    return [HintTaken(r["seat"], r["hand"], r["phase"], r["trick"], r["asked_at"]) for r in found]


async def count_hints_in_results(tx: Transaction, game_id: str) -> None:
    """Finishing a game: each seat's result says how many hints it took."""
    await tx.execute(
        "UPDATE results SET hints = (SELECT count(*) FROM hints AS h WHERE h.game_id = results.game_id"
        " AND h.seat = results.seat) WHERE game_id = $1",
        game_id,
    )


async def save_review(tx: Transaction, game_id: str, seat: int, version: int, text: str, now: float) -> None:
    await tx.execute(
        "INSERT INTO reviews (game_id, seat, version, review_text, created_at) VALUES ($1, $2, $3, $4, $5)"
        " ON CONFLICT (game_id, seat) DO UPDATE SET version = excluded.version,"
        " review_text = excluded.review_text, created_at = excluded.created_at",
        game_id, seat, version, text, now,
    )  # fmt: skip


async def review(tx: Transaction, game_id: str, seat: int, version: int) -> str | None:
    row: Any = await tx.fetchrow(
        "SELECT review_text FROM reviews WHERE game_id = $1 AND seat = $2 AND version = $3", game_id, seat, version
    )
    return None if row is None else str(row["review_text"])
