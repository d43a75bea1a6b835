"""A night started on a phone with no signal, sent when the signal is back:
``PUT /api/v1/nights/{uid}/events`` takes its events in order, each once
(:func:`app.services.sessions.send_night`), and answers the night's session and its money as
the session's page shows it, for the phone to compare to the cent.

A refused event stops the list: the answer is its error (``{"error", "field"}``, the status
of the error) naming the ``event`` and what was taken before it, which stays. A list that
takes nothing (all of it held already, or refused at its first new event) changes nothing,
not even the session's revision.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Response, json, jsonify, url_for

from ..db.models import User
from ..extensions import db
from ..services import sessions
from ..services.leagues import session_table
from ..services.sessions import NightSent, money_of
from . import bp
from .auth import token_required
from .errors import known_error
from .routes import json_body, only_keys
from .sessions import ledger_json, session_json


@bp.put("/nights/<uid>/events")
@token_required
def send_night(user: User, uid: str) -> Response:
    data = json_body()
    only_keys(data, frozenset({"events"}), "a night's events")

    def table(started: Mapping[str, Any]) -> dict[str, Any]:
        return session_table(user, started)

    sent = sessions.send_night(user, uid, data.get("events"), table=table)
    if not sent.taken:  # nothing of the list is kept, not even the session's revision moved
        db.session.rollback()  # on by its lock (a tab that waited for another's send)
    about = _night_json(uid, sent)
    if sent.refused is None:
        response = jsonify(about)
        response.status_code = 201 if sent.created else 200
        if sent.created and sent.session is not None:
            response.headers["Location"] = about["url"]
        return response
    response = known_error(sent.refused.error)
    response.set_data(json.dumps({**about, **(response.get_json() or {}),
                                  "event": sent.refused.event, "index": sent.refused.index}))
    return response


def _night_json(uid: str, sent: NightSent) -> dict[str, Any]:
    """What the server holds of the night: the events taken now and those it had, how many
    it holds (the next to send is ``next``), and its session with its money, if started."""
    about: dict[str, Any] = {"night": uid, "taken": sent.taken, "already": sent.already,
                             "held": sent.held, "next": sent.held + 1}
    gs = sent.session
    if gs is None:
        return {**about, "session": None, "url": None}
    return {**about, "session": session_json(gs),
            "url": url_for("api.get_session", session_id=gs.id),
            "page": url_for("web.session", session_id=gs.id),
            "money": {name: m.to_json() for name, m in money_of(gs).items()},
            "ledger": ledger_json(gs)}
