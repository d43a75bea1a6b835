"""A session's night as its stored rows tell it, folded by the core
(:func:`app.core.night.fold`): the events built from the hands in order (each with its side
bets; a void hand recorded, then voided) and the seats' comings and goings (who played each
hand, who sits now), for ``tonk check`` to hold against what is kept (the seats' totals, the
pots, each hand's side-bet money): the night computed once, by the core, not again here."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from ...core.night import Night, fold
from ...db.models import GameSession, Hand
from ...extensions import db
from .reading import session_stake

#: What a stored hand holds of its table (the night's events take it from the night).
_TABLE = ("rules", "stake", "players")


def _seating(seated: Sequence[str], want: Sequence[str]) -> list[dict[str, Any]]:
    """The joins, then the leaves, that seat ``want`` (in its table order) where ``seated``
    sit now: each newcomer just after the one before them in ``want`` already seated."""
    events: list[dict[str, Any]] = []
    now = list(seated)
    for i, name in enumerate(want):
        if name in now:
            continue
        before = next((want[i - k] for k in range(1, len(want)) if want[i - k] in now), None)
        events.append({"kind": "joined", "player": name, "after": before})
        now.insert(now.index(before) + 1 if before is not None else len(now), name)
    events += [{"kind": "left", "player": name} for name in now if name not in want]
    return events


def night_events(gs: GameSession, hands: Sequence[Hand]) -> list[dict[str, Any]]:
    """The events of ``gs``'s night, from its stored ``hands`` (all of them, in order) and
    seats."""
    first = hands[0].data if hands else None
    rules = first["rules"] if first else json.loads(gs.rules_json)
    stake = first["stake"] if first else str(session_stake(gs))
    players = list(first["players"]) if first else [s.name for s in gs.seated]
    events: list[dict[str, Any]] = [{
        "kind": "started", "rules": rules, "stake": stake, "currency": gs.currency,
        "players": players, "dealer": first.get("dealer") if first else None,
        "side_bets": gs.side_bets_spec or None}]
    seated, table = players, (rules, stake)
    for hand in hands:
        data = hand.data
        if (data["rules"], data["stake"]) != table:
            table = (data["rules"], data["stake"])
            events.append({"kind": "rules", "rules": table[0], "stake": table[1]})
        events += _seating(seated, data["players"])
        seated = list(data["players"])
        events.append({"kind": "hand", "hand": {k: v for k, v in data.items()
                                                if k not in _TABLE}})
        if hand.voided:
            events.append({"kind": "voided", "number": hand.number})
    events += _seating(seated, [s.name for s in gs.seated])
    return events


def stored_night(gs: GameSession) -> tuple[Night, list[Hand]]:
    """``gs``'s night folded from its stored rows, and its hands in order (a refusal of the
    core raises its :class:`~app.core.errors.TonkError`)."""
    hands = list(db.session.scalars(select(Hand).where(Hand.session_id == gs.id)
                                    .order_by(Hand.number)))
    return fold(night_events(gs, hands)), hands
