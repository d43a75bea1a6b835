"""The OpenAPI 3.1 document of the JSON API, served at ``/api/v1/openapi.json``.

Built from the domain's own registries (presets, options, end kinds), so that it cannot
drift from what the API accepts.
"""
from __future__ import annotations

from typing import Any

from ..core.hand import END_KINDS, MAX_MULTIPLIER, MAX_PLAYERS, MIN_PLAYERS
from ..core.rules import OPTIONS, PRESETS
from ..core.series import MAX_POINTS
from ..core.settle import OUTCOMES
from ..core.transfers import MAX_PEOPLE
from ..services.leagues import RATING_SORTS, SCORINGS, SORTS
from .openapi_events import event_paths, event_schemas
from .openapi_nights import extend_nights, night_path
from .openapi_pay import extend_pay, pay_path
from .openapi_table import extend, seats_path, share_path

MONEY = {"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$",
          "description": "An exact decimal amount, never a binary float.", "examples": ["1.25"]}
#: An amount as the API reads it (app.core.money): a string of ASCII digits with an optional
#: sign and fraction (spaces around are ignored), or a JSON number read exactly.
_AMOUNT_TEXT = {"type": "string", "pattern": r"^[ \t\r\n]*[+-]?[0-9]+(\.[0-9]+)?[ \t\r\n]*$",
                "examples": ["0.25"]}
_STAKE = {"anyOf": [_AMOUNT_TEXT, {"type": "number"}, {"type": "null"}],
          "description": "More than 0 and at most 1,000,000, at most two decimal places "
                         "(whole under points scoring); null or absent: 1 (a session's or "
                         "league's: its own)."}
#: A name as typed: it must hold more than spaces; it is trimmed, inner spaces folded and
#: NFC-normalised, and may then be at most so long, without control, invisible
#: (zero-width, direction) or broken (lone surrogate) characters.
_NAME = {"type": "string", "pattern": r"\S", "examples": ["Ann"],
         "description": "At most 40 characters once trimmed; no control or invisible "
                        "characters. Names that differ only in case or Unicode form are the "
                        "same person."}


def _TEXT(limit: int) -> dict[str, Any]:  # noqa: N802  (a schema, named like one)
    return {"type": "string", "pattern": r"\S",
            "description": f"At most {limit} characters once trimmed (inner spaces folded); "
                           "no control or invisible characters."}


_CURRENCY = {"type": ["string", "null"], "default": "USD",
             "description": "A short code or sign (at most 8 characters), USD if null or "
                            "empty."}


HAND_EXAMPLE = {"rules": "pagat", "stake": "0.25", "multiplier": 1,
                "players": ["Ann", "Bob", "Cy"], "dealer": "Cy",
                "end": {"kind": "drop", "player": "Bob"},
                "counts": {"Ann": 12, "Bob": 9, "Cy": 9}}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json_body(name: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": ref(name)}}}


def answer(description: str, name: str | None = None) -> dict[str, Any]:
    if name is None:
        return {"description": description}
    return {"description": description, "content": {"application/json": {"schema": ref(name)}}}


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
        "End": {"type": "object", "required": ["kind"], "properties": {
            "kind": {"type": "string", "enum": list(END_KINDS)},
            "player": _NAME,
            "method": {"type": "string", "enum": ["spread", "hits"]},
            "first_turn": {"type": "boolean"},
            "double_double": {"type": "boolean"},
            "five_face_cards": {"type": "array", "items": _NAME}}},
        "Hand": {"type": "object", "required": ["players", "end"],
                 "additionalProperties": False, "examples": [HAND_EXAMPLE], "properties": {
            "rules": ref("Rules"),
            "stake": _STAKE,
            "multiplier": {"type": "integer", "minimum": 1, "maximum": MAX_MULTIPLIER},
            "players": {"type": "array", "items": _NAME,
                        "minItems": MIN_PLAYERS, "maxItems": MAX_PLAYERS},
            "dealer": {"anyOf": [_NAME, {"type": "null"}],
                       "description": "Default: the first player (a session's: who deals "
                                      "next)."},
            "end": ref("End"),
            "counts": {"type": ["object", "null"], "propertyNames": _NAME,
                       "additionalProperties": {"type": "integer"}},
            "cards": {"type": ["object", "null"], "propertyNames": _NAME,
                      "additionalProperties": {
                "type": "array", "items": {"type": "string", "examples": ["KS", "10H"]}}}}},
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
        "Balances": {"type": "object", "required": ["balances"],
                     "examples": [{"balances": {"Ann": "4.50", "Bob": "-4.50"}}],
                     "properties": {
            "balances": {"type": "object", "minProperties": 1, "maxProperties": MAX_PEOPLE,
                         "propertyNames": _NAME,
                         "additionalProperties": {"anyOf": [_AMOUNT_TEXT, {"type": "number"}],
                                                  "description": "At most two decimal "
                                                                 "places."}}}},
        "Transfer": {"type": "object", "properties": {
            "from": {"type": "string"}, "to": {"type": "string"}, "amount": MONEY}},
        "Transfers": {"type": "object", "properties": {
            "transfers": {"type": "array", "items": ref("Transfer")}}},
    }


_SIGNED_IN: list[dict[str, list[str]]] = [{"bearer": []}]
ID = {"type": "integer", "minimum": 1}
SESSION_ID = {"name": "session_id", "in": "path", "required": True, "schema": ID,
               "description": "The session's id."}
_NUMBER = {"name": "number", "in": "path", "required": True, "schema": ID,
           "description": "The hand's number in the session, from 1."}
WHEN = {"type": "string", "format": "date-time"}


def transfer_list() -> dict[str, Any]:
    return {"type": "array", "items": ref("Transfer")}


def _session_schemas(hand: dict[str, Any]) -> dict[str, Any]:
    """The session endpoints' schemas; ``hand`` is the stateless Hand schema."""
    table_hand = {k: v for k, v in hand["properties"].items()
                  if k not in ("players", "rules", "stake")}
    table_hand["dealer"] = {"type": ["string", "null"],
                            "description": "Default (null or empty): who deals next."}
    reason = {"type": "string", "pattern": r"\S",
              "description": "Why: kept in the hand's history."}
    version = {**ID, "description": "The version this change was made from: if the hand "
               "has changed since, 409 and nothing changes."}
    recorded = {
        "hand": ref("TableHand"),
        "rules": {**ref("Rules"), "description": "The house rules it was settled under."},
        "stake": {"type": "string", "description": "The stake it was settled under."},
        "result": ref("Result")}
    return {
        "NewSession": {"type": "object", "required": ["name", "players"],
                       "additionalProperties": False,
                       "examples": [{"name": "Friday", "players": ["Ann", "Bob", "Cy"],
                                     "rules": "pagat", "stake": "0.25", "currency": "USD",
                                     "first_dealer": "Bob"}],
                       "properties": {
            "name": _TEXT(80),
            "players": hand["properties"]["players"],
            "rules": ref("Rules"),
            "stake": hand["properties"]["stake"],
            "currency": _CURRENCY,
            "first_dealer": {"type": ["string", "null"],
                             "description": "Default (null or empty): the first player."},
            "league": {"anyOf": [ID, {"type": "null"}],
                       "description": "A league you run: the players are its members "
                       "(a new name becomes one), and its default rules, stake and currency "
                       "fill in what is not sent."}}},
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
        "RulesChange": {"type": "object", "additionalProperties": False,
                        "examples": [{"rules": {"preset": "pagat", "catch": "alt3"},
                                      "stake": "0.50"}],
                        "description": "Applies to the hands recorded from now on.",
                        "properties": {"rules": ref("Rules"),
                                       "stake": hand["properties"]["stake"]}},
        "TableHand": {"type": "object", "required": ["end"], "additionalProperties": False,
                      "examples": [{"end": {"kind": "tonk_out", "player": "Ann"},
                                    "multiplier": 2}],
                      "description": "A hand of a session: its players, rules and stake are "
                                     "the session's. The dealer defaults to the next one.",
                      "properties": table_hand},
        "Correction": {"type": "object", "required": ["end", "reason"],
                       "additionalProperties": False,
                       "examples": [{"end": {"kind": "run_out", "player": "Cy"},
                                     "reason": "it was Cy"}],
                       "properties": {**table_hand, "reason": reason, "version": version}},
        "Void": {"type": "object", "required": ["reason"], "additionalProperties": False,
                 "examples": [{"reason": "never played"}],
                 "properties": {"reason": reason, "version": version}},
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
        "NewPayment": {"type": "object", "required": ["from", "to", "amount"],
                       "additionalProperties": False,
                       "examples": [{"from": "Ann", "to": "Cy", "amount": "0.25"}],
                       "properties": {
            "from": {"type": "string"}, "to": {"type": "string"},
            "amount": {"anyOf": [_AMOUNT_TEXT, {"type": "number"}],
                       "description": "Along a planned transfer: at most what is open on "
                       "it. Outside the plan: at most what both still have open."}}},
    }


def signed_in(summary: str, answers: dict[str, Any], body: str | None = None,
               params: tuple[dict[str, Any], ...] = (), *, change: bool = True
               ) -> dict[str, Any]:
    """An operation that needs a personal token; ``change=False`` for one that only reads
    (it answers no 400, 409 or 422)."""
    errors = SESSION_ERRORS if change else {k: v for k, v in SESSION_ERRORS.items()
                                            if k in ("401", "404")}
    operation: dict[str, Any] = {"summary": summary, "security": _SIGNED_IN}
    if change:
        params = (*params, IDEMPOTENCY_KEY)
    if params:
        operation["parameters"] = list(params)
    if body is not None:
        operation["requestBody"] = _json_body(body)
    operation["responses"] = {**answers, **errors}
    return operation


def _session_paths() -> dict[str, Any]:
    """The session endpoints: each needs a personal token and sees only its own sessions."""
    s, h = (SESSION_ID,), (SESSION_ID, _NUMBER)
    return {
        "/api/v1/sessions": {
            "post": signed_in("Start a session.", {
                "201": answer("The session.", "Session")}, "NewSession"),
            "get": signed_in("Your sessions, newest first.", {"200": {
                "description": "Summaries.", "content": {"application/json": {"schema": {
                    "type": "array", "items": ref("SessionSummary")}}}}}, change=False)},
        "/api/v1/sessions/{session_id}": {
            "get": signed_in("A session: players, dealer, rules, stake.", {
                "200": answer("The session.", "Session")}, params=s, change=False)},
        "/api/v1/sessions/{session_id}/rules": {
            "put": signed_in("Change the house rules or stake for the hands to come.", {
                "200": answer("The session.", "Session")}, "RulesChange", s)},
        "/api/v1/sessions/{session_id}/share": {
            "post": signed_in("Revoke the share link and make a new one: the old link "
                               "stops working at once.", {
                "200": answer("The session, with its new share_url.", "Session")},
                params=s, change=False)},
        "/api/v1/sessions/{session_id}/close": {
            "post": signed_in("Close a session once everything is paid.", {
                "200": answer("The session, closed.", "Session")}, params=s)},
        "/api/v1/sessions/{session_id}/hands": {
            "post": signed_in("Record the next hand under the session's rules.", {
                "201": answer("The hand, its number and result.", "RecordedHand")},
                "TableHand", s)},
        "/api/v1/sessions/{session_id}/hands/{number}": {
            "get": signed_in("A hand's current version.", {
                "200": answer("The hand.", "RecordedHand")}, params=h, change=False),
            "put": signed_in("Correct a hand; the old version stays in its history.", {
                "200": answer("The new version.", "RecordedHand")}, "Correction", h),
            "delete": signed_in("Void a hand: it no longer counts, and stays in the "
                                 "history.", {
                "200": answer("The voided hand.", "RecordedHand")}, "Void", h)},
        "/api/v1/sessions/{session_id}/hands/{number}/history": {
            "get": signed_in("Every version of a hand, oldest first: when, by whom, why.", {
                "200": {"description": "The versions.", "content": {"application/json": {
                    "schema": {"type": "array", "items": ref("HandVersion")}}}}},
                params=h, change=False)},
        "/api/v1/sessions/{session_id}/ledger": {
            "get": signed_in("Totals, what is paid and the transfers still open.", {
                "200": answer("The ledger.", "Ledger")}, params=s, change=False)},
        "/api/v1/sessions/{session_id}/payments": {
            "post": signed_in("Mark a transfer paid, in full or in part.", {
                "200": answer("The ledger after the payment.", "Ledger")},
                "NewPayment", s)},
    }


_LEAGUE_ID = {"name": "league_id", "in": "path", "required": True, "schema": ID,
              "description": "The league's id."}
_PLAYER_ID = {"name": "player_id", "in": "path", "required": True, "schema": ID,
              "description": "The member's id."}
_DAY = {"type": "string", "format": "date", "pattern": r"^\s*\d{4}-\d{2}-\d{2}\s*$",
        "examples": ["2026-01-31"], "description": "A day of the years 2000 to 2100."}
_SCORING = {"type": "string", "enum": list(SCORINGS)}
_COUNT = {"type": "integer", "minimum": 0}


def _query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema,
            "description": description}


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
        "NewLeague": {"type": "object", "required": ["name"], "additionalProperties": False,
                      "examples": [{"name": "Fridays", "rules": "chicago", "stake": "0.50",
                                    "currency": "EUR"}],
                      "properties": {
            "name": _TEXT(80),
            "rules": {**ref("Rules"), "description": "Default house rules of its sessions."},
            "stake": _STAKE,
            "currency": _CURRENCY}},
        "LeagueSummary": {"type": "object", "properties": {
            "id": ID, "name": {"type": "string"}, "scoring": _SCORING,
            "currency": {"type": "string"}, "created_at": WHEN}},
        "Member": member,
        "NewMember": {"type": "object", "required": ["name"], "additionalProperties": False,
                      "examples": [{"name": "Dee"}],
                      "properties": {"name": {**_NAME,
                                              "description": "Unique in the league, "
                                                             "whatever its case."}}},
        "Admin": {"type": "object", "properties": {
            "email": {"type": "string"}, "name": {"type": "string"},
            "owner": {"type": "boolean"}}},
        "NewAdmin": {"type": "object", "required": ["email"], "additionalProperties": False,
                     "properties": {"email": {"type": "string",
                                              "description": "Of an existing account."}}},
        "Season": {"type": "object", "properties": {
            "id": ID, "name": {"type": "string"}, "starts_on": _DAY, "ends_on": _DAY}},
        "NewSeason": {"type": "object", "required": ["name", "starts_on", "ends_on"],
                      "additionalProperties": False,
                      "examples": [{"name": "Spring", "starts_on": "2026-03-01",
                                    "ends_on": "2026-05-31"}],
                      "description": "Both days included (UTC days); seasons may overlap.",
                      "properties": {"name": _TEXT(80),
                                     "starts_on": _DAY, "ends_on": _DAY}},
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


def _league_paths() -> dict[str, Any]:
    """The league endpoints: each needs a personal token and answers only for leagues the
    caller runs."""
    lg, pl = (_LEAGUE_ID,), (_LEAGUE_ID, _PLAYER_ID)
    scoring = _query("scoring", _SCORING, "Default: the league's own scoring if played.")
    sort_dir = _query("dir", {"type": "string", "enum": ["asc", "desc"]},
                      "Default: best first.")
    return {
        "/api/v1/leagues": {
            "get": signed_in("The leagues you run.", {"200": {
                "description": "Summaries.", "content": {"application/json": {"schema": {
                    "type": "array", "items": ref("LeagueSummary")}}}}}, change=False),
            "post": signed_in("Start a league: you are its owner and first admin.", {
                "201": answer("The league.", "League")}, "NewLeague")},
        "/api/v1/leagues/{league_id}": {
            "get": signed_in("A league: defaults, members, admins, seasons.", {
                "200": answer("The league.", "League")}, params=lg, change=False)},
        "/api/v1/leagues/{league_id}/members": {
            "post": signed_in("Add a member.", {
                "201": answer("The member.", "Member")}, "NewMember", lg)},
        "/api/v1/leagues/{league_id}/admins": {
            "post": signed_in("Let another account run the league.", {
                "201": answer("The admin.", "Admin")}, "NewAdmin", lg)},
        "/api/v1/leagues/{league_id}/seasons": {
            "post": signed_in("Add a season.", {
                "201": answer("The season.", "Season")}, "NewSeason", lg)},
        "/api/v1/leagues/{league_id}/standings": {
            "get": signed_in("Standings for a season or all time.", {
                "200": answer("The standings.", "Standings"),
                "422": answer("An unknown scoring, sort or direction.", "Error")},
                params=(_LEAGUE_ID,
                        {**_query("season", {"type": "string"},
                                  "A season's id, or all (the default, as is an empty "
                                  "value): all time."), "allowEmptyValue": True},
                        scoring,
                        _query("sort", {"type": "string", "enum": list(SORTS)},
                               "Default: net."),
                        sort_dir), change=False)},
        "/api/v1/leagues/{league_id}/players/{player_id}": {
            "get": signed_in("A member's record: by season, running total, best and worst "
                              "sessions, head to head.", {
                "200": answer("The record.", "PlayerRecord"),
                "422": answer("An unknown scoring.", "Error")},
                params=(*pl, scoring), change=False)},
        "/api/v1/leagues/{league_id}/ratings": {
            "get": signed_in("The members' openskill ratings, best skill first.", {
                "200": {"description": "The ratings.", "content": {"application/json": {
                    "schema": {"type": "array", "items": ref("Rating")}}}},
                "422": answer("An unknown sort or direction.", "Error")},
                params=(_LEAGUE_ID,
                        _query("sort", {"type": "string", "enum": list(RATING_SORTS)},
                               "Default: ordinal."), sort_dir), change=False)},
    }


def openapi_document() -> dict[str, Any]:
    """The whole document, as JSON-ready data."""
    schemas = _schemas()
    schemas.update(_session_schemas(schemas["Hand"]))
    schemas.update(_league_schemas())
    schemas.update(event_schemas())
    extend(schemas)
    extend_pay(schemas)
    extend_nights(schemas)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Tonk Tally API", "version": "1.0.0",
                 "description": "Settle hands of Tonk under any house rules, settle up in the "
                                "fewest transfers, and keep a night's score."},
        "paths": {
            "/api/v1/settle": {"post": {
                "summary": "Settle one hand (the dispute checker). Stores nothing.",
                "requestBody": _json_body("Hand"),
                "responses": {"200": answer("The hand's result.", "Result"), **ERRORS}}},
            "/api/v1/compare": {"post": {
                "summary": "The same hand under every preset, the table's own rules (if the "
                           "hand gives them) first. Stores nothing.",
                "requestBody": _json_body("Hand"),
                "responses": {"200": answer("One ruling a rule set.", "Comparison"),
                              **ERRORS}}},
            "/api/v1/transfers": {"post": {
                "summary": "The fewest transfers that settle balances summing to zero.",
                "requestBody": _json_body("Balances"),
                "responses": {"200": answer("The transfers.", "Transfers"), **ERRORS}}},
            "/api/v1/openapi.json": {"get": {
                "summary": "This document.",
                "responses": {"200": answer("The OpenAPI document.")}}},
            **share_path(answer),
            **_session_paths(),
            **seats_path(signed_in, answer, SESSION_ID),
            **pay_path(signed_in, answer, SESSION_ID),
            **_league_paths(),
            **event_paths(signed_in, answer),
            **night_path(signed_in, answer),
        },
        "components": {"schemas": schemas, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer",
                       "description": "A personal token made on the account page."}}},
    }
