"""How a page answers a domain error that reaches it (the API's answer is JSON:
:mod:`app.api.errors`); :mod:`app.errors` registers it. Not found is the not-found page (the
league pages' says where the leagues are); a closed session or a table that has played its
round's hands sends the sender back, told why; an event's conflict is a page of its own;
any other refusal goes back to the page the form came from, with its message. An address
with no page behind it (an HTTP 404) is the not-found page too, in the reader's language."""
from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException

from ...core.errors import TonkError
from ...services.errors import (
    EventConflictError,
    HandLimitError,
    NotFoundError,
    SessionClosedError,
)
from .site import back


def page_http_error(exc: HTTPException) -> ResponseReturnValue:
    """A page's HTTP error: no page at the address is the site's not-found page (werkzeug's
    own is bare English); any other is werkzeug's."""
    if exc.code == 404:
        return render_template("not_found.html", address=True), 404
    return exc


def page_refusal(exc: TonkError) -> ResponseReturnValue:
    """The page's answer to ``exc``."""
    if isinstance(exc, NotFoundError):
        league = request.blueprint == "leagues"
        return render_template("leagues/not_found.html" if league
                               else "not_found.html"), 404
    if isinstance(exc, SessionClosedError):
        flash(_("This session is closed: nothing in it can change any more."), "error")
        session_id = (request.view_args or {}).get("session_id")
        return redirect(url_for("web.session", session_id=session_id) if session_id
                        else url_for("web.index"))
    if isinstance(exc, HandLimitError):  # a table's link says so; a session is told why
        args = request.view_args or {}
        if "token" in args:
            return redirect(url_for("web.keeper", token=args["token"]))
        flash(exc.message, "error")
        return redirect(url_for("web.session", session_id=args.get("session_id")))
    if isinstance(exc, EventConflictError):  # a table's link leads back to its result
        token = (request.view_args or {}).get("token")
        return render_template("events/refused.html", message=exc.message,
                               table=url_for("web.keeper", token=token) if token else None), 409
    flash(exc.message, "error")
    return redirect(back())
