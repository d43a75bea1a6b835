"""What every page shares: who is signed in, the reader's language, the template filters that
write amounts. (The security headers of every answer: :mod:`app.http.headers`.)"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit, urlunsplit

import flask_login
from babel.dates import get_datetime_format
from babel.numbers import get_decimal_symbol
from flask import current_app, flash, g, has_request_context, redirect, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import format_date, format_time, get_locale, pgettext

from ...core.errors import TonkError
from ...core.messages import join_and
from ...db.models import User
from ...db.unit import take_back
from ...http.language import browser_language
from ...services.errors import NotFoundError, SessionClosedError
from .present import amount, money, score

View = TypeVar("View", bound=Callable[..., Any])


def me() -> User:
    """The signed-in account."""
    return cast(User, flask_login.current_user._get_current_object())


def login_required(view: View) -> View:
    """Flask-Login's ``login_required``, typed: the view needs a signed-in account."""
    return cast(View, flask_login.login_required(view))


def on_this_site(target: str | None) -> str | None:
    """``target`` as a path of this site to send someone to, or None: a path, or a whole
    address on this very host (its path and query kept). Never another site (``//host``,
    ``http://other``, ``javascript:``), nor a line break or a backslash that a browser or
    the Location header would read otherwise."""
    if not target or not target.isprintable() or "\\" in target:
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        if parts.scheme not in ("http", "https") or parts.netloc != request.host:
            return None
        target = urlunsplit(("", "", parts.path or "/", parts.query, ""))
    if not target.startswith("/") or target.startswith("//"):
        return None
    return target


def back() -> str:
    """Where a refused form sends its sender: the page it came from (its Referer) when that
    is a page of this site, else the first page."""
    return on_this_site(request.referrer) or url_for("web.index")


def select_locale() -> str | None:
    """The reader's language: the account's choice, then the switcher's cookie, then
    whichever of English, German and Japanese the browser's Accept-Language prefers, then
    English (the API follows the same order; a token's account counts as signed in)."""
    languages = current_app.config["LANGUAGES"]
    if g.get("tonk_fault"):  # answering a database fault (app.http.faults): only what the
        # request loaded before it counts, and nothing is loaded for it
        loaded = [getattr(g.get(name), "__dict__", {}) for name in ("_login_user", "token_user")]
        chosen = next((d["locale"] for d in loaded if d.get("locale")), None)
    else:
        config, cookies = current_app.config, request.cookies
        signed_in = (config["SESSION_COOKIE_NAME"] in cookies
                     or config.get("REMEMBER_COOKIE_NAME", "remember_token") in cookies)
        user = flask_login.current_user if signed_in else None  # no cookie: no account
        chosen = getattr(user, "locale", None) if user and user.is_authenticated else None
        if chosen is None:
            chosen = getattr(g.get("token_user"), "locale", None)
    if chosen in languages:
        return str(chosen)
    return browser_language(request.cookies, request.accept_languages, languages)


def catalogue_translator(msg_id: str, template: str) -> str:
    """The hook of the core's message catalogue: a template in the reader's language, where
    Flask-Babel has a translation of it (the id is the message's context; outside a request,
    as written)."""
    if not has_request_context():
        return template
    # pgettext %-formats only with values given; the template's {name} stay for the core.
    return str(pgettext(msg_id, template))


def reader_locale() -> str:
    """The reader's language for the core's numbers in sentences (outside a request:
    English)."""
    return str(get_locale() or "en") if has_request_context() else "en"


#: The switcher's languages, each named in itself.
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "ja": "日本語"}


def template_context() -> dict[str, Any]:
    return {"lang": str(get_locale() or "en"), "language_names": LANGUAGE_NAMES}


def names(items: Any) -> str:
    """Names as a list in the reader's language (``Ann and Bob`` / ``Ann und Bob`` /
    ``Ann、Bob``): Babel's list pattern, not one glue word."""
    return str(join_and(items))


def when(moment: datetime) -> str:
    """A moment as every page writes it, in the reader's language and time zone: the date
    medium and the time short, joined as the language joins them ("Nov 28, 2026, 5:12 PM",
    „28.11.2026, 17:12“, 「2026/11/28 17:12」). A day alone is ``dateformat('medium')``; the
    phone's scripts write the same with Intl.DateTimeFormat (dateStyle medium, timeStyle
    short), so a time put in the phone's own zone reads like the server's."""
    joined = str(get_datetime_format("medium", locale=get_locale()))
    return joined.replace("{1}", format_date(moment, "medium")).replace(
        "{0}", format_time(moment, "short"))


def typed(text: str) -> str:
    """An amount as a form holds it to be typed in the reader's language: with a decimal
    comma on the German pages ("0,25", as they write amounts), which
    :func:`app.core.tableform.amount_text` reads back as the same amount."""
    sign = get_decimal_symbol(get_locale() or "en")
    return text.replace(".", sign) if sign != "." else text


def typed_list(amounts: list[str]) -> str:
    """Amounts a form holds as a list (a tournament's prizes): separated by semicolons where
    the reader writes a decimal comma ("0,5; 0,3; 0,2"), else by commas."""
    mark = get_decimal_symbol(get_locale() or "en")
    return ("; " if mark == "," else ", ").join(typed(a) for a in amounts)


FILTERS: dict[str, Callable[..., Any]] = {"amount": amount, "money": money, "score": score,
                                          "names": names, "when": when, "typed": typed}


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
        take_back()
        return None, exc


def form_change(action: Callable[[], object], refused: Callable[[TonkError], ResponseReturnValue],
                done: str | Callable[[], str], then: str) -> ResponseReturnValue:
    """A form's change, as most forms make one: :func:`attempt` ``action``; done, say
    ``done`` (or what it makes, once the change is made) and go on to ``then``; refused,
    ``refused`` answers with the form's page, the message beside its field."""
    _done, exc = attempt(action)
    if exc is not None:
        return refused(exc)
    flash(done if isinstance(done, str) else done(), "ok")
    return redirect(then)
