"""Seats that change during a session: a player joins (at the dealer's right, so dealing
last in the rotation, or after a named player) or leaves, and may come back.

A :class:`~app.db.models.SessionPlayer` row is never removed: its ``seat`` is the player's
identity in the session (hands' nets, payments and pots are kept by it), ``position`` where
they sit now, ``left_at`` whether they are away. Each hand keeps the players it was played
with (its own ``players``); a leaver's total stays in the ledger and in settle-up. What a
leaver has in a side bet's pot goes back to them as they leave (the core's night): their
settle-up is final, whatever later deals do. Runs under the session's lock like every change
of a session (:func:`app.services.sessions.ledger.locked`).
"""
from __future__ import annotations

from typing import Any

from ...core.messages import Message, in_english
from ...core.names import name_key, seat_name
from ...core.night import apply
from ...db.models import GameSession, SeatChange, SessionPlayer, User, utcnow
from ...extensions import db
from ..errors import LedgerError
from .kept import keep, night_from
from .ledger import check_open, locked, player_named
from .settleup import keep_plan


def _find(seats: list[SessionPlayer], name: str) -> SessionPlayer | None:
    key = name_key(name)
    return next((s for s in seats if name_key(s.name) == key), None)


def _name(value: Any, field: str) -> str:
    return seat_name(value, field, LedgerError)


def change_seats(gs: GameSession, user: User, *, join: Any = None, after: Any = None,
                 leave: Any = None) -> GameSession:
    """``join`` a player (a new one, or one who left) at the dealer's right, or ``after`` a
    seated player; or let a seated player ``leave``. The core's night says whether the table
    can take it, where the newcomer sits, who deals next and, while side bets are played,
    what the leaver takes out of the pots (:func:`app.core.night.apply`); the rows follow it,
    and the change is kept as the night's event (:class:`~app.db.models.SeatChange`).
    Returns the session as it is now."""
    if (join is None) == (leave is None) or (after is not None and join is None):
        raise LedgerError(Message("seats.one_change"), "join" if join is None else "leave")
    gs = locked(gs)
    check_open(gs)
    before, rows = night_from(gs, gs.hand_count + 1)  # (side bets: every hand, to play again)
    name = _name(join, "join") if join is not None else _name(leave, "leave")
    event = {"kind": "joined", "player": name,
             "after": None if after is None else _name(after, "after")} \
        if join is not None else {"kind": "left", "player": name}
    with in_english():
        now = apply(before, event)
        if join is not None:
            seat = _seat_for(gs, user, name)
            if seat.name in before.seated and seat.name != name:  # (renamed since they sat)
                raise LedgerError(Message("seats.seated_as", player=name, seat=seat.name),
                                  "join")
            if seat.name not in now.seated:  # a member known by another spelling
                now = apply(before, {**event, "player": seat.name})
    by_name = {s.name: s for s in gs.seats}
    if leave is not None:
        moved = next(n for n in before.seated if n not in now.seated)
        by_name[moved].left_at = utcnow()
    else:
        moved = next(n for n in now.seated if n not in before.seated)
    # Kept as the night's seat event, a joiner with who they sit after: the fold of the
    # stored night seats them so (app.core.stored.events_of).
    db.session.add(SeatChange(
        session_id=gs.id, hands=gs.hand_count, kind=event["kind"], player=moved,
        after=None if leave is not None else now.seated[now.seated.index(moved) - 1]))
    for position, name in enumerate(now.seated):
        by_name[name].left_at = None
        by_name[name].position = position
    # A leaver's money comes out of the pots (one back before the next deal: in again).
    # What each is owed does not move by it, so the plan is kept; unless the pots were
    # kept before leavers took their money out, and the deals since are settled again.
    keep(gs, before, now, rows)
    db.session.flush()
    keep_plan(gs, now.scoring)
    db.session.flush()
    return gs


def _seat_for(gs: GameSession, user: User, name: str) -> SessionPlayer:
    """The seat of a player joining: theirs if they sat before (by name, or as the same
    player), else a new one, made for the member of that name (a league's, or the account's
    own players)."""
    seat = _find(gs.seats, name)
    if seat is None:
        member = player_named(user, name, gs.league_id)
        seat = next((s for s in gs.seats if s.player_id == member.id), None)
        if seat is None:
            seat = SessionPlayer(seat=len(gs.seats), name=member.name, player=member,
                                 total_minor=0, side_minor=0, position=len(gs.seats))
            gs.seats.append(seat)
    return seat
