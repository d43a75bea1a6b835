"""The OpenAPI part of pay links: the ``pay`` of each open transfer.
:mod:`app.api.openapi` merges it into the document (the handles' body: :mod:`.pay`)."""
from __future__ import annotations

from typing import Any


def pay_schemas() -> dict[str, Any]:
    """One pay link."""
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
    """Add the pay links to the document's schemas."""
    schemas.update(pay_schemas())
    transfer = schemas["Transfer"]
    transfer.setdefault("properties", {})["pay"] = {
        "type": "array", "items": {"$ref": "#/components/schemas/PayLink"},
        "description": "In a ledger's open transfers: the payee's pay links."}
