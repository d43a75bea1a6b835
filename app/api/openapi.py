"""The OpenAPI 3.1 document of the JSON API, served at ``/api/v1/openapi.json``.

Built from the domain's own registries (presets, options, end kinds), so that it cannot
drift from what the API accepts.
"""
from __future__ import annotations

from typing import Any

from ..core.hand import END_KINDS, MAX_MULTIPLIER, MAX_PLAYERS, MIN_PLAYERS
from ..core.rules import CATCHES, OPTIONS, PRESETS
from ..core.settle import OUTCOMES

_MONEY = {"type": "string", "pattern": r"^-?\d+(\.\d{1,2})?$",
          "description": "An exact decimal amount, never a binary float.", "examples": ["1.25"]}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json_body(name: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(name)}}}


def _answer(description: str, name: str | None = None) -> dict[str, Any]:
    if name is None:
        return {"description": description}
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


ERRORS = {
    "400": _answer("The body is not a JSON object.", "Error"),
    "422": _answer("The input cannot be settled; the message says why, for a person.", "Error"),
}
SESSION_ERRORS = {
    **ERRORS,
    "401": _answer("No valid personal token (Authorization: Bearer …).", "Error"),
    "404": _answer("No such session or hand for this account.", "Error"),
    "409": _answer("The session is closed.", "Error"),
}


def _schemas() -> dict[str, Any]:
    options: dict[str, Any] = {name: {"description": text} for name, (_, text) in OPTIONS.items()}
    options["catch"]["enum"] = list(CATCHES)
    return {
        "Error": {"type": "object", "required": ["error"], "properties": {
            "error": {"type": "string", "description": "What is wrong, for a person."},
            "field": {"type": "string", "description": "Where, e.g. counts.Bob."}}},
        "Rules": {"oneOf": [
            {"type": "string", "enum": list(PRESETS)},
            {"type": "object", "additionalProperties": False, "properties": {
                "preset": {"type": "string", "enum": list(PRESETS)}, **options}}]},
        "End": {"type": "object", "required": ["kind"], "properties": {
            "kind": {"type": "string", "enum": list(END_KINDS)},
            "player": {"type": "string"},
            "method": {"type": "string", "enum": ["spread", "hits"]},
            "first_turn": {"type": "boolean"},
            "double_double": {"type": "boolean"},
            "five_face_cards": {"type": "array", "items": {"type": "string"}}}},
        "Hand": {"type": "object", "required": ["players", "end"],
                 "additionalProperties": False, "properties": {
            "rules": _ref("Rules"),
            "stake": {"oneOf": [{"type": "string"}, {"type": "number"}],
                      "description": "Positive, at most 1,000,000, two decimal places."},
            "multiplier": {"type": "integer", "minimum": 1, "maximum": MAX_MULTIPLIER},
            "players": {"type": "array", "items": {"type": "string"},
                        "minItems": MIN_PLAYERS, "maxItems": MAX_PLAYERS},
            "dealer": {"type": "string"},
            "end": _ref("End"),
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "cards": {"type": "object", "additionalProperties": {
                "type": "array", "items": {"type": "string", "examples": ["KS", "10H"]}}}}},
        "Payment": {"type": "object", "properties": {
            "from": {"type": "string"}, "to": {"type": "string"}, "amount": _MONEY,
            "rule": {"type": "string"}}},
        "Result": {"type": "object", "required": ["outcome", "winners", "payments"],
                   "properties": {
            "outcome": {"type": "string", "enum": list(OUTCOMES)},
            "winners": {"type": "array", "items": {"type": "string"}},
            "payments": {"type": "array", "items": _ref("Payment")},
            "net": {"type": "object", "additionalProperties": _MONEY},
            "pushed": {"type": "object", "additionalProperties": {"type": "integer"}},
            "explanation": {"type": "array", "items": {"type": "string"}}}},
        "Balances": {"type": "object", "required": ["balances"], "properties": {
            "balances": {"type": "object", "additionalProperties": _MONEY}}},
        "Transfer": {"type": "object", "properties": {
            "from": {"type": "string"}, "to": {"type": "string"}, "amount": _MONEY}},
        "Transfers": {"type": "object", "properties": {
            "transfers": {"type": "array", "items": _ref("Transfer")}}},
    }


def openapi_document() -> dict[str, Any]:
    """The whole document, as JSON-ready data."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "Tonk Tally API", "version": "1.0.0",
                 "description": "Settle hands of Tonk under any house rules, settle up in the "
                                "fewest transfers, and keep a night's score."},
        "paths": {
            "/api/v1/settle": {"post": {
                "summary": "Settle one hand (the dispute checker). Stores nothing.",
                "requestBody": _json_body("Hand"),
                "responses": {"200": _answer("The hand's result.", "Result"), **ERRORS}}},
            "/api/v1/transfers": {"post": {
                "summary": "The fewest transfers that settle balances summing to zero.",
                "requestBody": _json_body("Balances"),
                "responses": {"200": _answer("The transfers.", "Transfers"), **ERRORS}}},
            "/api/v1/openapi.json": {"get": {
                "summary": "This document.",
                "responses": {"200": _answer("The OpenAPI document.")}}},
        },
        "components": {"schemas": _schemas(), "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer",
                       "description": "A personal token made on the account page."}}},
    }
