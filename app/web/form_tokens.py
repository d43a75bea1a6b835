"""A form saved once, however often it is sent: each form carries a one-time token (the
``once`` field, beside the CSRF token), and a view decorated with :func:`once_per_form`
carries out the first POST of it only. A double tap, a back-and-resubmit or a retry after a
lost reply is sent on to where the first one went, with a note that it was saved once.
The token is spent in the one commit of the change (and of where the form led, for a
repeat): a commit that fails keeps neither, and the form can simply be sent again. How the
tokens are kept is :mod:`app.db.idempotency`.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from flask import flash, g, make_response, redirect, request, session, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from ..core.errors import TonkError
from ..db import idempotency
from ..db.storage import change_waits, one_commit
from ..extensions import db
from .pagecache import fresh_once, marking, once_mark
from .site import back, me

FIELD = "once"
View = TypeVar("View", bound=Callable[..., Any])


def once_token() -> str:
    """A new one-time token for a form (a mark while a page to be kept is rendered: see
    :mod:`.pagecache`, which fills in a new token for every request)."""
    return once_mark() if marking() else fresh_once()


def once_per_form(view: View) -> View:
    """Carry out each sent form (by its one-time token) once."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        token = request.form.get(FIELD, "") if request.method == "POST" else ""
        if not token:
            return view(*args, **kwargs)
        try:
            idempotency.check_key(token, FIELD)
            owner = g.get("form_owner") or me()  # a table's link: its director's account
            held = idempotency.claim(owner.id, "form:" + token,
                                     idempotency.fingerprint("form", request.path), FIELD)
        except TonkError as exc:
            db.session.rollback()
            flash(exc.message, "error")
            return redirect(back())
        if isinstance(held, idempotency.Replay):
            flash(_("That was sent twice: it is saved once."), "info")
            return redirect(held.location or url_for("web.index"))
        flashed = list(session.get("_flashes", ()))
        try:
            with one_commit():  # the change commits once, below, with its token
                response = make_response(view(*args, **kwargs))
            if response.status_code in (301, 302, 303) and response.location:
                idempotency.finish(held, response.status_code, None, response.location)
            elif change_waits():  # a change answered with a page: kept, with no place to
                idempotency.finish(held, response.status_code, None, None)  # send a repeat
            else:  # shown again with its errors: nothing saved; the page has a new token
                idempotency.release(held)
        except BaseException:
            idempotency.release(held)
            if session.get("_flashes", []) != flashed:  # nothing saved: say nothing of it
                session["_flashes"] = flashed
            raise
        return cast(Response, response)

    return cast(View, wrapper)
