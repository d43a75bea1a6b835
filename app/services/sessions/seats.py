"""Seats that change during a session: a player joins (at the dealer's right, so dealing
last in the rotation, or after a named player) or leaves, and may come back.

A :class:`~app.db.models.SessionPlayer` row is never removed: its ``seat`` is the player's
identity in the session (hands' nets, payments and pots are kept by it), ``position`` where
they sit now, ``left_at`` whether they are away. Each hand keeps the players it was played
with (its own ``players``); a leaver's total stays in the ledger and in settle-up. What a
leaver has in a side bet's pot goes back to them as they leave (:func:`.pots.replay`): their
settle-up is final, whatever later deals do. Runs under the session's lock like every change
of a session (:func:`app.services.sessions.ledger.locked`).
"""
from __future__ import annotations

from typing import Any

from ...core.hand import MAX_PLAYERS, MIN_PLAYERS
from ...core.messages import Message
from ...core.names import MAX_NAME, clean_text, name_key
from ...core.night import newcomer_at, next_dealer
from ...db.models import GameSession, SessionPlayer, User, utcnow
from ...extensions import db
from ..errors import LedgerError
from .ledger import check_open, locked, player_named, player_names, session_rules
from .pots import replay
from .settleup import keep_plan


def _find(seats: list[SessionPlayer], name: str) -> SessionPlayer | None:
    key = name_key(name)
    return next((s for s in seats if name_key(s.name) == key), None)


def _name(value: Any, field: str) -> str:
    return clean_text(value, LedgerError, field, Message("seats.name"), MAX_NAME)


def _not_seated(gs: GameSession, name: str, field: str) -> LedgerError:
    return LedgerError(Message("seats.not_seated", player=name,
                               players=", ".join(s.name for s in gs.seated)), field)


def change_seats(gs: GameSession, user: User, *, join: Any = None, after: Any = None,
                 leave: Any = None) -> GameSession:
    """``join`` a player (a new one, or one who left) at the dealer's right, or ``after`` a
    seated player; or let a seated player ``leave``. Returns the session as it is now."""
    if (join is None) == (leave is None) or (after is not None and join is None):
        raise LedgerError(Message("seats.one_change"), "join" if join is None else "leave")
    gs = locked(gs)
    check_open(gs)
    if join is not None:
        _join(gs, user, _name(join, "join"), None if after is None else _name(after, "after"))
    else:
        _leave(gs, _name(leave, "leave"))
    # A leaver's money comes out of the pots (one back before the next deal: in again).
    # What each is owed does not move by it, so the plan is kept; unless the pots were
    # stored before leavers took their money out, and the deals since are settled again.
    rules = session_rules(gs)
    replay(gs, rules, player_names(gs))
    db.session.flush()
    keep_plan(gs, rules.scoring)
    db.session.flush()
    return gs


def _join(gs: GameSession, user: User, name: str, after: str | None) -> None:
    seated = gs.seated
    if _find(seated, name) is not None:
        raise LedgerError(Message("seats.seated", player=name), "join")
    if len(seated) >= MAX_PLAYERS:
        raise LedgerError(Message("seats.full", max=MAX_PLAYERS), "join")
    if after is not None:
        before = _find(seated, after)
        if before is None:
            raise _not_seated(gs, after, "after")
        at = seated.index(before) + 1
    else:  # at the dealer's right (app.core.night.newcomer_at)
        dealer = next((s.name for s in seated if s.seat == gs.next_dealer), None)
        at = newcomer_at([s.name for s in seated], dealer, None)
    seat = _find(gs.seats, name)
    if seat is None:  # a new player (or one known by another name's key) sits down
        member = player_named(user, name, gs.league_id)
        seat = next((s for s in gs.seats if s.player_id == member.id), None)
        if seat is None:
            seat = SessionPlayer(seat=len(gs.seats), name=member.name, player=member,
                                 total_minor=0)
            gs.seats.append(seat)
    seat.left_at = None
    seated.insert(at, seat)
    for position, s in enumerate(seated):
        s.position = position


def _leave(gs: GameSession, name: str) -> None:
    seated = gs.seated
    seat = _find(seated, name)
    if seat is None:
        raise _not_seated(gs, name, "leave")
    if len(seated) <= MIN_PLAYERS:
        raise LedgerError(Message("seats.too_few", player=seat.name, min=MIN_PLAYERS), "leave")
    if gs.next_dealer == seat.seat:  # the deal passes on to the next at the table
        after = next_dealer([s.name for s in seated], seat.name)
        gs.next_dealer = next(s.seat for s in seated if s.name == after)
    seat.left_at = utcnow()
