"""A night started on a phone with no signal, taken by the server when the signal is back.

The phone keeps the night as the core's events (:mod:`app.core.night`: ``started``,
``hand``, ``corrected``, ``voided``, ``joined``, ``left``, ``rules``, ``paid``, ``undone``,
``closed``) and sends them in order, each under the ``id`` it made for it and its place
``seq`` in the night (from 1, ``started``). Each is carried out by the ledger's own
services, as if typed in at the table: the first starts an ordinary session
(:func:`~.ledger.start_session`) that takes the phone's ``uid`` as its own; the others
record, correct and void hands, seat and unseat players, change the rules, mark and undo
payments and close (:mod:`.ledger`, :mod:`.seats`). A ``corrected`` or ``voided`` event
names its hand by the phone's number (the n-th ``hand`` of the night), an ``undone`` its
payment by the ``paid`` event's id, as the core's fold does.

Each event is stored once (:class:`~app.db.models.NightEvent`, by its session and id): one
already taken (the same id at the same place with the same contents) is skipped, so that a
send cut halfway and resumed, two tabs sending the same night at once or a retry after an
answer that was lost store nothing twice. Two first sends of a night make one session: its
``uid`` is unique, and the one that comes second finds the first's.

Each event is its own step (a savepoint): a refused one (the ledger's error, or out of
order) stops the list there and leaves nothing of itself, while the events before it stay
taken; :class:`NightSent` says which were taken, which were there already, and which was
refused and why.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import InvalidOperation
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ...core.errors import TonkError
from ...core.messages import Message, as_sent
from ...db.models import GameSession, NightEvent, User
from ...extensions import db
from ..errors import LedgerError, NightOrderError, NotFoundError
from .access import keeps_score
from .ledger import (
    change_rules,
    close_session,
    correct_hand,
    owned_session,
    record_hand,
    record_payment,
    start_session,
    undo_payment,
    void_hand,
)
from .reading import TOKEN_LENGTH
from .seats import change_seats

#: The most events one request may carry (a long night is sent in several).
MAX_NIGHT_EVENTS = 1000
#: The most events a night may hold.
MAX_NIGHT_SEQ = 1_000_000
#: A night's uid: the session's own (``GameSession.uid``), as an export writes it.
NIGHT_UID = re.compile(r"[0-9A-Za-z_-]{1,32}")
#: A share token made on the phone (16 or more random bytes, base64url, as the server's own).
NIGHT_SHARE_TOKEN = re.compile(rf"[0-9A-Za-z_-]{{22,{TOKEN_LENGTH}}}")
#: An event's id, made on the phone.
NIGHT_EVENT_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
#: Each kind of event and the fields it may carry besides ``id``, ``seq`` and ``kind``.
NIGHT_FIELDS: dict[str, tuple[str, ...]] = {
    "started": ("name", "players", "dealer", "rules", "stake", "currency", "side_bets",
                "league", "share_token"),
    "hand": ("hand",),
    "corrected": ("number", "hand", "reason", "version"),
    "voided": ("number", "reason", "version"),
    "joined": ("player", "after"),
    "left": ("player",),
    "rules": ("rules", "stake"),
    "paid": ("payer", "payee", "amount"),
    "undone": ("payment", "reason"),
    "closed": ("carry_over",),
}
_HEAD = ("id", "seq", "kind")

#: What a ``started`` event's table becomes for :func:`~.ledger.start_session` (the league
#: checked, its defaults filling in: the API's ``session_table``).
Table = Callable[[Mapping[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Sent:
    """One event as sent: its place in the list, id, place in the night, kind, the event
    and its contents as stored (canonical JSON)."""

    index: int
    id: str
    seq: int
    kind: str
    event: Mapping[str, Any]
    body: str


@dataclass(frozen=True)
class Refusal:
    """The event that stopped the list, and why."""

    event: str
    index: int
    error: TonkError


@dataclass
class NightSent:
    """What became of a list of events: the night's session (None: not started), whether
    this request started it, the ids taken now and those the server held already (skipped),
    how many events the night holds, and the refusal that stopped the list, if one did."""

    session: GameSession | None
    created: bool = False
    taken: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    held: int = 0
    refused: Refusal | None = None


def read_events(events: Any) -> list[Sent]:
    """The list as sent, checked whole before anything is carried out: each event an object
    with its id, seq and kind and the fields of its kind, ids once, seqs one after
    another, ``started`` first and only there."""
    if not isinstance(events, list) or not events or len(events) > MAX_NIGHT_EVENTS:
        raise LedgerError(Message("sync.events", most=MAX_NIGHT_EVENTS), "events")
    read: list[Sent] = []
    for index, event in enumerate(events):
        where = f"events[{index}]"
        if not isinstance(event, Mapping):
            raise LedgerError(Message("sync.event", index=index + 1), where)
        event_id, seq, kind = (event.get(k) for k in _HEAD)
        if not isinstance(event_id, str) or not NIGHT_EVENT_ID.fullmatch(event_id):
            raise LedgerError(Message("sync.event_id", value=as_sent(event_id)[:70]), where + ".id")
        if type(seq) is not int or not 1 <= seq <= MAX_NIGHT_SEQ:
            raise LedgerError(Message("sync.seq", value=as_sent(seq)[:30]), where + ".seq")
        if not isinstance(kind, str) or kind not in NIGHT_FIELDS:
            raise LedgerError(Message("night.event", kind=as_sent(kind)[:30]), where + ".kind")
        allowed = (*_HEAD, *NIGHT_FIELDS[kind])
        unknown = sorted(k for k in event if k not in allowed)
        if unknown:
            raise LedgerError(Message("sync.unknown_field", kind=kind,
                                      field_name=as_sent(unknown[0])[:70],
                                      fields=", ".join(allowed)), f"{where}.{unknown[0]}")
        if (kind == "started") != (seq == 1):
            raise LedgerError(Message("sync.first"), where + ".kind")
        if any(s.id == event_id for s in read):
            raise LedgerError(Message("sync.twice", event=event_id), where + ".id")
        if read and seq != read[-1].seq + 1:
            raise NightOrderError(Message("sync.order", event=event_id, seq=seq,
                                          before=read[-1].seq), where + ".seq")
        body = json.dumps(event, sort_keys=True, separators=(",", ":"), default=str,
                          ensure_ascii=False)
        read.append(Sent(index, event_id, seq, kind, event, body))
    return read


def send_night(user: User, uid: Any, events: Any, *, table: Table) -> NightSent:
    """Take the events of night ``uid`` (see the module), in order, each once; ``table``
    makes the session's table of its ``started`` event. A list that cannot be read, or
    another account's night, raises and changes nothing; a refused event stops the list
    (:attr:`NightSent.refused`), the events before it taken."""
    if not isinstance(uid, str) or not NIGHT_UID.fullmatch(uid):
        raise LedgerError(Message("sync.uid", value=as_sent(uid)[:40]), "uid")
    sent = read_events(events)
    done = _send(user, uid, sent, table)
    if done is None:  # another request started the night meanwhile: go on from its
        done = _send(user, uid, sent, table)
    if done is None:
        raise NightOrderError(Message("sync.not_a_night", uid=uid), "uid")
    return done


class _Held:
    """What the server holds of a night: its events in order, by id, its hands' numbers (by
    the phone's) and its payments' ids (by the ``paid`` event's id)."""

    def __init__(self, rows: list[NightEvent]) -> None:
        self.rows: list[NightEvent] = []
        self.by_id: dict[str, NightEvent] = {}
        self.hands: list[int] = []
        self.payments: dict[str, int] = {}
        for row in rows:
            self.add(row)

    def add(self, row: NightEvent) -> None:
        self.rows.append(row)
        self.by_id[row.event_id] = row
        if row.kind == "hand" and row.made is not None:
            self.hands.append(row.made)
        elif row.kind == "paid" and row.made is not None:
            self.payments[row.event_id] = row.made

    def holds(self, sent: list[Sent]) -> bool:
        """Whether every event sent is held already, as sent."""
        return all((row := self.by_id.get(s.id)) is not None and row.seq == s.seq
                   and row.body == s.body for s in sent)


def _night_of(user: User, uid: str) -> GameSession | None:
    """The session of night ``uid`` (None: not started), if ``user`` keeps its score."""
    gs: GameSession | None = db.session.scalar(select(GameSession).where(
        GameSession.uid == uid))
    if gs is None:
        return None
    if not keeps_score(user, gs):
        raise NotFoundError(Message("sync.not_yours", uid=uid), "uid")
    return gs


def _rows(gs: GameSession) -> list[NightEvent]:
    return list(db.session.scalars(select(NightEvent).where(NightEvent.session_id == gs.id)
                                   .order_by(NightEvent.seq)))


def _send(user: User, uid: str, sent: list[Sent], table: Table) -> NightSent | None:
    """One go at the list (None: the night was started by another request meanwhile)."""
    gs = _night_of(user, uid)
    night = _Held(_rows(gs) if gs is not None else [])
    if gs is not None:
        if not night.rows:
            raise NightOrderError(Message("sync.not_a_night", uid=uid), "uid")
        if night.holds(sent):  # a retry: nothing to do, nothing locked or moved on
            return NightSent(gs, already=[s.id for s in sent], held=len(night.rows))
        gs = owned_session(user, gs.id, to_change=True)  # under its lock, read afresh
        night = _Held(_rows(gs))
    done = NightSent(gs, held=len(night.rows))
    for s in sent:
        try:
            if _held(night, s):
                done.already.append(s.id)
                continue
            if s.kind == "started":
                started = _start(user, uid, s, table)
                if started is None:
                    return None
                gs, row = started
                done.session, done.created = gs, True
            else:
                assert gs is not None  # (seq 1 is started: a night held has a session)
                with db.session.begin_nested():
                    row = _row(gs, s, _step(user, gs, night, s))
        except (TonkError, InvalidOperation) as exc:
            error = exc if isinstance(exc, TonkError) else LedgerError(
                Message("api.payment_amount", value=as_sent(s.event.get("amount"))), "amount")
            done.refused = Refusal(s.id, s.index, error)
            break
        night.add(row)
        done.taken.append(s.id)
        done.held = len(night.rows)
    return done


def _held(night: _Held, s: Sent) -> bool:
    """Whether ``s`` is held already (then skipped); refused if it is out of its place or
    its id names another event."""
    row = night.by_id.get(s.id)
    if row is not None:
        if row.seq != s.seq or row.body != s.body:
            raise LedgerError(Message("sync.changed", event=s.id), f"events[{s.index}].id")
        return True
    held = len(night.rows)
    if s.seq <= held:
        raise NightOrderError(Message("sync.other", seq=s.seq, taken=night.rows[s.seq - 1]
                                      .event_id, held=held, next=held + 1),
                              f"events[{s.index}].seq")
    if s.seq > held + 1:
        raise NightOrderError(Message("sync.missing", event=s.id, seq=s.seq, held=held,
                                      next=held + 1), f"events[{s.index}].seq")
    return False


def _start(user: User, uid: str, s: Sent, table: Table
           ) -> tuple[GameSession, NightEvent] | None:
    """Start the night's session from its ``started`` event, under the phone's uid, and
    hold it under its lock; None if another request started it meanwhile."""
    e = s.event
    try:
        with db.session.begin_nested():
            gs = start_session(user, name=e.get("name"), players=e.get("players"),
                               first_dealer=e.get("dealer"), **table(e))
            gs.uid = uid
            if e.get("share_token") is not None:  # the phone's QR named it before it was sent
                gs.share_token = _share_token(e["share_token"])
            row = _row(gs, s, None)
    except IntegrityError:  # the uid is taken: by another send of this night, just now
        return None
    return owned_session(user, gs.id, to_change=True), row


def _share_token(token: Any) -> str:
    """The share token a night was started with on the phone (its QR printed before the
    server held the night): random URL-safe text as :func:`.reading.new_share_token` makes
    it, and no other session's."""
    if not isinstance(token, str) or not NIGHT_SHARE_TOKEN.fullmatch(token):
        raise LedgerError(Message("sync.share_token", value=as_sent(token)[:50]), "share_token")
    if db.session.scalar(select(GameSession.id).where(GameSession.share_token == token)):
        raise LedgerError(Message("sync.share_token_taken"), "share_token")
    return token


def _row(gs: GameSession, s: Sent, made: int | None) -> NightEvent:
    row = NightEvent(session_id=gs.id, seq=s.seq, event_id=s.id, kind=s.kind, body=s.body,
                     made=made)
    db.session.add(row)
    db.session.flush()
    return row


def _hand_number(night: _Held, number: Any) -> int:
    """The session's number of the night's hand ``number`` (the phone's: its n-th)."""
    if type(number) is int and 1 <= number <= len(night.hands):
        return night.hands[number - 1]
    raise LedgerError(Message("hand.not_found", number=number), "number")


def _step(user: User, gs: GameSession, night: _Held, s: Sent) -> int | None:
    """Carry out one event (not ``started``) by the ledger; what it made that later events
    name (a hand's number, a payment's id)."""
    e, kind = s.event, s.kind
    if kind == "hand":
        return record_hand(gs, user, e.get("hand")).number
    if kind in ("corrected", "voided"):
        number = _hand_number(night, e.get("number"))
        if kind == "corrected":
            correct_hand(gs, user, number, e.get("hand"), e.get("reason"), e.get("version"))
        else:
            void_hand(gs, user, number, e.get("reason"), e.get("version"))
        return number
    if kind == "joined":
        change_seats(gs, user, join=e.get("player", ""), after=e.get("after"))
    elif kind == "left":
        change_seats(gs, user, leave=e.get("player", ""))
    elif kind == "rules":
        change_rules(gs, user, rules=e.get("rules"), stake=e.get("stake"))
    elif kind == "paid":
        return record_payment(gs, user, e.get("payer"), e.get("payee"), e.get("amount"))
    elif kind == "undone":
        paid = e.get("payment")
        payment = night.payments.get(paid) if isinstance(paid, str) else None
        if payment is None:
            raise LedgerError(Message("payment.not_found", payment_id=paid), "payment")
        undo_payment(gs, user, payment, e.get("reason"))
    else:  # closed
        close_session(gs, e.get("carry_over", False))
    return None
