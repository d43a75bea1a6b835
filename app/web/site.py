"""What every page shares: who is signed in, the reader's language, the template filters that
write amounts, and the security headers of the HTML pages."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import flask_login
from flask import Response, current_app, has_request_context, request
from flask_babel import get_locale
from flask_babel import gettext as _

from ..models import User
from .present import amount, score

#: A strict policy: nothing from outside, no inline script. Pages work offline by design.
CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' data:; style-src 'self'; "
                           "script-src 'self'; object-src 'none'; base-uri 'none'; "
                           "form-action 'self'; frame-ancestors 'none'")


View = TypeVar("View", bound=Callable[..., Any])


def me() -> User:
    """The signed-in account."""
    return cast(User, flask_login.current_user._get_current_object())


def login_required(view: View) -> View:
    """Flask-Login's ``login_required``, typed: the view needs a signed-in account."""
    return cast(View, flask_login.login_required(view))


def select_locale() -> str | None:
    """English, German or Japanese, whichever the browser's Accept-Language prefers."""
    return request.accept_languages.best_match(current_app.config["LANGUAGES"])


def catalogue_translator(msg_id: str, template: str) -> str:
    """The hook of the core's message catalogue: a template in the reader's language, where
    Flask-Babel has a translation of it (outside a request, as written)."""
    return _(template) if has_request_context() else template


def page_headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def template_context() -> dict[str, Any]:
    return {"lang": str(get_locale() or "en")}


FILTERS = {"amount": amount, "score": score}
