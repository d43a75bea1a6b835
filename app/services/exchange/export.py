"""Export: a league or one session as one JSON document, written as a stream of text
chunks (one session a line), read from the database a batch of sessions at a time."""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import IO, Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ...core.messages import Message
from ...core.money import from_minor, money_data
from ...db.ids import row_by_id
from ...db.models import (
    GameSession,
    Hand,
    HandVersion,
    League,
    Player,
    RulesChange,
    SeatChange,
    SessionPlayer,
    SettlePayment,
    User,
)
from ...extensions import db
from ..errors import NotFoundError
from ..sessions import is_league_admin, money_of
from .common import EXPORT_BATCH, FORMAT, VERSION, iso
from .settling import payment_extra, session_extras


class _Raw(str):
    """JSON text spliced into the document as it is (stored rules, hands and results)."""


def _json(value: Any) -> str:
    return value if isinstance(value, _Raw) else json.dumps(value)


def _obj(*pairs: tuple[str, Any]) -> str:
    return "{" + ", ".join(f"{json.dumps(k)}: {_json(v)}" for k, v in pairs) + "}"


def _array(items: Iterable[str]) -> _Raw:
    return _Raw("[" + ", ".join(items) + "]")


def may_export_league(user: User, league: League) -> bool:
    """Whoever runs a league (an admin; its owner always is one) may export it."""
    return is_league_admin(user, league.id)


def exportable_league(user: User, league_id: int) -> League:
    """The league ``league_id`` if ``user`` runs it, else :class:`NotFoundError`."""
    league = row_by_id(League, league_id)
    if league is None or not may_export_league(user, league):
        raise NotFoundError(Message("league.not_yours", league_id=league_id))
    return league


def league_session_ids(league: League) -> list[int]:
    """The league's sessions in the order they were played."""
    return list(db.session.scalars(select(GameSession.id).where(
        GameSession.league_id == league.id).order_by(GameSession.created_at, GameSession.id)))


def _league_json(league: League) -> str:
    members = sorted(db.session.execute(select(Player.name, Player.created_at).where(
        Player.league_id == league.id)), key=lambda m: (m.name.lower(), m.name))
    seasons = sorted(league.seasons, key=lambda s: (s.starts_on, s.ends_on, s.name))
    return _obj(
        ("uid", league.uid), ("name", league.name), ("created_at", iso(league.created_at)),
        ("currency", league.currency),
        ("stake", money_data(from_minor(league.stake_minor), league.currency)),
        ("rules", _Raw(league.rules_json)),
        ("side_bets", _Raw(league.side_bets_json or "{}")),
        ("seasons", [{"name": s.name, "starts_on": s.starts_on.isoformat(),
                      "ends_on": s.ends_on.isoformat()} for s in seasons]),
        ("members", [{"name": m.name, "joined_at": iso(m.created_at)} for m in members]))


def export_league(league: League) -> Iterator[str]:
    """The league and all its sessions as one JSON document, in chunks of text."""
    return _document(_league_json(league), league_session_ids(league))


def export_session(gs: GameSession) -> Iterator[str]:
    """One session as a JSON document (with its league, if it has one), in chunks of text."""
    league = db.session.get(League, gs.league_id) if gs.league_id is not None else None
    return _document(_league_json(league) if league is not None else None, [gs.id])


def write_document(chunks: Iterable[str], out: IO[str]) -> None:
    for chunk in chunks:
        out.write(chunk)


def _document(league: str | None, ids: Sequence[int]) -> Iterator[str]:
    yield (f'{{"format": "{FORMAT}", "version": {VERSION}, "league": {league or "null"},'
           f'\n"sessions": [')
    sep = "\n"
    for start in range(0, len(ids), EXPORT_BATCH):
        for session in _sessions_json(ids[start:start + EXPORT_BATCH]):
            yield sep + session
            sep = ",\n"
    yield "\n]}\n"


def grouped(stmt: Any) -> dict[Any, list[Any]]:
    """Rows grouped by their first column, in the statement's order."""
    groups: dict[Any, list[Any]] = defaultdict(list)
    for row in db.session.execute(stmt):
        groups[row[0]].append(row)
    return groups


def _sessions_json(ids: Sequence[int]) -> Iterator[str]:
    gs, sp, h, hv = GameSession, SessionPlayer, Hand, HandVersion
    sessions = {r.id: r for r in db.session.execute(select(
        gs.id, gs.uid, gs.name, gs.created_at, gs.closed_at, gs.currency, gs.stake_minor,
        gs.rules_json, gs.next_dealer, gs.side_bets_json, gs.pots_json)
        .where(gs.id.in_(ids)))}
    seats = grouped(select(sp.session_id, sp.name, sp.position, sp.left_at)
                     .where(sp.session_id.in_(ids)).order_by(sp.session_id, sp.seat))
    hands = grouped(select(h.session_id, h.id, h.number, h.voided)
                     .where(h.session_id.in_(ids)).order_by(h.session_id, h.number))
    versions = grouped(select(hv.hand_id, hv.version, hv.action, hv.created_at, hv.by_name,
                               hv.reason, hv.hand_json, hv.result_json)
                        .join(h, h.id == hv.hand_id).where(h.session_id.in_(ids))
                        .order_by(hv.hand_id, hv.version))
    payments = grouped(select(SettlePayment.session_id, SettlePayment.payer_seat,
                               SettlePayment.payee_seat, SettlePayment.amount_minor,
                               SettlePayment.created_at, SettlePayment.undone_at,
                               SettlePayment.undone_by_name, SettlePayment.undo_reason,
                               SettlePayment.by_name, SettlePayment.transfer_id)
                        .where(SettlePayment.session_id.in_(ids))
                        .order_by(SettlePayment.session_id, SettlePayment.id))
    changes = grouped(select(RulesChange.session_id, RulesChange.from_hand,
                              RulesChange.rules_json, RulesChange.stake_minor,
                              RulesChange.created_at)
                       .where(RulesChange.session_id.in_(ids))
                       .order_by(RulesChange.session_id, RulesChange.id))
    moves = grouped(select(SeatChange.session_id, SeatChange.hands, SeatChange.kind,
                           SeatChange.player, SeatChange.after, SeatChange.created_at)
                    .where(SeatChange.session_id.in_(ids))
                    .order_by(SeatChange.session_id, SeatChange.id))
    extras, along = session_extras(ids)  # version 2: archive, plans, undone, carried debts
    money = {g.id: money_of(g) for g in db.session.scalars(
        select(gs).where(gs.id.in_(ids)).options(selectinload(gs.seats)))}
    for session_id in ids:
        s = sessions[session_id]
        names = [seat.name for seat in seats[session_id]]
        of = money[session_id]
        hand_list = _array(
            _obj(("number", hand.number), ("voided", bool(hand.voided)),
                 ("versions", _array(
                     _obj(("version", v.version), ("action", v.action), ("at", iso(v.created_at)),
                          ("by", v.by_name), ("reason", v.reason), ("hand", _Raw(v.hand_json)),
                          ("result", _Raw(v.result_json)))
                     for v in versions[hand.id])))
            for hand in hands[session_id])
        yield _obj(
            ("uid", s.uid), ("name", s.name), ("played_at", iso(s.created_at)),
            ("closed_at", iso(s.closed_at) if s.closed_at is not None else None),
            ("currency", s.currency),
            ("stake", money_data(from_minor(s.stake_minor), s.currency)),
            ("rules", _Raw(s.rules_json)), ("players", names),
            ("seated", [seat.name for seat in sorted(
                (seat for seat in seats[session_id] if seat.left_at is None),
                key=lambda seat: seat.position)]),
            ("left", {seat.name: iso(seat.left_at) for seat in seats[session_id]
                      if seat.left_at is not None}),
            ("next_dealer", names[s.next_dealer] if names else None),
            ("side_bets", _Raw(s.side_bets_json or "{}")),
            ("pots", _pots(s.pots_json, s.side_bets_json, s.currency)),
            ("totals", {name: money_data(m.total, s.currency) for name, m in of.items()}),
            ("money", {name: m.to_json(partial(money_data, currency=s.currency))
                       for name, m in of.items()}),
            ("hands", hand_list),
            ("payments", [{"from": names[p.payer_seat], "to": names[p.payee_seat],
                           "amount": money_data(from_minor(p.amount_minor), s.currency),
                           "at": iso(p.created_at),
                           **payment_extra(p, along)}
                          for p in payments[session_id]]),
            ("rules_changes", _array(
                _obj(("from_hand", c.from_hand), ("rules", _Raw(c.rules_json)),
                     ("stake", money_data(from_minor(c.stake_minor), s.currency)),
                     ("at", iso(c.created_at)))
                for c in changes[session_id])),
            ("seat_changes", [{"hands": m.hands, "kind": m.kind, "player": m.player,
                               **({"after": m.after} if m.kind == "joined" else {}),
                               "at": iso(m.created_at)} for m in moves[session_id]]),
            *extras[session_id])


def _pots(pots_json: str | None, side_bets_json: str | None, currency: str | None
          ) -> dict[str, str]:
    """Money waiting in each pot, as decimal strings (what a reader sees; an import
    replays the hands' side bets to fill the pots again)."""
    held = {bet: sum(minor for _seat, minor in paid)
            for bet, paid in json.loads(pots_json or "{}").items()}
    bets = list(json.loads(side_bets_json or "{}")) + [b for b in held if b not in
                                                       json.loads(side_bets_json or "{}")]
    return {bet: money_data(from_minor(held.get(bet, 0)), currency) for bet in bets}
