"""Version 2's settle-up part of a session's document, added to version 1's (a version 1
document reads as before: nothing undone, no debts, not archived)::

    "archived_at": time or null,
    "payments": [{..., "undone_at", "undone_by", "undo_reason"}]   (only when undone),
    "carried_debts": [{"from", "to", "amount", "at", "paid_at", "paid_by"}]

The settle-up plan is not carried: the importer makes it again from what remains
(:func:`plan_imported`), as the ledger would on the next change.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select

from ..core.money import from_minor, to_minor
from ..extensions import db
from ..ledger import parse_amount, session_rules
from ..models import CarriedDebt, GameSession, SessionPlayer
from ..settleup import keep_plan
from .common import MAX_BY, ExchangeError, iso, parse_time

#: (undone at, by whom, why) of a payment, or None: it counts.
Undo = tuple[datetime, str, str] | None
#: (payer seat, payee seat, amount in minor units, at, paid at, paid by).
Debt = tuple[int, int, int, datetime, datetime | None, str | None]


@dataclass(frozen=True, slots=True)
class SettlePart:
    """What version 2 adds to a session."""

    archived_at: datetime | None = None
    undone: list[Undo] = field(default_factory=list)
    debts: list[Debt] = field(default_factory=list)


# -- export ----------------------------------------------------------------------------------

def payment_extra(row: Any) -> dict[str, Any]:
    """The keys an undone payment adds (none for one that counts)."""
    if row.undone_at is None:
        return {}
    return {"undone_at": iso(row.undone_at), "undone_by": row.undone_by_name,
            "undo_reason": row.undo_reason}


def session_extras(ids: Sequence[int]) -> dict[int, list[tuple[str, Any]]]:
    """Each session's ``archived_at`` and ``carried_debts``, as key-value pairs."""
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
    out: dict[int, list[tuple[str, Any]]] = {}
    for i in ids:
        when = archived.get(i)
        out[i] = [("archived_at", iso(when) if when is not None else None),
                  ("carried_debts", debts[i])]
    return out


# -- checking --------------------------------------------------------------------------------

def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 500:
        raise ExchangeError(f"{what} must be some text (at most 500 characters)")
    return value


def parse_settle(doc: Mapping[str, Any], names: tuple[str, ...]) -> SettlePart:
    """The version 2 keys of a session (absent: as version 1)."""
    archived = doc.get("archived_at")
    undone: list[Undo] = []
    payments = doc.get("payments")
    for i, p in enumerate(payments if isinstance(payments, list) else [], 1):
        if isinstance(p, Mapping) and p.get("undone_at") is not None:
            undone.append((parse_time(p["undone_at"], f"payment {i}'s undone_at"),
                           _text(p.get("undone_by"), f"payment {i}'s undone_by")[:MAX_BY],
                           _text(p.get("undo_reason"), f"payment {i}'s undo_reason")))
        else:
            undone.append(None)
    debts: list[Debt] = []
    given = doc.get("carried_debts")
    if given is not None and not isinstance(given, list):
        raise ExchangeError("carried_debts must be a list")
    for i, d in enumerate(given or [], 1):
        if not isinstance(d, Mapping):
            raise ExchangeError(f"carried debt {i} must be a JSON object")
        payer, payee = d.get("from"), d.get("to")
        if payer not in names or payee not in names or payer == payee:
            raise ExchangeError(f"carried debt {i}: from and to must be two players at "
                                "this table")
        paid_at = d.get("paid_at")
        debts.append((names.index(payer), names.index(payee),
                      to_minor(parse_amount(d.get("amount"))),
                      parse_time(d.get("at"), f"carried debt {i}'s at"),
                      parse_time(paid_at, f"carried debt {i}'s paid_at")
                      if paid_at is not None else None,
                      _text(d.get("paid_by"), f"carried debt {i}'s paid_by")[:MAX_BY]
                      if paid_at is not None else None))
    return SettlePart(parse_time(archived, "archived_at") if archived is not None else None,
                      undone, debts)


def still_open(totals: Sequence[int], payments: Sequence[tuple[int, int, int, datetime]],
               part: SettlePart) -> list[int]:
    """What each seat still has open after the payments that count, less its debts."""
    still = list(totals)
    for k, (payer, payee, amount, _at) in enumerate(payments):
        if k >= len(part.undone) or part.undone[k] is None:
            still[payer] += amount
            still[payee] -= amount
    for payer, payee, amount, *_rest in part.debts:
        still[payer] += amount
        still[payee] -= amount
    return still


# -- writing ---------------------------------------------------------------------------------

def payment_rows(part: SettlePart, k: int) -> tuple[Any, Any, Any]:
    """The undo columns of the ``k``th payment."""
    undo = part.undone[k] if k < len(part.undone) else None
    return (None, None, None) if undo is None else undo


def plan_imported(session_ids: Sequence[int]) -> None:
    """Make the settle-up plan of each imported open session from what remains."""
    for start in range(0, len(session_ids), 500):
        for gs in db.session.scalars(select(GameSession).where(
                GameSession.id.in_(session_ids[start:start + 500]),
                GameSession.closed_at.is_(None))):
            keep_plan(gs, session_rules(gs).scoring)


def debt_rows(sid: int, pids: Sequence[int], part: SettlePart) -> list[tuple[Any, ...]]:
    return [(sid, pids[payer], pids[payee], amount, at, paid_at, paid_by)
            for payer, payee, amount, at, paid_at, paid_by in part.debts]


#: The columns :func:`debt_rows` fills, in order.
DEBT_COLUMNS = ("session_id", "payer_id", "payee_id", "amount_minor", "created_at", "paid_at",
                "paid_by_name")
PAYMENT_UNDO_COLUMNS = ("undone_at", "undone_by_name", "undo_reason")
