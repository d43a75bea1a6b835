"""A hand's effect on what is stored beside it: the hand's entries (each player's part) are
replaced, and each player's session record moves by the change. Called by the ledger under
the session's lock (the seats' money is the kept night's: :mod:`.kept`).

Nothing here flushes the caller's pending changes, and each write is one statement: the
entries are one INSERT of many rows (the ORM would send one per row on SQLite, to read
back ids that nothing here uses), the old ones one DELETE that returns what they counted;
the records move by ``SET hands = hands + …`` (inserted where a player has none yet), with
no read before: fewer round trips while the session's lock is held. A record's net is the
player's whole money in the session: the side bets and the pots' returns move it too
(:func:`move_money`, from the kept night's change)."""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cache
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, delete, insert

from ...core.parts import STAT_FIELDS, seat_parts, stat_counts
from ...core.settle import Result
from ...db.models import GameSession, Hand, HandEntry, PlayerSessionStat, SessionPlayer
from ...db.storage import conflict_insert
from ...extensions import db

_ENTRIES = HandEntry.__table__
_INSERT_ENTRIES = insert(_ENTRIES)
#: An entry's player, scoring, and what it counts in the player's record
#: (:func:`app.core.parts.stat_counts`).
_COUNTED = tuple(_ENTRIES.c[name] for name in (
    "player_id", "scoring", "amount_minor", "won", "tonked_out", "drop_won", "caught"))
#: A hand's entries deleted, returning what they counted (built once).
_DELETE_ENTRIES = delete(_ENTRIES).where(_ENTRIES.c.hand_id == bindparam("hand_id")).returning(
    *_COUNTED)


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


def _records(gs: GameSession, moved: dict[tuple[int, str], list[int]]
             ) -> list[dict[str, Any]]:
    """Each player's record as moved by a change (every number a change, not a total):
    what :func:`_move_records` adds to it. A record that does not move is left out."""
    return [{"session_id": gs.id, "player_id": player_id, "scoring": scoring,
             "league_id": gs.league_id, "played_at": gs.created_at,
             **dict(zip(STAT_FIELDS, change, strict=True))}
            for (player_id, scoring), change in moved.items() if any(change)]


@cache
def _records_upsert(dialect: str) -> Any:
    """The statement of :func:`_move_records` for a database (PostgreSQL or SQLite), built
    once."""
    table = PlayerSessionStat.__table__
    upsert = conflict_insert(dialect, table)
    return upsert.on_conflict_do_update(
        index_elements=[table.c.session_id, table.c.player_id, table.c.scoring],
        set_={name: table.c[name] + upsert.excluded[name] for name in STAT_FIELDS})


def _move_records(rows: list[dict[str, Any]]) -> None:
    """Move players' session records by ``rows`` in one statement: a new record is
    inserted as it is, an existing one moves by it (``net_minor = net_minor + …``)."""
    if rows:
        connection = db.session.connection()
        connection.execute(_records_upsert(connection.dialect.name), rows)


def _tally(moved: dict[tuple[int, str], list[int]], entry: Any, sign: int) -> None:
    """Add (``sign`` 1) or take away (−1) what ``entry`` counts in its player's record."""
    change = moved.setdefault((entry.player_id, entry.scoring), [0] * len(STAT_FIELDS))
    for i, value in enumerate(stat_counts(entry)):
        change[i] += sign * value


def replace_entries(gs: GameSession, hand: Hand, new: Sequence[int], result: Result | None,
                    *, new_hand: bool = False) -> None:
    """Replace the hand's entries (``new_hand``: it has none yet) by those of its ``new`` nets
    (per seat, minor units; None ``result``: it counts none, void), move each player's
    session record by the change, and keep the nets on the hand."""
    moved: dict[tuple[int, str], list[int]] = {}
    with db.session.no_autoflush:
        if not new_hand:
            for entry in db.session.connection().execute(_DELETE_ENTRIES,
                                                         {"hand_id": hand.id}):
                _tally(moved, entry, -1)
        if result is not None:
            rows = _entries(gs, hand, new, result)
            db.session.connection().execute(_INSERT_ENTRIES, rows)
            for row in rows:
                _tally(moved, SimpleNamespace(**row), +1)
        _move_records(_records(gs, moved))
    nets_json = json.dumps(list(new))
    if hand.nets_json != nets_json:
        hand.nets_json = nets_json


def move_money(gs: GameSession, scoring: str, moves: Iterable[tuple[SessionPlayer, int]]
               ) -> None:
    """Move players' session records (under ``scoring``) by what their money beyond the
    hands changed (the side bets, and what the pots give back at settle-up, minor units): a
    record's net is the player's total in the session as its page shows it
    (:func:`app.core.night.player_money`), which the league's pages add up."""
    moved: dict[tuple[int, str], list[int]] = {}
    for seat, change in moves:
        if change:
            counts = moved.setdefault((seat.player_id, scoring), [0] * len(STAT_FIELDS))
            counts[0] += change
    _move_records(_records(gs, moved))
