"""What checking a document's session gives (:class:`~.verify.Checker`): the session, its
hands and every version of each as plain values, ready to be written (only the database's
ids are missing) and cheap to send between processes; or the session's problems."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from ...core.messages import Message
from .settling import SettlePart


class CheckedVersion(NamedTuple):
    """One version of a hand, as it will be stored."""

    version: int
    action: str
    hand_text: str
    result_text: str
    reason: str | None
    by: str
    at: datetime


class CheckedHand(NamedTuple):
    """One hand, checked: its versions, and its current version's part for each seat (flat:
    :class:`~app.services.sessions.ledger.Part` after Part, seat by seat; None for a voided hand).
    Plain values, so that it travels between processes cheaply."""

    number: int
    voided: bool
    outcome: str
    scoring: str
    nets: list[int]
    parts: tuple[Any, ...] | None
    versions: list[CheckedVersion]
    seats: tuple[int, ...] = ()  # the seat of each part: who the hand was played by


#: A player's record in a session as its hands add it up: seat, scoring, then the counters
#: of :data:`app.services.sessions.ledger.STAT_FIELDS`.
SeatRecord = tuple[Any, ...]


#: A seat change: the hands recorded before it, ``joined`` or ``left``, who, who a joiner
#: sits after, when.
SeatMove = tuple[int, str, str, str | None, datetime]


@dataclass(slots=True)
class CheckedSession:
    """One session, checked, ready to be written: only the database's ids are missing."""

    uid: str
    name: str
    played_at: datetime
    closed_at: datetime | None
    currency: str
    stake_minor: int
    rules_json: str
    next_dealer: int
    names: tuple[str, ...]
    totals: list[int]
    hands: list[CheckedHand]
    records: list[SeatRecord]
    payments: list[tuple[int, int, int, datetime]]
    changes: list[tuple[int, str, int, datetime]]
    #: Seats that changed, side bets (format version 2): where each seat sits now and when
    #: it left (None: seated), the side bets played, each hand's side-bet money and lines,
    #: and the pots.
    positions: list[int] = field(default_factory=list)
    left_at: list[datetime | None] = field(default_factory=list)
    side_bets_json: str | None = None
    side: list[tuple[str, str]] = field(default_factory=list)
    pots_json: str = "{}"
    settle: SettlePart = field(default_factory=SettlePart)  # version 2's settle-up part
    #: Each seat's side bets' part of its total (minor units; empty: none played).
    sides: list[int] = field(default_factory=list)
    moves: list[SeatMove] = field(default_factory=list)  # the seat changes, in order


class Checked(NamedTuple):
    """One session of a document, checked: ready to be written, or its problems."""

    position: int  # in the document's list of sessions, from 1
    uid: str | None
    where: Message
    hands: int
    session: CheckedSession | None
    problems: list[Message]  # rendered where the report is read, in its reader's language
