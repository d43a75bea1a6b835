"""One JSON error shape for the whole API: ``{"error": message, "field": where}``, 4xx
(the handlers: registered in :mod:`app.errors`).

Domain errors become 422 (no such session or hand: 404; a closed session: 409; the one
table is :data:`app.services.errors.STATUS`), unreadable
bodies 400, a missing or bad personal token 401; HTTP errors under ``/api/`` answer in the
same shape, and nothing reaches a user as an HTML page or a 500 with a trace.
"""
from __future__ import annotations

from flask import Response
from werkzeug.exceptions import HTTPException

from ..core.errors import TonkError
from ..http.errors import error_response
from ..services.errors import VersionConflictError, status_of

REALM = "Tonk Tally API"


class TokenError(Exception):
    """No valid personal token: missing, not a bearer token, or unknown (revoked)."""

    def __init__(self, message: str, *, invalid: bool) -> None:
        super().__init__(message)
        self.message = message
        self.invalid = invalid

    @property
    def challenge(self) -> str:
        """The ``WWW-Authenticate`` value (RFC 6750 §3)."""
        if self.invalid:
            return f'Bearer realm="{REALM}", error="invalid_token"'
        return f'Bearer realm="{REALM}"'


class BadRequest(Exception):
    """A request the API cannot read (not JSON, not an object, ...)."""

    def __init__(self, message: str, field: str | None = None, status: int = 400) -> None:
        super().__init__(message)
        self.message, self.field, self.status = message, field, status


def domain_error(exc: TonkError) -> Response:
    status = status_of(exc)
    if isinstance(exc, VersionConflictError):  # who changed the hand meanwhile, and when
        last = exc.hand.versions[-1]
        return error_response(exc.message, status, exc.field, current={
            "version": exc.hand.version, "action": last.action, "by": last.by_name,
            "at": last.created_at.isoformat()})
    return error_response(exc.message, status, exc.field)


def bad_request(exc: BadRequest) -> Response:
    return error_response(exc.message, exc.status, exc.field)


def known_error(exc: TonkError | BadRequest) -> Response:
    """The answer to an error the API expects (for a view that answers it itself)."""
    return domain_error(exc) if isinstance(exc, TonkError) else bad_request(exc)


def token_error(exc: TokenError) -> Response:
    response = error_response(exc.message, 401, "Authorization")
    response.headers["WWW-Authenticate"] = exc.challenge
    return response


def http_error(exc: HTTPException) -> Response:
    """An HTTP error of the API's, as its JSON error."""
    response = error_response(exc.description or exc.name, exc.code or 500)
    for name, value in exc.get_headers():  # Allow of a 405, Retry-After of a 429, ...
        if name.lower() != "content-type":
            response.headers[name] = value
    return response
