"""The OpenAPI part of settle-up and putting sessions away: the answers of the ledger with
its kept plan, payments, carried debts, archiving. :func:`whole_document` is
:func:`app.api.openapi.openapi_document` with it merged in."""
from __future__ import annotations

from typing import Any

from .kinds import ref
from .openapi import MONEY, WHEN, openapi_document, transfer_list
from .params import ID

_NULL_WHEN = {"oneOf": [WHEN, {"type": "null"}]}
_NULL_TEXT = {"type": ["string", "null"]}


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
    return doc
