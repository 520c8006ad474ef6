"""Turning stored rows back into an engine game and a game record; shared by every backend."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import orjson

from bot.engine import GAME_FORMAT, Game, export_record
from bot.store.errors import DamagedGameError
from bot.store.models import Seat, StoredGame


def dumps(obj: Any) -> str:
    """Compact JSON for a column. orjson, not the standard library: every move's events and posts
    are written with it, and orjson takes about a tenth of the time (and ints as keys, as json does)."""
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode()


def loads_object(text: str | bytes) -> dict[str, Any]:
    """A JSON object from a column; anything else means the row is damaged."""
    value = json.loads(text)
    if not isinstance(value, dict):
        raise DamagedGameError(f"expected a JSON object, found {type(value).__name__}")
    return value


def rebuild_game(setup: dict[str, Any], events: Sequence[tuple[int, str | bytes]]) -> Game:
    """Replay `(seq, event_json)` rows, which must be exactly seqs 1..n, through the engine."""
    for expected, (seq, _) in enumerate(events, start=1):
        if seq != expected:
            raise DamagedGameError(f"event log has seq {seq} where {expected} was expected")
    return Game.from_json({"format": GAME_FORMAT, "setup": setup, "events": [loads_object(text) for _, text in events]})


def record_players(seats: Sequence[Seat]) -> list[dict[str, Any]]:
    """The `players` list of a game record."""
    return [
        {"seat": s.seat, "name": s.name, "kind": "bot" if s.is_bot else "human", "id": s.player_key}
        for s in sorted(seats, key=lambda s: s.seat)
    ]


def game_record(stored: StoredGame) -> dict[str, Any] | None:
    """A `spades-record/1` document, or None for a game that never left the lobby."""
    if stored.game is None:
        return None
    return export_record(stored.game, record_players(stored.info.seats))
