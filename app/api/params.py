"""The parameters of the API's paths and queries, as the document describes them: an
endpoint names its own in its declaration (:data:`.door.api`)."""
from __future__ import annotations

from typing import Any

ID = {"type": "integer", "minimum": 1}


def path(name: str, description: str, schema: dict[str, Any] | None = None,
         **more: Any) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": schema or ID,
            "description": description, **more}


def query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema,
            "description": description}


SESSION_ID = path("session_id", "The session's id.")
NUMBER = path("number", "The hand's number in the session, from 1.")
PAYMENT_ID = path("payment_id", "The payment's id (in the ledger's payments).")
DEBT_ID = path("debt_id", "The carried debt's id.")
PLAYER_NAME = path("name", "The player's name at the session.", {"type": "string"})
LEAGUE_ID = path("league_id", "The league's id.")
PLAYER_ID = path("player_id", "The member's id.")
EVENT_ID = path("event_id", "The event's id.", example=1)
ROUND = path("number", "The round's number, from 1.", example=1)
TABLE = path("table", "The table's number, from 1.", example=1)
EVENT_PLAYER = path("name", "A checked-in player's name.", {"type": "string", "pattern": r"\S"},
                    example="Ann")
SHARE_TOKEN = path("token", "The share link's token.", {"type": "string"})
