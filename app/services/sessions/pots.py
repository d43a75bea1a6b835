"""A session's side bets (docs/rules.md §9), stored: what the table plays, each hand's side-bet
money, and the money waiting in each pot.

The pots are never moved by hand: every correction or void of a hand replays the side bets
of all the session's counted hands in order, inside the same locked transaction
(:func:`replay`), so correcting hand 3 after hand 5 won the pot gives hand 5 what the pot
then held; a hand recorded after all the others settles its own deal from the pots they
left, which is what replaying them gives (``tonk check`` compares the two). Each hand keeps
its side-bet money per seat apart from its own nets (``Hand.side_nets_json``) and how each
bet was settled (``Hand.side_result_json``); a seat's running total moves by every change
of it. What is still in a pot at settle-up goes back to those who paid into it since it was
last won (:func:`pot_returns`); what a player who leaves the table has in a pot goes back to
them when they leave, as part of the side-bet money of the last hand they played, so no hand
after they left moves their total (a join or a leave replays too).

The core does the arithmetic (:mod:`app.core.sidebets`); this module only stores it.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, cast, func, select, type_coerce

from ...core.messages import in_english
from ...core.money import amount_formatter, from_minor, to_minor
from ...core.night import pots_back
from ...core.rules import Rules
from ...core.sidebets import (
    Outcome,
    Pot,
    SideBet,
    outcome_json,
    parse_side_bets,
    replay_deals,
    side_bets_json,
    stored_plays,
)
from ...db.models import GameSession, Hand
from ...extensions import db
from .entries import move_money, move_totals

_ZERO = Decimal(0)


def side_bets_text(spec: Any, *, stake: Decimal, rules: Rules,
                   currency: str | None = None) -> str | None:
    """A session's or league's ``side_bets`` → what is stored (each stake written out), or
    None for none. Raises a :class:`~app.core.errors.HandError` naming the field."""
    enabled = parse_side_bets(spec, stake=stake, scoring=rules.scoring, currency=currency)
    return json.dumps(side_bets_json(enabled)) if enabled else None


def enabled_bets(gs: GameSession, rules: Rules) -> dict[str, SideBet]:
    """The side bets the session plays (none under push-ups)."""
    spec = gs.side_bets_spec
    if not spec or rules.scoring == "push_ups":
        return {}
    return parse_side_bets(spec, stake=_ZERO, scoring=rules.scoring)


def _load_pots(gs: GameSession, names: Sequence[str]) -> dict[str, Pot]:
    return {bet: Pot(bet, tuple((names[seat], from_minor(minor)) for seat, minor in paid))
            for bet, paid in json.loads(gs.pots_json or "{}").items()}


def dump_pots(pots: Mapping[str, Pot], names: Sequence[str]) -> str:
    seat = {name: i for i, name in enumerate(names)}
    return json.dumps({bet: [[seat[p], to_minor(a)] for p, a in pot.paid if a]
                       for bet, pot in sorted(pots.items()) if pot.total})


def replayed(gs: GameSession, rules: Rules, names: Sequence[str], hands: Sequence[Hand],
             pots: Mapping[str, Pot] | None = None
             ) -> tuple[dict[int, tuple[list[int], list[Any]]], dict[str, Pot]]:
    """The side bets of ``hands`` (all the session's, in order; or those after the ones that
    left ``pots``) settled afresh: each hand's side-bet money per seat and outcomes, by hand
    id, and the pots after the last. A player who left the table takes their money out of
    the pots after the last hand they played (:func:`app.core.sidebets.replay_deals`)."""
    enabled = enabled_bets(gs, rules)
    fmt = amount_formatter(rules)
    facts = [None if hand.voided else hand.data for hand in hands]
    deals = [() if data is None or not enabled else stored_plays(data.get("side_bets"))
             for data in facts]
    settled, pots = replay_deals(
        deals, enabled, fmt, pots, seated={s.name for s in gs.seated},
        tables=[None if data is None else data["players"] for data in facts])
    out = {hand.id: side_rows(net, outcomes, names, fmt)
           for hand, (net, outcomes) in zip(hands, settled, strict=True)}
    return out, pots


def side_rows(net: Mapping[str, Decimal], outcomes: Sequence[Outcome], names: Sequence[str],
              fmt: Any) -> tuple[list[int], list[Any]]:
    """A deal's side bets as a hand stores them: money per seat, and each outcome."""
    return ([to_minor(net.get(n, _ZERO)) for n in names],
            [outcome_json(o, fmt) for o in outcomes])


def trimmed(nets: Sequence[int]) -> list[int]:
    """Side-bet money per seat as stored: without the zeros at its end (none for a deal
    without side bets), so that a seat joining later changes nothing stored."""
    kept = list(nets)
    while kept and kept[-1] == 0:
        kept.pop()
    return kept


def replay(gs: GameSession, rules: Rules, names: Sequence[str], *,
           appended: Hand | None = None) -> None:
    """Settle every hand's side bets again, in order, and move each seat's total by what
    changed; keep the pots. Call it under the session's lock, after any change of a hand or
    of who sits at the table (a leaver takes their money out of the pots).
    ``appended``: the change is that hand, just recorded after all the others, and only its
    deal is settled, from the pots as stored (what the others left): the last hand of a
    long night does not settle every deal before it again."""
    if not gs.side_bets_json and (gs.pots_json or "{}") == "{}":
        return
    before = None if appended is None else _load_pots(gs, names)
    hands: list[Hand]
    if appended is not None and before is not None and not _away(gs, before):
        hands = [appended]
    else:  # (and pots stored before leavers took their money out: settled again)
        hands, before = list(db.session.scalars(select(Hand).where(
            Hand.session_id == gs.id).order_by(Hand.number))), None
    with in_english():  # stored in one language; pages show it in the reader's
        settled, pots = replayed(gs, rules, names, hands, before)
    seats = gs.seats
    changes = [0] * len(seats)
    for hand in hands:
        new, lines = settled[hand.id]
        old = hand.side_nets
        for i in range(len(seats)):
            changes[i] += (new[i] if i < len(new) else 0) - (old[i] if i < len(old) else 0)
        new_json, lines_json = json.dumps(trimmed(new)), json.dumps(lines)
        if hand.side_nets_json != new_json:
            hand.side_nets_json = new_json
        if hand.side_result_json != lines_json:
            hand.side_result_json = lines_json
    back = pot_returns(gs)  # (what the pots gave back before, and after)
    gs.pots_json = dump_pots(pots, names)
    move_totals(zip(seats, changes, strict=True))
    after = pot_returns(gs)
    move_money(gs, rules.scoring, [
        (seat, change + to_minor(after.get(seat.name, _ZERO) - back.get(seat.name, _ZERO)))
        for seat, change in zip(seats, changes, strict=True)])


def _away(gs: GameSession, pots: Mapping[str, Pot]) -> bool:
    """Whether a pot as stored holds money of a player who is not at the table (stored
    before leavers took theirs out): then every deal is settled again, not the last alone."""
    seated = {s.name for s in gs.seated}
    return any(player not in seated for pot in pots.values() for player, _ in pot.paid)


def pot_totals(gs: GameSession) -> dict[str, Decimal]:
    """Money waiting in each of the session's pots (every bet it plays, empty ones too)."""
    names = [s.name for s in gs.seats]
    stored = _load_pots(gs, names)
    bets = list(json.loads(gs.side_bets_json).keys()) if gs.side_bets_json else []
    return {bet: stored[bet].total if bet in stored else _ZERO
            for bet in [*bets, *(b for b in stored if b not in bets)]}


def side_totals(gs: GameSession) -> dict[str, Decimal]:
    """Each player's side-bet money over the session's counted hands (a void hand keeps
    none): the part of a seat's running total that side bets made. Empty for a session
    that never played one. Summed by the database, one column a seat (a night of a few
    thousand hands is read on every page of it)."""
    if not gs.side_bets_json and (gs.pots_json or "{}") == "{}":
        return {}
    names = [s.name for s in gs.seats]
    nets = (type_coerce(Hand.side_nets_json, JSON)
            if db.session.get_bind().dialect.name == "sqlite"
            else cast(Hand.side_nets_json, JSON))  # PostgreSQL reads the text as JSON
    sums = db.session.execute(select(*(func.sum(nets[i].as_integer()) for i in range(len(names))))
                              .where(Hand.session_id == gs.id, Hand.voided.is_(False))).one()
    return {name: from_minor(minor or 0) for name, minor in zip(names, sums, strict=True)}


def taken_back(gs: GameSession, name: str) -> Decimal:
    """What ``name`` took out of the side bets' pots on leaving the table, over the night's
    counted hands (each time they left): their stake still in a pot, given back as they went
    (:func:`app.core.sidebets.leave_pots`), which settle-up says."""
    back = _ZERO
    for stored in db.session.scalars(select(Hand.side_result_json).where(
            Hand.session_id == gs.id, Hand.voided.is_(False),
            Hand.side_result_json.contains("side_bet.left"))):
        for outcome in json.loads(stored):
            if outcome.get("rule") == "side_bet.left":
                back += Decimal(str(outcome["net"].get(name, 0)))
    return back


def pot_returns(gs: GameSession) -> dict[str, Decimal]:
    """At settle-up: what is still in the pots goes back to each player who paid into them
    since they were last won, exactly (:func:`app.core.night.pots_back`)."""
    return pots_back(_load_pots(gs, [s.name for s in gs.seats]))
