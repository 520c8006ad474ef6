"""The log of a tournament: one immutable event per accepted action, each a plain dict in JSON."""

from __future__ import annotations

from typing import Any, NamedTuple

from bot.engine.errors import BadRecord


class Joined(NamedTuple):
    entrant_id: str
    name: str
    members: tuple[str, ...]
    names: tuple[str, ...]  # each member's own name, as shown at the table


class Dropped(NamedTuple):
    entrant_id: str


class Replaced(NamedTuple):
    """Between rounds, ``new_member`` takes ``old_member``'s place in the entrant (its points stay)."""

    entrant_id: str
    old_member: str
    new_member: str
    name: str  # the entrant's name from now on
    new_name: str  # the new member's own name


class RoundSeated(NamedTuple):
    number: int
    tables: tuple[tuple[str | None, ...], ...]  # entrant ids by seat; None is a computer


class TableFinished(NamedTuple):
    number: int
    table: int
    scores: tuple[int, ...]
    places: tuple[int, ...]
    unfinished: bool


class Ended(NamedTuple):
    """Finished early (the standings then are final) or cancelled (nothing counts)."""

    cancelled: bool


TournamentEvent = Joined | Dropped | Replaced | RoundSeated | TableFinished | Ended


def tournament_event_to_json(event: TournamentEvent) -> dict[str, Any]:
    if isinstance(event, Joined):
        return {"type": "join", "entrant": event.entrant_id, "name": event.name, "members": list(event.members),
                "names": list(event.names)}
    if isinstance(event, Dropped):
        return {"type": "drop", "entrant": event.entrant_id}
    if isinstance(event, Replaced):
        return {"type": "replace", "entrant": event.entrant_id, "out": event.old_member,
                "in": event.new_member, "name": event.name, "in_name": event.new_name}
    if isinstance(event, RoundSeated):
        return {"type": "seat", "round": event.number, "tables": [list(table) for table in event.tables]}
    if isinstance(event, TableFinished):
        return {"type": "result", "round": event.number, "table": event.table, "scores": list(event.scores),
                "places": list(event.places), "unfinished": event.unfinished}
    return {"type": "end", "cancelled": event.cancelled}


def tournament_event_from_json(data: dict[str, Any]) -> TournamentEvent:
    try:
        kind = data["type"]
        if kind == "join":
            return Joined(_str(data["entrant"]), _str(data["name"]), tuple(_str(m) for m in data["members"]),
                          tuple(_str(n) for n in data["names"]))
        if kind == "drop":
            return Dropped(_str(data["entrant"]))
        if kind == "replace":
            return Replaced(_str(data["entrant"]), _str(data["out"]), _str(data["in"]), _str(data["name"]),
                            _str(data["in_name"]))
        if kind == "seat":
            tables = tuple(tuple(None if s is None else _str(s) for s in table) for table in data["tables"])
            return RoundSeated(_int(data["round"]), tables)
        if kind == "result":
            return TableFinished(
                _int(data["round"]), _int(data["table"]), tuple(_int(s) for s in data["scores"]),
                tuple(_int(p) for p in data["places"]), _bool(data["unfinished"]),
            )
        if kind == "end":
            return Ended(_bool(data["cancelled"]))
    except (KeyError, TypeError, ValueError) as error:
        raise BadRecord(f"Unreadable tournament event {data!r}: {error}") from error
    raise BadRecord(f"Unknown tournament event type in {data!r}")


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {value!r}")
    return value


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return value
