"""The language switcher of every page (links at its foot): the choice is kept in a cookie
(signed out too) and, for a signed-in account, as the account's own (``users.locale``),
which its API answers follow as well."""
from __future__ import annotations

from flask import current_app, redirect, request, url_for
from flask.typing import ResponseReturnValue
from flask_login import current_user

from ..http.language import LANG_COOKIE
from ..services.accounts import set_locale
from . import bp
from .site import me, on_this_site

ONE_YEAR = 365 * 24 * 3600


def _back() -> str:
    """Where to go after switching: the page the switcher was on (a path of this site only),
    else the first page."""
    return on_this_site(request.args.get("next")) or url_for("web.index")


@bp.get("/language/<code>")
def language(code: str) -> ResponseReturnValue:
    """Switch to ``code`` and go back (a link, so that it works on every page, the read-only
    share view too; choosing a language changes nothing else)."""
    lang = code
    response = redirect(_back(), code=303)
    if lang not in current_app.config["LANGUAGES"]:
        return response
    if current_user.is_authenticated:
        set_locale(me(), lang)
    response.set_cookie(LANG_COOKIE, lang, max_age=ONE_YEAR, samesite="Lax",
                        secure=current_app.config.get("SESSION_COOKIE_SECURE", False),
                        httponly=True)
    return response
