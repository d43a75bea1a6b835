"""Reading lists the pages page through: an account's sessions and a session's hands.

The ledger answers for one session or hand; these are the paged lists around them, so that
no page ever loads more than one page of rows.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..ledger import started_by
from ..models import GameSession, Hand, User

SESSIONS_PER_PAGE = 20
HANDS_PER_PAGE = 25


def sessions_page(user: User, page: int) -> Any:
    """One page of ``user``'s sessions, open ones first, newest first, with their seats."""
    stmt = (select(GameSession).where(started_by(user))
            .options(selectinload(GameSession.seats))
            .order_by(GameSession.closed_at.is_not(None), GameSession.created_at.desc(),
                      GameSession.id.desc()))
    return db.paginate(stmt, page=page, per_page=SESSIONS_PER_PAGE, error_out=False)


def hands_page(gs: GameSession, page: int) -> Any:
    """One page of a session's hands, newest first (voided ones too)."""
    stmt = (select(Hand).where(Hand.session_id == gs.id).order_by(Hand.number.desc()))
    return db.paginate(stmt, page=page, per_page=HANDS_PER_PAGE, error_out=False)
