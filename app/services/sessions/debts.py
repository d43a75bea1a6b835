"""Debts carried over: the transfers still open when a session was closed with its debts
carried over (``ledger.close_session(carry_over=True)``). They are listed on the players'
pages, the league's page and the scorekeeper's home until someone marks them paid (kept:
who and when).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import selectinload

from ...core.messages import Message
from ...core.money import from_minor
from ...db.ids import row_by_id
from ...db.models import CarriedDebt, GameSession, User, utcnow
from ...extensions import db
from ..errors import LedgerError, NotFoundError
from .access import keeps_score_of, started_by
from .ledger import locked
from .reading import rules_of


@dataclass(frozen=True)
class Debt:
    """One carried debt as the pages and the API show it."""

    id: int
    session_id: int
    session: str
    payer: str
    payee: str
    amount: Decimal
    currency: str
    scoring: str
    created_at: datetime
    paid_at: datetime | None
    paid_by: str | None


def _debt(row: CarriedDebt) -> Debt:
    gs = row.session
    return Debt(row.id, gs.id, gs.name, row.payer.name, row.payee.name,
                from_minor(row.amount_minor), gs.currency, rules_of(gs.rules_json).scoring,
                row.created_at, row.paid_at, row.paid_by_name)


def _query(*where: Any, unpaid: bool = True) -> list[Debt]:
    query = (select(CarriedDebt).join(GameSession, CarriedDebt.session_id == GameSession.id)
             .where(*where).options(selectinload(CarriedDebt.session),
                                    selectinload(CarriedDebt.payer),
                                    selectinload(CarriedDebt.payee))
             .order_by(CarriedDebt.created_at, CarriedDebt.id))
    if unpaid:
        query = query.where(CarriedDebt.paid_at.is_(None))
    return [_debt(row) for row in db.session.scalars(query)]


def debts_of_session(session_id: int) -> list[Debt]:
    """Every debt a session carried over, paid or not."""
    return _query(CarriedDebt.session_id == session_id, unpaid=False)


def open_debts_of(user: User) -> list[Debt]:
    """The unpaid debts of the sessions ``user`` keeps (the home page)."""
    return _query(started_by(user))


def open_debts_of_league(league_id: int) -> list[Debt]:
    return _query(GameSession.league_id == league_id)


def open_debts_of_player(player_id: int) -> list[Debt]:
    """A player's unpaid debts, owed or owing."""
    return _query((CarriedDebt.payer_id == player_id) | (CarriedDebt.payee_id == player_id))


def mark_paid(user: User, debt_id: int) -> Debt:
    """Mark a carried debt paid, by whoever keeps its session's score (who and when kept)."""
    row = row_by_id(CarriedDebt, debt_id)
    if row is None or not keeps_score_of(user, row.session.owner_id, row.session.league_id):
        raise NotFoundError(Message("debt.not_found", debt_id=debt_id))
    locked(row.session)  # the session's state moves on: its ledger shows the debt paid
    marked = db.session.execute(  # two taps at once: one marks it, the other is told
        update(CarriedDebt).where(CarriedDebt.id == debt_id, CarriedDebt.paid_at.is_(None))
        .values(paid_at=utcnow(), paid_by_name=user.name))
    db.session.flush()
    db.session.refresh(row)
    if not marked.rowcount:  # type: ignore[attr-defined]
        raise LedgerError(Message("debt.paid", name=row.paid_by_name), "debt")
    return _debt(row)
