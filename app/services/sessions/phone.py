"""A session as the phone needs it to count with no signal: the state its page last saw,
in the shape :func:`app.core.phone` ``record`` takes (the session's stored rules, stake,
currency and side bets, its seats and who is seated now, the next dealer and hand number,
each seat's total and side-bet part, the pots and what payments have moved). With it and the
hands waiting in its outbox, the phone counts what the server will when they arrive."""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from ...core.money import from_minor
from ...db.models import GameSession
from .ledger import ledger_of, seated_names, session_stake
from .settleup import Ledger


def phone_table(gs: GameSession, state: Ledger | None = None) -> dict[str, Any]:
    """The ``table`` of the phone core's ``record`` request for ``gs`` as it is now
    (``state``: its ledger, where the page has it: each player's money by part)."""
    state = ledger_of(gs) if state is None else state
    names = [s.name for s in gs.seats]
    side = {n: m.side_bets for n, m in state.money.items()} if gs.side_bets_json else {}
    zero = Decimal(0)
    return {
        "session": gs.id, "revision": gs.revision, "rules": json.loads(gs.rules_json),
        "stake": str(session_stake(gs)),
        "currency": gs.currency, "side_bets": gs.side_bets_spec or None,
        "seats": names, "seated": list(seated_names(gs)), "dealer": gs.dealer,
        "number": gs.hand_count,
        "totals": {n: str(v) for n, v in state.totals.items()},
        "side": {n: str(v) for n, v in side.items()},
        "pots": {bet: [[names[seat], str(from_minor(minor))] for seat, minor in paid]
                 for bet, paid in json.loads(gs.pots_json or "{}").items()},
        "moved": {n: str(state.open.get(n, zero) - state.totals[n]
                         - state.returns.get(n, zero)) for n in names},
    }
