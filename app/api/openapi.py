"""The OpenAPI 3.1 document of the JSON API, served at ``/api/v1/openapi.json``.

Its paths and request bodies are the endpoints' own declarations (:mod:`.door`): the route,
the summary, the parameters, the body's schema and the answers. What is here (and in the
``openapi_*`` modules) describes the answers, built from the domain's own registries
(presets, options, outcomes), so that it cannot drift from what the API does.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.rules import OPTIONS, PRESETS
from ..core.series import MAX_POINTS
from ..core.settle import OUTCOMES
from ..services.leagues import SCORINGS
from .door import ENDPOINTS, Answer, Endpoint, body_schemas, request_body
from .kinds import DAY, EndBody, ref
from .openapi_events import event_schemas
from .openapi_nights import extend_nights
from .openapi_pay import extend_pay
from .openapi_table import extend
from .params import ID

MONEY = {"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$",
         "description": "An exact decimal amount, never a binary float.", "examples": ["1.25"]}


def answer(description: str, schema: str | Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An answer: its description and the schema of its body (by name, or itself)."""
    if schema is None:
        return {"description": description}
    return {"description": description, "content": {"application/json": {
        "schema": ref(schema) if isinstance(schema, str) else dict(schema)}}}


ERRORS = {
    "400": answer("The body cannot be read: not JSON (the error says at which line and "
                   "column), a key given twice (field: its path), or not a JSON object.",
                   "Error"),
    "422": answer("The input cannot be settled; the message says why, for a person.", "Error"),
}
SESSION_ERRORS = {
    **ERRORS,
    "401": answer("No valid personal token (Authorization: Bearer …).", "Error"),
    "404": answer("No such session or hand for this account.", "Error"),
    "409": answer("The session is closed; or the hand is no longer at the version the "
                   "request names (the answer's current says who changed it, and when); or "
                   "a tournament table has played its round's hands (field: round); or "
                   "the first request with this Idempotency-Key is still under way.", "Error"),
    "503": answer("The database cannot take the change now (busy, read-only, disk full): "
                   "nothing was changed; try again after Retry-After seconds.", "Error"),
}
#: Every change may name itself, so that sending it again changes nothing.
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key", "in": "header", "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": "Your unique string for this change: the same key and body again answer "
                   "the first answer again (Idempotent-Replayed: true) and change nothing; "
                   "the same key with another request is a 422."}


def _schemas() -> dict[str, Any]:
    options: dict[str, Any] = {
        name: {"description": str(option.meaning)}
        | ({"enum": list(option.choices)} if option.choices is not None else {})
        for name, option in OPTIONS.items()}
    return {
        "Error": {"type": "object", "required": ["error"], "properties": {
            "error": {"type": "string", "description": "What is wrong, for a person."},
            "field": {"type": "string", "description": "Where, e.g. counts.Bob."}}},
        "Rules": {"description": "A preset's name, or a preset and the options that differ; "
                                 "null or absent: pagat (a session's: its own).",
                  "oneOf": [
            {"type": "string", "enum": list(PRESETS)},
            {"type": "object", "additionalProperties": False, "properties": {
                "preset": {"type": "string", "enum": list(PRESETS)}, **options}},
            {"type": "null"}]},
        "Payment": {"type": "object", "properties": {
            "from": {"type": "string"}, "to": {"type": "string"}, "amount": MONEY,
            "rule": {"type": "string"}}},
        "Result": {"type": "object", "required": ["outcome", "winners", "payments"],
                   "properties": {
            "outcome": {"type": "string", "enum": list(OUTCOMES)},
            "winners": {"type": "array", "items": {"type": "string"}},
            "payments": {"type": "array", "items": ref("Payment")},
            "net": {"type": "object", "additionalProperties": MONEY},
            "pushed": {"type": "object", "additionalProperties": {"type": "integer"}},
            "explanation": {"type": "array", "items": {"type": "string"}}}},
        "Ruling": {"type": "object", "required": ["rules", "title"], "properties": {
            "rules": {**ref("Rules"), "description": "A preset's name, or the table's own "
                      "rules as sent (then own is true)."},
            "title": {"type": "string"},
            "own": {"type": "boolean", "description": "The table's own rules."},
            "result": ref("Result"),
            "differs": {"type": "object", "description": "What is not as under the first "
                        "ruling that could be settled (the table's own rules when given).",
                        "properties": {
                "winners": {"type": "boolean"},
                "players": {"type": "array", "items": {"type": "string"},
                            "description": "Whose net (or push-up) differs."}}},
            "note": {"type": "string", "description": "A change the comparison had to make, "
                     "e.g. a stake of 1 point under points scoring."},
            "error": {"type": "string", "description": "Why the hand cannot be settled "
                      "under these rules (instead of result)."},
            "field": {"type": "string"}}},
        "Comparison": {"type": "object", "properties": {
            "results": {"type": "array", "items": ref("Ruling")}}},
        "Transfer": {"type": "object", "properties": {
            "from": {"type": "string"}, "to": {"type": "string"}, "amount": MONEY}},
        "Transfers": {"type": "object", "properties": {
            "transfers": {"type": "array", "items": ref("Transfer")}}},
    }


_SIGNED_IN: list[dict[str, list[str]]] = [{"bearer": []}]
WHEN = {"type": "string", "format": "date-time"}


def transfer_list() -> dict[str, Any]:
    return {"type": "array", "items": ref("Transfer")}


def _session_schemas() -> dict[str, Any]:
    """The session endpoints' answers."""
    recorded = {
        "hand": ref("TableHand"),
        "rules": {**ref("Rules"), "description": "The house rules it was settled under."},
        "stake": {"type": "string", "description": "The stake it was settled under."},
        "result": ref("Result")}
    return {
        "SessionSummary": {"type": "object", "properties": {
            "id": ID, "name": {"type": "string"},
            "players": {"type": "array", "items": {"type": "string"}},
            "currency": {"type": "string"}, "closed": {"type": "boolean"},
            "hands": {"type": "integer"}, "created_at": WHEN}},
        "Session": {"type": "object", "properties": {
            "id": ID, "name": {"type": "string"},
            "players": {"type": "array", "items": {"type": "string"},
                        "description": "In seat order."},
            "dealer": {"type": "string", "description": "Who deals the next hand."},
            "rules": {**ref("Rules"), "description": "As stored: a preset and overrides."},
            "scoring": {"type": "string", "enum": list(SCORINGS)},
            "stake": {"type": "string"}, "currency": {"type": "string"},
            "closed": {"type": "boolean"},
            "closed_at": {"oneOf": [WHEN, {"type": "null"}]},
            "hands": {"type": "integer", "description": "Hands recorded, voided ones too."},
            "share_url": {"type": "string", "description": "Path of the read-only page."},
            "league": {"oneOf": [ID, {"type": "null"}],
                       "description": "The league it belongs to, if any."},
            "created_at": WHEN}},
        "RecordedHand": {"type": "object", "properties": {
            "number": ID, "version": ID, "voided": {"type": "boolean"}, **recorded}},
        "HandVersion": {"type": "object", "properties": {
            "version": ID, "action": {"type": "string",
                                       "enum": ["recorded", "corrected", "voided"]},
            "at": WHEN, "by": {"type": "string", "description": "The account's name."},
            "reason": {"type": ["string", "null"]}, **recorded}},
        "Ledger": {"type": "object", "properties": {
            "totals": {"type": "object", "additionalProperties": MONEY},
            "hands": {"type": "integer", "description": "Hands that count (not voided)."},
            "transfers": {**transfer_list(),
                          "description": "The fewest transfers that settle what is open."},
            "paid": {**transfer_list(), "description": "Payments marked paid."},
            "open": {"type": "object", "additionalProperties": MONEY,
                     "description": "Each total less what was paid or received."},
            "all_paid": {"type": "boolean"},
            "scoring": {"type": "string"}, "currency": {"type": "string"}}},
        "Share": {"type": "object", "description": "The live state of a session for its "
                  "read-only view.", "properties": {
            "session": {"type": "object", "properties": {
                "name": {"type": "string"}, "rules": {"type": "string"},
                "rules_title": {"type": "string"},
                "scoring": {"type": "string", "enum": list(SCORINGS)},
                "stake": {"type": "string"}, "currency": {"type": "string"},
                "closed": {"type": "boolean"},
                "closed_at": {"oneOf": [WHEN, {"type": "null"}]}, "created_at": WHEN}},
            "seats": {"type": "array", "description": "In seat order, with each total.",
                      "items": {"type": "object", "properties": {
                          "seat": {"type": "integer"}, "name": {"type": "string"},
                          "total": MONEY}}},
            "dealer": {"type": ["string", "null"],
                       "description": "Who deals next (null once closed)."},
            "totals": {"type": "object", "additionalProperties": MONEY},
            "hands": {"type": "integer", "description": "Hands that count (not voided)."},
            "last_hands": {"type": "array", "description": "The newest hands, newest first.",
                           "items": {"type": "object", "properties": {
                "number": ID, "version": ID, "voided": {"type": "boolean"},
                "corrected": {"type": "boolean"},
                "multiplier": {"type": "integer"}, "outcome": {"type": "string"},
                "winners": {"type": "array", "items": {"type": "string"}},
                "values": {"type": "object", "description": "Each player's net (pushes "
                           "under push-ups)."}}}},
            "transfers": {**transfer_list(), "description": "The transfers still open."},
            "pots": {"type": "object", "additionalProperties": MONEY,
                     "description": "Money waiting in each pot."},
            "revision": {"type": "integer", "description": "Moves on with every change."},
            "updated_at": WHEN}},
    }


_SCORING = {"type": "string", "enum": list(SCORINGS)}
_COUNT = {"type": "integer", "minimum": 0}


def _league_schemas() -> dict[str, Any]:
    """The league endpoints' schemas. Money and points are decimal strings (points whole)."""
    member = {"type": "object", "properties": {"id": ID, "name": {"type": "string"}}}
    record = {"type": "object", "properties": {
        "player": ref("Member"),
        "net": {**MONEY, "description": "Money or points won; under push-ups, points "
                                         "pushed up (lower is better)."},
        "sessions": _COUNT, "hands": _COUNT, "hands_won": _COUNT, "tonks_out": _COUNT,
        "drops_won": _COUNT, "times_caught": _COUNT,
        "win_rate": {"type": "string", "description": "Hands won / hands, 4 places."},
        "average": {"type": "string", "description": "Net per hand, 2 places."}}}
    result = {"type": "object", "properties": {
        "session": ID, "name": {"type": "string"}, "played_at": WHEN, "net": MONEY,
        "hands": _COUNT}}
    return {
        "LeagueSummary": {"type": "object", "properties": {
            "id": ID, "name": {"type": "string"}, "scoring": _SCORING,
            "currency": {"type": "string"}, "created_at": WHEN}},
        "Member": member,
        "Admin": {"type": "object", "properties": {
            "email": {"type": "string"}, "name": {"type": "string"},
            "owner": {"type": "boolean"}}},
        "Season": {"type": "object", "properties": {
            "id": ID, "name": {"type": "string"}, "starts_on": DAY, "ends_on": DAY}},
        "League": {"type": "object", "properties": {
            "id": ID, "name": {"type": "string"},
            "rules": {**ref("Rules"), "description": "Default house rules."},
            "scoring": _SCORING, "stake": {"type": "string"}, "currency": {"type": "string"},
            "members": {"type": "array", "items": ref("Member")},
            "admins": {"type": "array", "items": ref("Admin")},
            "seasons": {"type": "array", "items": ref("Season")},
            "created_at": WHEN}},
        "Record": record,
        "Standing": {"allOf": [ref("Record"), {"type": "object", "properties": {
            "place": {"type": "integer", "minimum": 1,
                      "description": "By net, best first (push-ups: lowest total first); "
                                     "equal nets share a place."}}}]},
        "Standings": {"type": "object", "properties": {
            "season": {"oneOf": [ref("Season"), {"type": "null"}],
                       "description": "null: all time."},
            "scoring": _SCORING,
            "scorings": {"type": "array", "items": _SCORING,
                         "description": "The scorings played in the league."},
            "currency": {"type": "string"}, "sort": {"type": "string"},
            "dir": {"type": "string", "enum": ["asc", "desc"]},
            "rows": {"type": "array", "items": ref("Standing")}}},
        "SessionResult": result,
        "PlayerRecord": {"type": "object", "properties": {
            "player": ref("Member"), "scoring": _SCORING,
            "scorings": {"type": "array", "items": _SCORING}, "sessions": _COUNT,
            "all_time": {"oneOf": [ref("Record"), {"type": "null"}]},
            "seasons": {"type": "array", "items": {"type": "object", "properties": {
                "season": ref("Season"),
                "record": {"oneOf": [ref("Record"), {"type": "null"}]}}}},
            "running": {"type": "array", "description": "Running total after each "
                        f"session (thinned to at most {MAX_POINTS} points, keeping every swing).",
                        "items": {"type": "object", "properties": {
                            "session": _COUNT, "total": MONEY}}},
            "best": {"type": "array", "items": ref("SessionResult"),
                     "description": "Biggest wins (push-ups: lowest totals), at most 5."},
            "worst": {"type": "array", "items": ref("SessionResult"),
                      "description": "Biggest losses (push-ups: highest totals), at most 5."},
            "head_to_head": {"type": "array", "items": {"type": "object", "properties": {
                "player": ref("Member"), "sessions": _COUNT, "ahead": _COUNT,
                "behind": _COUNT, "even": _COUNT, "net": MONEY, "their_net": MONEY}}}}},
        "Rating": {"type": "object", "properties": {
            "player": ref("Member"),
            "mu": {"type": "number", "description": "openskill (Plackett-Luce) rating."},
            "sigma": {"type": "number", "description": "Its uncertainty."},
            "ordinal": {"type": "number", "description": "mu - 3 sigma: the skill shown."},
            "sessions": _COUNT}},
    }




def _answer(given: Answer) -> dict[str, Any]:
    return answer(*given) if isinstance(given, tuple) else dict(given)


def operation(endpoint: Endpoint) -> dict[str, Any]:
    """An endpoint's operation. A signed-in one needs a personal token; one that changes
    nothing (``change`` false) answers no 400, 409 or 422, and takes no Idempotency-Key."""
    answers = {status: _answer(given) for status, given in endpoint.answers.items()}
    params = list(endpoint.params)
    found: dict[str, Any] = {"summary": endpoint.summary}
    if endpoint.signed_in:
        found["security"] = _SIGNED_IN
        errors = SESSION_ERRORS if endpoint.change else {
            k: v for k, v in SESSION_ERRORS.items() if k in ("401", "404")}
        if endpoint.change:
            params.append(IDEMPOTENCY_KEY)
    else:
        errors = ERRORS if endpoint.body is not None else {}
    if params:
        found["parameters"] = params
    body = request_body(endpoint)
    if body is not None:
        found["requestBody"] = body
    found["responses"] = {**answers, **errors}
    return found


def openapi_document() -> dict[str, Any]:
    """The whole document, as JSON-ready data."""
    schemas = _schemas()
    schemas.update(_session_schemas())
    schemas.update(_league_schemas())
    schemas.update(event_schemas())
    schemas.update(body_schemas(extra=(EndBody,)))
    extend(schemas)
    extend_pay(schemas)
    extend_nights(schemas)
    paths: dict[str, Any] = {}
    for endpoint in ENDPOINTS:
        paths.setdefault(endpoint.path, {})[endpoint.method] = operation(endpoint)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Tonk Tally API", "version": "1.0.0",
                 "description": "Settle hands of Tonk under any house rules, settle up in the "
                                "fewest transfers, and keep a night's score."},
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer",
                       "description": "A personal token made on the account page."}}},
    }
