"""The OpenAPI part of tournaments (docs/api.md, its tournaments): events, check-in, rounds,
standings and prizes. :mod:`app.api.openapi` merges it into the document."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.draw import LARGEST_TABLE, SMALLEST_TABLE
from ..core.placings import TIE_BREAKS
from ..services.events import MAX_HANDS, MAX_ROUNDS, MAX_SEED, SCORINGS

_ID = {"type": "integer", "minimum": 1}
_AMOUNT = {"anyOf": [{"type": "string",
                      "pattern": r"^[ \t\r\n]*[+-]?[0-9]+(\.[0-9]+)?[ \t\r\n]*$"},
                     {"type": "number"}],
           "description": "A decimal string (or a JSON number; never read as a float)."}
_MONEY = {"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$", "examples": ["100.00"]}
_TEXT = {"type": "string", "pattern": r"\S"}
_EVENT_ID = {"name": "event_id", "in": "path", "required": True, "schema": _ID,
             "description": "The event's id.", "example": 1}
_ROUND = {"name": "number", "in": "path", "required": True, "schema": _ID,
          "description": "The round's number, from 1.", "example": 1}
_TABLE = {"name": "table", "in": "path", "required": True, "schema": _ID,
          "description": "The table's number, from 1.", "example": 1}
_PLAYER = {"name": "name", "in": "path", "required": True, "schema": _TEXT,
           "description": "A checked-in player's name.", "example": "Ann"}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def event_schemas() -> dict[str, Any]:
    """A new event, the event, a check-in, a round, standings and the prize list."""
    shares = {"type": "array", "minItems": 1, "maxItems": 50, "items": _AMOUNT,
              "description": "Shares of the pool for places 1, 2, …; they add up to 1."}
    fixed = {"type": "object", "required": ["fixed"], "additionalProperties": False,
             "properties": {"fixed": {**shares, "description": "Fixed amounts for places "
                                      "1, 2, …; what they leave of the pool goes to first."}}}
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
        "NewEvent": {"type": "object", "additionalProperties": False,
                     "required": ["name", "table_size", "rounds", "hands_per_round"],
                     "examples": [{"name": "Malone Open", "rules": "pagat", "currency": "USD",
                                   "table_size": 4, "rounds": 3, "hands_per_round": 8,
                                   "entry_fee": "20", "prizes": ["0.5", "0.3", "0.2"]}],
                     "properties": {
            "name": _TEXT, "rules": _ref("Rules"),
            "currency": {"type": ["string", "null"], "default": "USD"},
            "table_size": {"type": "integer", "minimum": SMALLEST_TABLE,
                           "maximum": LARGEST_TABLE},
            "rounds": {"type": "integer", "minimum": 1, "maximum": MAX_ROUNDS},
            "hands_per_round": {"type": "integer", "minimum": 1, "maximum": MAX_HANDS},
            "entry_fee": {"anyOf": [*_AMOUNT["anyOf"], {"type": "null"}],
                          "description": "Each player's fee, in the currency; default 0."},
            "prizes": {"anyOf": [shares, fixed, {"type": "null"}],
                       "description": "Default: 0.5, 0.3, 0.2."},
            "league": {"anyOf": [_ID, {"type": "null"}],
                       "description": "A league you run: its results count there."},
            "scoring": {"anyOf": [{"type": "string", "enum": list(SCORINGS)},
                                  {"type": "null"}],
                        "description": "points (default): hands count in stake units, no "
                                       "money at the tables; money: paid at each table."},
            "house_share": {"anyOf": [*_AMOUNT["anyOf"], {"type": "null"}],
                            "description": "The house's share of the fees, 0 to under 1."},
            "stake": {"anyOf": [*_AMOUNT["anyOf"], {"type": "null"}],
                      "description": "The tables' stake; default 1."},
            "held_on": {"type": ["string", "null"], "format": "date",
                        "pattern": r"^\s*\d{4}-\d{2}-\d{2}\s*$"},
            "tie_breaks": {"anyOf": [{"type": "array", "uniqueItems": True, "items": {
                "type": "string", "enum": list(TIE_BREAKS)}}, {"type": "null"}],
                "description": "Applied in order when totals are equal; none: tied players "
                               "share a place."}}},
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
        "CheckIn": {"type": "object", "required": ["name"], "additionalProperties": False,
                    "examples": [{"name": "Ann", "paid": True}],
                    "properties": {"name": _TEXT,
                                   "paid": {"type": ["boolean", "null"]}}},
        "Fee": {"type": "object", "required": ["paid"], "additionalProperties": False,
                "properties": {"paid": {"type": "boolean"}}},
        "Draw": {"type": "object", "additionalProperties": False, "properties": {
            "seed": {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_SEED,
                     "description": "Draw from this seed (repeatable); default: a random "
                                    "one, answered."},
            "unpaid": {"type": ["string", "null"], "enum": ["draw", "leave_out", None],
                       "description": "With an entry fee not marked paid for some players: "
                                      "seat them anyway (draw) or leave them out of this "
                                      "round (leave_out); without it such a draw is refused "
                                      "(409, field unpaid, naming them)."}}},
        "CloseRound": {"type": "object", "additionalProperties": False, "properties": {
            "force": {"type": ["boolean", "null"],
                      "description": "Close although tables played fewer hands."}}},
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


def event_paths(signed_in: Callable[..., dict[str, Any]],
                answer: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The event endpoints: each needs a personal token and sees only events you run."""
    e, r = (_EVENT_ID,), (_EVENT_ID, _ROUND)
    optional = {"required": False}

    def body_optional(operation: dict[str, Any]) -> dict[str, Any]:
        operation["requestBody"] = {**operation["requestBody"], **optional}
        return operation

    return {
        "/api/v1/events": {
            "post": signed_in("Set up an event.", {"201": answer("The event.", "Event")},
                              "NewEvent"),
            "get": signed_in("The events you run.", {"200": {
                "description": "Summaries.", "content": {"application/json": {"schema": {
                    "type": "array", "items": {"type": "object"}}}}}}, change=False)},
        "/api/v1/events/{event_id}": {
            "get": signed_in("The event, its players, rounds and state.", {
                "200": answer("The event.", "Event")}, params=e, change=False)},
        "/api/v1/events/{event_id}/players": {
            "post": signed_in("Check a player in (409 if the name is checked in).", {
                "200": answer("The event.", "Event")}, "CheckIn", e)},
        "/api/v1/events/{event_id}/players/{name}": {
            "put": signed_in("Record the player's fee as paid, or not.", {
                "200": answer("The event.", "Event")}, "Fee", (*e, _PLAYER)),
            "delete": signed_in("Withdraw the player from the next round on; earlier "
                                "hands stay.", {"200": answer("The event.", "Event")},
                                params=(*e, _PLAYER))},
        "/api/v1/events/{event_id}/rounds": {
            "post": body_optional(signed_in(
                "Draw the next round and start its tables (409 while a round is open).",
                {"201": answer("The round.", "EventRound")}, "Draw", e))},
        "/api/v1/events/{event_id}/rounds/{number}/close": {
            "post": body_optional(signed_in(
                "Close the round (409 naming short tables unless forced).",
                {"200": answer("The round.", "EventRound")}, "CloseRound", r))},
        "/api/v1/events/{event_id}/rounds/{number}/tables/{table}/link": {
            "post": signed_in("Replace the table's scorekeeping link.", {
                "200": answer("The table.", "EventTable")}, params=(*r, _TABLE))},
        "/api/v1/events/{event_id}/standings": {
            "get": signed_in("Standings over every round, best first.", {
                "200": answer("The standings.", "EventStandings")}, params=e,
                change=False)},
        "/api/v1/events/{event_id}/prizes": {
            "get": signed_in("The prize list, exact to the cent: it sums to the pool.", {
                "200": answer("The prizes.", "Prizes"),
                "422": answer("Fixed prizes more than the pool.", "Error")}, params=e,
                change=False)},
    }
