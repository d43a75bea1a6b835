"""The language switcher of every page (buttons at its foot, a form that posts): the choice
is kept in a cookie (signed out too) and, for a signed-in account, as the account's own
(``users.locale``), which its API answers follow as well. Only a POST switches: a link or
an image elsewhere cannot change an account's language."""
from __future__ import annotations

from flask import current_app, redirect, request, url_for
from flask.typing import ResponseReturnValue
from flask_login import current_user

from ...db.unit import writes
from ...extensions import csrf
from ...http.language import LANG_COOKIE
from ...services.accounts import set_locale
from . import bp
from .site import me, on_this_site

ONE_YEAR = 365 * 24 * 3600


@bp.post("/language")
@writes
def language() -> ResponseReturnValue:
    """Switch to the language of the button pressed (``code``) and go back to the page the
    switcher was on (``next``, a path of this site; else the first page). Choosing a
    language changes nothing else."""
    lang = request.form.get("code", "")
    response = redirect(on_this_site(request.form.get("next")) or url_for("web.index"),
                        code=303)
    if lang not in current_app.config["LANGUAGES"]:
        return response
    if current_user.is_authenticated:
        if current_app.config["WTF_CSRF_ENABLED"]:
            csrf.protect()  # the account's own setting: only from a page of this site
        set_locale(me(), lang)
    response.set_cookie(LANG_COOKIE, lang, max_age=ONE_YEAR, samesite="Lax",
                        secure=current_app.config.get("SESSION_COOKIE_SECURE", False),
                        httponly=True)
    return response


# Signed out, the switch sets the reader's cookie only; its form carries no CSRF token then,
# which would give every reader of a share link a session cookie (and take their polls off
# the fast path of app.api.share). Signed in, the view checks the token itself.
csrf.exempt(language)
