"""Rate limits on what an attacker repeats: signing in, signing up, resetting a password
and making API tokens, each per client address and per account (Flask-Limiter; counted in
a SQLite file of the instance folder that a server's workers share by default
(:mod:`app.http.limit_store`), or in Redis or another store when ``RATELIMIT_STORAGE_URI``
is set, as it must be for several servers to count together).

Over a limit: 429 with ``Retry-After``, and a page (or, under ``/api/``, the API's JSON
error) that says when to try again. The limits are configuration (``TONK_LIMIT_*``)."""
from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from flask import Flask, Response, current_app, make_response, render_template, request
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from flask_login import current_user

from ..services.accounts import normal_email
from . import limit_store  # noqa: F401  (registers the tonk+sqlite:// store)
from .errors import error_response, is_api_request

F = TypeVar("F", bound=Callable[..., Any])

#: Its store is ``RATELIMIT_STORAGE_URI`` (``app.config``; the instance folder's
#: ``limits.sqlite`` unless set).
limiter = Limiter(key_func=get_remote_address, headers_enabled=False)  # Retry-After: too_many


def _configured(key: str) -> Callable[[], str]:
    return lambda: str(current_app.config[key])


def _email_key() -> str:
    """The account a sign-in or sign-up form names (an address that is not one counts
    as what was typed)."""
    typed = request.form.get("email", "")
    try:
        address = normal_email(typed)
    except ValueError:
        address = typed.strip().lower()[:254]
    return f"account:{address}"


def _reset_key() -> str:
    return f"reset:{(request.view_args or {}).get('token', '')[:200]}"


def _user_key() -> str:
    return f"user:{current_user.id}" if current_user.is_authenticated else \
        f"ip:{get_remote_address()}"


_ACCOUNT_KEYS: dict[str, Callable[[], str]] = {
    "SIGNIN": _email_key, "SIGNUP": _email_key, "RESET": _reset_key, "TOKEN": _user_key,
    "PASSWORD": _user_key,
}


#: The limits on passwords typed: a try that gets in is given back (it guessed nothing).
_GIVEN_BACK = ("SIGNIN", "PASSWORD")


def limited(name: str) -> Callable[[F], F]:
    """Decorate a view: each of its POSTs is a try that counts against ``name``'s limits per
    client address and per account. It is counted before the view runs (one atomic
    increment in the store, Redis's too), so tries sent at the same moment to several
    workers cannot all pass the limit before any of them is counted: thirty simultaneous
    passwords for one account get five checked, not thirty. A password typed to sign in
    or to change it that was right (the view redirects) is given back afterwards."""

    def wrap(view: F) -> F:
        per_account = limiter.limit(_configured(f"TONK_LIMIT_{name}_ACCOUNT"),
                                    key_func=_ACCOUNT_KEYS[name], methods=["POST"],
                                    scope=f"{name.lower()}-account")
        per_ip = limiter.limit(_configured(f"TONK_LIMIT_{name}_IP"), methods=["POST"],
                               scope=f"{name.lower()}-ip")
        if name not in _GIVEN_BACK:
            return cast(F, per_ip(per_account(view)))

        @functools.wraps(view)
        def giving_back(*args: Any, **kwargs: Any) -> Response:
            response = make_response(view(*args, **kwargs))
            if request.method == "POST" and response.status_code == 302:
                _give_back()
            return response

        return cast(F, per_ip(per_account(giving_back)))

    return wrap


def _give_back() -> None:
    """Take this request's try off each of its limits' counts (the fixed windows the
    limiter keeps: one atomic decrement each). Should a window end between the try and
    this, the next one starts a try ahead: no more than that."""
    if current_app.config.get("RATELIMIT_STRATEGY", "fixed-window") != "fixed-window":
        return  # another strategy keeps its tries otherwise: they stay counted
    for counted in limiter.current_limits:
        limiter.storage.incr(counted.key, counted.limit.get_expiry(), amount=-1)


def retry_after() -> int:
    """Seconds until the limit that was hit lets the next try in."""
    limit = limiter.current_limit
    if limit is None:
        return 60
    return max(1, int(limit.reset_at - time.time()))


def _too_many_page(message: str) -> Response:
    return Response(render_template(
        "not_changed.html", heading=_("Too many tries"), why=message,
        then=_('Nothing was changed. If this is your account and you have lost its password, '
               'whoever runs this server can give you a new link with "tonk user '
               'reset-password".')), 429)


def too_many(exc: RateLimitExceeded) -> Response:
    """429: when to try again, as a page or, under ``/api/``, as the API's JSON error."""
    seconds = retry_after()
    minutes = math.ceil(seconds / 60)
    when = (ngettext("in %(num)d second", "in %(num)d seconds", seconds) if seconds < 90
            else ngettext("in %(num)d minute", "in %(num)d minutes", minutes))
    message = _("Too many tries. To keep guessers out, try again %(when)s.", when=when)
    if is_api_request():

        response = error_response(message, 429)
    else:
        response = _too_many_page(message)
    response.headers["Retry-After"] = str(seconds)
    return response


def checks_busy() -> Response:
    """429 for a sign-in whose password was not checked because as many as a worker checks
    at once were being checked (:class:`app.services.accounts.ChecksBusy`): its try is
    given back, and the page says to try again in a second."""
    _give_back()
    message = _("Many passwords are being checked at this moment. Try again in a second.")
    response = _too_many_page(message)
    response.headers["Retry-After"] = "1"
    return response


@limiter.request_filter
def _reads() -> bool:
    """Every limit is on a POST: reading a page or polling the share view skips the
    limiter's per-request bookkeeping altogether."""
    return request.method in ("GET", "HEAD", "OPTIONS")


def init_app(app: Flask) -> None:
    limiter.init_app(app)
