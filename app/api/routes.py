"""The stateless endpoints: the dispute checker (settle, and compare under every preset),
fewest transfers, and the OpenAPI document. They store nothing."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar

from flask import Response, jsonify
from pydantic import Field, SkipValidation, WithJsonSchema

from ..core import parse_hand, settle
from ..core.compare import compare
from ..core.transfers import MAX_PEOPLE, fewest_transfers, parse_balances
from .answers import ComparisonJson, ResultJson, TransfersJson, transfer_json
from .door import ABSENT, Body, api, needed
from .errors import BadRequest
from .kinds import AMOUNT_TEXT, DealBody, Name, Players, Rules, Stake

HAND_EXAMPLE = {"rules": "pagat", "stake": "0.25", "multiplier": 1,
                "players": ["Ann", "Bob", "Cy"], "dealer": "Cy",
                "end": {"kind": "drop", "player": "Bob"},
                "counts": {"Ann": 12, "Bob": 9, "Cy": 9}}


class HandBody(DealBody):
    """A hand with its table: players, dealer, house rules and stake."""

    required: ClassVar[tuple[str, ...] | None] = ("players", "end")
    examples: ClassVar[tuple[dict[str, Any], ...]] = (HAND_EXAMPLE,)
    rules: Rules = ABSENT
    stake: Stake = ABSENT
    players: Players = ABSENT
    dealer: SkipValidation[Name | None] = Field(
        ABSENT, description="Default: the first player (a session's: who deals next).")


class Balances(Body):
    """What each person is owed (more than 0) or owes (less than 0), summing to zero."""

    what: ClassVar[str] = "working out transfers"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"balances": {"Ann": "4.50", "Bob": "-4.50"}},)
    balances: Annotated[Any, WithJsonSchema({
        "type": "object", "minProperties": 1, "maxProperties": MAX_PEOPLE,
        "propertyNames": {"type": "string", "pattern": r"\S"},
        "additionalProperties": {"anyOf": [AMOUNT_TEXT, {"type": "number"}],
                                 "description": "At most two decimal places."}})] = needed()


@api.post("/settle", "Settle one hand (the dispute checker). Stores nothing.",
          {"200": ("The hand's result.", ResultJson)})
def settle_hand(body: HandBody) -> Response:
    return jsonify(settle(parse_hand(body.sent())).to_json())


@api.post("/compare", "The same hand under every preset, the table's own rules (if the hand "
                      "gives them) first. Stores nothing.",
          {"200": ("One ruling a rule set.", ComparisonJson)})
def compare_hand(body: HandBody) -> Response:
    return jsonify({"results": [ruling.to_json() for ruling in compare(body.sent())]})


@api.post("/transfers", "The fewest transfers that settle balances summing to zero.",
          {"200": ("The transfers.", TransfersJson)})
def transfers(body: Balances) -> Response:
    if "balances" not in body.sent():
        raise BadRequest('send {"balances": {"Ann": "4.50", "Bob": "-4.50"}}', "balances")
    return jsonify(TransfersJson(transfers=[
        transfer_json(t) for t in fewest_transfers(parse_balances(body.balances))]))


@api.get("/openapi.json", "This document.", {"200": ("The OpenAPI document.", None)})
def openapi() -> Response:
    from .openapi import openapi_document  # (made of every endpoint's declaration)

    return jsonify(openapi_document())


def created(body: Mapping[str, object], location: str) -> Response:
    response = jsonify(body)
    response.status_code = 201
    response.headers["Location"] = location
    return response
