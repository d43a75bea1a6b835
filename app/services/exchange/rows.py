"""A checked session as the rows the importer writes, less the database's ids: made by
the process that checked it (no database needed), so that the writing process only puts
the ids in front and hands the rows to the driver.

Each table's rows are tuples in :data:`COLUMNS` order with the ids left out, and what
says which ids go in front: a hand's index in the session (hand id = the first hand id +
index) and a seat (player id = the session's player for that seat). Times are already in
the form the database stores them when the importer asks for it (SQLite's text), so no
value is converted again row by row while the write lock is held.
"""
from __future__ import annotations

import pickle
import secrets
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from itertools import repeat
from typing import Any, NamedTuple, cast

from .checked import CheckedSession
from .common import PART
from .settling import DEBT_COLUMNS, PAYMENT_COLUMNS, SettlePart, payment_rows

#: How a time is written: as it is (the driver converts it), or already as stored.
Moment = Callable[[datetime], Any]


def as_is(moment: datetime) -> datetime:
    return moment


def sqlite_time(moment: datetime) -> str:
    """A time as SQLAlchemy's SQLite dialect stores it (naive UTC, microseconds)."""
    if moment.tzinfo is UTC:  # every time the checker reads (as_utc): drop "+00:00"
        return moment.isoformat(" ", "microseconds")[:-6]
    return moment.replace(tzinfo=None).isoformat(" ", "microseconds")


class Entries(NamedTuple):
    """A session's hand_entries, column by column (a row for each seat of each counted
    hand, in hand order then seat order): what says the ids, the hand's index and the
    seat, then the values after hand_id, session_id, player_id. Columns, not rows, so that
    the writer puts the ids in front with ``zip`` and ``map`` alone (five rows a hand: the
    most rows of an import) and they travel pickled as lists of small numbers."""

    hand: list[int]
    seat: list[int]
    scoring: list[str]
    amount_minor: list[int]
    won: list[bool]
    tonked_out: list[bool]
    drop_won: list[bool]
    caught: list[bool]

    def rows(self, hand_ids: list[int], session_id: int, player_ids: list[int]
             ) -> Iterator[tuple[Any, ...]]:
        """The rows, in :data:`COLUMNS` order."""
        return zip(map(hand_ids.__getitem__, self.hand), repeat(session_id),  # endless
                   map(player_ids.__getitem__, self.seat), *self[2:], strict=False)


class SessionRows(NamedTuple):
    """One session's rows, ids left out (see the module's docstring)."""

    uid: str
    names: tuple[str, ...]
    played_at: datetime  # as it is: a new player's created_at
    hands: int
    settle: SettlePart
    game: tuple[Any, ...]  # game_sessions after id, league_id, owner_id
    seats: list[tuple[Any, ...]]  # seat, then session_players after session_id, player_id
    hand_rows: list[tuple[Any, ...]]  # hands after id, session_id (in hand order)
    versions: tuple[list[int], list[tuple[Any, ...]]]  # each version's hand index, and its
    #                                     hand_versions row after hand_id, created_by_id
    entries: Entries  # hand_entries by column (see Entries)
    records: list[tuple[int, tuple[Any, ...]]]  # seat, player_session_stats after
    #                                             session_id, player_id, league_id
    payments: list[tuple[Any, ...]]  # settle_payments after session_id, created_by_id
    changes: list[tuple[Any, ...]]  # rules_changes after session_id, created_by_id
    debts: list[tuple[int, int, tuple[Any, ...]]]  # payer seat, payee seat, carried_debts
    #                                                after session_id, payer_id, payee_id
    moves: list[tuple[Any, ...]]  # seat_changes after session_id


def _maybe(when: Moment, moment: datetime | None) -> Any:
    return None if moment is None else when(moment)


def session_rows(s: CheckedSession, when: Moment = as_is) -> SessionRows:
    """The rows of a checked session, ids left out; every time written by ``when``."""
    played = when(s.played_at)
    game = (s.uid, s.name, s.currency, s.stake_minor, s.rules_json, secrets.token_urlsafe(16),
            _maybe(when, s.closed_at), played, len(s.hands), s.next_dealer, s.side_bets_json,
            s.pots_json, sum(h.voided for h in s.hands), _maybe(when, s.settle.archived_at))
    sides = s.sides or [0] * len(s.names)
    seats = [(seat, name, total, side, position, _maybe(when, left_at))
             for seat, (name, total, side, position, left_at)
             in enumerate(zip(s.names, s.totals, sides, s.positions, s.left_at, strict=True))]
    hands: list[tuple[Any, ...]] = []
    version_of: list[int] = []
    versions: list[tuple[Any, ...]] = []
    entries = Entries([], [], [], [], [], [], [], [])
    e_hand, e_seat, e_scoring = entries.hand, entries.seat, entries.scoring
    e_parts: tuple[list[Any], ...] = entries[3:]  # amount_minor … caught: a Part's fields
    for i, (hand, (side_nets, side_lines)) in enumerate(zip(s.hands, s.side, strict=True)):
        last = hand.versions[-1]
        times = [when(v.at) for v in hand.versions]  # each written once (most hands: one)
        hands.append((hand.number, last.version, hand.voided, hand.outcome, last.hand_text,
                      last.result_text, "[" + ", ".join(map(str, hand.nets)) + "]", side_nets,
                      side_lines, times[0], times[-1]))
        version_of += [i] * len(times)
        versions += [(v.version, v.action, v.hand_text, v.result_text, v.reason, v.by, at)
                     for v, at in zip(hand.versions, times, strict=True)]
        parts = hand.parts
        if parts is not None:
            n = len(hand.seats)
            if len(parts) != n * PART:
                raise ValueError(f"hand {hand.number}: {len(parts)} values for {n} seats")
            e_hand += [i] * n
            e_seat += hand.seats
            e_scoring += [hand.scoring] * n
            for k, column in enumerate(e_parts):
                column += parts[k::PART]
    payments = []
    for k, (payer, payee, amount, at) in enumerate(s.payments):
        undone_at, *rest = payment_rows(s.settle, k)
        payments.append((payer, payee, amount, when(at), _maybe(when, undone_at), *rest))
    return SessionRows(
        s.uid, s.names, s.played_at, len(s.hands), s.settle, game, seats, hands,
        (version_of, versions), entries,
        [(r[0], (r[1], played, *r[2:])) for r in s.records], payments,
        [(from_hand, rules_json, stake, when(at))
         for from_hand, rules_json, stake, at in s.changes],
        [(payer, payee, (amount, when(at), _maybe(when, paid_at), paid_by))
         for payer, payee, amount, at, paid_at, paid_by in s.settle.debts],
        [(*move, when(at)) for *move, at in s.moves])


def packed(rows: SessionRows) -> bytes:
    """A session's rows as they travel from the process that made them and wait for the
    write (SQLite: in a file): pickled once, unpickled only to be written."""
    return pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL)


def unpacked(rows: SessionRows | bytes) -> SessionRows:
    if isinstance(rows, bytes):
        return cast(SessionRows, pickle.loads(rows))  # noqa: S301 - made by this import
    return rows


#: The columns the importer writes, in the order of its rows: the ids first.
COLUMNS: dict[str, tuple[str, ...]] = {
    "players": ("id", "owner_id", "league_id", "name", "name_key", "created_at"),
    "game_sessions": ("id", "league_id", "owner_id", "uid", "name", "currency", "stake_minor",
                      "rules_json", "share_token", "closed_at", "created_at", "hand_count",
                      "next_dealer", "side_bets_json", "pots_json", "voided_hands",
                      "archived_at"),
    "session_players": ("session_id", "player_id", "seat", "name", "total_minor", "side_minor",
                        "position", "left_at"),
    "hands": ("id", "session_id", "number", "version", "voided", "outcome", "hand_json",
              "result_json", "nets_json", "side_nets_json", "side_result_json", "created_at",
              "updated_at"),
    "hand_versions": ("hand_id", "created_by_id", "version", "action", "hand_json",
                      "result_json", "reason", "by_name", "created_at"),
    "hand_entries": ("hand_id", "session_id", "player_id", "scoring", "amount_minor", "won",
                     "tonked_out", "drop_won", "caught"),
    "player_session_stats": ("session_id", "player_id", "league_id", "scoring", "played_at",
                             "net_minor", "hands", "hands_won", "tonks_out", "drops_won",
                             "times_caught"),
    "settle_payments": ("session_id", "created_by_id", "payer_seat", "payee_seat",
                        "amount_minor", "created_at", *PAYMENT_COLUMNS),
    "carried_debts": DEBT_COLUMNS,
    "rules_changes": ("session_id", "created_by_id", "from_hand", "rules_json", "stake_minor",
                      "created_at"),
    "seat_changes": ("session_id", "hands", "kind", "player", "after", "created_at"),
}


def fastest(process: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """SQLite's time format, written by the C isoformat instead of the dialect's Python;
    used only if it gives exactly what the dialect's own processor gives."""
    samples = (datetime(2001, 2, 3, 4, 5, 6, 7, tzinfo=UTC), datetime(2031, 12, 31, 23, 59),
               datetime(1999, 1, 1, 0, 0, 0, 999999, tzinfo=UTC))
    try:
        if all(process(m) == sqlite_time(m) for m in samples):
            return sqlite_time
    except (TypeError, ValueError, AttributeError):
        pass
    return process


def ready_row(row: tuple[Any, ...], ready: list[tuple[int, Callable[[Any], Any]]]
           ) -> tuple[Any, ...]:
    values = list(row)
    for i, process in ready:
        if values[i] is not None:
            values[i] = process(values[i])
    return tuple(values)
