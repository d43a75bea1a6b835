"""A hand's effect on what is stored beside it: each seat's running total moves by the
change of its net, the hand's entries (each player's part) are replaced, and each player's
session record moves by the same change. Called by the ledger under the session's lock.

The reads here do not flush (nothing pending changes what they find): the totals, the
entries and the records are written in the caller's next flush, together; the entries are
one INSERT of many rows (the ORM would send one per row on SQLite, to read back ids that
nothing here uses)."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm.attributes import flag_modified

from ...core.parts import STAT_FIELDS, seat_parts, stat_counts
from ...core.settle import Result
from ...db.models import GameSession, Hand, HandEntry, PlayerSessionStat
from ...extensions import db


def _entries(gs: GameSession, hand: Hand, new: Sequence[int],
             result: Result) -> list[dict[str, Any]]:
    """Each player's part in a hand's current version (a row of ``hand_entries``): net, and
    what the record counts."""
    scoring = result.hand.rules.scoring
    playing = set(result.hand.players)
    seats = [s for s in gs.seats if s.name in playing]
    parts = seat_parts([s.name for s in seats], [new[s.seat] for s in seats], result)
    return [{"hand_id": hand.id, "session_id": gs.id, "player_id": seat.player_id,
             "scoring": scoring, "amount_minor": part.amount_minor, "won": part.won,
             "tonked_out": part.tonked_out, "drop_won": part.drop_won, "caught": part.caught}
            for seat, part in zip(seats, parts, strict=True)]


def _count(stats: dict[tuple[int, str], PlayerSessionStat], gs: GameSession,
           entry: HandEntry, sign: int) -> None:
    key = (entry.player_id, entry.scoring)
    stat = stats.get(key)
    if stat is None:
        stat = PlayerSessionStat(session_id=gs.id, player_id=entry.player_id,
                                 scoring=entry.scoring, league_id=gs.league_id,
                                 played_at=gs.created_at, net_minor=0, hands=0, hands_won=0,
                                 tonks_out=0, drops_won=0, times_caught=0)
        db.session.add(stat)
        stats[key] = stat
    for name, value in zip(STAT_FIELDS, stat_counts(entry), strict=True):
        setattr(stat, name, getattr(stat, name) + sign * value)
        flag_modified(stat, name)  # every record's UPDATE alike: one statement for them all


def apply_nets(gs: GameSession, hand: Hand, old: Sequence[int], new: Sequence[int],
               result: Result | None, *, new_hand: bool = False) -> None:
    """Move running totals by new − old, replace the hand's entries (``new_hand``: it has
    none yet), and move each player's session record by the same change (nets stop at the
    seats of their time)."""
    for seat in gs.seats:
        i = seat.seat
        seat.total_minor += ((new[i] if i < len(new) else 0)
                             - (old[i] if i < len(old) else 0))
    with db.session.no_autoflush:
        stats = {(s.player_id, s.scoring): s for s in db.session.scalars(
            select(PlayerSessionStat).where(PlayerSessionStat.session_id == gs.id))}
        if not new_hand:
            for entry in db.session.scalars(
                    select(HandEntry).where(HandEntry.hand_id == hand.id)):
                _count(stats, gs, entry, -1)
            db.session.execute(delete(HandEntry).where(HandEntry.hand_id == hand.id))
        if result is not None:
            rows = _entries(gs, hand, new, result)
            db.session.execute(insert(HandEntry), rows)
            for row in rows:
                _count(stats, gs, HandEntry(**row), +1)
    hand.nets_json = json.dumps(list(new))
