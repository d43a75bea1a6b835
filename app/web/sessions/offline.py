"""The app on the phone: its manifest (so it can be put on the home screen), its service
worker (served at ``/sw.js`` so that its scope is the whole site), the page shown for a page
the phone never opened while there is no signal, and the two requests the phone's outbox
makes when the signal is back: a fresh CSRF token, and a hand recorded offline.

A hand recorded offline is sent as the record form would have sent it, with the one-time
token made on the phone when Save was pressed as its key (``once``): the same key as the
form's own, so a hand is stored once whether the form itself got through, the reply to it
was lost, or the outbox sends it again, however often. The answer is JSON, for the outbox
to mark the hand sent or "needs you" with the server's reason.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import jsonify, render_template, request, send_from_directory, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_login import current_user

from ...core.errors import TonkError
from ...db import idempotency
from ...db.unit import once, take_back
from ...services.errors import NotFoundError, SessionClosedError
from ...services.sessions import record_hand, session_rules
from ..shared import bp
from ..shared.form_tokens import FIELD
from ..shared.pagecache import csrf_token
from ..shared.site import me
from .pages import open_session, save_hand

STATIC = Path(__file__).resolve().parents[2] / "static"  # the app's (this is app/web/sessions/)
THEME = "#1f5130"


@bp.get("/manifest.webmanifest")
def manifest() -> ResponseReturnValue:
    """The web app manifest, in the reader's language."""
    icons = [{"src": url_for("static", filename=f"icons/icon-{size}.png"),
              "sizes": f"{size}x{size}", "type": "image/png", "purpose": "any"}
             for size in (192, 512)]
    icons.append({"src": url_for("static", filename="icons/maskable-512.png"),
                  "sizes": "512x512", "type": "image/png", "purpose": "maskable"})
    response = jsonify({
        "name": _("Tonk Tally"), "short_name": _("Tonk Tally"),
        "description": _("Keep score of a Tonk night and settle up, with or without signal."),
        "start_url": "/", "scope": "/", "display": "standalone",
        "theme_color": THEME, "background_color": "#ffffff", "icons": icons})
    response.mimetype = "application/manifest+json"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/sw.js")
def service_worker() -> ResponseReturnValue:
    """The service worker, from the site's root so that it looks after every page."""
    response = send_from_directory(STATIC, "sw.js", mimetype="text/javascript",
                                   max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/offline")
def offline() -> ResponseReturnValue:
    """What the phone shows for a page it never opened while there is no signal (the
    service worker keeps it at install)."""
    return render_template("sessions/offline.html")


@bp.get("/outbox/token")
def outbox_token() -> ResponseReturnValue:
    """A fresh CSRF token for the outbox's sends, and whose outbox may send (a phone offline
    for days holds an expired token)."""
    if not current_user.is_authenticated:
        return jsonify(error=_("Sign in to send the hands kept on this phone.")), 401
    response = jsonify(csrf=csrf_token(), account=me().id)
    response.headers["Cache-Control"] = "no-store"
    return response


def _answer(status: int, **body: Any) -> ResponseReturnValue:
    response = jsonify(body)
    response.headers["Cache-Control"] = "no-store"
    return response, status


@bp.post("/sessions/<int:session_id>/hands/sent")
def outbox_hand(session_id: int) -> ResponseReturnValue:
    """Record a hand the phone kept (its form fields, CSRF token in ``X-CSRFToken``): 201
    with its number; the same key again: 200 with where it went, nothing stored twice; a
    refusal: 4xx ``{"error", "field"}`` (the session closed, a player left, …)."""
    if not current_user.is_authenticated:
        return _answer(401, error=_("Sign in to send the hands kept on this phone."),
                       field=None)
    key = request.form.get(FIELD, "")
    record_path = url_for(".record", session_id=session_id)
    try:
        idempotency.check_key(key, FIELD)
        done = once(lambda: me().id, "form:" + key,
                    idempotency.fingerprint("form", record_path), FIELD,
                    lambda: _recorded(session_id), _kept)
    except TonkError as exc:
        if exc.field != FIELD:
            raise
        take_back()
        return _answer(422, error=exc.message, field=exc.field)
    if isinstance(done, idempotency.Replay):
        return _answer(200, replayed=True, location=done.location)
    return _answer(done[0], **done[1])


def _recorded(session_id: int) -> tuple[int, dict[str, Any]]:
    """Record the sent hand: the answer's status and body (a refusal's too: it is rolled
    back, and its key can be sent again)."""
    try:
        gs = open_session(session_id)
        rules = session_rules(gs)
        _values, errors, hand, _exc = save_hand(gs, rules,
                                                lambda data: record_hand(gs, me(), data))
    except NotFoundError:
        return 404, {"error": _("This session is not yours or no longer exists."),
                     "field": None}
    except SessionClosedError:
        return 409, {"error": _("This session is closed: nothing in it can change any more."),
                     "field": "session"}
    if hand is None:
        field, message = next(iter(errors.items()))
        return 422, {"error": message, "field": field, "errors": errors}
    location = url_for(".hand", session_id=session_id, number=hand.number)
    return 201, {"number": hand.number, "location": location}


def _kept(done: tuple[int, dict[str, Any]]) -> tuple[int, str | None, str | None] | None:
    """A hand recorded is kept for a repeat, as where it went; a refusal is not."""
    status, body = done
    return (303, None, body["location"]) if status == 201 else None
