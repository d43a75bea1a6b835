"""What every page shares: who is signed in, the reader's language, the template filters that
write amounts. (The security headers of every answer: :mod:`app.security`.)"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import flask_login
from flask import current_app, has_request_context, request
from flask_babel import get_locale
from flask_babel import gettext as _

from ..core.errors import TonkError
from ..extensions import db
from ..ledger import NotFoundError, SessionClosedError
from ..models import User
from .present import amount, score

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


def template_context() -> dict[str, Any]:
    return {"lang": str(get_locale() or "en")}


FILTERS = {"amount": amount, "score": score}


T = TypeVar("T")


def attempt(action: Callable[[], T]) -> tuple[T | None, TonkError | None]:
    """Run a change a page asked for; a domain error comes back (nothing stored, the
    transaction rolled back) to be shown beside its field. Not found and closed are not form
    errors: their handlers answer them. The one error-handling helper of every page."""
    try:
        return action(), None
    except (NotFoundError, SessionClosedError):
        raise
    except TonkError as exc:
        db.session.rollback()
        return None, exc
