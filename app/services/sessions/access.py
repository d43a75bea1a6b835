"""Who may keep a session: the one rule of who runs a league (its admins; its owner always
is one) and who keeps a session's score (a league session: the league's admins, decided
from the roles as they are at each request; any other: whoever started it), and the
sessions an account keeps. Pages, API, the live view and the other services ask here."""
from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ...db.models import GameSession, LeagueAdmin, User
from ...extensions import db


def is_league_admin(user: User, league_id: int | None) -> bool:
    """Whether ``user`` runs the league ``league_id`` now (is one of its admins; its owner
    always is): the one rule of who may run a league and keep its sessions' score."""
    return league_id is not None and db.session.get(LeagueAdmin, (league_id, user.id)) is not None


def keeps_score(user: User, gs: GameSession) -> bool:
    """Whether ``user`` keeps ``gs``'s score now, decided from the roles as they are at
    this request: a league session by the league's admins (whoever started it loses it
    with the role), any other by its owner."""
    return keeps_score_of(user, gs.owner_id, gs.league_id)


def keeps_score_of(user: User, owner_id: int, league_id: int | None) -> bool:
    """:func:`keeps_score` of a session known by its owner and league."""
    if league_id is not None:
        return is_league_admin(user, league_id)
    return owner_id == user.id


def kept_by(user_id: Any) -> Any:
    """:func:`keeps_score_of` as a condition on :class:`GameSession` (``user_id`` a value or
    a bound parameter), for a statement that must find only a session the account keeps:
    the lock of a change (another account's row is neither locked nor waited for)."""
    return (GameSession.league_id.is_(None) & (GameSession.owner_id == user_id)) | \
        GameSession.league_id.in_(select(LeagueAdmin.league_id).where(
            LeagueAdmin.user_id == user_id))


def started_by(user: User) -> Any:
    """The condition on :class:`GameSession` for the sessions ``user`` started and still
    keeps (for lists; :func:`keeps_score` for one session)."""
    runs = select(LeagueAdmin.league_id).where(LeagueAdmin.user_id == user.id)
    return (GameSession.owner_id == user.id) & (
        GameSession.league_id.is_(None) | GameSession.league_id.in_(runs))


def sessions_of(user: User) -> list[GameSession]:
    """The sessions ``user`` started and still keeps, newest first, with their seats."""
    return list(db.session.scalars(
        select(GameSession).where(started_by(user)).options(selectinload(GameSession.seats))
        .order_by(GameSession.created_at.desc(), GameSession.id.desc())))

