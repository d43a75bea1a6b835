"""Export and import: a league, or one session, as one JSON document (everything, enough to
rebuild it exactly) or as CSV for a spreadsheet; and the import of such a document, all or
nothing, every hand re-validated through the domain core.

The document::

    {"format": "tonk-tally", "version": 1,
     "league": {"uid", "name", "created_at", "currency", "stake", "rules", "seasons",
                "members"} or null,
     "sessions": [{"uid", "name", "played_at", "closed_at", "currency", "stake", "rules",
                   "players", "next_dealer", "totals",
                   "hands": [{"number", "voided",
                              "versions": [{"version", "action", "at", "by", "reason",
                                            "hand", "result"}]}],
                   "payments": [{"from", "to", "amount", "at"}],
                   "rules_changes": [{"from_hand", "rules", "stake", "at"}]}]}

Times are ISO 8601 in UTC; money is decimal strings; ``hand`` and ``result`` are the stored
JSON of RULES.md §1 and §8. It is written as a stream of text chunks, one session a line,
and read back session by session, so that neither side holds a large league in memory.

The importer writes exactly the rows the ledger would have written hand by hand (running
totals, entries, session records, every version) but in bulk: SQLAlchemy Core inserts in
batches with ids taken up front, each session's arithmetic done once in Python with the
ledger's own helpers (:func:`~app.ledger.seat_nets`, :func:`~app.ledger.seat_parts`,
:func:`~app.ledger.stat_counts`). One transaction: any problem, and nothing is imported.
"""
from __future__ import annotations

import csv
import gc
import importlib
import io
import json
import logging
import multiprocessing
import os
import pickle
import queue as queue_module
import re
import secrets
import tempfile
import threading
import time
import traceback
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from itertools import chain
from typing import IO, Any, NamedTuple, Protocol, cast

from sqlalchemy import Boolean, Table, func, insert, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from .core import Rules, TonkError, parse_hand, resolve_rules, settle
from .core.dates import check_year, parse_day
from .core.hand import MAX_STAKE, parse_players, parse_stake
from .core.money import DuplicateKeyError, parse_decimal, refuse_repeats
from .core.names import MAX_NAME, clean_text, name_key
from .core.settle import Result, amount_formatter
from .extensions import db
from .ledger import (
    MAX_ID,
    MAX_SESSION_NAME,
    STAT_FIELDS,
    NotFoundError,
    Part,
    from_minor,
    is_league_admin,
    parse_amount,
    parse_currency,
    parse_reason,
    seat_nets,
    seat_parts,
    stat_counts,
    to_minor,
)
from .models import (
    GameSession,
    Hand,
    HandEntry,
    HandVersion,
    League,
    LeagueAdmin,
    Player,
    PlayerSessionStat,
    RulesChange,
    Season,
    SessionPlayer,
    SettlePayment,
    User,
    utcnow,
)
from .storage import begin_write

log = logging.getLogger(__name__)

FORMAT = "tonk-tally"
VERSION = 1
MAX_PROBLEMS = 100  # listed in a report; the rest are counted
MAX_LEAGUE_NAME = 80
MAX_SEASON_NAME = 80
MAX_BY = 80
EXPORT_BATCH = 200  # sessions read from the database at a time while exporting
IMPORT_BATCH_HANDS = 20_000  # hands validated and written at a time while importing
PARALLEL_BATCH_HANDS = 5_000  # … when other processes check them
ACTIONS = ("recorded", "corrected", "voided")
_UID = re.compile(r"[0-9A-Za-z_-]{1,32}")
_TABLE_FIELDS = ("rules", "stake", "players")
_PART = len(Part._fields)
_NO_COUNTS = (0,) * len(STAT_FIELDS)
#: json.dumps, less its check for cycles (parsed JSON has none): the same text, sooner.
_dumps = json.JSONEncoder(check_circular=False).encode


class ExchangeError(TonkError):
    """A document, or a part of one, that cannot be imported."""


def iso(moment: datetime) -> str:
    """A stored time as ISO 8601 in UTC (SQLite hands back naive times stored as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_time(value: Any, what: str) -> datetime:
    """ISO 8601 text → an aware UTC time (a time without an offset is read as UTC)."""
    if not isinstance(value, str):
        raise ExchangeError(f"{what} must be a time like \"2025-01-31T20:15:00+00:00\", "
                            f"not {value!r}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ExchangeError(f"{what} must be a time like \"2025-01-31T20:15:00+00:00\", "
                            f"not {value!r}") from None
    check_year(moment.date(), ExchangeError, None, what)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment if moment.tzinfo is UTC else moment.astimezone(UTC)


def _day(value: Any, what: str) -> date:
    if not isinstance(value, str):
        raise ExchangeError(f"{what} must be a day like \"2025-01-31\", not {value!r}")
    return parse_day(value, ExchangeError, None, what)


# == export ===================================================================================

class _Raw(str):
    """JSON text spliced into the document as it is (stored rules, hands and results)."""


def _json(value: Any) -> str:
    return value if isinstance(value, _Raw) else json.dumps(value)


def _obj(*pairs: tuple[str, Any]) -> str:
    return "{" + ", ".join(f"{json.dumps(k)}: {_json(v)}" for k, v in pairs) + "}"


def _array(items: Iterable[str]) -> _Raw:
    return _Raw("[" + ", ".join(items) + "]")


def may_export_league(user: User, league: League) -> bool:
    """Whoever runs a league (its owner or an admin) may export it."""
    return league.owner_id == user.id or is_league_admin(user, league.id)


def exportable_league(user: User, league_id: int) -> League:
    """The league ``league_id`` if ``user`` runs it, else :class:`NotFoundError`."""
    league = db.session.get(League, league_id) if 0 < league_id <= MAX_ID else None
    if league is None or not may_export_league(user, league):
        raise NotFoundError(f"there is no league {league_id} that you run")
    return league


def league_session_ids(league: League) -> list[int]:
    """The league's sessions in the order they were played."""
    return list(db.session.scalars(select(GameSession.id).where(
        GameSession.league_id == league.id).order_by(GameSession.created_at, GameSession.id)))


def _league_json(league: League) -> str:
    members = sorted(db.session.execute(select(Player.name, Player.created_at).where(
        Player.league_id == league.id)), key=lambda m: (m.name.lower(), m.name))
    seasons = sorted(league.seasons, key=lambda s: (s.starts_on, s.ends_on, s.name))
    return _obj(
        ("uid", league.uid), ("name", league.name), ("created_at", iso(league.created_at)),
        ("currency", league.currency),
        ("stake", str(from_minor(league.stake_minor))),
        ("rules", _Raw(league.rules_json)),
        ("seasons", [{"name": s.name, "starts_on": s.starts_on.isoformat(),
                      "ends_on": s.ends_on.isoformat()} for s in seasons]),
        ("members", [{"name": m.name, "joined_at": iso(m.created_at)} for m in members]))


def export_league(league: League) -> Iterator[str]:
    """The league and all its sessions as one JSON document, in chunks of text."""
    return _document(_league_json(league), league_session_ids(league))


def export_session(gs: GameSession) -> Iterator[str]:
    """One session as a JSON document (with its league, if it has one), in chunks of text."""
    league = db.session.get(League, gs.league_id) if gs.league_id is not None else None
    return _document(_league_json(league) if league is not None else None, [gs.id])


def write_document(chunks: Iterable[str], out: IO[str]) -> None:
    for chunk in chunks:
        out.write(chunk)


def _document(league: str | None, ids: Sequence[int]) -> Iterator[str]:
    yield (f'{{"format": "{FORMAT}", "version": {VERSION}, "league": {league or "null"},'
           f'\n"sessions": [')
    sep = "\n"
    for start in range(0, len(ids), EXPORT_BATCH):
        for session in _sessions_json(ids[start:start + EXPORT_BATCH]):
            yield sep + session
            sep = ",\n"
    yield "\n]}\n"


def _grouped(stmt: Any) -> dict[Any, list[Any]]:
    """Rows grouped by their first column, in the statement's order."""
    groups: dict[Any, list[Any]] = defaultdict(list)
    for row in db.session.execute(stmt):
        groups[row[0]].append(row)
    return groups


def _sessions_json(ids: Sequence[int]) -> Iterator[str]:
    gs, sp, h, hv = GameSession, SessionPlayer, Hand, HandVersion
    sessions = {r.id: r for r in db.session.execute(select(
        gs.id, gs.uid, gs.name, gs.created_at, gs.closed_at, gs.currency, gs.stake_minor,
        gs.rules_json, gs.next_dealer).where(gs.id.in_(ids)))}
    seats = _grouped(select(sp.session_id, sp.name, sp.total_minor)
                     .where(sp.session_id.in_(ids)).order_by(sp.session_id, sp.seat))
    hands = _grouped(select(h.session_id, h.id, h.number, h.voided)
                     .where(h.session_id.in_(ids)).order_by(h.session_id, h.number))
    versions = _grouped(select(hv.hand_id, hv.version, hv.action, hv.created_at, hv.by_name,
                               hv.reason, hv.hand_json, hv.result_json)
                        .join(h, h.id == hv.hand_id).where(h.session_id.in_(ids))
                        .order_by(hv.hand_id, hv.version))
    payments = _grouped(select(SettlePayment.session_id, SettlePayment.payer_seat,
                               SettlePayment.payee_seat, SettlePayment.amount_minor,
                               SettlePayment.created_at)
                        .where(SettlePayment.session_id.in_(ids))
                        .order_by(SettlePayment.session_id, SettlePayment.id))
    changes = _grouped(select(RulesChange.session_id, RulesChange.from_hand,
                              RulesChange.rules_json, RulesChange.stake_minor,
                              RulesChange.created_at)
                       .where(RulesChange.session_id.in_(ids))
                       .order_by(RulesChange.session_id, RulesChange.id))
    for session_id in ids:
        s = sessions[session_id]
        names = [seat.name for seat in seats[session_id]]
        hand_list = _array(
            _obj(("number", hand.number), ("voided", bool(hand.voided)),
                 ("versions", _array(
                     _obj(("version", v.version), ("action", v.action), ("at", iso(v.created_at)),
                          ("by", v.by_name), ("reason", v.reason), ("hand", _Raw(v.hand_json)),
                          ("result", _Raw(v.result_json)))
                     for v in versions[hand.id])))
            for hand in hands[session_id])
        yield _obj(
            ("uid", s.uid), ("name", s.name), ("played_at", iso(s.created_at)),
            ("closed_at", iso(s.closed_at) if s.closed_at is not None else None),
            ("currency", s.currency),
            ("stake", str(from_minor(s.stake_minor))),
            ("rules", _Raw(s.rules_json)), ("players", names),
            ("next_dealer", names[s.next_dealer] if names else None),
            ("totals", {seat.name: str(from_minor(seat.total_minor))
                        for seat in seats[session_id]}),
            ("hands", hand_list),
            ("payments", [{"from": names[p.payer_seat], "to": names[p.payee_seat],
                           "amount": str(from_minor(p.amount_minor)), "at": iso(p.created_at)}
                          for p in payments[session_id]]),
            ("rules_changes", _array(
                _obj(("from_hand", c.from_hand), ("rules", _Raw(c.rules_json)),
                     ("stake", str(from_minor(c.stake_minor))),
                     ("at", iso(c.created_at)))
                for c in changes[session_id])))


# -- CSV -------------------------------------------------------------------------------------

HANDS_CSV = ("session", "session_uid", "played_at", "hand", "dealer", "outcome", "winners",
             "voided", "multiplier", "scoring", "stake", "currency")
PAYMENTS_CSV = ("session", "session_uid", "played_at", "hand", "from", "to", "amount",
                "currency", "scoring", "rule")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def _cell(value: Any) -> Any:
    """A spreadsheet cell that no spreadsheet runs as a formula: text starting with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'``; numbers the app
    writes (``-0.25``) stay numbers."""
    if (isinstance(value, str) and value.startswith(_FORMULA)
            and not _NUMBER.fullmatch(value)):
        return "'" + value
    return value


class _CsvOut:
    """A csv writer whose text is taken out in chunks."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()
        self.writer = csv.writer(self.buffer, lineterminator="\r\n")

    def row(self, cells: Sequence[Any]) -> None:
        """One row, every cell neutralised (:func:`_cell`)."""
        self.writer.writerow([_cell(c) for c in cells])

    def take(self) -> str:
        text = self.buffer.getvalue()
        self.buffer.seek(0)
        self.buffer.truncate()
        return text


class _RulesCache:
    """Stored rule specs (JSON values) → rules and their amount formatter, once each."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[Rules, Callable[[Decimal], str]]] = {}

    def __call__(self, spec: Any) -> tuple[Rules, Callable[[Decimal], str]]:
        key = json.dumps(spec, sort_keys=True)
        found = self._known.get(key)
        if found is None:
            rules = resolve_rules(spec)
            found = self._known[key] = (rules, amount_formatter(rules))
        return found


def _csv_rows(ids: Sequence[int]) -> Iterator[tuple[Any, list[str], Any]]:
    """(session, seat names, hand row) for every hand of the sessions, in order."""
    gs, h = GameSession, Hand
    for start in range(0, len(ids), EXPORT_BATCH):
        batch = ids[start:start + EXPORT_BATCH]
        sessions = {r.id: r for r in db.session.execute(select(
            gs.id, gs.uid, gs.name, gs.created_at, gs.currency).where(gs.id.in_(batch)))}
        seats = _grouped(select(SessionPlayer.session_id, SessionPlayer.name)
                         .where(SessionPlayer.session_id.in_(batch))
                         .order_by(SessionPlayer.session_id, SessionPlayer.seat))
        hands = _grouped(select(h.session_id, h.number, h.voided, h.hand_json, h.result_json,
                                h.nets_json)
                         .where(h.session_id.in_(batch)).order_by(h.session_id, h.number))
        for session_id in batch:
            names = [s.name for s in seats[session_id]]
            for hand in hands[session_id]:
                yield sessions[session_id], names, hand


def csv_players(ids: Sequence[int]) -> list[str]:
    """The player columns of a hands CSV: one session's seats in order, or every name
    that sat at the sessions, alphabetically."""
    if len(ids) == 1:
        return list(db.session.scalars(select(SessionPlayer.name).where(
            SessionPlayer.session_id == ids[0]).order_by(SessionPlayer.seat)))
    names: set[str] = set()
    for start in range(0, len(ids), EXPORT_BATCH):
        names.update(db.session.scalars(select(SessionPlayer.name).distinct().where(
            SessionPlayer.session_id.in_(ids[start:start + EXPORT_BATCH]))))
    return sorted(names, key=lambda n: (n.lower(), n))


def hands_csv(ids: Sequence[int]) -> Iterator[str]:
    """One row per hand (its current version): how it ended and each player's net, as
    decimal strings (points and push-ups as whole numbers); a void counts 0."""
    players = csv_players(ids)
    column = {name: i for i, name in enumerate(players)}
    out = _CsvOut()
    out.row([*HANDS_CSV, *players])
    yield out.take()
    rules_for = _RulesCache()
    for n, (session, names, hand) in enumerate(_csv_rows(ids), start=1):
        data, result = json.loads(hand.hand_json), json.loads(hand.result_json)
        rules, fmt = rules_for(data["rules"])
        nets: list[str] = [""] * len(players)
        for name, net in zip(names, json.loads(hand.nets_json), strict=True):
            nets[column[name]] = fmt(from_minor(net))
        out.row([
            session.name, session.uid, iso(session.created_at), hand.number,
            data["dealer"], result["outcome"],
            "; ".join(result["winners"]), "yes" if hand.voided else "no",
            data.get("multiplier", 1), rules.scoring, data["stake"], session.currency, *nets])
        if n % 500 == 0:
            yield out.take()
    yield out.take()


def payments_csv(ids: Sequence[int]) -> Iterator[str]:
    """One row per payment of every counted hand (its current version): who paid whom how
    much under which rule. Voided hands pay nothing; push-ups pay nothing."""
    out = _CsvOut()
    out.row(PAYMENTS_CSV)
    yield out.take()
    rules_for = _RulesCache()
    for n, (session, _names, hand) in enumerate(_csv_rows(ids), start=1):
        if hand.voided:
            continue
        result = json.loads(hand.result_json)
        if not result["payments"]:
            continue
        rules, _fmt = rules_for(json.loads(hand.hand_json)["rules"])
        for p in result["payments"]:
            out.row([
                session.name, session.uid, iso(session.created_at), hand.number,
                p["from"], p["to"], p["amount"], session.currency,
                rules.scoring, p["rule"]])
        if n % 500 == 0:
            yield out.take()
    yield out.take()


# == reading a document =======================================================================

class _ReadError(Exception):
    """The file cannot be read as a document; the message says why, for a person."""


_CHUNK = 1 << 20
_NOT_SPACE = re.compile(r"[^ \t\n\r]")


class _Reader:
    """Reads a document from a text stream: the top-level fields one by one, and the
    sessions one at a time, never the whole file at once. Any valid JSON object is read
    right, whatever its layout."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.offset = 0  # characters dropped from the front of the buffer
        self.line = 1  # the line the buffer starts on
        self.decoder = json.JSONDecoder(object_pairs_hook=refuse_repeats)

    def _more(self) -> bool:
        if self.eof:
            return False
        try:
            chunk = self.stream.read(max(_CHUNK, len(self.buf) - self.pos))
        except UnicodeDecodeError:
            raise _ReadError("the file is not UTF-8 text") from None
        if not chunk:
            self.eof = True
            return False
        dropped = self.buf[:self.pos]
        self.offset += len(dropped)
        self.line += dropped.count("\n")
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        return True

    def _peek(self) -> str:
        """The next character that is not white space ('' at the end of the file)."""
        while True:
            found = _NOT_SPACE.search(self.buf, self.pos)
            if found is not None:
                self.pos = found.start()
                return self.buf[self.pos]
            self.pos = len(self.buf)
            if not self._more():
                return ""

    def _where(self) -> str:
        line = self.line + self.buf.count("\n", 0, self.pos)
        return f"line {line} (character {self.offset + self.pos + 1})"

    def _cut(self) -> _ReadError:
        return _ReadError(f"the file ends too soon, at {self._where()}: it is cut off "
                          "(truncated)")

    def _value(self) -> Any:
        if self._peek() == "":
            raise self._cut()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self._more():
                    continue
                if exc.pos >= len(self.buf.rstrip()) or exc.msg.startswith("Unterminated"):
                    self.pos = len(self.buf)
                    raise self._cut() from None
                self.pos = exc.pos
                raise _ReadError(f"the file is not valid JSON at {self._where()}: {exc.msg}"
                                 ) from None
            except DuplicateKeyError as exc:
                raise _ReadError(f"the file gives a key twice near {self._where()}: {exc}"
                                 ) from None
            except RecursionError:
                raise _ReadError("the file is nested too deeply to be an export") from None
            if end == len(self.buf) and self._more():
                continue  # a number at the end of the buffer may go on
            self.pos = end
            return value

    def _next(self, allowed: str, what: str) -> str:
        c = self._peek()
        if c == "":
            raise self._cut()
        if c not in allowed:
            raise _ReadError(f"the file is not valid JSON at {self._where()}: expected {what}")
        self.pos += 1
        return c

    def events(self) -> Iterator[tuple[str, str, Any]]:
        """("field", name, value) for each top-level field but the sessions, ("sessions",
        "", None) where the list of sessions starts, then ("session", "", value) each."""
        first = self._peek()
        if first == "":
            raise _ReadError("the file is empty")
        if first != "{":
            raise _ReadError('this is not a Tonk Tally export: it should be a JSON object '
                             'that starts with {"format": "tonk-tally", …')
        self.pos += 1
        if self._peek() == "}":
            self.pos += 1
        else:
            while True:
                if self._peek() != '"':
                    self._next('"', "a field name in quotes")
                key = self._value()
                self._next(":", "':' after a field name")
                if key == "sessions" and self._peek() == "[":
                    self.pos += 1
                    yield "sessions", "", None
                    if self._peek() == "]":
                        self.pos += 1
                    else:
                        while True:
                            yield "session", "", self._value()
                            if self._next(",]", "',' or ']' after a session") == "]":
                                break
                else:
                    yield "field", key, self._value()
                if self._next(",}", "',' or '}' after a field") == "}":
                    break
        if self._peek() != "":
            raise _ReadError(f"there is more after the end of the document, at {self._where()}")


def _dict_events(doc: Any) -> Iterator[tuple[str, str, Any]]:
    """The same events for a document already in memory."""
    if not isinstance(doc, Mapping):
        raise _ReadError('this is not a Tonk Tally export: it should be a JSON object '
                         'that starts with {"format": "tonk-tally", …')
    for key, value in doc.items():
        if key != "sessions" or not isinstance(value, list):
            yield "field", key, value
    sessions = doc.get("sessions")
    if isinstance(sessions, list):
        yield "sessions", "", None
        for session in sessions:
            yield "session", "", session


# == import ===================================================================================

@dataclass
class ImportReport:
    """What an import did; or every problem that stopped it, and then nothing was imported."""

    sessions: int = 0
    hands: int = 0
    skipped: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    more_problems: int = 0
    league_id: int | None = None
    league_name: str | None = None
    league_created: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        """The report as lines of text, for the command line."""
        if not self.ok:
            out = [f"nothing was imported: {len(self.problems) + self.more_problems} "
                   "problem(s)", *self.problems]
            if self.more_problems:
                out.append(f"… and {self.more_problems} more")
            return out
        out = [f"imported {self.sessions} session(s), {self.hands} hand(s)"]
        if self.league_name is not None:
            how = "new league" if self.league_created else "into the league"
            out[0] += f" ({how} {self.league_name}, id {self.league_id})"
        if self.skipped:
            out.append(f"skipped {len(self.skipped)} session(s) already here:")
            out += [f"  {s}" for s in self.skipped[:10]]
            if len(self.skipped) > 10:
                out.append(f"  … and {len(self.skipped) - 10} more")
        return out


class _Version(NamedTuple):
    """One version of a hand, as it will be stored."""

    version: int
    action: str
    hand_text: str
    result_text: str
    reason: str | None
    by: str
    at: datetime


class _Hand(NamedTuple):
    """One hand, checked: its versions, and its current version's part for each seat (flat:
    :class:`~app.ledger.Part` after Part, seat by seat; None for a voided hand). Plain
    values, so that it travels between processes cheaply."""

    number: int
    voided: bool
    outcome: str
    scoring: str
    nets: list[int]
    parts: tuple[Any, ...] | None
    versions: list[_Version]


#: A player's record in a session as its hands add it up: seat, scoring, then the counters
#: of :data:`app.ledger.STAT_FIELDS`.
_Record = tuple[Any, ...]


@dataclass(slots=True)
class _Session:
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
    hands: list[_Hand]
    records: list[_Record]
    payments: list[tuple[int, int, int, datetime]]
    changes: list[tuple[int, str, int, datetime]]


@dataclass(frozen=True, slots=True)
class _Table:
    """What a hand is played under, from its first version: rules, stake, formatter."""

    rules: Rules
    spec: dict[str, Any]
    stake: Decimal
    fmt: Callable[[Decimal], str]


class _Bad(Exception):
    """One problem with one version of a hand."""


def _where(doc: Mapping[str, Any], index: int) -> str:
    name, uid = doc.get("name"), doc.get("uid")
    name = " ".join(name.split()) if isinstance(name, str) and name.strip() else f"#{index}"
    return f"session {name} ({uid if isinstance(uid, str) else 'no uid'})"


def _uid(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _UID.fullmatch(value):
        raise ExchangeError(f"{what} needs a uid of 1 to 32 letters, digits, - or _ "
                            f"(it keeps a second import from adding it twice), not {value!r}")
    return value


def _whole(value: Any, what: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_ID:
        raise ExchangeError(f"{what} must be a whole number from {low}, not {value!r}")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ExchangeError(f"{what} must be a list")
    return value


class _LeaguePlan(NamedTuple):
    """The league of a document, checked, to be made or merged into when writing starts."""

    uid: str
    name: str
    rules: Rules
    stake: Decimal
    currency: str
    created: datetime
    seasons: list[tuple[str, date, date]]
    members: dict[str, tuple[str, datetime]]


class _Checked(NamedTuple):
    """One session of a document, checked: ready to be written, or its problems."""

    position: int  # in the document's list of sessions, from 1
    uid: str | None
    where: str
    hands: int
    session: _Session | None
    problems: list[str]


class _Checker:
    """Checks sessions of a document, every version of every hand through the domain core,
    with nothing but Python: no database, so that it can run in another process."""

    def __init__(self) -> None:
        self._last_table: tuple[Any, Any, _Table] | None = None
        self._last_by: tuple[Any, str] | None = None
        self._problems: list[str] = []

    def problem(self, message: str) -> None:
        self._problems.append(message)

    def check(self, index: int, doc: Any) -> _Checked:
        """The session ``doc`` (the ``index``-th of its document), checked."""
        self._problems = []
        if not isinstance(doc, dict):
            return _Checked(index, None, f"session #{index}", 0, None,
                            [f"session #{index}: a session must be a JSON object"])
        uid = doc.get("uid")
        where = _where(doc, index)
        hands = doc.get("hands")
        session = self._session(doc, where)
        return _Checked(index, uid if isinstance(uid, str) else None, where,
                        len(hands) if isinstance(hands, list) else 0,
                        None if self._problems else session, self._problems)

    def _session(self, doc: Mapping[str, Any], where: str) -> _Session | None:
        """The session checked in full, or None after noting each of its problems."""
        try:
            uid = _uid(doc.get("uid"), "a session")
            name = clean_text(doc.get("name"), ExchangeError, "name", "the session's name",
                              MAX_SESSION_NAME)
            names = parse_players(doc.get("players"))
            rules = resolve_rules(doc.get("rules"))
            stake = parse_stake(doc.get("stake"), rules)
            currency = parse_currency(doc.get("currency"))
            played_at = parse_time(doc.get("played_at"), "played_at")
            closed_at = (parse_time(doc["closed_at"], "closed_at")
                         if doc.get("closed_at") is not None else None)
            hand_docs = _list(doc.get("hands"), "hands")
            payments = [self._payment(p, names, i)
                        for i, p in enumerate(_list(doc.get("payments"), "payments"), 1)]
            changes = [self._change(c, i)
                       for i, c in enumerate(_list(doc.get("rules_changes"), "rules_changes"), 1)]
        except TonkError as exc:
            self.problem(f"{where}: {exc.message}")
            return None
        names_list = list(names)
        hands: list[_Hand] = []
        counted: list[list[tuple[int, ...]] | None] = []
        numbers: set[int] = set()
        for i, hand_doc in enumerate(hand_docs, start=1):
            checked = self._hand(hand_doc, i, names, names_list, where, numbers)
            if checked is not None:
                hands.append(checked[0])
                counted.append(checked[1])
        if self._problems:
            return None
        for expected, number in enumerate(sorted(h.number for h in hands), start=1):
            if number != expected:
                self.problem(f"{where}: hand numbers run 1, 2, 3… without gaps, but hand "
                             f"{expected} is missing")
                return None
        if any(a.number > b.number for a, b in zip(hands, hands[1:], strict=False)):
            order = sorted(range(len(hands)), key=lambda i: hands[i].number)
            hands, counted = [hands[i] for i in order], [counted[i] for i in order]
        totals = [0] * len(names)
        records: dict[tuple[int, str], list[tuple[int, ...]]] = {}
        for hand, counts in zip(hands, counted, strict=True):
            for seat in range(len(names)):  # the first version made the record
                if (seat, hand.scoring) not in records:
                    records[(seat, hand.scoring)] = [_NO_COUNTS]
            if counts is None:
                continue
            for seat, (net, added) in enumerate(zip(hand.nets, counts, strict=True)):
                totals[seat] += net
                records[(seat, hand.scoring)].append(added)
        try:
            self._check_totals(doc.get("totals"), names, totals)
            next_dealer = self._next_dealer(doc, names, hands)
            if closed_at is not None and rules.scoring != "push_ups":
                _check_paid(names, totals, payments)
        except TonkError as exc:
            self.problem(f"{where}: {exc.message}")
            return None
        return _Session(uid, name, played_at, closed_at, currency, to_minor(stake),
                        json.dumps(rules.to_json()), next_dealer, names, totals, hands,
                        [(seat, scoring, *map(sum, zip(*added, strict=True)))
                         for (seat, scoring), added in records.items()],
                        payments, changes)

    def _payment(self, doc: Any, names: tuple[str, ...], i: int
                 ) -> tuple[int, int, int, datetime]:
        if not isinstance(doc, Mapping):
            raise ExchangeError(f"payment {i} must be a JSON object")
        payer, payee = doc.get("from"), doc.get("to")
        for who in (payer, payee):
            if who not in names:
                raise ExchangeError(f"payment {i}: {who!r} is not at this table")
        if payer == payee:
            raise ExchangeError(f"payment {i}: {payer} cannot pay themselves")
        try:
            amount = parse_amount(doc.get("amount"))
        except TonkError as exc:
            raise ExchangeError(f"payment {i}: {exc.message}") from None
        return (names.index(payer), names.index(payee), to_minor(amount),
                parse_time(doc.get("at"), f"payment {i}'s at"))

    def _change(self, doc: Any, i: int) -> tuple[int, str, int, datetime]:
        if not isinstance(doc, Mapping):
            raise ExchangeError(f"rules change {i} must be a JSON object")
        rules = resolve_rules(doc.get("rules"))
        stake = parse_stake(doc.get("stake"), rules)
        return (_whole(doc.get("from_hand"), f"rules change {i}'s from_hand"),
                json.dumps(rules.to_json()), to_minor(stake),
                parse_time(doc.get("at"), f"rules change {i}'s at"))

    @staticmethod
    def _check_totals(given: Any, names: tuple[str, ...], totals: list[int]) -> None:
        if given is None:
            return
        if not isinstance(given, Mapping) or set(given) != set(names):
            raise ExchangeError("totals must give every player's total")
        for name, total in zip(names, totals, strict=True):
            value = parse_decimal(given[name], ExchangeError,
                                  f"{name}'s total must be an amount like \"4.50\"", "totals")
            if value * 100 != total:
                raise ExchangeError(f"the totals do not match the hands: {name}'s total is "
                                    f"{from_minor(total)} by the hands, not {given[name]}")

    @staticmethod
    def _next_dealer(doc: Mapping[str, Any], names: tuple[str, ...], hands: list[_Hand]) -> int:
        given = doc.get("next_dealer")
        if given is not None:
            if given not in names:
                raise ExchangeError(f"the next dealer, {given!r}, is not at the table")
            return names.index(given)
        if not hands:
            return 0
        first = json.loads(hands[-1].versions[0].hand_text)
        return (names.index(first["dealer"]) + 1) % len(names)

    # -- one hand ----------------------------------------------------------------------------

    def _hand(self, doc: Any, index: int, names: tuple[str, ...], names_list: list[str],
              where: str, numbers: set[int]
              ) -> tuple[_Hand, list[tuple[int, ...]] | None] | None:
        """One hand, every version re-settled: the hand, and what its current version adds
        to each seat's record (None if it is void); None after noting its problem."""
        if not isinstance(doc, dict):
            self.problem(f"{where}, hand #{index} of the list: a hand must be a JSON object")
            return None
        try:
            number = _whole(doc.get("number"), "the hand's number")
        except TonkError as exc:
            self.problem(f"{where}, hand #{index} of the list: {exc.message}")
            return None
        at_hand = f"{where}, hand {number}"
        if number in numbers:
            self.problem(f"{at_hand}: there are two hands numbered {number}")
            return None
        numbers.add(number)
        versions = doc.get("versions")
        if not isinstance(versions, list) or not versions:
            self.problem(f"{at_hand}: a hand needs its list of versions, the first one "
                         "recorded")
            return None
        table: _Table | None = None
        done: list[_Version] = []
        given_hand: Any = None
        given_result: Any = None
        current: tuple[str, list[int], tuple[Any, ...]] | None = None  # outcome, nets, parts
        outcome = ""
        for i, v in enumerate(versions, start=1):
            if not isinstance(v, dict):
                self.problem(f"{at_hand}, version {i}: a version must be a JSON object")
                return None
            if v.get("version") != i or isinstance(v.get("version"), bool):
                self.problem(f"{at_hand}: the versions must run 1, 2, 3… without gaps, but "
                             f"version {i} is {v.get('version')!r}")
                return None
            try:
                action = v.get("action")
                if action not in ACTIONS or (action == "recorded") != (i == 1):
                    raise _Bad("the first version is recorded, every later one corrected "
                               f"or voided, not {action!r}")
                at = parse_time(v.get("at"), "at")
                by = self._by(v.get("by"))
                reason = v.get("reason")
                if action == "recorded":
                    if reason not in (None, ""):
                        raise _Bad("a recorded hand has no reason; only corrections and "
                                   "voids do")
                    reason = None
                else:
                    reason = parse_reason(reason)
                if action == "voided":
                    if current is None:
                        raise _Bad("the hand is already void: it cannot be voided again")
                    if v.get("hand", given_hand) != given_hand or \
                            v.get("result", given_result) != given_result:
                        raise _Bad("a void keeps the hand and its result as they were")
                    last = done[-1]
                    done.append(_Version(i, action, last.hand_text, last.result_text, reason,
                                         by, at))
                    current = None
                    continue
                table, result, hand_text = self._settled(v.get("hand"), names, names_list,
                                                         table)
                result_text = self._result_text(result, v.get("result"), table)
            except (TonkError, _Bad) as exc:
                self.problem(f"{at_hand}, version {i}: {exc}")
                return None
            given_hand, given_result = v.get("hand"), v.get("result")
            nets = seat_nets(names, result)
            parts = seat_parts(names, nets, result)
            current = (result.outcome, nets, tuple(chain.from_iterable(parts)))
            counts: list[tuple[int, ...]] = [stat_counts(part) for part in parts]
            outcome = result.outcome
            done.append(_Version(i, action, hand_text, result_text, reason, by, at))
        voided = current is None
        given_void = doc.get("voided")
        if given_void is not None and given_void is not voided:
            self.problem(f"{at_hand}: it says voided is {given_void!r}, but its last version "
                         f"is {done[-1].action}")
            return None
        assert table is not None
        if current is None:
            return _Hand(number, True, outcome, table.rules.scoring, [0] * len(names), None,
                         done), None
        return (_Hand(number, False, outcome, table.rules.scoring, current[1], current[2],
                      done), counts)

    def _by(self, value: Any) -> str:
        """Who made a version, as the history shows it (the last one is remembered: it is
        most often the same scorekeeper)."""
        if self._last_by is not None and self._last_by[0] == value:
            return self._last_by[1]
        by = clean_text(value, ExchangeError, "by", "who made the version", MAX_BY)
        self._last_by = (value, by)
        return by

    def _table(self, data: dict[str, Any]) -> _Table:
        """A hand's rules and stake (the last ones are remembered: a session's hands
        mostly share them)."""
        spec, raw = data["rules"], data["stake"]
        last = self._last_table
        if last is not None and last[0] == spec and last[1] == raw:
            return last[2]
        rules = resolve_rules(spec)
        table = _Table(rules, rules.to_json(), _hand_stake(raw, rules), amount_formatter(rules))
        self._last_table = (spec, raw, table)
        return table

    def _settled(self, data: Any, names: tuple[str, ...], names_list: list[str],
                 first: _Table | None) -> tuple[_Table, Result, str]:
        """Re-validate one version of a hand through the core: its table (the first
        version's), its result, and the hand's JSON as the ledger stores it."""
        if not isinstance(data, dict):
            raise _Bad("the hand must be a JSON object (RULES.md §1)")
        if "rules" not in data or "stake" not in data or "players" not in data:
            missing = [f for f in _TABLE_FIELDS if f not in data]
            raise _Bad(f"the hand must give its {', '.join(missing)}, as stored")
        if data["players"] != names_list:
            raise _Bad(f"the hand's players ({_names(data['players'])}) are not the "
                       f"session's ({', '.join(names)})")
        table = self._table(data)
        if first is not None and table is not first and (
                table.rules != first.rules or table.stake != first.stake):
            raise _Bad("a correction keeps the house rules and stake the hand was first "
                       "settled under")
        facts = {k: v for k, v in data.items() if k not in _TABLE_FIELDS}
        core = parse_hand(facts, rules=table.rules, stake=table.stake, players=names)
        result = settle(core)
        stored = {"rules": table.spec, "stake": str(table.stake), "players": names_list,
                  **core.to_json(with_table=False)}
        return first or table, result, _dumps(stored)

    @staticmethod
    def _result_text(result: Result, given: Any, table: _Table) -> str:
        """The result as stored, once every number in it is what the hand gives."""
        if given is None:
            return json.dumps(result.to_json())
        if not isinstance(given, dict):
            raise _Bad("the result must be a JSON object (RULES.md §8)")
        _compare(result, given, table.fmt)
        if "explanation" not in given:
            return _dumps(result.to_json())
        explanation = given["explanation"]
        if not isinstance(explanation, list) or not all(isinstance(s, str)
                                                        for s in explanation):
            raise _Bad("the result's explanation must be a list of sentences")
        return _dumps(given)


class Importer:
    """Imports documents for one account, all or nothing: :meth:`start` with the document's
    top-level fields, :meth:`add` each session, then :meth:`finish`, which commits only if
    there was no problem at all (and otherwise rolls everything back). Sessions are checked
    and written in batches of about ``batch_hands`` hands."""

    def __init__(self, user: User, *, batch_hands: int = IMPORT_BATCH_HANDS) -> None:
        self.user_id = user.id
        self.user = user
        self.batch_hands = batch_hands
        self.report = ImportReport()
        self.league_id: int | None = None
        self._pending: list[tuple[int, str | None, str, Any]] = []
        self._pending_hands = 0
        self._count = 0
        self._seen: set[str] = set()
        self._players: dict[str, int] | None = None  # lower-cased name → player id
        self._conn: Connection | None = None
        self._next_id: dict[str, int] = {}
        self._statements: dict[str, tuple[str, list[tuple[int, Callable[[Any], Any]]]]] = {}
        self._checker = _Checker()
        self._started = False
        self._league_plan: _LeaguePlan | None = None
        # SQLite has one write lock for the whole database: read and check everything
        # first, keeping the checked batches in a file, and hold the lock only to write.
        self._spill: IO[bytes] | None = None
        self._deferred = db.engine.dialect.name == "sqlite"

    # -- problems ----------------------------------------------------------------------------

    @property
    def failed(self) -> bool:
        return bool(self.report.problems)

    def problem(self, message: str) -> None:
        """Note a problem (the import will not be committed); the first 100 are listed."""
        if len(self.report.problems) < MAX_PROBLEMS:
            self.report.problems.append(message)
        else:
            self.report.more_problems += 1

    # -- the document ------------------------------------------------------------------------

    def start(self, header: Mapping[str, Any]) -> bool:
        """Check the format and version, and make or find the league. False: a problem
        that stops the import at once."""
        self._started = True
        fmt, version = header.get("format"), header.get("version")
        if fmt != FORMAT:
            self.problem('this is not a Tonk Tally export: it does not say "format": '
                         f'"{FORMAT}"' + (f" (it says {fmt!r})" if fmt is not None else ""))
            return False
        if isinstance(version, bool) or version != VERSION:
            self.problem(f"this export is version {version!r} of the format; this app reads "
                         f"version {VERSION}" if version is not None else
                         "the file does not say which version of the format it is")
            return False
        league = header.get("league")
        if league is not None:
            try:
                self._league(league)
            except TonkError as exc:
                self.problem(f"league {_league_name(league)}: {exc.message}")
                return False
        return True

    def _league(self, doc: Any) -> None:
        if not isinstance(doc, Mapping):
            raise ExchangeError("the league must be a JSON object, or null")
        uid = _uid(doc.get("uid"), "the league")
        name = clean_text(doc.get("name"), ExchangeError, "name", "the league's name",
                          MAX_LEAGUE_NAME)
        rules = resolve_rules(doc.get("rules"))
        stake = parse_stake(doc.get("stake"), rules)
        currency = parse_currency(doc.get("currency"))
        created = (parse_time(doc["created_at"], "the league's created_at")
                   if doc.get("created_at") is not None else utcnow())
        seasons = []
        for i, s in enumerate(_list(doc.get("seasons"), "seasons")):
            if not isinstance(s, Mapping):
                raise ExchangeError(f"season {i + 1} must be a JSON object")
            season_name = clean_text(s.get("name"), ExchangeError, "name",
                                     f"season {i + 1}'s name", MAX_SEASON_NAME)
            starts = _day(s.get("starts_on"), f"season {season_name}'s starts_on")
            ends = _day(s.get("ends_on"), f"season {season_name}'s ends_on")
            if ends < starts:
                raise ExchangeError(f"season {season_name} ends before it starts")
            seasons.append((season_name, starts, ends))
        members: dict[str, tuple[str, datetime]] = {}
        for i, m in enumerate(_list(doc.get("members"), "members"), start=1):
            raw, joined = m, created  # a member is a name, or {"name", "joined_at"}
            if isinstance(m, Mapping):
                raw = m.get("name")
                if m.get("joined_at") is not None:
                    joined = parse_time(m["joined_at"], f"member {i}'s joined_at")
            member = clean_text(raw, ExchangeError, "name", f"member {i}'s name", MAX_NAME)
            if name_key(member) in members:
                raise ExchangeError(f"{member} is a member twice")
            members[name_key(member)] = (member, joined)
        self._league_plan = _LeaguePlan(uid, name, rules, stake, currency, created, seasons,
                                        members)
        self._may_import_into(db.session.scalar(select(League).where(League.uid == uid)))
        self.report.league_name = name

    def _may_import_into(self, league: League | None) -> None:
        if league is not None and league.owner_id != self.user_id and not is_league_admin(
                self.user, league.id):
            raise ExchangeError("a league with this uid is already here, run by another "
                                "account: only its owner or an admin can import into it")

    def _write_league(self) -> None:
        """Make the league of the document, or merge into the one with its uid: its seasons
        and members (before the first session is written)."""
        plan, self._league_plan = self._league_plan, None
        if plan is None:
            return
        uid, name, rules, stake, currency, created, seasons, members = plan
        league = db.session.scalar(select(League).where(League.uid == uid))
        self._may_import_into(league)
        if league is None:
            league = League(uid=uid, name=name, owner_id=self.user_id,
                            rules_json=json.dumps(rules.to_json()), stake_minor=to_minor(stake),
                            currency=currency, share_token=secrets.token_urlsafe(16),
                            created_at=created)
            db.session.add(league)
            db.session.flush()
            db.session.add(LeagueAdmin(league_id=league.id, user_id=self.user_id))
            self.report.league_created = True
        have = {(s.name, s.starts_on, s.ends_on) for s in league.seasons}
        for season_name, starts, ends in seasons:
            if (season_name, starts, ends) not in have:
                db.session.add(Season(league_id=league.id, name=season_name,
                                      starts_on=starts, ends_on=ends))
        known = set(db.session.scalars(select(Player.name_key).where(
            Player.league_id == league.id)))
        db.session.add_all(Player(owner_id=self.user_id, league_id=league.id, name=m,
                                  created_at=joined)
                           for key, (m, joined) in members.items() if key not in known)
        db.session.flush()
        self.league_id = league.id
        self.report.league_id, self.report.league_name = league.id, league.name

    def add(self, doc: Any) -> None:
        """Take one session of the document (checked and written with its batch)."""
        self._count += 1
        uid = doc.get("uid") if isinstance(doc, dict) else None
        hands = doc.get("hands") if isinstance(doc, dict) else None
        self._take(self._count, uid if isinstance(uid, str) else None,
                   _where(doc, self._count) if isinstance(doc, dict) else "",
                   len(hands) if isinstance(hands, list) else 0, doc)

    def take(self, checked: _Checked) -> None:
        """Take one session already checked (in another process)."""
        self._count += 1
        self._take(checked.position, checked.uid, checked.where, checked.hands, checked)

    def _take(self, index: int, uid: str | None, where: str, hands: int, item: Any) -> None:
        if uid is not None:
            if uid in self._seen:
                self.problem(f"{where}: this uid appears twice in the file")
                return
            self._seen.add(uid)
        self._pending.append((index, uid, where, item))
        self._pending_hands += hands
        if self._pending_hands >= self.batch_hands:
            self._flush_safely()

    def _flush(self) -> None:
        """Check the pending sessions (unless they were checked already, or are here
        already), and write them if nothing at all has gone wrong so far."""
        pending, self._pending, self._pending_hands = self._pending, [], 0
        uids = [uid for _, uid, _, _ in pending if uid is not None]
        there: set[str] = set()
        for start in range(0, len(uids), 500):
            there.update(db.session.scalars(select(GameSession.uid).where(
                GameSession.uid.in_(uids[start:start + 500]))))
        built: list[_Session] = []
        for index, uid, where, item in pending:
            if uid in there:
                self.report.skipped.append(f"{where}: already there")
                continue
            checked = item if isinstance(item, _Checked) else self._checker.check(index, item)
            for message in checked.problems:
                self.problem(message)
            if checked.session is not None:
                built.append(checked.session)
        if built and not self.failed:
            if self._deferred:
                if self._spill is None:
                    self._spill = tempfile.TemporaryFile(prefix="tonk-import-")
                pickle.dump(built, self._spill, protocol=pickle.HIGHEST_PROTOCOL)
            else:
                self._write(built)

    def _write_deferred(self) -> None:
        """The writing part, when everything was checked first: under the write lock,
        taken now and held only while the checked batches are written."""
        begin_write()
        self._write_league()
        spill, self._spill = self._spill, None
        if spill is None:
            return
        with spill:
            spill.seek(0)
            while True:
                try:
                    batch = pickle.load(spill)  # noqa: S301 - our own file, just written
                except EOFError:
                    break
                self._write(batch)

    def _flush_safely(self) -> None:
        try:
            self._flush()
        except IntegrityError as exc:
            self.refused(exc)
        except BaseException:
            db.session.rollback()
            raise

    def refused(self, exc: IntegrityError) -> None:
        """The database refused a row: roll back, and say so."""
        db.session.rollback()
        log.warning("import refused by the database: %s", exc)
        self.problem("the database refused the import (was the same file being imported at "
                     "the same moment?); nothing was imported")

    def finish(self) -> ImportReport:
        """Write what is left and commit; or, after any problem, roll everything back."""
        if not self.failed:
            if not self._started:
                self.problem("the file has no format and version: this is not a Tonk "
                             "Tally export")
            else:
                self._flush_safely()
        if not self.failed:
            try:
                if self._deferred:
                    self._write_deferred()
                else:
                    self._write_league()  # a document with a league and no new session
            except TonkError as exc:
                db.session.rollback()
                self.problem(f"league {self.report.league_name}: {exc.message}")
            except IntegrityError as exc:
                self.refused(exc)
            except BaseException:
                db.session.rollback()
                raise
        if self._spill is not None:
            self._spill.close()
            self._spill = None
        if self.failed:
            db.session.rollback()
            self.report.sessions = self.report.hands = 0
            self.report.league_created = False
            self.report.league_id = None
            return self.report
        db.session.commit()
        if self.league_id is not None and self.report.sessions:
            rerate(self.league_id)
        return self.report

    # -- writing -----------------------------------------------------------------------------

    def _connection(self) -> Connection:
        if self._conn is None:
            self._conn = db.session.connection()
            if self._conn.dialect.name == "sqlite":
                # Take SQLite's write lock now, so that the ids read below stay free.
                users = cast(Table, User.__table__)
                self._conn.execute(update(users).where(users.c.id == self.user_id)
                                   .values(id=users.c.id))
        return self._conn

    def _ids(self, table: Table, n: int) -> list[int]:
        """``n`` new ids for ``table``: from its sequence on PostgreSQL; on SQLite, which
        is written by one connection at a time (we hold the lock), after the largest."""
        if n == 0:
            return []
        conn = self._connection()
        if conn.dialect.name == "postgresql":
            return list(conn.execute(text(
                "SELECT nextval(pg_get_serial_sequence(:t, 'id')) FROM generate_series(1, :n)"),
                {"t": table.name, "n": n}).scalars())
        start = self._next_id.get(table.name)
        if start is None:
            start = (conn.execute(select(func.max(table.c.id))).scalar() or 0) + 1
        self._next_id[table.name] = start + n
        return list(range(start, start + n))

    def _player_ids(self, sessions: list[_Session]) -> list[list[int]]:
        """Each session's seats → players: the league's members, or the account's own
        players, by name regardless of case; a new name becomes a new player."""
        if self._players is None:
            scope = (Player.league_id == self.league_id if self.league_id is not None else
                     (Player.owner_id == self.user_id) & Player.league_id.is_(None))
            self._players = {}
            for pid, key in db.session.execute(select(Player.id, Player.name_key)
                                               .where(scope).order_by(Player.id)):
                self._players.setdefault(key, pid)
        players = self._players
        new: dict[str, tuple[str, datetime]] = {}
        for s in sessions:
            for name in s.names:
                if name_key(name) not in players and name_key(name) not in new:
                    new[name_key(name)] = (name, s.played_at)
        ids = self._ids(cast(Table, Player.__table__), len(new))
        rows = []
        for pid, (key, (name, since)) in zip(ids, new.items(), strict=True):
            players[key] = pid
            rows.append((pid, self.user_id, self.league_id, name, key, since))
        self._insert(Player, rows)
        return [[players[name_key(n)] for n in s.names] for s in sessions]

    def _insert(self, model: Any, rows: list[tuple[Any, ...]]) -> None:
        """Insert rows (tuples in :data:`_COLUMNS` order): on PostgreSQL with COPY, on
        SQLite straight through the driver in batches of 10,000, each value made ready by
        the column's own type (elsewhere, Core's batched inserts)."""
        if not rows:
            return
        table = cast(Table, model.__table__)
        keys = _COLUMNS[table.name]
        conn = self._connection()
        if conn.dialect.name == "postgresql" and conn.dialect.driver == "psycopg":
            raw: Any = conn.connection.dbapi_connection  # psycopg's own connection
            with raw.cursor() as cursor, cursor.copy(
                    f"COPY {table.name} ({', '.join(keys)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        if conn.dialect.name != "sqlite":
            for start in range(0, len(rows), 10_000):
                conn.execute(insert(table), [dict(zip(keys, row, strict=True))
                                             for row in rows[start:start + 10_000]])
            return
        sql, ready = self._statements.get(table.name) or self._statement(conn, table, keys)
        if ready:
            rows = [_ready(row, ready) for row in rows]
        for start in range(0, len(rows), 10_000):
            conn.exec_driver_sql(sql, rows[start:start + 10_000])

    def _statement(self, conn: Connection, table: Table, keys: tuple[str, ...]
                   ) -> tuple[str, list[tuple[int, Callable[[Any], Any]]]]:
        compiled = insert(table).compile(dialect=conn.dialect, column_keys=list(keys))
        assert compiled.positiontup == list(keys)
        ready: list[tuple[int, Callable[[Any], Any]]] = []
        for i, key in enumerate(keys):
            kind = table.c[key].type
            if isinstance(kind, Boolean):
                continue  # the driver stores a bool as 1 or 0, as the type would
            process = kind.dialect_impl(conn.dialect).bind_processor(conn.dialect)
            if process is not None:
                ready.append((i, _faster(process)))
        found = self._statements[table.name] = (str(compiled), ready)
        return found

    def _write(self, sessions: list[_Session]) -> None:
        """Insert the batch's rows, table by table, as the ledger would have left them."""
        self._write_league()
        self._connection()
        players = self._player_ids(sessions)
        session_ids = self._ids(cast(Table, GameSession.__table__), len(sessions))
        hand_ids = iter(self._ids(cast(Table, Hand.__table__),
                                  sum(len(s.hands) for s in sessions)))
        games: list[tuple[Any, ...]] = []
        seats: list[tuple[Any, ...]] = []
        hands: list[tuple[Any, ...]] = []
        versions: list[tuple[Any, ...]] = []
        entries: list[tuple[Any, ...]] = []
        records: list[tuple[Any, ...]] = []
        payments: list[tuple[Any, ...]] = []
        changes: list[tuple[Any, ...]] = []
        user, league = self.user_id, self.league_id
        for s, sid, pids in zip(sessions, session_ids, players, strict=True):
            games.append((sid, s.uid, league, user, s.name, s.currency, s.stake_minor,
                          s.rules_json, secrets.token_urlsafe(16), s.closed_at, s.played_at,
                          len(s.hands), s.next_dealer))
            seats += [(sid, seat, pid, name, total) for seat, (pid, name, total)
                      in enumerate(zip(pids, s.names, s.totals, strict=True))]
            for hand in s.hands:
                hid = next(hand_ids)
                last = hand.versions[-1]
                hands.append((hid, sid, hand.number, last.version, hand.voided, hand.outcome,
                              last.hand_text, last.result_text,
                              "[" + ", ".join(map(str, hand.nets)) + "]",
                              hand.versions[0].at, last.at))
                versions += [(hid, v.version, v.action, v.hand_text, v.result_text, v.reason,
                              user, v.by, v.at) for v in hand.versions]
                parts = hand.parts
                if parts is not None:
                    scoring = hand.scoring
                    entries += [(hid, sid, pid, scoring, *parts[k:k + _PART])
                                for pid, k in zip(pids, range(0, len(parts), _PART),
                                                  strict=True)]
            records += [(sid, pids[r[0]], r[1], league, s.played_at, *r[2:])
                        for r in s.records]
            payments += [(sid, payer, payee, amount, user, at)
                         for payer, payee, amount, at in s.payments]
            changes += [(sid, from_hand, rules_json, stake, user, at)
                        for from_hand, rules_json, stake, at in s.changes]
            self.report.sessions += 1
            self.report.hands += len(s.hands)
        for model, rows in ((GameSession, games), (SessionPlayer, seats), (Hand, hands),
                            (HandVersion, versions), (HandEntry, entries),
                            (PlayerSessionStat, records), (SettlePayment, payments),
                            (RulesChange, changes)):
            self._insert(model, rows)


#: The columns the importer writes, in the order of its row tuples.
_COLUMNS: dict[str, tuple[str, ...]] = {
    "players": ("id", "owner_id", "league_id", "name", "name_key", "created_at"),
    "game_sessions": ("id", "uid", "league_id", "owner_id", "name", "currency", "stake_minor",
                      "rules_json", "share_token", "closed_at", "created_at", "hand_count",
                      "next_dealer"),
    "session_players": ("session_id", "seat", "player_id", "name", "total_minor"),
    "hands": ("id", "session_id", "number", "version", "voided", "outcome", "hand_json",
              "result_json", "nets_json", "created_at", "updated_at"),
    "hand_versions": ("hand_id", "version", "action", "hand_json", "result_json", "reason",
                      "created_by_id", "by_name", "created_at"),
    "hand_entries": ("hand_id", "session_id", "player_id", "scoring", "amount_minor", "won",
                     "tonked_out", "drop_won", "caught"),
    "player_session_stats": ("session_id", "player_id", "scoring", "league_id", "played_at",
                             "net_minor", "hands", "hands_won", "tonks_out", "drops_won",
                             "times_caught"),
    "settle_payments": ("session_id", "payer_seat", "payee_seat", "amount_minor",
                        "created_by_id", "created_at"),
    "rules_changes": ("session_id", "from_hand", "rules_json", "stake_minor", "created_by_id",
                      "created_at"),
}


def _sqlite_time(moment: datetime) -> str:
    return moment.replace(tzinfo=None).isoformat(" ", "microseconds")


def _faster(process: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """SQLite's time format, written by the C isoformat instead of the dialect's Python;
    used only if it gives exactly what the dialect's own processor gives."""
    samples = (datetime(2001, 2, 3, 4, 5, 6, 7, tzinfo=UTC), datetime(2031, 12, 31, 23, 59),
               datetime(1999, 1, 1, 0, 0, 0, 999999, tzinfo=UTC))
    try:
        if all(process(m) == _sqlite_time(m) for m in samples):
            return _sqlite_time
    except (TypeError, ValueError, AttributeError):
        pass
    return process


def _ready(row: tuple[Any, ...], ready: list[tuple[int, Callable[[Any], Any]]]
           ) -> tuple[Any, ...]:
    values = list(row)
    for i, process in ready:
        if values[i] is not None:
            values[i] = process(values[i])
    return tuple(values)


def _hand_stake(value: Any, rules: Rules) -> Decimal:
    """A stored hand's stake, as the ledger writes it: money to the cent; points whole;
    push-ups the table's stake to the cent, kept exactly as written (push-ups pay nothing,
    and files from before push-ups kept their table's stake hold it rounded, even to 0)."""
    if rules.scoring == "money":
        return parse_stake(value, rules)
    amount = parse_decimal(value, ExchangeError, f"the stake must be a number, not {value!r}",
                           "stake")
    exact = amount == amount.to_integral_value() if rules.scoring == "points" \
        else amount == amount.quantize(Decimal("0.01"))
    if not exact or not 0 <= amount <= MAX_STAKE:
        raise ExchangeError(f"a hand's stake under {rules.scoring} scoring cannot be {value}")
    return amount.quantize(Decimal(1)) if rules.scoring == "points" else amount


def _names(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else repr(value)


def _league_name(doc: Any) -> str:
    if isinstance(doc, Mapping):
        return f"{doc.get('name')} ({doc.get('uid')})"
    return repr(doc)


_RESULT_FIELDS = {"net": frozenset({"outcome", "winners", "payments", "explanation", "net"}),
                  "pushed": frozenset({"outcome", "winners", "payments", "explanation",
                                       "pushed"})}


def _compare(result: Result, given: dict[str, Any], fmt: Callable[[Decimal], str]) -> None:
    """The stored result must say what settling the hand says: outcome, winners, payments,
    and each player's net (or push-up)."""
    key = "pushed" if result.pushed is not None else "net"
    if not given.keys() <= _RESULT_FIELDS[key]:
        extra = sorted(set(given) - _RESULT_FIELDS[key])
        raise _Bad(f"the stored result has a field {extra[0]!r} that this hand's result has "
                   "not")
    mismatch = "the stored result does not match the hand"
    if given.get("outcome") != result.outcome:
        raise _Bad(f"{mismatch}: it says the outcome is {given.get('outcome')!r}, but the "
                   f"hand is {result.outcome!r}")
    if given.get("winners") != list(result.winners):
        raise _Bad(f"{mismatch}: it says the winners are {_names(given.get('winners'))}, but "
                   f"they are {', '.join(result.winners) or 'nobody'}")
    said = given.get(key)
    if result.pushed is not None:
        values: dict[str, Any] = dict(result.pushed)
        words = "is pushed up {value} by the hand"
    else:
        assert result.net is not None
        values = {name: fmt(amount) for name, amount in result.net.items()}
        words = "gets {value} by the hand"
    if said != values:
        for name, value in values.items():
            if not isinstance(said, dict) or said.get(name) != value:
                stored = said.get(name) if isinstance(said, dict) else None
                raise _Bad(f"{mismatch}: {name} {words.format(value=value)}, not "
                           f"{stored!r}")
        raise _Bad(f"{mismatch}: it names players who are not at the table")
    payments = [{"from": p.payer, "to": p.payee, "amount": fmt(p.amount), "rule": p.rule}
                for p in result.payments]
    if given.get("payments") != payments:
        raise _Bad(f"{mismatch}: its payments are not the ones the hand makes")


def _check_paid(names: tuple[str, ...], totals: list[int],
                payments: list[tuple[int, int, int, datetime]]) -> None:
    """A closed session was closed only once everything was paid."""
    still = list(totals)
    for payer, payee, amount, _at in payments:
        still[payer] += amount
        still[payee] -= amount
    open_ = [f"{name} {from_minor(v)}" for name, v in zip(names, still, strict=True) if v]
    if open_:
        raise ExchangeError("the session is closed, but its payments do not settle the "
                            f"totals (still open: {', '.join(open_)})")


def rerate(league_id: int) -> None:
    """Recompute the league's ratings with the league service, if it is there yet."""
    try:
        service = importlib.import_module("app.leagues")
    except ImportError:
        service = None
    rerate_league = getattr(service, "rerate_league", None)
    if rerate_league is None:
        log.info("no league service with rerate_league yet: ratings not recomputed")
        return
    league = db.session.get(League, league_id)
    if league is not None:
        rerate_league(league)


# -- entry points ----------------------------------------------------------------------------

@contextmanager
def no_gc_pauses() -> Iterator[None]:
    """Python's cycle collector off for a bulk job: reading and checking make millions of
    small objects that all live until their batch is written, and the collector would walk
    them over and over (it makes an import twice as slow). Nothing here makes cycles."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _run(events: Iterator[tuple[str, str, Any]], user: User,
         batch_hands: int = IMPORT_BATCH_HANDS) -> ImportReport:
    with no_gc_pauses():
        return _read_and_import(events, Importer(user, batch_hands=batch_hands))


@contextmanager
def _reported(importer: Importer) -> Iterator[None]:
    """An unreadable file or a write the database refuses becomes a problem in the report;
    anything else rolls the import back and goes on up."""
    try:
        yield
    except _ReadError as exc:
        importer.problem(str(exc))
    except IntegrityError as exc:
        importer.refused(exc)
    except BaseException:
        db.session.rollback()
        raise


def _read_and_import(events: Iterator[tuple[str, str, Any]], importer: Importer
                     ) -> ImportReport:
    header: dict[str, Any] = {}
    held: list[Any] = []  # sessions read before the header was complete
    started = has_sessions = False
    with _reported(importer):
        for kind, key, value in events:
            if kind == "field":
                header[key] = value
                continue
            if kind == "sessions":
                has_sessions = True
                continue
            if not started:
                if not _HEADER <= header.keys():
                    held.append(value)
                    continue
                started = True
                if not importer.start(header):
                    return importer.finish()
            importer.add(value)
        if not started:
            if "sessions" in header or not has_sessions:
                importer.problem("the file has no list of sessions (\"sessions\": […])")
            elif importer.start(header):
                for value in held:
                    importer.add(value)
    return importer.finish()


_HEADER = frozenset({"format", "version", "league"})


def import_file(stream: IO[bytes] | IO[str], user: User, *,
                batch_hands: int = IMPORT_BATCH_HANDS) -> ImportReport:
    """Import a document from a file (binary or text), read session by session, all or
    nothing. ``user`` becomes the owner of every session (and of a new league)."""
    text_stream = cast(IO[str], stream)
    if isinstance(stream.read(0), bytes):
        text_stream = io.TextIOWrapper(cast(IO[bytes], stream), encoding="utf-8-sig")
    return _run(_Reader(text_stream).events(), user, batch_hands)


def import_document(doc: Any, user: User, *,
                    batch_hands: int = IMPORT_BATCH_HANDS) -> ImportReport:
    """Import a document already read into memory (a dict)."""
    def events() -> Iterator[tuple[str, str, Any]]:
        yield from _dict_events(doc)
    return _run(events(), user, batch_hands)


# -- checking in other processes -------------------------------------------------------------
#
# Settling every version of every hand again is most of an import's work, and needs no
# database: other processes check the sessions (each its share: the 1st, (n+1)th, … for
# the first of n) while this one writes them, in the document's order.

class Share(Protocol):
    """Where the checking processes get a document's sessions from: a file, or a generator
    (picklable: it is sent to each process)."""

    def sessions(self, k: int, of: int) -> Iterator[tuple[int, Any]]:
        """(position from 1, session) for every ``of``-th session, starting with the k-th."""
        ...

    def summary(self) -> Any:
        """Anything the share noted while it went (sent back at the end)."""
        ...


@dataclass(frozen=True)
class FileShare:
    """The sessions of a document file; each process reads the whole file (reading is
    cheap next to checking) and checks its share."""

    path: str

    def sessions(self, k: int, of: int) -> Iterator[tuple[int, Any]]:
        with open(self.path, encoding="utf-8-sig") as f:
            position = 0
            for kind, _key, value in _Reader(f).events():
                if kind == "session":
                    position += 1
                    if (position - 1) % of == k:
                        yield position, value

    def summary(self) -> Any:
        return None


def default_jobs() -> int:
    """Checking processes for a large import: one per core, at most four (the writing
    process mostly waits for them, so it needs no core of its own)."""
    return max(1, min(os.cpu_count() or 1, 4))


def _end_with_parent(parent: int) -> None:
    """A checking process ends as soon as the import that started it (``parent``) is gone,
    however it went (even killed with -9, before this process was ready): nothing is left
    behind working for nobody."""
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.25)
        os._exit(1)

    threading.Thread(target=watch, name="tonk-parent-watch", daemon=True).start()


def _check_share(share: Share, k: int, of: int, out: Any, parent: int) -> None:
    """The work of one checking process: check its share, send it back in batches."""
    _end_with_parent(parent)
    gc.disable()  # a short-lived process of short-lived objects: see no_gc_pauses
    checker = _Checker()
    batch: list[_Checked] = []
    hands = 0
    try:
        for position, doc in share.sessions(k, of):
            checked = checker.check(position, doc)
            batch.append(checked)
            hands += checked.hands
            if hands >= 2_000:
                out.put(("checked", batch))
                batch, hands = [], 0
        out.put(("checked", batch))
        out.put(("end", share.summary()))
    except _ReadError as exc:
        out.put(("checked", batch))
        out.put(("unreadable", str(exc)))
    except BaseException:  # noqa: BLE001 - any failure is reported to the importer
        out.put(("crashed", traceback.format_exc()))


def _receive(queue: Any, worker: Any) -> tuple[str, Any]:
    """The next message of a checking process; an error if it died without one."""
    while True:
        try:
            return cast(tuple[str, Any], queue.get(timeout=1))
        except queue_module.Empty:
            if worker.is_alive():
                continue
        try:  # it may have said its last word just before it ended
            return cast(tuple[str, Any], queue.get(timeout=1))
        except queue_module.Empty:
            raise RuntimeError(f"the checking process {worker.name} stopped without a "
                               f"word (exit code {worker.exitcode})") from None


def check_elsewhere(importer: Importer, share: Share, jobs: int) -> list[Any]:
    """Have ``jobs`` other processes check the share's sessions while ``importer`` takes
    them, in order, and writes them. Returns each process's summary. Raises _ReadError
    when the document cannot be read to its end."""
    context = multiprocessing.get_context("spawn")
    queues = [context.Queue(maxsize=16) for _ in range(jobs)]
    workers = [context.Process(target=_check_share, args=(share, k, jobs, queue, os.getpid()),
                               daemon=True, name=f"tonk-check-{k}")
               for k, queue in enumerate(queues)]
    for worker in workers:
        worker.start()
    # Write in smaller batches than alone: what is left to write when the last session is
    # checked is the time lost at the end.
    importer.batch_hands = min(importer.batch_hands, PARALLEL_BATCH_HANDS)
    ready: list[deque[_Checked]] = [deque() for _ in range(jobs)]
    ended: list[tuple[str, Any] | None] = [None] * jobs
    try:
        k = 0
        while True:
            while not ready[k] and ended[k] is None:
                kind, payload = _receive(queues[k], workers[k])
                if kind == "checked":
                    ready[k].extend(payload)
                elif kind in ("end", "unreadable"):
                    ended[k] = (kind, payload)
                else:
                    raise RuntimeError(f"checking sessions failed in another process:\n"
                                       f"{payload}")
            if not ready[k]:
                state = ended[k]
                if state is not None and state[0] == "unreadable":
                    raise _ReadError(state[1])
                break  # the k-th has no more: the document has no more
            importer.take(ready[k].popleft())
            k = (k + 1) % jobs
        for j in range(jobs):  # the others' summaries
            while ended[j] is None:
                kind, payload = _receive(queues[j], workers[j])
                if kind in ("end", "unreadable"):
                    ended[j] = (kind, payload)
        return [state[1] for state in ended if state is not None and state[0] == "end"]
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
            worker.join(5)


def import_path(path: str, user: User, *, jobs: int | None = None,
                batch_hands: int = IMPORT_BATCH_HANDS) -> ImportReport:
    """Import a document file, all or nothing, its sessions checked in ``jobs`` other
    processes (default: :func:`default_jobs`; 0: all in this one) while this one writes."""
    jobs = default_jobs() if jobs is None else jobs
    header: dict[str, Any] = {}
    importer = Importer(user, batch_hands=batch_hands)
    if jobs > 0:
        try:
            with open(path, encoding="utf-8-sig") as f:
                for kind, key, value in _Reader(f).events():
                    if kind != "field":
                        break
                    header[key] = value
        except _ReadError:
            header = {}  # the serial import below says what is wrong
    if jobs < 1 or not _HEADER <= header.keys():
        with open(path, encoding="utf-8-sig") as f:
            return import_file(f, user, batch_hands=batch_hands)
    with no_gc_pauses():
        if not importer.start(header):
            return importer.finish()
        with _reported(importer):
            check_elsewhere(importer, FileShare(path), jobs)
        return importer.finish()
