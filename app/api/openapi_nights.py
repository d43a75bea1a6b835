"""The OpenAPI part of a night started on a phone with no signal and sent when the signal is
back (``PUT /api/v1/nights/{uid}/events``): its events, one schema per kind
(:data:`app.services.sessions.NIGHT_FIELDS`), and the answer. :mod:`app.api.openapi` merges
it into the document, after the session schemas it borrows from."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..services.sessions import (
    MAX_NIGHT_EVENTS,
    MAX_NIGHT_SEQ,
    NIGHT_EVENT_ID,
    NIGHT_FIELDS,
    NIGHT_SHARE_TOKEN,
    NIGHT_UID,
)

_ID = {"type": "integer", "minimum": 1}
_EVENT_ID = {"type": "string", "pattern": f"^{NIGHT_EVENT_ID.pattern}$", "examples": ["e1"]}
_UID = {"name": "uid", "in": "path", "required": True,
        "schema": {"type": "string", "pattern": f"^{NIGHT_UID.pattern}$"},
        "description": "The night's uid, made on the phone (a UUID's 32 hex digits): the "
                       "session's own once sent.",
        "example": "0f8e6c1d2b3a49e5a7c6d5e4f3a2b1c0"}
_TEXT = {"type": "string", "pattern": r"\S"}
_MONEY = {"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$"}
#: Each kind's required fields (besides id, seq and kind), and what each means.
_REQUIRED = {"started": ("name", "players"), "hand": ("hand",),
             "corrected": ("number", "hand", "reason"), "voided": ("number", "reason"),
             "joined": ("player",), "left": ("player",), "paid": ("payer", "payee", "amount"),
             "undone": ("payment", "reason")}
_KINDS = {
    "started": "The night starts: a session of the account (in a league it runs, when it names "
               "one: its defaults fill in what is not sent). Always number 1.",
    "hand": "A hand recorded under the night's rules, with the players seated now.",
    "corrected": "Hand number (the night's n-th hand) corrected, under the rules it was "
                 "settled under.",
    "voided": "Hand number (the night's n-th hand) voided.",
    "joined": "A player sits down at the dealer's right, or after a seated player.",
    "left": "A seated player leaves.",
    "rules": "The house rules (absent or null: pagat) and stake (absent: as it is) from the "
             "next hand on.",
    "paid": "A payment at settle-up; an undone event names it by this event's id.",
    "undone": "The payment of the paid event with id payment undone.",
    "closed": "The night closes (carry_over: what is open is kept as debts).",
}


def _fields(schemas: dict[str, Any]) -> dict[str, Any]:
    """Every field an event may carry, from the session schemas."""
    new, correction = schemas["NewSession"]["properties"], schemas["Correction"]["properties"]
    name = schemas["Hand"]["properties"]["players"]["items"]
    return {
        **{k: v for k, v in new.items() if k != "first_dealer"},
        "dealer": {**new["first_dealer"], "description": "Who deals first; default (null "
                   "or empty): the first player."},
        "hand": {"$ref": "#/components/schemas/TableHand"},
        "number": {**_ID, "description": "The hand's number in the night, from 1."},
        "reason": correction["reason"], "version": correction["version"],
        "player": name, "after": {"anyOf": [name, {"type": "null"}]},
        "payer": {"type": "string"}, "payee": {"type": "string"},
        "amount": schemas["NewPayment"]["properties"]["amount"],
        "payment": {**_EVENT_ID, "description": "The id of the paid event."},
        "carry_over": {"type": "boolean"},
        "share_token": {"type": "string", "pattern": f"^{NIGHT_SHARE_TOKEN.pattern}$",
                        "description": "The session's share token, made on the phone (16 or "
                                       "more random bytes, base64url) so that its share QR "
                                       "could be shown before the night was sent; refused if "
                                       "another session has it. Absent: the server makes one."},
    }


def extend_nights(schemas: dict[str, Any]) -> None:
    """Add a night's events and the answer to the document's schemas."""
    fields = _fields(schemas)
    head: dict[str, Any] = {
        "id": {**_EVENT_ID, "description": "Made on the phone: names this event."},
        "seq": {"type": "integer", "minimum": 1, "maximum": MAX_NIGHT_SEQ,
                "description": "The event's place in the night, from 1."}}
    events = []
    for kind, names in NIGHT_FIELDS.items():
        seq = {**head["seq"], "const": 1} if kind == "started" else {
            **head["seq"], "minimum": 2}
        events.append({
            "type": "object", "title": kind, "description": _KINDS[kind],
            "required": ["id", "seq", "kind", *_REQUIRED.get(kind, ())],
            "additionalProperties": False, "properties": {
                **head, "seq": seq, "kind": {"const": kind},
                **{name: fields[name] for name in names}}})
    schemas["NightEvents"] = {
        "type": "object", "required": ["events"], "additionalProperties": False,
        "examples": [{"events": [
            {"id": "e1", "seq": 1, "kind": "started", "name": "Basement",
             "players": ["Ann", "Bob", "Cy"], "rules": "pagat", "stake": "0.25"},
            {"id": "e2", "seq": 2, "kind": "hand",
             "hand": {"end": {"kind": "tonk_out", "player": "Ann"}}}]}],
        "properties": {"events": {
            "type": "array", "minItems": 1, "maxItems": MAX_NIGHT_EVENTS,
            "description": "Events of the night in order, their seqs one after another, "
                           "each id once: from the first the server does not hold (any "
                           "before it are skipped, as held).",
            "items": {"oneOf": events}}}}
    money = {"type": "object", "properties": {
        part: _MONEY for part in ("hands", "side_bets", "pots_back", "total")}}
    schemas["NightSent"] = {
        "type": "object", "required": ["night", "taken", "already", "held", "next"],
        "properties": {
            "night": {"type": "string"},
            "taken": {"type": "array", "items": {"type": "string"},
                      "description": "The ids of the events stored now."},
            "already": {"type": "array", "items": {"type": "string"},
                        "description": "The ids of the events held already, skipped."},
            "held": {"type": "integer", "minimum": 0,
                     "description": "How many events of the night the server holds."},
            "next": {"type": "integer", "minimum": 1,
                     "description": "The seq of the next event to send."},
            "session": {"anyOf": [{"$ref": "#/components/schemas/Session"},
                                  {"type": "null"}]},
            "url": {"type": ["string", "null"], "description": "The session in the API."},
            "page": {"type": "string", "description": "The session's page."},
            "money": {"type": "object", "additionalProperties": money,
                      "description": "Each player's money by part, as the session's page "
                                     "shows it (and the core's fold of the events gives)."},
            "ledger": {"$ref": "#/components/schemas/Ledger"}}}


def night_path(signed_in: Callable[..., dict[str, Any]],
               answer: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """``PUT /api/v1/nights/{uid}/events``."""
    operation = signed_in(
        "Send the events of a night kept on a phone, in order, each once: the first "
        "(started) makes the night's session; events the server holds are skipped. A refused "
        "event stops the list: its error (404, 409 or 422) names the event and index, with "
        "what the server holds (taken, held, next, and the session and its money as here); "
        "the events before it stay taken.", {
            "200": answer("What the server holds now.", "NightSent"),
            "201": answer("The night's session was made now.", "NightSent")},
        "NightEvents", (_UID,))
    return {"/api/v1/nights/{uid}/events": {"put": operation}}
