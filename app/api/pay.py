"""Payment handles through the API: ``PUT /api/v1/sessions/{id}/players/{name}/pay``, and
the pay links each open transfer of a ledger carries (``pay``). :mod:`app.services.pay`
checks, keeps and makes them."""
from __future__ import annotations

from flask import Response, jsonify

from ..db.models import User
from ..services import sessions
from ..services.pay import set_handles
from . import bp
from .auth import token_required
from .routes import json_body


@bp.put("/sessions/<int:session_id>/players/<name>/pay")
@token_required
def put_pay(user: User, session_id: int, name: str) -> Response:
    """Keep the player's handles (all of them: one left out is no longer kept)."""
    gs = sessions.owned_session(user, session_id)
    return jsonify(set_handles(gs, name, json_body()).to_json())

