"""The OpenAPI parts of a table that changes, in the answers: who left, the side bets
(docs/rules.md §9) settled and their pots. :mod:`app.api.openapi` merges them into the
document (the bodies that change seats and side bets are declared on their endpoints)."""
from __future__ import annotations

from typing import Any

from ..core.sidebets import BETS

_MONEY = {"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$", "examples": ["0.30"]}
_POTS = {"type": "object", "additionalProperties": _MONEY,
         "description": "Money waiting in each side bet's pot.", "examples": [
             {"naturals": "0.30"}]}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def table_schemas() -> dict[str, Any]:
    """A settled side bet."""
    return {
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
    }


def extend(schemas: dict[str, Any]) -> None:
    """Add the side bets and seats to the answers of the document."""
    schemas.update(table_schemas())
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
