"""The session endpoints of the JSON API: start a session, record, correct and void hands,
read a hand's history, the ledger, settle-up payments, house-rule changes and closing.

Every endpoint needs a personal token (``auth.py``) and sees only the caller's own
sessions; another account's session is "not found". The views are thin: read the body,
call :mod:`app.services.sessions`, answer JSON. Errors are raised, and answered in
``errors.py``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from flask import Response, json, jsonify, url_for
from flask_babel import get_locale
from werkzeug.routing import BuildError

from ..core.errors import TonkError
from ..core.messages import Message
from ..core.money import CENT_PLACES, amount_formatter, currency_places, money_places
from ..core.restate import reworded, reworded_side_bets
from ..db.models import GameSession, Hand, User
from ..services import sessions
from ..services.leagues import session_table
from ..services.pay import session_handles, transfer_links
from ..services.sessions import (
    Debt,
    PaymentMade,
    StateCache,
    debts_of_session,
    mark_paid,
    open_debts_of,
    owned_stamp,
    set_archived,
)
from . import bp
from .auth import token_required
from .events import session_event
from .routes import created, json_body, only_keys

SHARE_PATH = "/s/{token}"  # the read-only page of a session (web.shared), for the table
TABLE_FIELDS = ("rules", "stake", "players")  # set by the session, not by each hand
NEW_SESSION_FIELDS = frozenset({"name", "players", "rules", "stake", "currency",
                                "first_dealer", "league", "side_bets"})
SEATS_FIELDS = frozenset({"join", "after", "leave"})
PAYMENT_FIELDS = {"from": "payer", "to": "payee", "amount": "amount"}


# -- reading the request ---------------------------------------------------------------------

# -- answers ---------------------------------------------------------------------------------

def iso_time(moment: datetime | None) -> str | None:
    """A stored time (aware UTC, :class:`app.db.types.UTCDateTime`) as ISO 8601."""
    return None if moment is None else moment.isoformat()


def _share_path(gs: GameSession) -> str:
    """The path of the session's read-only page: the pages' own route when it is there."""
    try:
        return url_for("web.shared", token=gs.share_token)
    except BuildError:
        return SHARE_PATH.format(token=gs.share_token)


def _stake(gs: GameSession) -> str | None:
    """The stake as the table plays it; push-ups play for none (null)."""
    rules = sessions.session_rules(gs)
    if rules.scoring == "push_ups":
        return None
    stake = sessions.session_stake(gs)
    return amount_formatter(rules, gs.currency)(stake) if currency_places(gs.currency) < \
        CENT_PLACES else str(stake)


def session_summary(gs: GameSession) -> dict[str, Any]:
    return {"id": gs.id, "name": gs.name, "players": list(sessions.seated_names(gs)),
            "currency": gs.currency, "closed": gs.is_closed,
            "hands": sessions.counted_hands(gs), "voided_hands": gs.voided_hands,
            "archived": gs.is_archived, "created_at": iso_time(gs.created_at)}


def session_json(gs: GameSession) -> dict[str, Any]:
    """A session: the players at the table in seat order, who left, who deals next, its
    rules, stake and side bets as stored, and the money in each pot."""
    fmt = amount_formatter(sessions.session_rules(gs), gs.currency)
    return {"id": gs.id, "name": gs.name, "players": list(sessions.seated_names(gs)),
            "left": [s.name for s in gs.seats if s.left_at is not None],
            "dealer": gs.dealer, "rules": gs.rules_spec,
            "scoring": sessions.session_rules(gs).scoring,
            "stake": _stake(gs), "currency": gs.currency,
            "side_bets": gs.side_bets_spec,
            "pots": {bet: fmt(amount) for bet, amount in sessions.pot_totals(gs).items()},
            "closed": gs.is_closed, "closed_at": iso_time(gs.closed_at),
            "hands": sessions.counted_hands(gs), "voided_hands": gs.voided_hands,
            "archived": gs.is_archived, "archived_at": iso_time(gs.archived_at),
            "share_url": _share_path(gs), "league": gs.league_id,
            "created_at": iso_time(gs.created_at), **session_event(gs)}


def _split(stored: Mapping[str, Any]) -> dict[str, Any]:
    """A stored hand → the hand as a client sends it (no table facts, so it can be sent
    back corrected), and the rules and stake it was settled under beside it."""
    hand = {k: v for k, v in stored.items() if k not in TABLE_FIELDS}
    return {"hand": hand, "rules": stored.get("rules"), "stake": stored.get("stake")}


def _worded(hand: Mapping[str, Any], result: Mapping[str, Any],
            currency: str | None = None) -> Mapping[str, Any]:
    """A stored result (in English, amounts with two places) with its words in the reader's
    language and its amounts with the currency's places (a yen table's ``5``, not
    ``5.00``)."""
    places = currency_places(currency)
    if places == CENT_PLACES:
        return result if str(get_locale() or "en") == "en" else reworded(hand, result)
    with money_places(places):
        out = reworded(hand, result)

    def fmt(value: Any) -> Any:
        try:
            return f"{Decimal(str(value)):.{places}f}"
        except InvalidOperation:
            return value

    if isinstance(out.get("net"), dict):
        out["net"] = {name: fmt(v) for name, v in out["net"].items()}
    if isinstance(out.get("payments"), list):
        out["payments"] = [{**p, "amount": fmt(p.get("amount"))} if isinstance(p, dict)
                           else p for p in out["payments"]]
    return out


def hand_json(hand: Hand) -> dict[str, Any]:
    """A hand's current version; its result adds how its side bets were settled (apart from
    the hand's own lines), if it had any."""
    result = dict(_worded(hand.data, hand.result, hand.session.currency))
    if hand.side_result_json not in ("", "[]"):
        scoring = sessions.rules_of(json.dumps(hand.data["rules"])).scoring
        result["side_bets"] = reworded_side_bets(hand.side_result, hand.session.side_bets_spec,
                                                 scoring)
    return {"number": hand.number, "version": hand.version, "voided": hand.voided,
            **_split(hand.data), "result": result}


def history_json(hand: Hand) -> list[dict[str, Any]]:
    """Every version of a hand, oldest first, with when, by whom and why."""
    return [{"version": v["version"], "action": v["action"],
             "at": iso_time(v["at"]), "by": v["by"],
             "reason": v["reason"], **_split(v["hand"]),
             "result": _worded(v["hand"], v["result"], hand.session.currency)}
            for v in sessions.history(hand)]


def payment_json(p: PaymentMade, fmt: Callable[[Decimal], str]) -> dict[str, Any]:
    return {"id": p.id, "from": p.payer, "to": p.payee, "amount": fmt(p.amount),
            "planned": p.planned, "at": iso_time(p.at), "by": p.by, "undone": p.undone,
            "undone_at": iso_time(p.undone_at), "undone_by": p.undone_by,
            "undo_reason": p.undo_reason}


def debt_json(d: Debt) -> dict[str, Any]:
    fmt = amount_formatter(d, d.currency)
    return {"id": d.id, "session": d.session_id, "session_name": d.session,
            "from": d.payer, "to": d.payee, "amount": fmt(d.amount), "currency": d.currency,
            "created_at": iso_time(d.created_at), "paid": d.paid_at is not None,
            "paid_at": iso_time(d.paid_at), "paid_by": d.paid_by}


def ledger_json(gs: GameSession) -> dict[str, Any]:
    """Totals, counted hands, the plan in force, the transfers still open, every payment
    (undone ones marked), what each player still has open, and any debts carried over."""
    state = sessions.ledger_of(gs)
    fmt = amount_formatter(sessions.session_rules(gs), gs.currency)
    transfers = [{"from": t.payer, "to": t.payee, "amount": fmt(t.amount)}
                 for t in state.transfers]
    handles = session_handles(gs)  # each open transfer: the payee's pay links (docs/api.md)
    open_ = [{**t, "pay": [link.to_json() for link in transfer_links(gs, handles, s.payee,
                                                                     s.amount)]}
             for t, s in zip(transfers, state.transfers, strict=True)]
    return {
        "totals": {name: fmt(amount) for name, amount in state.totals.items()},
        "hands": state.hands,
        "voided_hands": gs.voided_hands,
        "transfers": transfers,
        "open": open_,
        "plan": [{"from": t.payer, "to": t.payee, "amount": fmt(t.amount),
                  "paid": fmt(t.paid), "open": fmt(t.open)} for t in state.plan],
        "paid": [payment_json(p, fmt) for p in state.payments if not p.undone],
        "payments": [payment_json(p, fmt) for p in state.payments],
        "balances": {name: fmt(amount) for name, amount in state.open.items()},
        "all_paid": state.all_paid,
        "pots": {bet: fmt(amount) for bet, amount in state.pots.items()},
        "pot_returns": {name: fmt(amount) for name, amount in state.returns.items()},
        "carried_over": [debt_json(d) for d in debts_of_session(gs.id)]
        if gs.is_closed else [],
        "scoring": state.scoring,
        "currency": gs.currency,
    }


# -- sessions --------------------------------------------------------------------------------

@bp.post("/sessions")
@token_required
def create_session(user: User) -> Response:
    data = json_body()
    only_keys(data, NEW_SESSION_FIELDS, "a session")
    gs = sessions.create_session(  # in a league, its defaults fill in rules, stake, currency
        user, name=data.get("name"), players=data.get("players"),
        first_dealer=data.get("first_dealer"), **session_table(user, data))
    return created(session_json(gs), url_for("api.get_session", session_id=gs.id))


@bp.get("/sessions")
@token_required
def list_sessions(user: User) -> Response:
    return jsonify([session_summary(gs) for gs in sessions.sessions_of(user)])


@bp.get("/sessions/<int:session_id>")
@token_required
def get_session(user: User, session_id: int) -> Response:
    return jsonify(session_json(sessions.owned_session(user, session_id)))


@bp.post("/sessions/<int:session_id>/share")
@token_required
def replace_share(user: User, session_id: int) -> Response:
    """Revoke the session's share link and answer the session with its new one."""
    gs = sessions.owned_session(user, session_id)
    sessions.replace_share_link(gs)
    return jsonify(session_json(gs))


@bp.put("/sessions/<int:session_id>/rules")
@token_required
def change_rules(user: User, session_id: int) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    data = json_body()
    only_keys(data, frozenset({"rules", "stake"}), "a change of rules")
    if not data:
        raise TonkError(Message("api.rules_or_stake"), "rules")
    rules = data.get("rules")
    sessions.change_rules(gs, user, rules=gs.rules_spec if rules is None else rules,
                         stake=data.get("stake"))
    return jsonify(session_json(gs))


@bp.post("/sessions/<int:session_id>/close")
@token_required
def close_session(user: User, session_id: int) -> Response:
    """Close; ``{"carry_over": true}`` keeps what is still open as debts."""
    gs = sessions.owned_session(user, session_id, to_change=True)
    data = json_body(required=False)
    only_keys(data, frozenset({"carry_over"}), "closing a session")
    sessions.close_session(gs, data.get("carry_over", False))
    return jsonify(session_json(gs))


@bp.post("/sessions/<int:session_id>/seats")
@token_required
def change_seats(user: User, session_id: int) -> Response:
    """A player joins (at the dealer's right, or ``after`` a named player) or leaves."""
    gs = sessions.owned_session(user, session_id, to_change=True)
    data = json_body()
    only_keys(data, SEATS_FIELDS, "a change of seats")
    gs = sessions.change_seats(gs, user, join=data.get("join"), after=data.get("after"),
                            leave=data.get("leave"))
    return jsonify(session_json(gs))


@bp.post("/sessions/<int:session_id>/archive")
@token_required
def archive_session(user: User, session_id: int) -> Response:
    """``{"archived": true}`` puts the session away off the home page; false brings it back."""
    gs = sessions.owned_session(user, session_id, to_change=True)
    data = json_body()
    only_keys(data, frozenset({"archived"}), "archiving a session")
    return jsonify(session_json(set_archived(gs, data.get("archived", True))))


@bp.delete("/sessions/<int:session_id>")
@token_required
def delete_session(user: User, session_id: int) -> Response:
    """Delete a session with no hand and no payment; 409 once it has any."""
    gs = sessions.owned_session(user, session_id, to_change=True)
    sessions.delete_session(gs)
    return jsonify({"deleted": session_id})


# -- hands -----------------------------------------------------------------------------------

@bp.post("/sessions/<int:session_id>/hands")
@token_required
def record_hand(user: User, session_id: int) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    hand = sessions.record_hand(gs, user, json_body())
    return created(hand_json(hand), url_for("api.get_hand", session_id=gs.id,
                                             number=hand.number))


@bp.get("/sessions/<int:session_id>/hands/<int:number>")
@token_required
def get_hand(user: User, session_id: int, number: int) -> Response:
    return jsonify(hand_json(sessions.get_hand(sessions.owned_session(user, session_id), number)))


@bp.put("/sessions/<int:session_id>/hands/<int:number>")
@token_required
def correct_hand(user: User, session_id: int, number: int) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    sessions.get_hand(gs, number)
    data = json_body()
    reason, version = data.pop("reason", None), data.pop("version", None)
    return jsonify(hand_json(sessions.correct_hand(gs, user, number, data, reason, version)))


@bp.delete("/sessions/<int:session_id>/hands/<int:number>")
@token_required
def void_hand(user: User, session_id: int, number: int) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    sessions.get_hand(gs, number)
    data = json_body()
    only_keys(data, frozenset({"reason", "version"}), "voiding a hand")
    return jsonify(hand_json(sessions.void_hand(gs, user, number, data.get("reason"),
                                               data.get("version"))))


@bp.get("/sessions/<int:session_id>/hands/<int:number>/history")
@token_required
def hand_history(user: User, session_id: int, number: int) -> Response:
    gs = sessions.owned_session(user, session_id)
    return jsonify(history_json(sessions.get_hand(gs, number)))


# -- totals and settle-up --------------------------------------------------------------------

#: Ledger bodies by the session's state (app.services.sessions.live): made once per change,
#: per worker.
LEDGERS: StateCache[bytes] = StateCache(512)


@bp.get("/sessions/<int:session_id>/ledger")
@token_required
def get_ledger(user: User, session_id: int) -> Response:
    stamp, share_token = owned_stamp(user, session_id)  # one row while nothing changed
    body = LEDGERS.get((stamp.tag, share_token), lambda: json.dumps(
        ledger_json(sessions.owned_session(user, session_id))).encode())
    return Response(body, mimetype="application/json")


@bp.post("/sessions/<int:session_id>/payments")
@token_required
def record_payment(user: User, session_id: int) -> Response:
    gs = sessions.owned_session(user, session_id, to_change=True)
    data = json_body()
    only_keys(data, frozenset(PAYMENT_FIELDS), "a payment")
    for field, what in (("from", "who paid"), ("to", "who was paid"), ("amount", "how much")):
        if data.get(field) in (None, ""):
            raise TonkError(Message("api.payment_field", what=what),
                            field)
    try:
        sessions.record_payment(gs, user, data["from"], data["to"], data["amount"])
    except TonkError as exc:  # the ledger names payer/payee; the API says from/to
        exc.field = {v: k for k, v in PAYMENT_FIELDS.items()}.get(exc.field or "", exc.field)
        raise
    except InvalidOperation:  # an amount too large for two decimal places, like "1e999"
        raise TonkError(Message("api.payment_amount", value=repr(data['amount'])),
                        "amount") from None
    return jsonify(ledger_json(gs))


@bp.delete("/sessions/<int:session_id>/payments/<int:payment_id>")
@token_required
def undo_payment(user: User, session_id: int, payment_id: int) -> Response:
    """Undo a payment with a reason: it stays in the history, marked undone."""
    gs = sessions.owned_session(user, session_id, to_change=True)
    data = json_body()
    only_keys(data, frozenset({"reason"}), "undoing a payment")
    sessions.undo_payment(gs, user, payment_id, data.get("reason"))
    return jsonify(ledger_json(gs))


@bp.get("/debts")
@token_required
def list_debts(user: User) -> Response:
    """The unpaid debts carried over from the sessions the caller keeps."""
    return jsonify([debt_json(d) for d in open_debts_of(user)])


@bp.post("/debts/<int:debt_id>/paid")
@token_required
def mark_debt_paid(user: User, debt_id: int) -> Response:
    """Mark a carried debt paid (who and when are kept)."""
    return jsonify(debt_json(mark_paid(user, debt_id)))
