"""Personal-token authentication for the JSON API: ``Authorization: Bearer <token>``.

Only a bearer token signs an API call in, never the sign-in cookie of the pages: the API
blueprint is exempt from CSRF, so a cookie must not be enough to change a ledger.
:class:`~.errors.TokenError` is answered 401 with a ``WWW-Authenticate: Bearer``
challenge.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Concatenate, ParamSpec, TypeVar

from flask import g, request
from flask_babel import gettext as _
from flask_babel import refresh

from ..db.models import User
from ..db.unit import note
from ..services.accounts import note_token_use, token_use_due, user_for_token
from .errors import TokenError
from .idempotency import WRITES, idempotent

P = ParamSpec("P")
R = TypeVar("R")
MAX_TOKEN = 200  # personal tokens are 46 characters; anything far longer is not one


def bearer_token() -> str:
    """The token of the request's ``Authorization: Bearer`` header, or :class:`TokenError`."""
    header = request.headers.get("Authorization", "").strip()
    if not header:
        raise TokenError(_("sign in: send your personal token as "
                           "'Authorization: Bearer <token>'"), invalid=False)
    scheme, _sep, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise TokenError(_("the Authorization header must be 'Bearer <token>'"), invalid=True)
    return token


def token_user() -> User:
    """The account whose personal token signs this request, or :class:`TokenError`. The
    token's use is noted (once a minute) by the request's write boundary: a write's with its
    change, its key and its answer; a read's on its own."""
    token = bearer_token()
    writing = request.method in WRITES
    user = user_for_token(token, writing=writing) if len(token) <= MAX_TOKEN else None
    if user is None:
        raise TokenError(_("this token is not valid (mistyped or revoked): make a new one "
                           "on your account page"), invalid=True)
    g.token_user = user  # its language, for the answer (app.web.site.select_locale)
    refresh()
    return user


def token_required(view: Callable[Concatenate[User, P], R]) -> Callable[P, R]:
    """Decorate a view that needs a signed-in account; the view gets it as its first
    argument. A write runs inside the write boundary and honours ``Idempotency-Key``
    (:func:`~.idempotency.idempotent`)."""

    @wraps(view)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        user = token_user()
        if request.method not in WRITES:
            if token_use_due():
                note(note_token_use)
            return view(user, *args, **kwargs)

        def change() -> R:
            note_token_use()
            return view(user, *args, **kwargs)

        return idempotent(user, change)  # type: ignore[arg-type,return-value]

    return wrapper
