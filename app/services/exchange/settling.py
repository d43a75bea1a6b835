"""Version 2's settle-up part of a session's document, added to version 1's (a version 1
document reads as before: nothing undone, no debts, not archived)::

    "archived_at": time or null,
    "plans": [[{"from", "to", "amount"}, ...], ...]   (every plan, oldest first),
    "payments": [{..., "by", "transfer": [plan, transfer]}]   (who marked it; along a
                                                           planned transfer),
    "payments": [{..., "undone_at", "undone_by", "undo_reason"}]   (only when undone),
    "carried_debts": [{"from", "to", "amount", "at", "paid_at", "paid_by"}]

The importer keeps the plans and what was paid along them (:func:`write_plans`); a plan
that no longer settles what remains (a version 1 document has none) is made again from
what remains (:func:`plan_imported`), as the ledger would on the next change.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from ...core.messages import Message
from ...core.money import from_minor, to_minor
from ...db.models import CarriedDebt, GameSession, PlannedTransfer, SessionPlayer, SettlePayment
from ...extensions import db
from ..sessions import keep_plan, parse_amount, session_rules
from .common import MAX_BY, ExchangeError, field_of, iso, parse_time

#: (undone at, by whom, why) of a payment, or None: it counts.
Undo = tuple[datetime, str, str] | None
#: (payer seat, payee seat, amount in minor units, at, paid at, paid by).
Debt = tuple[int, int, int, datetime, datetime | None, str | None]
#: A planned transfer: (payer seat, payee seat, amount in minor units).
Planned = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class SettlePart:
    """What version 2 adds to a session."""

    archived_at: datetime | None = None
    undone: list[Undo] = field(default_factory=list)
    debts: list[Debt] = field(default_factory=list)
    plans: list[list[Planned]] = field(default_factory=list)
    along: list[tuple[int, int] | None] = field(default_factory=list)  # each payment's
    by: list[str | None] = field(default_factory=list)  # who marked each payment


# -- export ----------------------------------------------------------------------------------

def payment_extra(row: Any, along: Mapping[int, tuple[int, int]]) -> dict[str, Any]:
    """The keys a payment adds: the planned transfer it went along, and its undoing."""
    out: dict[str, Any] = {"by": row.by_name} if row.by_name else {}
    if row.transfer_id in along:
        out["transfer"] = list(along[row.transfer_id])
    if row.undone_at is not None:
        out.update({"undone_at": iso(row.undone_at), "undone_by": row.undone_by_name,
                    "undo_reason": row.undo_reason})
    return out


def session_extras(ids: Sequence[int]) -> tuple[dict[int, list[tuple[str, Any]]],
                                                dict[int, tuple[int, int]]]:
    """Each session's ``archived_at``, ``plans`` and ``carried_debts`` as key-value pairs;
    and where each planned transfer is in its plans (its id → [plan, transfer])."""
    archived: dict[int, datetime | None] = {
        i: when for i, when in db.session.execute(
            select(GameSession.id, GameSession.archived_at).where(GameSession.id.in_(ids)))}
    names = {(r.session_id, r.player_id): r.name for r in db.session.execute(select(
        SessionPlayer.session_id, SessionPlayer.player_id, SessionPlayer.name)
        .where(SessionPlayer.session_id.in_(ids)))}
    debts: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for d in db.session.scalars(select(CarriedDebt).where(CarriedDebt.session_id.in_(ids))
                                .order_by(CarriedDebt.id)):
        debts[d.session_id].append({
            "from": names[(d.session_id, d.payer_id)], "to": names[(d.session_id, d.payee_id)],
            "amount": str(from_minor(d.amount_minor)), "at": iso(d.created_at),
            "paid_at": iso(d.paid_at) if d.paid_at is not None else None,
            "paid_by": d.paid_by_name})
    plans: dict[int, list[list[dict[str, str]]]] = defaultdict(list)
    along: dict[int, tuple[int, int]] = {}
    for t in db.session.scalars(select(PlannedTransfer).where(
            PlannedTransfer.session_id.in_(ids)).order_by(
            PlannedTransfer.session_id, PlannedTransfer.plan, PlannedTransfer.id)):
        kept = plans[t.session_id]
        while len(kept) < t.plan:
            kept.append([])
        along[t.id] = (t.plan - 1, len(kept[t.plan - 1]))
        kept[t.plan - 1].append({"from": names[(t.session_id, t.payer_id)],
                                 "to": names[(t.session_id, t.payee_id)],
                                 "amount": str(from_minor(t.amount_minor))})
    out: dict[int, list[tuple[str, Any]]] = {}
    for i in ids:
        when = archived.get(i)
        out[i] = [("archived_at", iso(when) if when is not None else None),
                  ("plans", plans[i]), ("carried_debts", debts[i])]
    return out, along


# -- checking --------------------------------------------------------------------------------

def _text(value: Any, what: Message) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 500:
        raise ExchangeError(Message("import.text", what=what))
    return value


def parse_settle(doc: Mapping[str, Any], names: tuple[str, ...]) -> SettlePart:
    """The version 2 keys of a session (absent: as version 1)."""
    archived = doc.get("archived_at")
    undone: list[Undo] = []
    by: list[str | None] = []
    payments = doc.get("payments")
    for i, p in enumerate(payments if isinstance(payments, list) else [], 1):
        payment = Message("import.what.payment", number=i)
        by.append(_text(p["by"], field_of(payment, "by"))[:MAX_BY]
                  if isinstance(p, Mapping) and p.get("by") is not None else None)
        if isinstance(p, Mapping) and p.get("undone_at") is not None:
            undone.append((parse_time(p["undone_at"], field_of(payment, "undone_at")),
                           _text(p.get("undone_by"), field_of(payment, "undone_by"))[:MAX_BY],
                           _text(p.get("undo_reason"), field_of(payment, "undo_reason"))))
        else:
            undone.append(None)
    debts: list[Debt] = []
    given = doc.get("carried_debts")
    if given is not None and not isinstance(given, list):
        raise ExchangeError(Message("import.carried_debts"))
    for i, d in enumerate(given or [], 1):
        if not isinstance(d, Mapping):
            raise ExchangeError(Message("import.debt_object", number=i))
        payer, payee = d.get("from"), d.get("to")
        if payer not in names or payee not in names or payer == payee:
            raise ExchangeError(Message("import.debt_players", number=i))
        paid_at = d.get("paid_at")
        debt = Message("import.what.carried_debt", number=i)
        debts.append((names.index(payer), names.index(payee),
                      to_minor(parse_amount(d.get("amount"))),
                      parse_time(d.get("at"), field_of(debt, "at")),
                      parse_time(paid_at, field_of(debt, "paid_at"))
                      if paid_at is not None else None,
                      _text(d.get("paid_by"), field_of(debt, "paid_by"))[:MAX_BY]
                      if paid_at is not None else None))
    plans = _plans(doc.get("plans"), names)
    along: list[tuple[int, int] | None] = []
    for i, p in enumerate(payments if isinstance(payments, list) else [], 1):
        where = p.get("transfer") if isinstance(p, Mapping) else None
        if where is None:
            along.append(None)
            continue
        if (not isinstance(where, list) or len(where) != 2
                or not all(isinstance(n, int) and not isinstance(n, bool) for n in where)
                or not 0 <= where[0] < len(plans) or not 0 <= where[1] < len(plans[where[0]])
                or plans[where[0]][where[1]][:2] != (names.index(p.get("from")),
                                                     names.index(p.get("to")))):
            raise ExchangeError(Message("import.payment_transfer", number=i))
        along.append((where[0], where[1]))
    return SettlePart(parse_time(archived, "archived_at") if archived is not None else None,
                      undone, debts, plans, along, by)


def _plans(given: Any, names: tuple[str, ...]) -> list[list[Planned]]:
    if given is None:
        return []
    if not isinstance(given, list) or not all(isinstance(p, list) for p in given):
        raise ExchangeError(Message("import.plans"))
    plans: list[list[Planned]] = []
    for n, plan in enumerate(given, 1):
        kept: list[Planned] = []
        for t in plan:
            if (not isinstance(t, Mapping) or t.get("from") not in names
                    or t.get("to") not in names or t.get("from") == t.get("to")):
                raise ExchangeError(Message("import.plan_transfer", number=n))
            kept.append((names.index(t["from"]), names.index(t["to"]),
                         to_minor(parse_amount(t.get("amount")))))
        plans.append(kept)
    return plans


# -- writing ---------------------------------------------------------------------------------

def payment_rows(part: SettlePart, k: int) -> tuple[Any, ...]:
    """The :data:`PAYMENT_COLUMNS` of the ``k``th payment: its undoing, who marked it."""
    undo = part.undone[k] if k < len(part.undone) else None
    return (*((None, None, None) if undo is None else undo),
            part.by[k] if k < len(part.by) else None)


def write_plans(written: Sequence[tuple[int, Sequence[int], SettlePart]]) -> None:
    """Store each session's plans and link its payments along them: (session id, player ids
    by seat, its settle-up part) for the sessions just written, in the same transaction."""
    for sid, pids, part in written:
        if not part.plans:
            continue
        rows = [[PlannedTransfer(session_id=sid, plan=n, payer_id=pids[payer],
                                 payee_id=pids[payee], amount_minor=amount)
                 for payer, payee, amount in plan] for n, plan in enumerate(part.plans, 1)]
        db.session.add_all(r for plan in rows for r in plan)
        db.session.flush()
        db.session.execute(update(GameSession).where(GameSession.id == sid)
                           .values(plan_no=len(part.plans)))
        ids = list(db.session.scalars(select(SettlePayment.id).where(
            SettlePayment.session_id == sid).order_by(SettlePayment.id)))
        for pid, where in zip(ids, part.along, strict=False):
            if where is not None:
                db.session.execute(update(SettlePayment).where(SettlePayment.id == pid)
                                   .values(transfer_id=rows[where[0]][where[1]].id))


def plan_imported(session_ids: Sequence[int]) -> None:
    """Make the settle-up plan of each imported open session from what remains."""
    for start in range(0, len(session_ids), 500):
        for gs in db.session.scalars(select(GameSession).where(
                GameSession.id.in_(session_ids[start:start + 500]),
                GameSession.closed_at.is_(None))):
            keep_plan(gs, session_rules(gs).scoring)


def after_write(written: Sequence[tuple[int, Sequence[int], SettlePart]]) -> None:
    """After a batch of sessions is written: their plans kept (:func:`write_plans`), and
    made again where they do not settle what remains (:func:`plan_imported`)."""
    write_plans(written)
    plan_imported([sid for sid, _pids, _part in written])


#: The columns of a carried debt's row, in the order :mod:`.rows` fills them.
DEBT_COLUMNS = ("session_id", "payer_id", "payee_id", "amount_minor", "created_at", "paid_at",
                "paid_by_name")
PAYMENT_COLUMNS = ("undone_at", "undone_by_name", "undo_reason", "by_name")
