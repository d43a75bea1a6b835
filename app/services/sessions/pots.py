"""A session's side bets (docs/rules.md §9), stored: what the table plays, the money
waiting in each pot, and what it gives back.

The pots are never moved by hand: they are the kept night's (:mod:`.kept`), played by the core
(:mod:`app.core.night`, :mod:`app.core.sidebets`) as each event is applied: correcting hand 3
after hand 5 won the pot gives hand 5 what the pot then held; a hand recorded after all the
others settles its own deal from the pots they left. Each hand keeps its side-bet money per
seat apart from its own nets (``Hand.side_nets_json``) and how each bet was settled
(``Hand.side_result_json``); a seat keeps its side bets' part of its total
(``SessionPlayer.side_minor``). What is still in a pot at settle-up goes back to those who
paid into it since it was last won (:func:`pot_returns`); what a player who leaves the table
has in a pot goes back to them when they leave, as part of the side-bet money of the last
hand they played (:func:`taken_back` says how much).
"""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from ...core.night import pots_back
from ...core.rules import Rules
from ...core.sidebets import parse_side_bets, side_bets_json
from ...db.models import GameSession, Hand
from ...extensions import db
from .kept import load_pots

_ZERO = Decimal(0)


def side_bets_text(spec: Any, *, stake: Decimal, rules: Rules,
                   currency: str | None = None) -> str | None:
    """A session's or league's ``side_bets`` → what is stored (each stake written out), or
    None for none. Raises a :class:`~app.core.errors.HandError` naming the field."""
    enabled = parse_side_bets(spec, stake=stake, scoring=rules.scoring, currency=currency)
    return json.dumps(side_bets_json(enabled)) if enabled else None


def pot_totals(gs: GameSession) -> dict[str, Decimal]:
    """Money waiting in each of the session's pots (every bet it plays, empty ones too)."""
    names = [s.name for s in gs.seats]
    stored = load_pots(gs.pots_json, names)
    bets = list(json.loads(gs.side_bets_json).keys()) if gs.side_bets_json else []
    return {bet: stored[bet].total if bet in stored else _ZERO
            for bet in [*bets, *(b for b in stored if b not in bets)]}


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
    return pots_back(load_pots(gs.pots_json, [s.name for s in gs.seats]))
