"""Every error handler of the app, registered here and nowhere else.

A domain error (:class:`~app.core.errors.TonkError`) has one status, from the table in
:mod:`app.services.errors`; the API answers it in JSON (:mod:`app.api.errors`), a page
with a page (:mod:`app.web.shared.refusals`): they differ only in how they render. Whatever the
request changed was rolled back by the write boundary (:mod:`app.db.unit`) before the
error got here. A fault of the database itself (busy, read-only, full, out of reach) is a
503 naming it, on both (:mod:`app.http.faults`); a rate limit's 429 says when to come back
(:mod:`app.http.limits`); an API request's unreadable body or
missing token, and every HTTP error under ``/api/``, are JSON too; a page at no address is
the site's not-found page.
"""
from __future__ import annotations

from flask import Flask
from flask.typing import ResponseReturnValue
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from .api.errors import BadRequest, TokenError, bad_request, domain_error, http_error, token_error
from .core.errors import TonkError
from .http.bodies import too_large
from .http.errors import is_api_request
from .http.faults import database_fault, end_session
from .http.limits import too_many
from .web.shared.refusals import page_http_error, page_refusal


def refusal(exc: TonkError) -> ResponseReturnValue:
    """A domain error, rendered for whoever asked: JSON for the API, else a page."""
    return domain_error(exc) if is_api_request() else page_refusal(exc)


def any_http_error(exc: HTTPException) -> ResponseReturnValue:
    """An HTTP error (404, 405 …): JSON for the API, else the page's."""
    return http_error(exc) if is_api_request() else page_http_error(exc)


def register(app: Flask) -> None:
    app.register_error_handler(TonkError, refusal)
    app.register_error_handler(BadRequest, bad_request)
    app.register_error_handler(TokenError, token_error)
    app.register_error_handler(RequestEntityTooLarge, too_large)  # the limit, in words
    app.register_error_handler(429, too_many)  # a rate limit (:mod:`app.http.limits`)
    app.register_error_handler(HTTPException, any_http_error)
    app.register_error_handler(DBAPIError, database_fault)
    app.register_error_handler(PoolTimeout, database_fault)  # every pooled connection taken
    app.teardown_appcontext(end_session)
