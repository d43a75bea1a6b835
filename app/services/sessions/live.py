"""Watching a session live: what changed since a phone last looked, from one indexed row.

Every change of a session moves its ``revision`` on in the same transaction
(:func:`app.services.sessions.ledger.locked`), so ``(id, revision, updated_at)`` names one state
of the session exactly, on every worker and every app server that shares the database. A phone
that polls the share view learns "nothing changed" from :func:`stamp_by_token` alone (the
ETag, answered 304), and what is derived from one state (the share JSON, a page's body, a
hand's card) can be kept per process in a :class:`StateCache`: a cache keyed by the stamp
is never stale, only unused, and no process needs to hear of another's changes.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from datetime import datetime
from typing import Any, Generic, NamedTuple, TypeVar

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from ...core.messages import Message
from ...db.ids import MAX_ID, is_id
from ...db.models import GameSession, Hand, User
from ...extensions import db
from ..errors import NotFoundError
from .access import keeps_score_of
from .reading import findable_token

V = TypeVar("V")

#: How many hands the share view's JSON carries (newest first).
LAST_HANDS = 10


class Stamp(NamedTuple):
    """One state of one session: it changes with every change of the session, only then."""

    session_id: int
    revision: int
    updated_at: datetime

    @property
    def tag(self) -> str:
        """The state as a short token for an ETag (the time guards a database restored
        under a process that still caches the old one's revisions)."""
        return f"{self.session_id}.{self.revision}.{int(self.updated_at.timestamp() * 1000)}"

    def etag(self, lang: str) -> str:
        """The ETag (unquoted) of what is shown of this state in language ``lang``."""
        return f"{self.tag}.{lang}"


def _stamp(row: tuple[int, int, datetime | None, datetime] | None) -> Stamp | None:
    if row is None:
        return None
    session_id, revision, updated_at, created_at = row
    return Stamp(session_id, revision, updated_at or created_at)


_COLUMNS = (GameSession.id, GameSession.revision, GameSession.updated_at,
            GameSession.created_at)
# Asked on every poll and every kept page: plain statements, built once, run on the
# session's connection (the ORM has nothing to load here).
_BY_TOKEN = select(*_COLUMNS).where(GameSession.share_token == bindparam("token"))
_BY_ID = (select(*_COLUMNS, GameSession.share_token, GameSession.owner_id,
                 GameSession.league_id).where(GameSession.id == bindparam("id")))


class _Compiled(NamedTuple):
    sql: str
    names: tuple[str, ...] | None  # the parameters' order, for a positional paramstyle
    processors: tuple[Callable[[Any], Any] | None, ...]


_COMPILED: dict[tuple[int, int], _Compiled] = {}


def _one_row(statement: Any, params: dict[str, Any],
             engine: Engine | None = None) -> tuple[Any, ...] | None:
    """The first row of ``statement``, run on a pooled DBAPI connection of ``engine`` (the
    app's) as compiled once for the engine's dialect (its columns' values as SQLAlchemy would
    give them): no database session, no transaction begun around one read of one indexed row."""
    engine = engine or db.engine
    found = _COMPILED.get((id(engine), id(statement)))
    if found is None:
        dialect = engine.dialect
        compiled = statement.compile(dialect=dialect)
        found = _Compiled(str(compiled), tuple(compiled.positiontup or ())
                          if compiled.positional else None,
                          tuple(c.type.dialect_impl(dialect).result_processor(dialect, None)
                                for c in statement.selected_columns))
        _COMPILED[(id(engine), id(statement))] = found
    args = tuple(params[n] for n in found.names) if found.names is not None else params
    error = engine.dialect.loaded_dbapi.Error
    try:
        raw = engine.raw_connection()
        try:
            cursor = raw.cursor()
            try:
                cursor.execute(found.sql, args)
                row = cursor.fetchone()
            finally:
                cursor.close()
        finally:
            raw.close()  # back to the pool, which ends what the read began
    except error as exc:  # as SQLAlchemy names it, so that a fault is answered as one
        raise DBAPIError.instance(found.sql, args, exc, error) from exc
    if row is None:
        return None
    return tuple(v if f is None else f(v) for f, v in zip(found.processors, row, strict=True))


def stamp_by_token(token: str, *, poll: bool = False, engine: Engine | None = None) -> Stamp:
    """The state of the session behind a share link (one row by its unique index), or
    :class:`~app.services.sessions.ledger.NotFoundError`. Read in the request's snapshot,
    with what is shown of it; ``poll``: read on a pooled connection of its own instead (of
    ``engine``, where no app context is at hand), not through the ORM's session, for a poll
    that only asks whether anything changed (it costs this one statement; what is shown is
    read again in the snapshot)."""
    if not findable_token(token):
        row = None
    elif poll:
        row = _one_row(_BY_TOKEN, {"token": token}, engine)
    else:
        found = db.session.connection().execute(_BY_TOKEN, {"token": token}).first()
        row = tuple(found) if found is not None else None
    stamp = _stamp(row)
    if stamp is None:
        raise NotFoundError(Message("share.not_found"))
    return stamp


def owned_stamp(user: User, session_id: int) -> tuple[Stamp, str]:
    """The state and share token of a session ``user`` keeps the score of (one row, and the
    league's admins for a league session), or :class:`~app.services.sessions.ledger.NotFoundError`,
    as :func:`~app.services.sessions.ledger.owned_session` decides."""
    row = db.session.connection().execute(_BY_ID, {"id": session_id}).first() \
        if is_id(session_id) else None
    if row is None or not keeps_score_of(user, row[5], row[6]):
        raise NotFoundError(Message("session.not_yours", session_id=session_id))
    stamp = _stamp((row[0], row[1], row[2], row[3]))
    assert stamp is not None
    return stamp, row[4]


def stamp_of(gs: GameSession) -> Stamp:
    """The state of a session already loaded in this request."""
    found = _stamp((gs.id, gs.revision, gs.updated_at, gs.created_at))
    assert found is not None
    return found


def last_hands(gs: GameSession, limit: int = LAST_HANDS) -> list[Hand]:
    """The newest ``limit`` hands of the session, voided ones too, newest first."""
    return list(db.session.scalars(select(Hand).where(Hand.session_id == gs.id)
                                   .order_by(Hand.number.desc()).limit(min(limit, MAX_ID))))


class StateCache(Generic[V]):
    """A small least-recently-used map of what was derived from one state: keys hold a
    :class:`Stamp` (or a hand's id and version), so an entry is right for as long as it is
    asked for; old states just fall out. Thread-safe (the server's threads), and one maker a
    key: the phones of a table all ask for a new state at the same moment (a pushed change
    reaches them together), and the others wait for the one making it instead of each
    making it again."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._making: dict[Hashable, threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        while True:
            with self._lock:
                if key in self._items:
                    self._items.move_to_end(key)
                    return self._items[key]
                making = self._making.get(key)
                if making is None:
                    making = self._making[key] = threading.Event()
                    break
            making.wait()  # made (or its maker failed: then this one makes it)
        try:
            value = make()  # outside the lock: other keys are made meanwhile
            self.put(key, value)
        finally:
            with self._lock:
                del self._making[key]
            making.set()
        return value

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
