"""The OpenAPI part of settle-up and putting sessions away: the ledger with its kept plan,
payments (and undoing one), closing with debts carried over, carried debts, archiving and
deleting a session. :func:`whole_document` is :func:`app.api.openapi.openapi_document` with
it merged in."""
from __future__ import annotations

from typing import Any

from .openapi import (
    ID,
    MONEY,
    SESSION_ID,
    WHEN,
    answer,
    openapi_document,
    ref,
    signed_in,
    transfer_list,
)

_NULL_WHEN = {"oneOf": [WHEN, {"type": "null"}]}
_NULL_TEXT = {"type": ["string", "null"]}
_PAYMENT_ID = {"name": "payment_id", "in": "path", "required": True, "schema": ID,
               "description": "The payment's id (in the ledger's payments)."}
_DEBT_ID = {"name": "debt_id", "in": "path", "required": True, "schema": ID,
            "description": "The carried debt's id."}


def settle_schemas(session: dict[str, Any], summary: dict[str, Any]) -> dict[str, Any]:
    """The schemas this part adds or extends (``session``, ``summary``: as they were)."""
    counts = {
        "hands": {"type": "integer", "description": "Hands that count (voided ones not)."},
        "voided_hands": {"type": "integer", "description": "Hands voided (numbered too)."},
        "archived": {"type": "boolean", "description": "Put away off the home page."}}
    payment = {"type": "object", "properties": {
        "id": ID, "from": {"type": "string"}, "to": {"type": "string"}, "amount": MONEY,
        "planned": {"type": "boolean", "description": "Along a planned transfer (false: "
                    "outside the plan, after which what remains was planned again)."},
        "at": WHEN, "by": {"type": "string"}, "undone": {"type": "boolean"},
        "undone_at": _NULL_WHEN, "undone_by": _NULL_TEXT, "undo_reason": _NULL_TEXT}}
    return {
        "Session": {**session, "properties": {
            **session["properties"], **counts, "archived_at": _NULL_WHEN,
            "stake": {"type": ["string", "null"],
                      "description": "The stake; null under push-ups (played for points)."}}},
        "SessionSummary": {**summary, "properties": {**summary["properties"], **counts}},
        "PaymentMade": payment,
        "PlannedTransfer": {"type": "object", "properties": {
            "from": {"type": "string"}, "to": {"type": "string"},
            "amount": {**MONEY, "description": "As planned."},
            "paid": {**MONEY, "description": "Paid along it so far."},
            "open": {**MONEY, "description": "Still to pay along it."}}},
        "Debt": {"type": "object", "properties": {
            "id": ID, "session": ID, "session_name": {"type": "string"},
            "from": {"type": "string"}, "to": {"type": "string"}, "amount": MONEY,
            "currency": {"type": "string"}, "created_at": WHEN, "paid": {"type": "boolean"},
            "paid_at": _NULL_WHEN, "paid_by": _NULL_TEXT}},
        "Ledger": {"type": "object", "properties": {
            "totals": {"type": "object", "additionalProperties": MONEY},
            **{k: counts[k] for k in ("hands", "voided_hands")},
            "plan": {"type": "array", "items": ref("PlannedTransfer"),
                     "description": "The plan in force (the fewest transfers), made when the "
                     "totals change, not when money moves."},
            "open": {**transfer_list(), "description": "The transfers still open: the plan "
                     "less what was paid along it."},
            "transfers": {**transfer_list(), "description": "The same as open."},
            "paid": {"type": "array", "items": ref("PaymentMade"),
                     "description": "Payments that count (not undone)."},
            "payments": {"type": "array", "items": ref("PaymentMade"),
                         "description": "Every payment, undone ones marked."},
            "balances": {"type": "object", "additionalProperties": MONEY,
                         "description": "Each total less what was paid or received."},
            "all_paid": {"type": "boolean"},
            "carried_over": {"type": "array", "items": ref("Debt"),
                             "description": "Debts kept when the session was closed."},
            "scoring": {"type": "string"}, "currency": {"type": "string"}}},
        "UndoPayment": {"type": "object", "required": ["reason"],
                        "additionalProperties": False, "examples": [{"reason": "mis-tap"}],
                        "properties": {"reason": {"type": "string", "pattern": r"\S",
                                                  "description": "Why: kept beside it."}}},
        "Close": {"type": "object", "additionalProperties": False,
                  "examples": [{"carry_over": True}], "properties": {
            "carry_over": {"type": "boolean", "default": False,
                           "description": "Close even though transfers are open, keeping "
                           "them as debts until marked paid (without it: 422)."}}},
        "Archive": {"type": "object", "additionalProperties": False,
                    "examples": [{"archived": True}], "properties": {
            "archived": {"type": "boolean", "default": True,
                         "description": "true: off the home page; false: back."}}},
    }


def settle_paths() -> dict[str, Any]:
    s = (SESSION_ID,)
    optional_close = signed_in(
        "Close a session: once everything is paid, or with carry_over the open transfers "
        "are kept as debts. The body may be empty.",
        {"200": answer("The session, closed.", "Session")}, "Close", s)
    optional_close["requestBody"]["required"] = False
    return {
        "/api/v1/sessions/{session_id}/close": {"post": optional_close},
        "/api/v1/sessions/{session_id}": {
            "get": signed_in("A session: players, dealer, rules, stake.", {
                "200": answer("The session.", "Session")}, params=s, change=False),
            "delete": signed_in("Delete a session with no hand and no payment (409 once it "
                                 "has one: archive it instead).", {
                "200": {"description": "Deleted.", "content": {"application/json": {
                    "schema": {"type": "object", "properties": {"deleted": ID}}}}}},
                params=s)},
        "/api/v1/sessions/{session_id}/archive": {
            "post": signed_in("Archive the session off the home page, or bring it back.", {
                "200": answer("The session.", "Session")}, "Archive", s)},
        "/api/v1/sessions/{session_id}/payments/{payment_id}": {
            "delete": signed_in("Undo a payment with a reason: it stays in the history, "
                                 "marked undone; what it paid is open again.", {
                "200": answer("The ledger after the undo.", "Ledger")}, "UndoPayment",
                (SESSION_ID, _PAYMENT_ID))},
        "/api/v1/debts": {
            "get": signed_in("The unpaid debts carried over from your sessions.", {
                "200": {"description": "The debts.", "content": {"application/json": {
                    "schema": {"type": "array", "items": ref("Debt")}}}}}, change=False)},
        "/api/v1/debts/{debt_id}/paid": {
            "post": signed_in("Mark a carried debt paid (who and when are kept).", {
                "200": answer("The debt, paid.", "Debt")}, params=(_DEBT_ID,))},
    }


def whole_document() -> dict[str, Any]:
    """The OpenAPI document served at ``/api/v1/openapi.json``."""
    doc = openapi_document()
    schemas = doc["components"]["schemas"]
    schemas.update(settle_schemas(schemas["Session"], schemas["SessionSummary"]))
    share = schemas["Share"]["properties"]
    share["session"]["properties"]["stake"] = {"type": ["string", "null"],
                                               "description": "Null under push-ups."}
    share["voided_hands"] = {"type": "integer", "description": "Hands voided."}
    for path, operations in settle_paths().items():
        doc["paths"].setdefault(path, {}).update(operations)
    return doc
