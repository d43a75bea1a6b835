"""A session as the phone needs it to count with no signal: the night as the server keeps it
(:func:`.kept.kept_night`, in the core's JSON form: :func:`app.core.night.night_json`), with
what payments have moved, in the shape :func:`app.core.phone` ``record`` takes. With it and
the hands waiting in its outbox, the phone counts what the server will when they arrive:
the same state, folded on by the same code."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from ...core.night import night_json
from ...db.models import GameSession
from .kept import kept_night
from .ledger import ledger_of
from .settleup import Ledger


def phone_table(gs: GameSession, state: Ledger | None = None) -> dict[str, Any]:
    """The ``table`` of the phone core's ``record`` request for ``gs`` as it is now: the
    session, its revision and last hand's number (what the page's outbox compares with), the
    kept ``night`` and what payments ``moved`` each player's open balance by (``state``: its
    ledger, where the page has it)."""
    state = ledger_of(gs) if state is None else state
    zero = Decimal(0)
    return {
        "session": gs.id, "revision": gs.revision, "number": gs.hand_count,
        "night": night_json(kept_night(gs)),
        "moved": {n: str(state.open.get(n, zero) - m.total) for n, m in state.money.items()},
    }
