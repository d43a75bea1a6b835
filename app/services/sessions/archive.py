"""Putting sessions away: archive one off the home page (and back), or delete one made by
mistake while it holds nothing (no hand, no payment). Archiving erases nothing; deleting is
refused once a session has anything in it.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import delete, exists, select
from sqlalchemy.orm import selectinload

from ...core.messages import Message
from ...db.models import (
    GameSession,
    PlannedTransfer,
    PlayerSessionStat,
    RulesChange,
    SettlePayment,
    User,
    utcnow,
)
from ...extensions import db
from ..errors import LedgerError, NotEmptyError
from .access import started_by
from .ledger import locked


def set_archived(gs: GameSession, archived: Any) -> GameSession:
    """Put the session away off the home page (``archived`` true) or bring it back."""
    if archived not in (True, False):
        raise LedgerError(Message("session.archived"), "archived")
    gs = locked(gs)
    gs.archived_at = utcnow() if archived else None
    db.session.flush()
    return gs


def delete_session(gs: GameSession) -> None:
    """Delete a session with no hand and no payment (one started by mistake)."""
    gs = locked(gs)
    paid = db.session.scalar(select(exists().where(SettlePayment.session_id == gs.id)))
    if gs.hand_count or paid:
        raise NotEmptyError(Message("session.not_empty"), "session")
    for table in (PlannedTransfer, RulesChange, PlayerSessionStat):
        db.session.execute(delete(table).where(table.session_id == gs.id))
    db.session.delete(gs)
    db.session.flush()


def archived_sessions_of(user: User) -> list[GameSession]:
    """The sessions ``user`` keeps and has archived, newest first."""
    return list(db.session.scalars(
        select(GameSession).where(started_by(user), GameSession.archived_at.is_not(None))
        .options(selectinload(GameSession.seats))
        .order_by(GameSession.created_at.desc(), GameSession.id.desc())))
