"""The OpenAPI part of a night started on a phone with no signal and sent when the signal is
back (``PUT /api/v1/nights/{uid}/events``): the answer. :mod:`app.api.openapi` merges it
into the document (the night's events, one schema per kind: :mod:`.nights`)."""
from __future__ import annotations

from typing import Any

_MONEY = {"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$"}


def extend_nights(schemas: dict[str, Any]) -> None:
    """Add the answer to a night's events to the document's schemas."""
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
