"""One JSON error shape for the whole API: ``{"error": message, "field": where}``, 4xx.

Domain errors become 422 (no such session or hand: 404; a closed session: 409), unreadable
bodies 400, a missing or bad personal token 401; HTTP errors under ``/api/`` answer in the
same shape, and nothing reaches a user as an HTML page or a 500 with a trace.
"""
from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request
from werkzeug.exceptions import HTTPException

from ..core.errors import TonkError
from ..ledger import NotFoundError, SessionClosedError
from . import bp
from .auth import TokenError

# Domain errors that are not 422, most specific first. Another account's session is a
# NotFoundError too: 404 says nothing about whether it exists.
DOMAIN_STATUS: tuple[tuple[type[TonkError], int], ...] = (
    (NotFoundError, 404),
    (SessionClosedError, 409),
)


class BadRequest(Exception):
    """A request the API cannot read (not JSON, not an object, ...)."""

    def __init__(self, message: str, field: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.field, self.status = message, field, status


def error_response(message: str, status: int, field: str | None = None) -> Response:
    body: dict[str, Any] = {"error": message}
    if field:
        body["field"] = field
    response = jsonify(body)
    response.status_code = status
    return response


@bp.errorhandler(TonkError)
def domain_error(exc: TonkError) -> Response:
    status = next((code for kind, code in DOMAIN_STATUS if isinstance(exc, kind)), 422)
    return error_response(exc.message, status, exc.field)


@bp.errorhandler(BadRequest)
def bad_request(exc: BadRequest) -> Response:
    return error_response(exc.message, exc.status, exc.field)


@bp.errorhandler(TokenError)
def token_error(exc: TokenError) -> Response:
    response = error_response(exc.message, 401, "Authorization")
    response.headers["WWW-Authenticate"] = exc.challenge
    return response


@bp.app_errorhandler(HTTPException)
def http_error(exc: HTTPException) -> Response | HTTPException:
    if not request.path.startswith("/api/"):
        return exc
    response = error_response(exc.description or exc.name, exc.code or 500)
    for name, value in exc.get_headers():  # Allow of a 405, Retry-After of a 429, ...
        if name.lower() != "content-type":
            response.headers[name] = value
    return response
