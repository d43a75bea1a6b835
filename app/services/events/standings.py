"""An event's standings and prize list, read from its tables' sessions.

Each player's total in a round is their total at the table they were drawn to (the
session's money as its page shows it, :func:`app.services.sessions.money_of`: the hands, the
side bets and what the pots give back); hands played, won and caught come from the
counted hands. The core places them (:mod:`app.core.placings`) and cuts the prizes
(:mod:`app.core.prizes`).
"""
from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from decimal import Decimal

from sqlalchemy import select

from ...core.money import currency_places, from_minor, to_minor
from ...core.names import name_key
from ...core.placings import Placing, Record, standings
from ...core.prizes import PrizeError, PrizeList, prize_list
from ...db.models import Event, EventRound, EventTable, GameSession, Hand
from ...extensions import db
from ..errors import EventConflictError
from ..sessions import money_of
from .setup import event_rules, payout_of, tie_breaks_of

_ONE = Decimal(1)


def _amount(minor: int, points: bool) -> Decimal:
    amount = from_minor(minor)
    return amount.quantize(_ONE) if points else amount


def records(event: Event) -> list[Record]:
    """Every player's record over the event's rounds, in check-in order; a player withdrawn
    before the first draw has none."""
    points = event_rules(event).scoring != "money"
    drawn = len(event.round_rows)
    totals: dict[str, list[Decimal | None]] = defaultdict(lambda: [None] * drawn)
    hands: dict[str, int] = defaultdict(int)
    won: dict[str, int] = defaultdict(int)
    caught: dict[str, int] = defaultdict(int)
    session_ids = []
    for index, this in enumerate(event.round_rows):
        for table in this.tables:
            gs = table.session
            session_ids.append(gs.id)
            counted = gs.hand_count - gs.voided_hands
            for name, money in money_of(gs, parts=False).items():  # who sat there
                kept = totals[name_key(name)]
                kept[index] = (kept[index] or Decimal(0)) + _amount(to_minor(money.total), points)
                hands[name_key(name)] += counted
    if session_ids:
        rows = db.session.execute(select(Hand.outcome, Hand.hand_json, Hand.result_json).where(
            Hand.session_id.in_(session_ids), Hand.voided.is_(False)))
        for outcome, hand_json, result_json in rows:
            for winner in json.loads(result_json).get("winners", []):
                won[name_key(winner)] += 1
            if outcome == "caught":
                dropper = json.loads(hand_json).get("end", {}).get("player")
                if isinstance(dropper, str):
                    caught[name_key(dropper)] += 1
    return [Record(p.name, tuple(totals[p.name_key]), hands[p.name_key], won[p.name_key],
                   caught[p.name_key])
            for p in event.players if p.withdrawn_after != 0]


def seated_at(event: Event) -> list[list[str]]:
    """Who sat at each table of every round so far, by their names in the event."""
    names = {p.name_key: p.name for p in event.players}
    return [[names.get(name_key(seat.name), seat.name) for seat in table.session.seats]
            for this in event.round_rows for table in this.tables]


def standings_of(event: Event) -> list[Placing]:
    """The standings now: every hand of every round, open or closed, best first."""
    return standings(records(event), tie_breaks_of(event))


def fees_paid(event: Event) -> Decimal:
    return from_minor(sum(p.paid_minor for p in event.players))


def prizes_of(event: Event) -> PrizeList:
    """The prize list as the standings stand now."""
    places: list[tuple[int, list[str]]] = []
    for standing in standings_of(event):
        if places and places[-1][0] == standing.place:
            places[-1][1].append(standing.record.player)
        else:
            places.append((standing.place, [standing.record.player]))
    try:
        return prize_list(fees_paid(event), Decimal(event.house_share), payout_of(event),
                          places, currency_places(event.currency), event.currency)
    except PrizeError as exc:  # (the event's state, not what was asked: 409)
        raise EventConflictError(exc.said, exc.field) from None


def board_state(event: Event) -> str:
    """The state of the event's TV board: the event's revision and every table session's,
    digested (any hand at any table, or any change to the event, moves it): its poll's ETag
    before the language, and what its stream's events carry."""
    parts = [str(event.revision)] + [f"{sid}:{rev}" for sid, rev in table_revisions(event)]
    return hashlib.sha256(".".join(parts).encode()).hexdigest()[:20]


def table_revisions(event: Event) -> list[tuple[int, int]]:
    """(session id, revision) of every table of the event, in one query: what the TV
    board's state is made of (any hand at any table moves one)."""
    return [(sid, rev) for sid, rev in db.session.execute(
        select(GameSession.id, GameSession.revision)
        .join(EventTable, EventTable.session_id == GameSession.id)
        .join(EventRound, EventRound.id == EventTable.round_id)
        .where(EventRound.event_id == event.id).order_by(GameSession.id))]
