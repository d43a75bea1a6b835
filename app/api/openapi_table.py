"""The OpenAPI parts of a table that changes: seats that players join and leave, and side
bets (docs/rules.md §9) with their pots. :mod:`app.api.openapi` merges them into the document.
"""
from __future__ import annotations

from typing import Any

from ..core.sidebets import BETS, SUITS, UNCLAIMED

_MONEY = {"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$", "examples": ["0.30"]}
_NAME = {"type": "string", "pattern": r"\S", "examples": ["Fay"]}
_STAKE = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}],
          "description": "The bet's stake; null or absent: the table's own."}
_POTS = {"type": "object", "additionalProperties": _MONEY,
         "description": "Money waiting in each side bet's pot.", "examples": [
             {"naturals": "0.30"}]}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def table_schemas() -> dict[str, Any]:
    """Side bets enabled, a hand's side bets, a settled side bet, a change of seats."""
    return {
        "SideBets": {"type": ["object", "null"], "additionalProperties": False,
                     "description": "The side bets the table plays (docs/rules.md §9); money and "
                                    "points scoring only.",
                     "examples": [{"high_card": {"stake": "0.25", "suit": "S",
                                                 "unclaimed": "carry"},
                                   "naturals": {"stake": "0.10"}}],
                     "properties": {
            "high_card": {"type": ["object", "null"], "additionalProperties": False,
                          "properties": {"stake": _STAKE,
                                         "suit": {"type": "string", "enum": list(SUITS),
                                                  "description": "Always this suit."},
                                         "unclaimed": {"type": "string",
                                                       "enum": list(UNCLAIMED)}}},
            "naturals": {"type": ["object", "null"], "additionalProperties": False,
                         "properties": {"stake": _STAKE}}}},
        "SideBetPlay": {"type": "object", "required": ["bet"], "properties": {
            "bet": {"type": "string", "enum": list(BETS)},
            "suit": {"type": "string", "enum": list(SUITS),
                     "description": "The suit called (high_card, unless the table fixes "
                                    "it)."},
            "players": {"type": "array", "items": _NAME,
                        "description": "Who is in; default: everyone at the table."},
            "winner": {"anyOf": [_NAME, {"type": "null"}],
                       "description": "One of players, or null for nobody."}}},
        "SideBetResult": {"type": "object", "description": "A side bet settled at one deal, "
                          "apart from the hand's own result.", "properties": {
            "bet": {"type": "string", "enum": list(BETS)}, "suit": {"type": "string"},
            "players": {"type": "array", "items": {"type": "string"}},
            "winner": {"type": ["string", "null"]},
            "rule": {"type": "string", "enum": ["side_bet.won", "side_bet.carried",
                                                "side_bet.returned", "side_bet.left"],
                     "description": "side_bet.left: players (who left the table after "
                                    "this deal, the last they played) take back what they "
                                    "had in the pot; net is what each took."},
            "net": {"type": "object", "additionalProperties": _MONEY},
            "pot": {**_MONEY, "description": "In the pot after this deal."},
            "explanation": {"type": "array", "items": {"type": "string"}}}},
        "SeatsChange": {"type": "object", "additionalProperties": False,
                        "description": "One change: join (at the dealer's right, so dealing "
                                       "last in the rotation, or after a seated player), or "
                                       "leave (taking back what the leaver has in the side "
                                       "bets' pots: nothing dealt after can move their total)"
                                       ".",
                        "examples": [{"join": "Fay"}, {"join": "Fay", "after": "Bob"},
                                     {"leave": "Bob"}],
                        "properties": {"join": _NAME, "after": _NAME, "leave": _NAME}},
    }


def extend(schemas: dict[str, Any]) -> None:
    """Add the side bets and seats to the session schemas of the document."""
    schemas.update(table_schemas())
    plays = {"type": ["array", "null"], "items": _ref("SideBetPlay"),
             "description": "This deal's side bets (docs/rules.md §9)."}
    for name in ("TableHand", "Correction"):
        schemas[name]["properties"]["side_bets"] = plays
    schemas["NewSession"]["properties"]["side_bets"] = _ref("SideBets")
    schemas["NewLeague"]["properties"]["side_bets"] = {
        **_ref("SideBets"), "description": "What its sessions play unless told otherwise."}
    schemas["Result"]["properties"]["side_bets"] = {
        "type": "array", "items": _ref("SideBetResult"),
        "description": "A recorded hand's side bets, settled (not in the hand's net)."}
    session = schemas["Session"]["properties"]
    session["players"]["description"] = "At the table now, in seat order."
    session["left"] = {"type": "array", "items": {"type": "string"},
                       "description": "Who left (their totals stay in the ledger)."}
    session["side_bets"] = {"type": "object", "description": "The side bets it plays."}
    session["pots"] = _POTS
    ledger = schemas["Ledger"]["properties"]
    ledger["pots"] = _POTS
    ledger["pot_returns"] = {"type": "object", "additionalProperties": _MONEY,
                             "description": "What is left in the pots, back to each who "
                                            "paid into them since they were last won "
                                            "(already in open and transfers)."}
    share = schemas["Share"]["properties"]
    share["players"] = {"type": "array", "items": {"type": "string"},
                        "description": "At the table now, in seat order."}
    share["seats"]["items"]["properties"]["seated"] = {"type": "boolean"}


def seats_path(signed_in: Any, answer: Any, session_id: dict[str, Any]) -> dict[str, Any]:
    """``POST /api/v1/sessions/{session_id}/seats``."""
    return {"/api/v1/sessions/{session_id}/seats": {
        "post": signed_in("A player joins (at the dealer's right, or after a named player) "
                          "or leaves; earlier hands keep their seats.", {
            "200": answer("The session as it is now.", "Session")},
            "SeatsChange", (session_id,))}}


def share_path(answer: Any) -> dict[str, Any]:
    """``GET /api/v1/share/{token}``: the live state behind a share link."""
    return {"/api/v1/share/{token}": {"get": {
            "summary": "The live state of a session for its read-only view: the share "
                       "link is the credential. Poll it with If-None-Match: 304 until "
                       "something changes.",
            "parameters": [
                {"name": "token", "in": "path", "required": True,
                 "schema": {"type": "string"}, "description": "The share link's token."},
                {"name": "If-None-Match", "in": "header", "required": False,
                 "schema": {"type": "string"},
                 "description": "The ETag of the state you have."}],
            "responses": {
                "200": {**answer("The state, with its ETag.", "Share"),
                        "headers": {"ETag": {"schema": {"type": "string"}}}},
                "304": {"description": "Nothing changed since the ETag you sent."},
                "404": answer("No session behind this link (or it was replaced).",
                               "Error")}}},
            "/api/v1/share/{token}/stream": {"get": {
            "summary": "The same state's changes pushed (server-sent events, under `tonk "
                       "serve`): each event's `id` and `data` are the session's state tag "
                       "(the start of the ETag); fetch the state when one comes. A "
                       "reconnect with Last-Event-ID (or ?seen=) is told of a change since "
                       "at once, once; a heartbeat comment every 20 s.",
            "parameters": [
                {"name": "token", "in": "path", "required": True,
                 "schema": {"type": "string"}, "description": "The share link's token."},
                {"name": "seen", "in": "query", "required": False,
                 "schema": {"type": "string"},
                 "description": "The state tag (or ETag) the page has."},
                {"name": "Last-Event-ID", "in": "header", "required": False,
                 "schema": {"type": "string"},
                 "description": "The last event's id, sent by a reconnecting browser."}],
            "responses": {
                "200": {"description": "The stream (text/event-stream).",
                        "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                "204": {"description": "This server holds no streams: poll instead."},
                "404": answer("No session behind this link (or it was replaced).",
                               "Error"),
                "503": {"description": "The server holds as many streams as it can: poll "
                                       "(Retry-After says when to try a stream again)."}}}}}
