"""The OpenAPI parts of pay links: a player's payment handles and the ``pay``
of each open transfer. :mod:`app.api.openapi` merges them into the document."""
from __future__ import annotations

from typing import Any

from ..services.pay import FIELDS

_HANDLE = {"type": ["string", "null"], "maxLength": 300}


def pay_schemas() -> dict[str, Any]:
    """A player's handles and one pay link."""
    return {
        "PayHandles": {
            "type": "object", "additionalProperties": False,
            "description": "Where a player takes payment; each as its service writes it. "
                           "A PUT keeps exactly these (one left out or empty is dropped).",
            "examples": [{"paypal": "annpays", "iban": "DE89 3704 0044 0532 0130 00"}],
            "properties": {name: _HANDLE for name in FIELDS}},
        "PayLink": {
            "type": "object", "required": ["service"],
            "description": "One way to pay the payee: a url (amount filled in where the "
                           "service takes it), an EPC QR code's payload (euros), or words.",
            "properties": {
                "service": {"type": "string", "enum": ["epc", "paypal", "venmo", "cashapp",
                                                       "revolut", "iban", "note"]},
                "url": {"type": "string"}, "payload": {"type": "string"},
                "text": {"type": "string"}}},
    }


def extend_pay(schemas: dict[str, Any]) -> None:
    """Add the handles and pay links to the document's schemas."""
    schemas.update(pay_schemas())
    transfer = schemas["Transfer"]
    transfer.setdefault("properties", {})["pay"] = {
        "type": "array", "items": {"$ref": "#/components/schemas/PayLink"},
        "description": "In a ledger's open transfers: the payee's pay links."}


def pay_path(signed_in: Any, answer: Any, session_id: dict[str, Any]) -> dict[str, Any]:
    """``PUT /api/v1/sessions/{session_id}/players/{name}/pay``."""
    name = {"name": "name", "in": "path", "required": True, "schema": {"type": "string"},
            "description": "The player's name at the session."}
    return {"/api/v1/sessions/{session_id}/players/{name}/pay": {
        "put": signed_in("Keep a player's payment handles (a league member's serve the "
                         "league's later sessions). A bad IBAN is 422 naming iban.", {
                             "200": answer("The handles kept.", "PayHandles")},
                         "PayHandles", (session_id, name))}}
