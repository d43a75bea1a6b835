"""When the database itself refuses (busy past its timeout, read-only, disk full, out of
reach): a 503 that names the cause, on the pages and in the API alike, with ``Retry-After``.
Nothing was saved, and the request can simply be tried again. Any other error stays a 500.

The answer needs nothing from the database it reports on: an account not loaded before the
fault is not loaded for it (the page is drawn signed out, the language from the cookie or
the browser), so a signed-in phone gets the same 503 as anyone.
"""
from __future__ import annotations

import logging

from flask import Response, g, make_response, render_template, request
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import AnonymousUserMixin
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from ..db import storage
from ..db.unit import take_back
from ..extensions import db
from .errors import error_response, is_api_request

log = logging.getLogger(__name__)


def fault_response(meaning: str) -> Response:
    """The 503 answer for a database fault: JSON under ``/api/``, else a page."""
    _no_more_database()
    if is_api_request():
        response = error_response(meaning, 503)
    else:
        try:
            response = make_response(render_template(
                "not_changed.html", heading=_("Not saved"), why=meaning,
                then=_("Nothing was changed. Go back and try again in a moment: what you "
                       "typed is still in the form.")), 503)
        except Exception:  # noqa: BLE001 - a last resort: the page failed to draw
            take_back()
            response = make_response(meaning, 503)
            response.mimetype = "text/plain"
    response.headers["Retry-After"] = str(storage.RETRY_AFTER)
    return response


def _no_more_database() -> None:
    """From here on the answer loads nothing: the language is chosen now from what the
    request already has (:func:`app.web.shared.site.select_locale`) and kept for the request, and
    the page is drawn signed out (no account to load)."""
    if g.get("tonk_fault"):
        return
    g.tonk_fault = True
    get_locale()
    g._login_user = AnonymousUserMixin()


def end_session(_exc: BaseException | None) -> None:
    """End the app context's database session just before Flask-SQLAlchemy would (teardown
    functions run last-registered first), where the rollback that ends it can fail: a
    request that read, and was answered, while the server went down. SQLAlchemy has dropped
    the connection by then; the answer stands, and the failure is no 500 after it."""
    try:
        db.session.remove()
    except DBAPIError as exc:
        if storage.fault(exc) is None:
            raise
        log.warning("database fault ending a request: %s", exc.orig)
        db.session.remove()  # the session is clear now: this ends nothing more


def database_fault(exc: DBAPIError | PoolTimeout) -> ResponseReturnValue:
    """The 503 of a database fault (registered in :mod:`app.errors`); any other database
    error stays a 500."""
    take_back()
    meaning = storage.fault(exc)
    if meaning is None:
        raise exc
    log.warning("database fault on %s %s: %s", request.method, request.path,
                getattr(exc, "orig", exc))
    _no_more_database()
    return fault_response(_(meaning))  # marked in app.db.storage
