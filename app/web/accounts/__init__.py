"""Accounts on the web: sign up, sign in, sign out, and the account page with personal API
tokens. The accounts themselves live in :mod:`app.services.accounts`."""
from __future__ import annotations

from pathlib import Path

from flask import Blueprint, flash, redirect, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from ...db.models import User
from ...services.accounts import signed_in_user

bp = Blueprint("auth", __name__)  # the name it had as app.auth: its endpoints are auth.<view>
TEMPLATES = Path(__file__).parent / "templates"


def load_user(user_id: str) -> User | None:
    """Flask-Login's user loader: the account behind a sign-in cookie (the session's or
    the remember-me one), while its sign-in lasts: checked on every request."""
    return signed_in_user(user_id)


def unauthorized() -> ResponseReturnValue:
    """A page that needs an account: off to sign in, and back here afterwards."""
    flash(_("Sign in to see that page."), "info")
    here = request.full_path if request.query_string else request.path
    return redirect(url_for("auth.signin", next=here))


from . import pages as pages  # noqa: E402  (registers the views on bp)
