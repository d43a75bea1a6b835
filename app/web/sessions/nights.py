"""A night started on the phone with no signal: its page, and the door its events go through
when the signal is back.

The page (``/phone/nights/<uid>``) is one shell for every such night: the phone draws the
night from what it keeps (static/night.js, the core's fold in Pyodide), so the service worker
keeps the shell once and shows it for any night the phone starts offline. It holds the hand
fields and side-bet lines for any players and rules (filled in on the phone, as the dispute
checker's are), the house-rules form and the words the phone needs.

The door (``POST /phone/nights/<uid>/events``) is the API's ``PUT /api/v1/nights/<uid>/events``
for a phone signed in by cookie (CSRF token in ``X-CSRFToken``, as the outbox sends hands):
the same service (:func:`app.services.sessions.send_night`) takes each event once, so a send
cut halfway and sent again, or two tabs sending together, store nothing twice. The answer is
JSON: what was taken, what the server held already, the session's page and each player's
money by part, for the phone to compare to the cent; a refusal is 4xx ``{"error", "field"}``
with the refused ``event`` and its ``index``.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import jsonify, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_login import current_user

from ...core.errors import TonkError
from ...core.hand import MAX_PLAYERS
from ...core.rules import resolve_rules
from ...core.sidebets import BETS
from ...db.unit import take_back, unit_of_work
from ...http.errors import error_response
from ...services import sessions
from ...services.errors import status_of
from ...services.leagues import session_table
from ...services.sessions import NightSent, money_of
from ..shared import bp
from ..shared.fields import hand_fields_context, rules_context
from ..shared.forms import HandValues, RulesValues, picker_words, problem_words
from ..shared.sidebets import BET_TITLES, side_bet_lines
from ..shared.site import me


@bp.get("/phone/nights/<uid>")
def phone_night(uid: str) -> ResponseReturnValue:
    """The page of a night kept on the phone: the same shell for every night (the phone
    fills it in from what it keeps)."""
    fields = hand_fields_context(resolve_rules(None), [])
    seat_marks = [f"@@seat{i}@@" for i in range(MAX_PLAYERS)]
    return render_template(
        "sessions/phone_night.html", blank=HandValues(), **rules_context(RulesValues(), {}),
        seat_marks=seat_marks, bet_lines=side_bet_lines(dict.fromkeys(BETS, {"stake": 0}),
                                                        seat_marks, None),
        marked_config={"msg": picker_words("{max}", "{size}")},
        problem_words=problem_words(), bet_titles=BET_TITLES,
        **{k: v for k, v in fields.items() if k != "config"})


@bp.post("/phone/nights/<uid>/events")
def phone_night_events(uid: str) -> ResponseReturnValue:
    """Take a night's events sent from the phone (``{"events": [...]}``), each once."""
    if not current_user.is_authenticated:
        return _no_store(error_response(_("Sign in to send the night kept on this phone."),
                                        401))
    data = request.get_json(silent=True)
    if not isinstance(data, Mapping) or set(data) != {"events"}:
        return _no_store(error_response(_("Send the night's events as {\"events\": [...]}."),
                                        400, "events"))
    user = me()
    try:
        with unit_of_work():
            sent = sessions.send_night(user, uid, data["events"],
                                       table=lambda started: session_table(user, started))
            if not sent.taken:  # nothing kept: not even the session's revision moves
                take_back()
            about = _night_json(uid, sent)
    except TonkError as exc:
        return _no_store(error_response(exc.message, status_of(exc), exc.field))
    if sent.refused is None:
        response = jsonify(about)
        response.status_code = 201 if sent.created else 200
        return _no_store(response)
    error = sent.refused.error
    return _no_store(error_response(error.message, status_of(error), error.field, **about,
                                    event=sent.refused.event, index=sent.refused.index))


def _night_json(uid: str, sent: NightSent) -> dict[str, Any]:
    """What the server holds of the night, and its session's page and money by part."""
    about: dict[str, Any] = {"night": uid, "taken": sent.taken, "already": sent.already,
                             "held": sent.held, "next": sent.held + 1}
    gs = sent.session
    if gs is None:
        return {**about, "session": None, "page": None}
    return {**about, "session": gs.id, "page": url_for(".session", session_id=gs.id),
            "money": {name: m.to_json() for name, m in money_of(gs).items()}}


def _no_store(response: Any) -> Any:
    response.headers["Cache-Control"] = "no-store"
    return response
