"""An event as one JSON document (``tonk event export``): its settings, players and fees,
every round with its seed and tables (each table's players, their totals as the table's
page shows them, :func:`app.services.sessions.money_of`, and every hand, voids too, with its
result), the standings and the prize list. Amounts are decimal strings."""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from sqlalchemy import select

from ...core.money import from_minor
from ...db.models import Event, EventTable, Hand
from ...extensions import db
from ..sessions import money_of
from .setup import payout_of, settings_of
from .standings import prizes_of, standings_of

FORMAT = "tonk-tally-event"
VERSION = 1


def _time(moment: Any) -> str | None:
    return None if moment is None else moment.isoformat()


def _table(table: EventTable) -> dict[str, Any]:
    gs = table.session
    hands = db.session.scalars(select(Hand).where(Hand.session_id == gs.id)
                               .order_by(Hand.number))
    return {"table": table.number, "session": gs.id,
            "players": [s.name for s in gs.seats],
            "totals": {name: str(money.total)
                       for name, money in money_of(gs, parts=False).items()},
            "closed_at": _time(gs.closed_at),
            "hands": [{"number": h.number, "version": h.version, "voided": h.voided,
                       "hand": json.loads(h.hand_json), "result": json.loads(h.result_json)}
                      for h in hands]}


def export_event(event: Event) -> dict[str, Any]:
    """The whole event as JSON-ready data."""
    payout = payout_of(event)
    prizes = prizes_of(event)
    return {
        "format": FORMAT, "version": VERSION,
        "event": {"id": event.id, **{k: v for k, v in settings_of(event).items()
                                     if k != "scoring"},  # (the rules hold it)
                  "prizes": {payout.kind: [str(a) for a in payout.amounts]}},
        "players": [{"name": p.name, "paid": str(from_minor(p.paid_minor)),
                     "checked_in_at": _time(p.checked_in_at),
                     "withdrawn_after": p.withdrawn_after} for p in event.players],
        "rounds": [{"round": r.number, "seed": r.seed, "drawn_at": _time(r.created_at),
                    "closed_at": _time(r.closed_at), "forced": r.forced,
                    "tables": [_table(t) for t in r.tables]} for r in event.round_rows],
        "standings": [{"place": s.place, "player": s.record.player,
                       "total": str(s.record.total), "hands": s.record.hands,
                       "won": s.record.won, "caught": s.record.caught,
                       "rounds": [str(x) for x in s.record.round_totals],
                       "sat_in": list(s.record.sat_in)}
                      for s in standings_of(event)],
        "prizes": {"fees": str(prizes.fees), "house": str(prizes.house),
                   "pool": str(prizes.pool),
                   "prizes": [{"place": p.place, "players": list(p.players),
                               "amount": str(p.amount)} for p in prizes.prizes]},
    }


def standings_csv(event: Event) -> Iterator[str]:
    """The standings as CSV, one row a player, with each round and the prize won."""
    won: dict[str, Decimal] = {}
    for prize in prizes_of(event).prizes:
        for name in prize.players:
            won[name] = prize.amount
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["place", "player", "total", "hands", "won", "caught",
                     *[f"round_{r.number}" for r in event.round_rows], "prize"])
    for s in standings_of(event):
        r = s.record
        writer.writerow([s.place, r.player, r.total, r.hands, r.won, r.caught, *r.rounds,
                         won.get(r.player, "")])
    yield out.getvalue()
