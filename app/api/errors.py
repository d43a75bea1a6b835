"""One JSON error shape for the whole API: ``{"error": message, "field": where}``, 4xx.

Domain errors become 422 (no such session or hand: 404; a closed session: 409), unreadable
bodies 400, a missing or bad personal token 401; HTTP errors under ``/api/`` answer in the
same shape, and nothing reaches a user as an HTML page or a 500 with a trace.
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Response, jsonify, request
from werkzeug.exceptions import HTTPException

from ..core.errors import TonkError
from ..db.idempotency import InProgressError
from ..services.sessions.archive import NotEmptyError
from ..services.sessions.ledger import NotFoundError, SessionClosedError, VersionConflictError
from . import bp

# Domain errors that are not 422, most specific first. Another account's session is a
# NotFoundError too: 404 says nothing about whether it exists.
DOMAIN_STATUS: tuple[tuple[type[TonkError], int], ...] = (
    (NotFoundError, 404),
    (SessionClosedError, 409),
    (VersionConflictError, 409),
    (InProgressError, 409),
    (NotEmptyError, 409),
)


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


def error_response(message: str, status: int, field: str | None = None,
                   **more: Any) -> Response:
    body: dict[str, Any] = {"error": message}
    if field:
        body["field"] = field
    body.update(more)
    response = jsonify(body)
    response.status_code = status
    return response


@bp.errorhandler(TonkError)
def domain_error(exc: TonkError) -> Response:
    status = next((code for kind, code in DOMAIN_STATUS if isinstance(exc, kind)), 422)
    if isinstance(exc, VersionConflictError):  # who changed the hand meanwhile, and when
        last = exc.hand.versions[-1]
        return error_response(exc.message, status, exc.field, current={
            "version": exc.hand.version, "action": last.action, "by": last.by_name,
            "at": _iso(last.created_at)})
    return error_response(exc.message, status, exc.field)


@bp.errorhandler(BadRequest)
def bad_request(exc: BadRequest) -> Response:
    return error_response(exc.message, exc.status, exc.field)


def known_error(exc: TonkError | BadRequest) -> Response:
    """The answer to an error the API expects (for a view that answers it itself)."""
    return domain_error(exc) if isinstance(exc, TonkError) else bad_request(exc)


def _iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


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
