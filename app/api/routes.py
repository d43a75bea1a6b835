"""The stateless endpoints: the dispute checker (settle, and compare under every preset),
fewest transfers, and the OpenAPI document. They store nothing."""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flask import Response, jsonify, request
from flask_babel import gettext as _

from ..core import parse_hand, settle
from ..core.compare import compare
from ..core.errors import TonkError
from ..core.messages import Message
from ..core.money import DuplicateKeyError, loads
from ..core.transfers import fewest_transfers, parse_balances
from . import bp
from .errors import BadRequest
from .openapi_settle import whole_document


def json_body(required: bool = True) -> dict[str, Any]:
    """The request body as a JSON object, numbers with a fraction read as Decimal, never
    float. Raises :class:`BadRequest` for anything else; an empty body is ``{}`` where the
    body is not ``required``."""
    raw = request.get_data(cache=True)
    if not raw.strip() and not required:
        return {}
    if not raw.strip():
        raise BadRequest(_("the request has no body: send a JSON object"), "body")
    try:
        data = loads(raw)
    except DuplicateKeyError as exc:
        raise BadRequest(_("the body gives %(path)s twice: send each key once",
                           path=exc.path), exc.path) from None
    except json.JSONDecodeError as exc:
        raise BadRequest(_("the body is not valid JSON at line %(line)s, column %(column)s: "
                           "%(error)s", line=exc.lineno, column=exc.colno, error=exc.msg),
                         "body") from None
    except (ValueError, RecursionError) as exc:  # NaN, not UTF-8, nested too deeply
        raise BadRequest(_("the body is not valid JSON: %(error)s",
                           error=str(exc)[:120] or "too deep"), "body") from None
    if not isinstance(data, dict):
        raise BadRequest(_("the body must be a JSON object"), "body")
    return data


def only_keys(data: Mapping[str, Any], allowed: frozenset[str], what: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise TonkError(Message("api.unknown_field", what=what, field_name=repr(unknown[0]),
                                fields=", ".join(sorted(allowed))), unknown[0])


def created(body: dict[str, Any], location: str) -> Response:
    response = jsonify(body)
    response.status_code = 201
    response.headers["Location"] = location
    return response


@bp.post("/settle")
def settle_hand() -> Response:
    result = settle(parse_hand(json_body()))
    return jsonify(result.to_json())


@bp.post("/compare")
def compare_hand() -> Response:
    return jsonify({"results": [ruling.to_json() for ruling in compare(json_body())]})


@bp.post("/transfers")
def transfers() -> Response:
    data = json_body()
    if "balances" not in data:
        raise BadRequest('send {"balances": {"Ann": "4.50", "Bob": "-4.50"}}', "balances")
    balances = parse_balances(data["balances"])
    return jsonify({"transfers": [
        {"from": t.payer, "to": t.payee, "amount": str(t.amount)}
        for t in fewest_transfers(balances)
    ]})


@bp.get("/openapi.json")
def openapi() -> Response:
    return jsonify(whole_document())
