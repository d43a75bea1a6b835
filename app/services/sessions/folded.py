"""A session's night as its stored rows tell it, folded by the core
(:func:`app.core.night.fold` of :func:`app.core.stored.events_of`: the hands in order, each
with its side bets, a void hand recorded then voided, and the seats' comings and goings),
for ``tonk check`` to hold against what is kept (the seats' totals, the pots, each hand's
side-bet money): the night computed once, by the core, not again here."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from ...core.money import to_minor
from ...core.night import Night, fold, money_by_hand
from ...core.stored import events_of
from ...db.models import GameSession, Hand, SeatChange
from ...extensions import db
from .reading import player_names, session_stake


def night_events(gs: GameSession, hands: Sequence[Hand]) -> list[dict[str, Any]]:
    """The events of ``gs``'s night, from its stored ``hands`` (all of them, in order),
    seats and seat changes (:func:`app.core.stored.events_of`)."""
    seated = [s.name for s in gs.seated]
    moves = db.session.scalars(select(SeatChange).where(SeatChange.session_id == gs.id)
                               .order_by(SeatChange.id))
    return events_of({"rules": json.loads(gs.rules_json), "stake": str(session_stake(gs)),
                      "players": seated, "dealer": gs.dealer, "currency": gs.currency,
                      "side_bets": gs.side_bets_spec or None},
                     [(hand.data, hand.voided) for hand in hands], seated,
                     [s.name for s in gs.seats], [(move.hands, move.event) for move in moves])


def stored_night(gs: GameSession) -> tuple[Night, list[Hand]]:
    """``gs``'s night folded from its stored rows, and its hands in order (a refusal of the
    core raises its :class:`~app.core.errors.TonkError`)."""
    hands = _hands(gs)
    return fold(night_events(gs, hands)), hands


def _hands(gs: GameSession) -> list[Hand]:
    return list(db.session.scalars(select(Hand).where(Hand.session_id == gs.id)
                                   .order_by(Hand.number)))


def running_totals(gs: GameSession) -> list[tuple[int, list[int | None]]]:
    """(hand number, each seat's total in minor units) after every counted hand, for the
    chart: the stored night folded by the core hand by hand
    (:func:`app.core.night.money_by_hand`), each point the total the page would have shown
    then (hands, side bets and what the pots would give back), so that the last is the
    page's. A seat is None before the point it
    joined at (a player who sat down after hand 3 starts at 0 there)."""
    points, seats = money_by_hand(night_events(gs, _hands(gs))), player_names(gs)
    series: list[tuple[int, list[int | None]]] = [(0, [0] * len(seats))]
    first: dict[str, int] = {}  # the point before each seat's first hand: its 0
    for deal, money in points:
        for name in deal.players:
            first.setdefault(name, len(series) - 1)
        series.append((deal.number, [to_minor(money[name].total) if name in money else 0
                                     for name in seats]))
    for seat, name in enumerate(seats):  # no line before a player sat down
        for _number, totals in series[:first.get(name, len(series) - 1)]:
            totals[seat] = None
    return series
