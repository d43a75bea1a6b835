"""The OpenAPI parts of pay links: a player's payment handles and the ``pay``
of each open transfer. :mod:`app.api.openapi` merges them into the document."""
from __future__ import annotations

from typing import Any

_HANDLE = {"type": ["string", "null"], "maxLength": 300}


def pay_schemas() -> dict[str, Any]:
    """A player's handles and one pay link."""
    return {
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
