"""``GET /api/v1/share/{token}``: the live state of a session for its read-only view, where
the share link is the credential (no account, nothing that changes anything).

Phones poll it every second or two: the ETag is the session's revision
(``app.services.sessions.live``), so an unchanged session answers 304 after reading one
indexed row, and a changed one answers a body made once per revision and language on each
worker.
"""
from __future__ import annotations

from typing import Any

from flask import Response, json, request
from flask_babel import get_locale

from ..core import PRESETS
from ..core.money import amount_formatter, takes_stake
from ..db.models import GameSession, Hand
from ..services.sessions import ledger
from ..services.sessions.live import Stamp, StateCache, last_hands, stamp_by_token
from . import bp
from .sessions import iso_time

#: Share bodies by (stamp, language): a few hundred tables' current states.
BODIES: StateCache[bytes] = StateCache(512)


def _hand(hand: Hand) -> dict[str, Any]:
    result = hand.result
    values = result.get("net") if result.get("net") is not None else result.get("pushed", {})
    return {"number": hand.number, "version": hand.version, "voided": hand.voided,
            "corrected": hand.version > 1 and not hand.voided,
            "multiplier": hand.data.get("multiplier", 1), "outcome": result["outcome"],
            "winners": result["winners"], "values": values}


def share_json(gs: GameSession, stamp: Stamp) -> dict[str, Any]:
    """What the read-only view shows: the session, its seats with their totals, who deals
    next, the counted hands, the last hands, the transfers still open, the pots, and when
    it last changed."""
    rules = ledger.session_rules(gs)
    fmt = amount_formatter(rules, gs.currency)
    state = ledger.ledger_of(gs)
    return {
        "session": {"name": gs.name, "rules": rules.preset,
                    "rules_title": str(PRESETS[rules.preset].title), "scoring": rules.scoring,
                    "stake": str(ledger.session_stake(gs)) if takes_stake(rules) else None,
                    "currency": gs.currency,
                    "closed": gs.is_closed, "closed_at": iso_time(gs.closed_at),
                    "created_at": iso_time(gs.created_at)},
        "seats": [{"seat": s.seat, "name": s.name, "total": fmt(state.totals[s.name]),
                   "seated": s.left_at is None} for s in gs.seats],
        "players": list(ledger.seated_names(gs)),
        "dealer": None if gs.is_closed else gs.dealer,
        "totals": {name: fmt(amount) for name, amount in state.totals.items()},
        "hands": state.hands,
        "voided_hands": gs.voided_hands,
        "last_hands": [_hand(h) for h in last_hands(gs)],
        "transfers": [{"from": t.payer, "to": t.payee, "amount": fmt(t.amount)}
                      for t in state.transfers],
        "pots": {bet: fmt(amount) for bet, amount in state.pots.items()},
        "revision": stamp.revision,
        "updated_at": iso_time(stamp.updated_at),
    }


def etag(stamp: Stamp) -> str:
    """The ETag of a state in the reader's language (the body's words follow it)."""
    return stamp.etag(str(get_locale() or "en"))


@bp.get("/share/<token>")
def share(token: str) -> Response:
    stamp = stamp_by_token(token, poll=True)  # one indexed row: enough for "unchanged"
    tag = etag(stamp)
    if request.if_none_match.contains(tag):
        response = Response(status=304)
    else:  # the body and its state read in one snapshot
        stamp = stamp_by_token(token)
        tag = etag(stamp)
        body = BODIES.get((tag, token), lambda: json.dumps(
            share_json(ledger.shared_session(token), stamp)).encode())
        response = Response(body, mimetype="application/json")
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-cache"  # keep it, but ask again every time
    response.vary.add("Accept-Language")
    return response
