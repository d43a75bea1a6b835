"""The OpenAPI part of tournaments (docs/api.md, its tournaments), in the answers: the event,
its players, rounds, tables, standings and prizes. :mod:`app.api.openapi` merges it into the
document (the bodies: declared on their endpoints, :mod:`.events`)."""
from __future__ import annotations

from typing import Any

_MONEY = {"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$", "examples": ["100.00"]}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def event_schemas() -> dict[str, Any]:
    """The event, a round, standings and the prize list."""
    table = {"type": "object", "properties": {
        "table": {"type": "integer"}, "session": {"type": "integer"},
        "players": {"type": "array", "items": {"type": "string"}},
        "dealer": {"type": "string"},
        "link": {"type": "string", "description": "The table's scorekeeping link: it "
                 "records, corrects and voids hands at this table while the round is open, "
                 "with no account."},
        "hands": {"type": "integer"}, "done": {"type": "boolean"},
        "closed": {"type": "boolean"}}}
    return {
        "EventPlayer": {"type": "object", "properties": {
            "name": {"type": "string"}, "paid": {"type": "boolean"},
            "withdrawn": {"type": "boolean"}}},
        "EventTable": table,
        "EventRound": {"type": "object", "properties": {
            "round": {"type": "integer"}, "seed": {"type": "integer"},
            "closed": {"type": "boolean"}, "forced": {"type": "boolean"},
            "tables": {"type": "array", "items": _ref("EventTable")}}},
        "Event": {"type": "object", "properties": {
            "id": {"type": "integer"}, "name": {"type": "string"},
            "state": {"type": "string", "enum": ["checking_in", "playing",
                                                 "between_rounds", "finished"]},
            "players": {"type": "array", "items": _ref("EventPlayer")},
            "rounds": {"type": "integer"},
            "rounds_played": {"type": "array", "items": _ref("EventRound")},
            "board": {"type": "string", "description": "The TV leaderboard's link."}}},
        "EventStandings": {"type": "object", "properties": {
            "standings": {"type": "array", "items": {"type": "object", "properties": {
                "place": {"type": "integer"}, "player": {"type": "string"},
                "total": {"type": "string"}, "hands": {"type": "integer"},
                "rounds": {"type": "array", "items": {"type": "string"}}}}},
            "tie_breaks": {"type": "array", "items": {"type": "string"}}}},
        "Prizes": {"type": "object", "properties": {
            "fees": _MONEY, "house": _MONEY, "pool": _MONEY,
            "prizes": {"type": "array", "items": {"type": "object", "properties": {
                "place": {"type": "integer"},
                "players": {"type": "array", "items": {"type": "string"}},
                "amount": {**_MONEY, "description": "What each of the players receives."}}}},
            "rule": {"type": "string"}}},
    }
