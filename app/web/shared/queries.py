"""Reading lists the pages page through (from the ``?page=`` asked for): an account's sessions
and a session's hands.

The ledger answers for one session or hand; these are the paged lists around them, so that
no page ever loads more than one page of rows.
"""
from __future__ import annotations

from typing import Any

from flask import request
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from ...db.models import (
    EventTable,
    GameSession,
    Hand,
    League,
    Player,
    PlayerSessionStat,
    Season,
    User,
)
from ...extensions import db
from ...services.leagues import Page, Window
from ...services.sessions import started_by

SESSIONS_PER_PAGE = 20
HANDS_PER_PAGE = 25

MAX_PAGE = 1_000_000  # far past any real night; keeps the database's OFFSET in range


def page_arg() -> int:
    """The ``?page=`` asked for, from 1 to :data:`MAX_PAGE`."""
    return min(max(1, request.args.get("page", 1, type=int) or 1), MAX_PAGE)


def sessions_page(user: User, page: int) -> Any:
    """One page of ``user``'s sessions not archived, open ones first, newest first, with
    their seats; a tournament's tables not (its director finds them on its page: two events
    put fifteen tables among a director's own nights)."""
    table = select(EventTable.id).where(EventTable.session_id == GameSession.id)
    stmt = (select(GameSession).where(started_by(user), GameSession.archived_at.is_(None),
                                      ~table.exists())
            .options(selectinload(GameSession.seats))
            .order_by(GameSession.closed_at.is_not(None), GameSession.created_at.desc(),
                      GameSession.id.desc()))
    return db.paginate(stmt, page=page, per_page=SESSIONS_PER_PAGE, error_out=False)


def hands_page(gs: GameSession, page: int) -> Any:
    """One page of a session's hands, newest first (voided ones too)."""
    stmt = (select(Hand).where(Hand.session_id == gs.id).order_by(Hand.number.desc()))
    return db.paginate(stmt, page=page, per_page=HANDS_PER_PAGE, error_out=False)


def player_sessions_page(league: League, player: Player, season: Season | None, scoring: str,
                         page: int) -> Any:
    """One page of the sessions a league member played (under ``scoring``, in ``season``),
    newest first, each with the player's record in it: the sessions behind the standings'
    "Sessions" number."""
    pss = PlayerSessionStat
    stmt = (select(pss.session_id, pss.net_minor, pss.hands, GameSession.name,
                   GameSession.created_at)
            .join(GameSession, GameSession.id == pss.session_id)
            .where(pss.league_id == league.id, pss.player_id == player.id,
                   pss.scoring == scoring, pss.hands > 0, *Window.of(season).where(pss.played_at))
            .order_by(pss.played_at.desc(), pss.session_id.desc()))
    total = db.session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
    rows = db.session.execute(stmt.limit(SESSIONS_PER_PAGE)
                              .offset((page - 1) * SESSIONS_PER_PAGE)).all()
    return Page(list(rows), total or 0, page, SESSIONS_PER_PAGE)
