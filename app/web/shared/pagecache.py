"""Whole pages kept per state of a session: the session page and its share view are asked
for again and again by every phone at the table, and between two changes of the session
they are the same page.

A page is kept under a key that names the session's state (``app.services.sessions.live.Stamp``),
the reader's language, the signed-in account (or none) and whatever else the page depends on;
its per-request secrets are not kept: the CSRF token and each form's one-time token are
written into the kept page as marks (random per process, so no typed text can forge one)
and filled in afresh for every request. A page with something to flash is never kept.
"""
from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Hashable

from flask import g, get_flashed_messages
from flask import session as cookie  # Flask's signed cookie (its "session"), not a night
from flask_wtf.csrf import generate_csrf

from ...services.sessions import StateCache

PAGES: StateCache[str] = StateCache(512)
#: What a kept page holds where each request's own CSRF and one-time tokens go.
CSRF_MARK = "csrf-" + secrets.token_hex(16)
ONCE_MARK = "once-" + secrets.token_hex(16)
_MARKING = "tonk_marking_page"


#: A browser's signed CSRF token, by its raw one: signing it anew for every page costs more
#: than the rest of a kept page, and a token signed a minute ago is as good for an hour.
_SIGNED: StateCache[tuple[float, str]] = StateCache(4096)
RESIGN_AFTER = 60.0


def csrf_token() -> str:
    """Flask-WTF's CSRF token of this request (``generate_csrf``), signed at most once a
    minute per browser."""
    raw = cookie.get("csrf_token")
    if raw and "csrf_token" not in g:
        signed_at, token = _SIGNED.get(raw, lambda: (0.0, ""))
        if token and time.monotonic() - signed_at < RESIGN_AFTER:
            g.csrf_token = token
            return token
    token = generate_csrf()
    raw = cookie.get("csrf_token")
    if raw:
        _SIGNED.put(raw, (time.monotonic(), token))
    return str(token)


def marking() -> bool:
    """Whether a page to be kept is being rendered (one-time tokens are then marks)."""
    return bool(g.get(_MARKING))


def once_mark() -> str:
    return ONCE_MARK


def kept_page(key: Hashable, render: Callable[[], str]) -> str:
    """The page ``render`` makes, kept under ``key``, with this request's tokens in it."""
    if get_flashed_messages():  # (read once a request: the page shows them after this)
        return render()

    def make() -> str:
        setattr(g, _MARKING, True)
        try:
            html = render()
        finally:
            setattr(g, _MARKING, False)
        csrf = g.get("csrf_token")
        return html.replace(csrf, CSRF_MARK) if csrf else html

    html = PAGES.get(key, make)
    if CSRF_MARK in html:
        html = html.replace(CSRF_MARK, csrf_token())
    if ONCE_MARK in html:
        parts = html.split(ONCE_MARK)
        html = parts[0] + "".join(fresh_once() + part for part in parts[1:])
    return html


def fresh_once() -> str:
    """A new one-time form token (app.web.shared.form_tokens keeps what each one sent)."""
    return secrets.token_urlsafe(18)
