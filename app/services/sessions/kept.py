"""The night as the server keeps it: the core's state (:class:`app.core.night.Night`) read
from a session's rows, and written back to them once an event has been applied.

What is kept is the state after the last event, not the events' sums made again on every
page: each seat's total and its side-bet part (``total_minor``, ``side_minor``), the pots,
the next dealer, who sits where and the hands' count (:func:`kept_night`, a night holding
none of its hands, only what they made). A write applies one event of the night to it with
the core (:func:`app.core.night.apply`) and keeps what changed (:func:`keep`): a hand recorded
after all the others is settled from the kept state alone, its side bets from the pots as
kept; a correction or void of an old hand, or a seat that changes while side bets are
played, is applied to the night with the hands it may change (:func:`night_from`: that hand
alone, or all of them when the pots must be played again from the first deal), each read as
stored, not settled again.

The rules of the night are the core's: nothing here settles a hand, replays a pot or adds
up a player's money (``tonk check`` folds the stored events afresh and compares).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, bindparam, select, update
from sqlalchemy.orm.attributes import set_committed_value

from ...core.money import from_minor, to_minor
from ...core.night import Deal, Money, Night, minor_totals
from ...core.sidebets import Pot, parse_side_bets
from ...db.models import GameSession, Hand, SessionPlayer
from ...extensions import db
from .entries import move_money
from .reading import player_names, seated_names, session_rules, session_stake

_ZERO = Decimal(0)
_SEATS = SessionPlayer.__table__
_SET_MONEY = update(_SEATS).where(_SEATS.c.id == bindparam("seat_id")).values(
    total_minor=bindparam("total"), side_minor=bindparam("side"))


def plays_side_bets(gs: GameSession) -> bool:
    """Whether the session plays side bets or has money in a pot (then a change of an old
    hand or of who sits plays the pots again from the first deal)."""
    return bool(gs.side_bets_json) or (gs.pots_json or "{}") != "{}"


def load_pots(pots_json: str | None, names: Sequence[str]) -> dict[str, Pot]:
    """The pots as kept (each payer by seat, minor units) → the core's pots."""
    return {bet: Pot(bet, tuple((names[seat], from_minor(minor)) for seat, minor in paid))
            for bet, paid in json.loads(pots_json or "{}").items()}


def dump_pots(pots: Mapping[str, Pot], names: Sequence[str]) -> str:
    """The core's pots → as kept (the pots with money in them, by name of bet)."""
    seat = {name: i for i, name in enumerate(names)}
    return json.dumps({bet: [[seat[p], to_minor(a)] for p, a in pot.paid if a]
                       for bet, pot in sorted(pots.items()) if pot.total})


def trimmed(nets: Sequence[int]) -> list[int]:
    """Side-bet money per seat as stored: without the zeros at its end (none for a deal
    without side bets), so that a seat joining later changes nothing stored."""
    kept = list(nets)
    while kept and kept[-1] == 0:
        kept.pop()
    return kept


def seat_side(deal: Deal, names: Sequence[str]) -> tuple[str, str]:
    """A deal's side bets as a hand row stores them: money per seat (minor units) and each
    outcome, as JSON text."""
    if not deal.side and not deal.outcomes:  # most deals: no side bets
        return "[]", "[]"
    return (json.dumps(trimmed([to_minor(deal.side.get(n, _ZERO)) for n in names])),
            json.dumps(list(deal.outcomes)))


def kept_night(gs: GameSession) -> Night:
    """The session's night as kept, holding none of its hands, only what they made: the
    table (rules, stake, currency, side bets), who sat and who sits, the next dealer, the
    pots, each seat's money (hands and side bets) and the last hand's number."""
    rules, stake = session_rules(gs), session_stake(gs)
    bets = parse_side_bets(gs.side_bets_spec, stake=stake, scoring=rules.scoring,
                           currency=gs.currency) if rules.scoring != "push_ups" else {}
    names = player_names(gs)
    return Night(rules, stake, gs.currency, bets, names, seated_names(gs), gs.dealer,
                 pots=load_pots(gs.pots_json, names),
                 base={s.name: Money(from_minor(s.total_minor - s.side_minor),
                                     from_minor(s.side_minor), _ZERO) for s in gs.seats},
                 numbered=gs.hand_count)


def _deal(hand: Hand, names: Sequence[str]) -> Deal:
    """A hand row as the core's deal, read as stored (not settled again)."""
    data = hand.data
    nets, side = hand.nets, hand.side_nets
    seat = {name: i for i, name in enumerate(names)}
    return Deal(hand.number, hand.version, hand.voided, data,
                {p: nets[seat[p]] if seat[p] < len(nets) else 0 for p in data["players"]},
                {names[i]: from_minor(m) for i, m in enumerate(side) if m},
                tuple(hand.side_result))


def night_from(gs: GameSession, number: int) -> tuple[Night, dict[int, Hand]]:
    """The kept night holding the hands an event at hand ``number`` may change, as stored:
    where side bets are played, all of them (their pots are played again from the first
    deal); else hand ``number`` alone (no other hand's money depends on it: the others' is
    the night's base; a number past the last holds none). And those hands' rows by number."""
    side = plays_side_bets(gs)
    if side:
        return _held(gs, select(Hand).where(Hand.session_id == gs.id))
    held, rows = _held(gs, select(Hand).where(Hand.session_id == gs.id, Hand.number == number),
                       number - 1)
    made, kept = held.money(), kept_night(gs).base  # what the other hands made is kept:
    return replace(held, base={  # the night's money less this hand's
        n: Money(m.hands - made[n].hands, m.side_bets - made[n].side_bets, _ZERO)
        for n, m in kept.items()}), rows


def _held(gs: GameSession, query: Select[Any], numbered: int = 0
          ) -> tuple[Night, dict[int, Hand]]:
    """The kept night holding the hands ``query`` finds, as stored (from hand ``numbered``
    + 1, nothing before them), and their rows by number."""
    kept = kept_night(gs)
    hands = list(db.session.scalars(query.order_by(Hand.number)))
    return (replace(kept, hands=tuple(_deal(hand, kept.seats) for hand in hands),
                    numbered=numbered, base={}),
            {hand.number: hand for hand in hands})


def keep(gs: GameSession, before: Night, after: Night, rows: Mapping[int, Hand]) -> bool:
    """Keep the night ``after`` an event that changed it from ``before``: the side bets of
    each hand in ``rows`` whose deal changed them, each seat's total and side-bet part, the
    pots and the next dealer; each player's session record moves by what their money beyond
    the hands changed (the hands' part moves with their entries:
    :func:`.entries.replace_entries`). Returns whether any seat's total moved."""
    names, was_dealt = after.seats, {deal.number: deal for deal in before.hands}
    for deal in after.hands:
        row, dealt = rows.get(deal.number), was_dealt.get(deal.number)
        if row is not None and (dealt is None or (dealt.side, dealt.outcomes) != (
                deal.side, deal.outcomes)):
            nets, outcomes = seat_side(deal, names)
            if row.side_nets_json != nets:
                row.side_nets_json = nets
            if row.side_result_json != outcomes:
                row.side_result_json = outcomes
    was, now = before.money(), after.money()
    totals = minor_totals(now)
    seats = {s.name: s for s in gs.seats}
    moves, beyond = [], []
    for name, money in now.items():
        seat, total, side = seats[name], totals[name], to_minor(money.side_bets)
        if (seat.total_minor, seat.side_minor) != (total, side):
            moves.append((seat, total, side))
        old = was.get(name)
        change = money.side_bets + money.pots_back - (
            old.side_bets + old.pots_back if old is not None else _ZERO)
        beyond.append((seat, to_minor(change)))
    moved = any(seat.total_minor != total for seat, total, _side in moves)
    if moves:
        db.session.connection().execute(_SET_MONEY, [
            {"seat_id": seat.id, "total": total, "side": side} for seat, total, side in moves])
        for seat, total, side in moves:
            set_committed_value(seat, "total_minor", total)
            set_committed_value(seat, "side_minor", side)
    pots = dump_pots(after.pots, names)
    if (gs.pots_json or "{}") != pots:
        gs.pots_json = pots
    dealer = names.index(after.dealer) if after.dealer in names else gs.next_dealer
    if gs.next_dealer != dealer:
        gs.next_dealer = dealer
    move_money(gs, after.scoring, beyond)
    return moved
