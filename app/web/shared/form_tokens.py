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
from flask_login import current_user
from werkzeug.wrappers import Response

from ...core.errors import TonkError
from ...db import idempotency
from ...db.unit import changed, once, take_back, unit_of_work
from .pagecache import fresh_once, marking, once_mark
from .site import back, me

FIELD = "once"
View = TypeVar("View", bound=Callable[..., Any])


def once_token() -> str:
    """A new one-time token for a form (a mark while a page to be kept is rendered: see
    :mod:`.pagecache`, which fills in a new token for every request)."""
    return once_mark() if marking() else fresh_once()


def once_per_form(view: View) -> View:
    """Carry out each sent form (by its one-time token) once, inside the write boundary
    (:mod:`app.db.unit`): the change, the token and where the form led commit together."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if request.method in ("GET", "HEAD"):
            return view(*args, **kwargs)
        token = request.form.get(FIELD, "")
        if not token:
            with unit_of_work():
                return view(*args, **kwargs)
        try:
            idempotency.check_key(token, FIELD)
        except TonkError as exc:
            return _refused(exc)
        flashed = list(session.get("_flashes", ()))
        try:
            done = once(_owner, "form:" + token, idempotency.fingerprint("form", request.path),
                        FIELD, lambda: make_response(view(*args, **kwargs)), _kept)
        except (idempotency.KeyReusedError, idempotency.InProgressError) as exc:
            return _refused(exc)
        except _SignedOut:  # the view sends them to sign in; nothing was changed
            take_back()
            return view(*args, **kwargs)
        except BaseException:
            if session.get("_flashes", []) != flashed:  # nothing saved: say nothing of it
                session["_flashes"] = flashed
            raise
        if isinstance(done, idempotency.Replay):
            flash(_("That was sent twice: it is saved once."), "info")
            return redirect(done.location or url_for("web.index"))
        return cast(Response, done)

    return cast(View, wrapper)


class _SignedOut(Exception):
    """The form was sent by no one signed in (and not through a table's link)."""


def _owner() -> int:
    """Whose the form's token is: the signed-in account, or a table link's director's (read
    once the write has begun: the view's own sign-in check then finds the account read)."""
    owner = g.get("form_owner")
    if owner is None:
        if not current_user.is_authenticated:
            raise _SignedOut
        owner = me()
    return int(owner.id)


def _refused(exc: TonkError) -> Response:
    take_back()
    flash(exc.message, "error")
    return redirect(back())


def _kept(response: Response) -> tuple[int, str | None, str | None] | None:
    """Where a form led, kept for a repeat: a redirect's place; a change answered with a page
    kept with no place to send a repeat; a form shown again with its errors, nothing (its
    token can be sent again; the page has a new one)."""
    if response.status_code in (301, 302, 303) and response.location:
        return response.status_code, None, response.location
    if changed():
        return response.status_code, None, None
    return None
