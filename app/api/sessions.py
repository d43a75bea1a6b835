"""The session endpoints of the JSON API: start a session, record, correct and void hands,
read a hand's history, the ledger, settle-up payments, house-rule changes and closing.

Every endpoint needs a personal token (``auth.py``) and sees only the caller's own
sessions; another account's session is "not found". The views are thin: read the body,
call :mod:`app.ledger`, answer JSON. Errors are raised, and answered in ``errors.py``.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import InvalidOperation
from typing import Any

from flask import Response, json, jsonify, url_for
from flask_babel import get_locale
from werkzeug.routing import BuildError

from .. import ledger as service
from ..core.errors import TonkError
from ..core.messages import Message
from ..core.money import amount_formatter
from ..core.reword import reworded
from ..leagues import session_table
from ..live import StateCache, owned_stamp
from ..models import GameSession, Hand, User
from . import bp
from .auth import token_required
from .routes import json_body

SHARE_PATH = "/s/{token}"  # the read-only page of a session (web.shared), for the table
TABLE_FIELDS = ("rules", "stake", "players")  # set by the session, not by each hand
NEW_SESSION_FIELDS = frozenset({"name", "players", "rules", "stake", "currency",
                                "first_dealer", "league"})
PAYMENT_FIELDS = {"from": "payer", "to": "payee", "amount": "amount"}


# -- reading the request ---------------------------------------------------------------------

def _only(data: Mapping[str, Any], allowed: frozenset[str], what: str) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise TonkError(Message("api.unknown_field", what=what, field_name=repr(unknown[0]),
                                fields=", ".join(sorted(allowed))), unknown[0])


# -- answers ---------------------------------------------------------------------------------

def _time(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC (SQLite hands back naive times that were stored as UTC)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def _share_path(gs: GameSession) -> str:
    """The path of the session's read-only page: the pages' own route when it is there."""
    try:
        return url_for("web.shared", token=gs.share_token)
    except BuildError:
        return SHARE_PATH.format(token=gs.share_token)


def session_summary(gs: GameSession) -> dict[str, Any]:
    return {"id": gs.id, "name": gs.name, "players": list(service.player_names(gs)),
            "currency": gs.currency, "closed": gs.is_closed, "hands": gs.hand_count,
            "created_at": _time(gs.created_at)}


def session_json(gs: GameSession) -> dict[str, Any]:
    """A session: players in seat order, who deals next, its rules and stake as stored."""
    names = service.player_names(gs)
    return {"id": gs.id, "name": gs.name, "players": list(names),
            "dealer": names[gs.next_dealer], "rules": gs.rules_spec,
            "scoring": service.session_rules(gs).scoring,
            "stake": str(service.session_stake(gs)), "currency": gs.currency,
            "closed": gs.is_closed, "closed_at": _time(gs.closed_at), "hands": gs.hand_count,
            "share_url": _share_path(gs), "league": gs.league_id,
            "created_at": _time(gs.created_at)}


def _split(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A stored hand → the hand as a client sends it (no table facts, so it can be sent
    back corrected), and the rules and stake it was settled under beside it."""
    hand = {k: v for k, v in stored.items() if k not in TABLE_FIELDS}
    return {"hand": hand, "rules": stored.get("rules"), "stake": stored.get("stake")}


def _worded(hand: Mapping[str, Any], result: Mapping[str, Any]) -> Mapping[str, Any]:
    """A stored result (in English) with its words in the reader's language."""
    return result if str(get_locale() or "en") == "en" else reworded(hand, result)


def hand_json(hand: Hand) -> dict[str, Any]:
    """A hand's current version."""
    return {"number": hand.number, "version": hand.version, "voided": hand.voided,
            **_split(hand.data), "result": _worded(hand.data, hand.result)}


def history_json(hand: Hand) -> list[dict[str, Any]]:
    """Every version of a hand, oldest first, with when, by whom and why."""
    return [{"version": v["version"], "action": v["action"],
             "at": _time(datetime.fromisoformat(v["at"])), "by": v["by"],
             "reason": v["reason"], **_split(v["hand"]),
             "result": _worded(v["hand"], v["result"])}
            for v in service.history(hand)]


def ledger_json(gs: GameSession) -> dict[str, Any]:
    """Totals, counted hands, the transfers still open, what was paid, and what is open."""
    state = service.ledger(gs)
    fmt = amount_formatter(service.session_rules(gs))
    return {
        "totals": {name: fmt(amount) for name, amount in state.totals.items()},
        "hands": state.hands,
        "transfers": [{"from": t.payer, "to": t.payee, "amount": fmt(t.amount)}
                      for t in state.transfers],
        "paid": [{"from": payer, "to": payee, "amount": fmt(amount)}
                 for payer, payee, amount in state.paid],
        "open": {name: fmt(amount) for name, amount in state.open.items()},
        "all_paid": state.all_paid,
        "scoring": state.scoring,
        "currency": gs.currency,
    }


def _created(body: dict[str, Any], location: str) -> Response:
    response = jsonify(body)
    response.status_code = 201
    response.headers["Location"] = location
    return response


# -- sessions --------------------------------------------------------------------------------

@bp.post("/sessions")
@token_required
def create_session(user: User) -> Response:
    data = json_body()
    _only(data, NEW_SESSION_FIELDS, "a session")
    gs = service.create_session(  # in a league, its defaults fill in rules, stake, currency
        user, name=data.get("name"), players=data.get("players"),
        first_dealer=data.get("first_dealer"), **session_table(user, data))
    return _created(session_json(gs), url_for("api.get_session", session_id=gs.id))


@bp.get("/sessions")
@token_required
def list_sessions(user: User) -> Response:
    return jsonify([session_summary(gs) for gs in service.sessions_of(user)])


@bp.get("/sessions/<int:session_id>")
@token_required
def get_session(user: User, session_id: int) -> Response:
    return jsonify(session_json(service.owned_session(user, session_id)))


@bp.post("/sessions/<int:session_id>/share")
@token_required
def replace_share(user: User, session_id: int) -> Response:
    """Revoke the session's share link and answer the session with its new one."""
    gs = service.owned_session(user, session_id)
    service.replace_share_link(gs)
    return jsonify(session_json(gs))


@bp.put("/sessions/<int:session_id>/rules")
@token_required
def change_rules(user: User, session_id: int) -> Response:
    gs = service.owned_session(user, session_id)
    data = json_body()
    _only(data, frozenset({"rules", "stake"}), "a change of rules")
    if not data:
        raise TonkError(Message("api.rules_or_stake"), "rules")
    rules = data.get("rules")
    service.change_rules(gs, user, rules=gs.rules_spec if rules is None else rules,
                         stake=data.get("stake"))
    return jsonify(session_json(gs))


@bp.post("/sessions/<int:session_id>/close")
@token_required
def close_session(user: User, session_id: int) -> Response:
    gs = service.owned_session(user, session_id)
    service.close_session(gs)
    return jsonify(session_json(gs))


# -- hands -----------------------------------------------------------------------------------

@bp.post("/sessions/<int:session_id>/hands")
@token_required
def record_hand(user: User, session_id: int) -> Response:
    gs = service.owned_session(user, session_id)
    hand = service.record_hand(gs, user, json_body())
    return _created(hand_json(hand), url_for("api.get_hand", session_id=gs.id,
                                             number=hand.number))


@bp.get("/sessions/<int:session_id>/hands/<int:number>")
@token_required
def get_hand(user: User, session_id: int, number: int) -> Response:
    return jsonify(hand_json(service.get_hand(service.owned_session(user, session_id), number)))


@bp.put("/sessions/<int:session_id>/hands/<int:number>")
@token_required
def correct_hand(user: User, session_id: int, number: int) -> Response:
    gs = service.owned_session(user, session_id)
    service.get_hand(gs, number)
    data = json_body()
    reason, version = data.pop("reason", None), data.pop("version", None)
    return jsonify(hand_json(service.correct_hand(gs, user, number, data, reason, version)))


@bp.delete("/sessions/<int:session_id>/hands/<int:number>")
@token_required
def void_hand(user: User, session_id: int, number: int) -> Response:
    gs = service.owned_session(user, session_id)
    service.get_hand(gs, number)
    data = json_body()
    _only(data, frozenset({"reason", "version"}), "voiding a hand")
    return jsonify(hand_json(service.void_hand(gs, user, number, data.get("reason"),
                                               data.get("version"))))


@bp.get("/sessions/<int:session_id>/hands/<int:number>/history")
@token_required
def hand_history(user: User, session_id: int, number: int) -> Response:
    return jsonify(history_json(service.get_hand(service.owned_session(user, session_id), number)))


# -- totals and settle-up --------------------------------------------------------------------

#: Ledger bodies by the session's state (app.live): made once per change, per worker.
LEDGERS: StateCache[bytes] = StateCache(512)


@bp.get("/sessions/<int:session_id>/ledger")
@token_required
def get_ledger(user: User, session_id: int) -> Response:
    stamp, share_token = owned_stamp(user, session_id)  # one row while nothing changed
    body = LEDGERS.get((stamp.tag, share_token), lambda: json.dumps(
        ledger_json(service.owned_session(user, session_id))).encode())
    return Response(body, mimetype="application/json")


@bp.post("/sessions/<int:session_id>/payments")
@token_required
def record_payment(user: User, session_id: int) -> Response:
    gs = service.owned_session(user, session_id)
    data = json_body()
    _only(data, frozenset(PAYMENT_FIELDS), "a payment")
    for field, what in (("from", "who paid"), ("to", "who was paid"), ("amount", "how much")):
        if data.get(field) in (None, ""):
            raise TonkError(Message("api.payment_field", what=what),
                            field)
    try:
        service.record_payment(gs, user, data["from"], data["to"], data["amount"])
    except TonkError as exc:  # the ledger names payer/payee; the API says from/to
        exc.field = {v: k for k, v in PAYMENT_FIELDS.items()}.get(exc.field or "", exc.field)
        raise
    except InvalidOperation:  # an amount too large for two decimal places, like "1e999"
        raise TonkError(Message("api.payment_amount", value=repr(data['amount'])),
                        "amount") from None
    return jsonify(ledger_json(gs))
