"""The event endpoints of the JSON API (docs/api.md, its tournaments): set an event up, check
players in and out, draw and close rounds, read the standings and the prize list.

Thin: read the body, call :mod:`app.services.events`, answer JSON. Every write honours
``Idempotency-Key`` (``token_required``); errors are answered in ``errors.py``.
"""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from flask import Response, jsonify, url_for

from ..core.messages import Message
from ..core.money import from_minor, money_data
from ..core.placings import tie_break_words
from ..db.models import Event, EventRound, EventTable, GameSession, User
from ..services import events as service
from . import bp
from .auth import token_required
from .routes import created, json_body, only_keys

NEW_EVENT_FIELDS = frozenset({"name", "rules", "currency", "table_size", "rounds",
                              "hands_per_round", "entry_fee", "prizes", "league", "scoring",
                              "house_share", "stake", "held_on", "tie_breaks"})
KEEPER_PATH = "/t/{token}"  # the table's scorekeeping page (web.keeper), for the phone
BOARD_PATH = "/board/{token}"  # the TV leaderboard (web.board)


def _money(event: Event) -> Any:
    return lambda amount: money_data(Decimal(amount), event.currency)


def _points(event: Event) -> Any:
    return (lambda amount: str(amount)) if service.event_rules(
        event).scoring != "money" else _money(event)


def keeper_link(table: EventTable) -> str:
    return KEEPER_PATH.format(token=table.keeper_token)


def table_json(event: Event, table: EventTable) -> dict[str, Any]:
    gs = table.session
    return {"table": table.number, "session": gs.id,
            "players": [s.name for s in gs.seats], "dealer": gs.dealer,
            "link": keeper_link(table), "hands": gs.hand_count - gs.voided_hands,
            "done": service.table_done(event, table), "closed": gs.is_closed}


def round_json(event: Event, this: EventRound) -> dict[str, Any]:
    return {"round": this.number, "seed": this.seed, "closed": this.closed_at is not None,
            "forced": this.forced, "tables": [table_json(event, t) for t in this.tables]}


def event_json(event: Event) -> dict[str, Any]:
    """The event: its settings, players, rounds and state."""
    money = _money(event)
    payout = service.payout_of(event)
    playing = service.open_round(event)
    drawn = len(event.round_rows)
    if playing is not None:
        state = "playing"
    elif drawn >= event.rounds:
        state = "finished"
    else:
        state = "checking_in" if drawn == 0 else "between_rounds"
    return {
        "id": event.id, "name": event.name, "held_on": event.held_on.isoformat(),
        "rules": json.loads(event.rules_json), "scoring": service.event_rules(event).scoring,
        "currency": event.currency, "table_size": event.table_size, "rounds": event.rounds,
        "hands_per_round": event.hands_per_round, "entry_fee": money(from_minor(event.fee_minor)),
        "house_share": event.house_share,
        "prizes": [str(a) for a in payout.amounts] if payout.kind == "shares"
        else {"fixed": [money(a) for a in payout.amounts]},
        "tie_breaks": list(service.tie_breaks_of(event)),
        "league": event.league_id, "state": state,
        "players": [{"name": p.name, "paid": p.paid_minor > 0 or event.fee_minor == 0,
                     "withdrawn": p.withdrawn_after is not None} for p in event.players],
        "rounds_played": [round_json(event, r) for r in event.round_rows],
        "board": BOARD_PATH.format(token=event.board_token),
    }


def standings_json(event: Event) -> dict[str, Any]:
    fmt = _points(event)
    return {"standings": [
        {"place": s.place, "player": s.record.player, "total": fmt(s.record.total),
         "hands": s.record.hands, "rounds": [fmt(r) for r in s.record.rounds],
         "won": s.record.won, "caught": s.record.caught}
        for s in service.standings_of(event)],
        "tie_breaks": [str(w) for w in tie_break_words(service.tie_breaks_of(event))]}


def prizes_json(event: Event) -> dict[str, Any]:
    money = _money(event)
    prizes = service.prizes_of(event)
    return {"fees": money(prizes.fees), "house": money(prizes.house),
            "pool": money(prizes.pool), "currency": event.currency,
            "prizes": [{"place": p.place, "players": list(p.players),
                        "amount": money(p.amount)} for p in prizes.prizes],
            "rule": str(Message("prizes.rule"))}


def session_event(gs: GameSession) -> dict[str, Any]:
    """``{"event": id, "round": n}`` for a session that is an event's table, else nulls."""
    table = service.table_of_session(gs)
    if table is None:
        return {"event": None, "round": None}
    return {"event": table.round.event_id, "round": table.round.number,
            "table": table.number}


@bp.post("/events")
@token_required
def create_event(user: User) -> Response:
    data = json_body()
    only_keys(data, NEW_EVENT_FIELDS, "an event")
    event = service.create_event(user, **{k: data.get(k) for k in NEW_EVENT_FIELDS
                                          if k in data})
    return created(event_json(event), url_for("api.get_event", event_id=event.id))


@bp.get("/events")
@token_required
def list_events(user: User) -> Response:
    return jsonify([{"id": e.id, "name": e.name, "held_on": e.held_on.isoformat()}
                    for e in service.events_of(user)])


@bp.get("/events/<int:event_id>")
@token_required
def get_event(user: User, event_id: int) -> Response:
    return jsonify(event_json(service.owned_event(user, event_id)))


@bp.post("/events/<int:event_id>/players")
@token_required
def check_in(user: User, event_id: int) -> Response:
    event = service.owned_event(user, event_id)
    data = json_body()
    only_keys(data, frozenset({"name", "paid"}), "a check-in")
    service.check_in(event, data.get("name"), data.get("paid", False))
    return jsonify(event_json(service.owned_event(user, event_id)))


@bp.put("/events/<int:event_id>/players/<name>")
@token_required
def set_paid(user: User, event_id: int, name: str) -> Response:
    """``{"paid": true}``: the player's fee is paid (false: not yet)."""
    event = service.owned_event(user, event_id)
    data = json_body()
    only_keys(data, frozenset({"paid"}), "a player's fee")
    service.set_paid(event, name, data.get("paid"))
    return jsonify(event_json(service.owned_event(user, event_id)))


@bp.delete("/events/<int:event_id>/players/<name>")
@token_required
def withdraw(user: User, event_id: int, name: str) -> Response:
    event = service.owned_event(user, event_id)
    service.withdraw(event, name)
    return jsonify(event_json(service.owned_event(user, event_id)))


@bp.post("/events/<int:event_id>/rounds")
@token_required
def draw_round(user: User, event_id: int) -> Response:
    event = service.owned_event(user, event_id)
    data = json_body(required=False)
    only_keys(data, frozenset({"seed", "unpaid"}), "a draw")
    this = service.draw_next_round(event, user, data.get("seed"), data.get("unpaid"))
    event = service.owned_event(user, event_id)
    return created(round_json(event, service.get_round(event, this.number)),
                    url_for("api.get_event", event_id=event_id))


@bp.post("/events/<int:event_id>/rounds/<int:number>/close")
@token_required
def close_round(user: User, event_id: int, number: int) -> Response:
    event = service.owned_event(user, event_id)
    data = json_body(required=False)
    only_keys(data, frozenset({"force"}), "closing a round")
    service.close_round(event, number, data.get("force", False))
    event = service.owned_event(user, event_id)
    return jsonify(round_json(event, service.get_round(event, number)))


@bp.post("/events/<int:event_id>/rounds/<int:number>/tables/<int:table>/link")
@token_required
def replace_link(user: User, event_id: int, number: int, table: int) -> Response:
    """A new scorekeeping link for the table; the old one stops working at once."""
    event = service.owned_event(user, event_id)
    found = service.replace_keeper_link(event, number, table)
    return jsonify(table_json(service.owned_event(user, event_id), found))


@bp.get("/events/<int:event_id>/standings")
@token_required
def standings(user: User, event_id: int) -> Response:
    return jsonify(standings_json(service.owned_event(user, event_id)))


@bp.get("/events/<int:event_id>/prizes")
@token_required
def prizes(user: User, event_id: int) -> Response:
    return jsonify(prizes_json(service.owned_event(user, event_id)))
