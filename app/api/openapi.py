"""The OpenAPI 3.1 document of the JSON API, served at ``/api/v1/openapi.json``.

Everything in it is an endpoint's own declaration (:mod:`.door`): the route, the summary, the
parameters, the body's schema and the answers' types (:mod:`.answers`), whose schemas the door
makes; what is here is what every endpoint shares (the errors, the Idempotency-Key, the token)
and the house rules' schema, made from the core's registries of presets and options.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.rules import OPTIONS, PRESETS
from .answers import ErrorJson
from .door import ENDPOINTS, Endpoint, request_body, schemas
from .kinds import EndBody, ref


def answer(description: str, body: Any, made: dict[Any, Any],
           headers: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An answer: its description, its body's schema (``body``: an answer's type, whose
    schema ``made`` holds; a schema's name; a schema; or None for no body) and headers."""
    out: dict[str, Any] = {"description": description}
    if headers:
        out["headers"] = dict(headers)
    if body is not None:
        schema = ref(body) if isinstance(body, str) else dict(body) if isinstance(
            body, Mapping) else made[body]
        out["content"] = {"application/json": {"schema": schema}}
    return out


#: What every endpoint that reads a body may answer (400, 422), and every signed-in one that
#: changes something (all of them).
_ERRORS: dict[str, tuple[str, Any]] = {
    "400": ("The body cannot be read: not JSON (the error says at which line and column), a "
            "key given twice (field: its path), or not a JSON object.", ErrorJson),
    "422": ("The input cannot be settled; the message says why, for a person.", ErrorJson),
    "401": ("No valid personal token (Authorization: Bearer …).", ErrorJson),
    "404": ("No such session or hand for this account.", ErrorJson),
    "409": ("The session is closed; or the hand is no longer at the version the request names "
            "(the answer's current says who changed it, and when); or a tournament table has "
            "played its round's hands (field: round); or the first request with this "
            "Idempotency-Key is still under way.", ErrorJson),
    "503": ("The database cannot take the change now (busy, read-only, disk full): nothing was "
            "changed; try again after Retry-After seconds.", ErrorJson),
}
#: Every change may name itself, so that sending it again changes nothing.
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key", "in": "header", "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": "Your unique string for this change: the same key and body again answer "
                   "the first answer again (Idempotent-Replayed: true) and change nothing; "
                   "the same key with another request is a 422."}


def _rules() -> dict[str, Any]:
    """The house rules: a preset's name, or a preset and the options that differ (the core's
    registries of presets and options)."""
    options: dict[str, Any] = {
        name: {"description": str(option.meaning)}
        | ({"enum": list(option.choices)} if option.choices is not None else {})
        for name, option in OPTIONS.items()}
    return {"description": "A preset's name, or a preset and the options that differ; null or "
                           "absent: pagat (a session's: its own).",
            "oneOf": [
                {"type": "string", "enum": list(PRESETS)},
                {"type": "object", "additionalProperties": False, "properties": {
                    "preset": {"type": "string", "enum": list(PRESETS)}, **options}},
                {"type": "null"}]}


_SIGNED_IN: list[dict[str, list[str]]] = [{"bearer": []}]


def operation(endpoint: Endpoint, made: dict[Any, Any],
              errors_of: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """An endpoint's operation (``made``: the answers' types' schemas; ``errors_of``: the
    shared error answers). A signed-in one needs a personal token; one that changes nothing
    (``change`` false) answers no 409, no 400 or 422 unless it reads a body, and takes no
    Idempotency-Key."""
    answers = {status: answer(given[0], given[1], made, *given[2:]) if isinstance(
        given, tuple) else dict(given) for status, given in endpoint.answers.items()}
    params = list(endpoint.params)
    found: dict[str, Any] = {"summary": endpoint.summary}
    if endpoint.signed_in:
        found["security"] = _SIGNED_IN
        kept = ("401", "404") if endpoint.body is None else ("400", "401", "404", "422")
        errors = errors_of if endpoint.change else {
            k: v for k, v in errors_of.items() if k in kept}
        if endpoint.change:
            params.append(IDEMPOTENCY_KEY)
    else:
        errors = {k: v for k, v in errors_of.items() if k in ("400", "422")
                  } if endpoint.body is not None else {}
    if params:
        found["parameters"] = params
    body = request_body(endpoint)
    if body is not None:
        found["requestBody"] = body
    found["responses"] = {**answers, **errors}
    return found


def openapi_document() -> dict[str, Any]:
    """The whole document, as JSON-ready data."""
    found, made = schemas(extra=(EndBody,), answers=(ErrorJson,))
    found["Rules"] = _rules()
    errors_of = {status: answer(text, body, made) for status, (text, body) in _ERRORS.items()}
    paths: dict[str, Any] = {}
    for endpoint in ENDPOINTS:
        paths.setdefault(endpoint.path, {})[endpoint.method] = operation(endpoint, made,
                                                                         errors_of)
    return {
        "openapi": "3.1.0",
        "info": {"title": "Tonk Tally API", "version": "1.0.0",
                 "description": "Settle hands of Tonk under any house rules, settle up in the "
                                "fewest transfers, and keep a night's score."},
        "paths": paths,
        "components": {"schemas": dict(sorted(found.items())), "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer",
                       "description": "A personal token made on the account page."}}},
    }
