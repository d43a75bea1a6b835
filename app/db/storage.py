"""How the app holds its database: SQLite set up as a server database, write transactions
taken up front, and database faults named for a person.

SQLite serves several app processes at once: WAL journal (readers never wait for the
writer), a busy timeout (a writer waits its turn instead of failing at once), foreign keys
on. A change starts its transaction with :func:`begin_write` (called by the write boundary,
:mod:`app.db.unit`): on SQLite that is ``BEGIN IMMEDIATE``, which takes the one write lock
before anything is read, so what the change reads cannot be changed by another writer
before it commits (on PostgreSQL the caller locks the rows it reads: ``SELECT … FOR
UPDATE``, or an ``UPDATE`` that reads the row back). What a write request reads before its
change with :func:`read_before_write` (the token that signs it) needs no write lock.

A request that only reads (GET, HEAD) reads from one snapshot (:func:`read_requests`): on
PostgreSQL its transactions are ``REPEATABLE READ, READ ONLY``, so the several SELECTs that
draw a session (totals, payments, the plan, the hands) all see it as it was before a change
or after it, never half-way, though a change commits between them; a write such a request
makes (the language chosen, a token's last use) begins its own transaction with
:func:`begin_write`. On SQLite a transaction already reads from one snapshot (WAL).
:func:`snapshot` does the same for a command (``tonk check``, ``tonk backup``).

:func:`fault` names what went wrong when the database itself refuses (busy past the
timeout, read-only, disk full, unreachable or restarting): the pages and the API answer 503
with that sentence and ``Retry-After``, never a 500. On PostgreSQL the pool checks a
connection before handing it out (``pool_pre_ping``): one that died with a restart is
replaced, not used.
"""
from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any
from urllib.parse import quote

from flask import Flask, g, request
from sqlalchemy import Table, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session

from ..config import private_file
from ..extensions import db

#: How long a SQLite writer waits for the one before it; past that the request answers 503.
BUSY_TIMEOUT_MS = 5_000
#: How long a PostgreSQL change waits for a row another change holds, likewise.
LOCK_TIMEOUT_MS = 10_000
#: How long connecting to PostgreSQL may take, in seconds, before the request answers 503:
#: a server that accepts but does not answer, or a host gone from the network, would hold
#: each request for minutes (or for good) without it.
CONNECT_TIMEOUT_S = 5
#: What a 503 asks the client to wait before trying again, in seconds.
RETRY_AFTER = 2

_IMMEDIATE: ContextVar[bool] = ContextVar("tonk_begin_immediate", default=False)
_SNAPSHOT: ContextVar[bool] = ContextVar("tonk_snapshot", default=False)
_WRITING = "tonk_writing"  # in a session's info: its transaction was begun to write
#: In a connection's info: its transaction has inserted, updated or deleted a row (besides a
#: request key's own, whose statements say so with :data:`KEY_ROW`).
_CHANGED = "tonk_changed"
#: The execution option of the statements that claim a request key and keep its answer:
#: not a change of their own (:func:`changed_in_transaction`).
KEY_ROW = {"tonk_key_row": True}
#: In a connection's info: its transaction can write as it is (SQLite: begun ``IMMEDIATE``,
#: holding the write lock; PostgreSQL: not a read-only snapshot).
_BEGUN_TO_WRITE = "tonk_begun_to_write"
_ONE_SNAPSHOT = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"


def configure(engine: Engine) -> None:
    """Set up an engine the app will use: on SQLite, WAL, a busy timeout, foreign keys, and
    transactions begun by this module (so a write can begin ``IMMEDIATE``); on PostgreSQL,
    reads of one snapshot where asked for (:func:`snapshot`)."""
    event.listen(engine, "begin", _begin_changes)
    event.listen(engine, "after_cursor_execute", _note_change)
    if engine.dialect.name == "postgresql":
        event.listen(engine, "begin", _begin_postgres)
    if engine.dialect.name != "sqlite":
        return
    event.listen(engine, "do_connect", _private_file)
    event.listen(engine, "do_connect", _read_only_filesystem)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver no longer begins on its own
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError:  # a read-only file: reads still work without it
            pass
        cursor.execute("PRAGMA synchronous = NORMAL")  # durable with WAL at each checkpoint
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        connection.info[_BEGUN_TO_WRITE] = False
        if not _IMMEDIATE.get():
            connection.exec_driver_sql("BEGIN")
            return
        try:
            _begin_immediate(connection)
        except DBAPIError as exc:  # a read-only file: a request that only reads still can
            if "readonly" not in str(exc.orig):
                raise
            connection.exec_driver_sql("BEGIN")
            return
        connection.info[_BEGUN_TO_WRITE] = True


#: How long a SQLite writer waiting for the write lock sleeps between two tries, at first
#: and at most (SQLite's own busy handler sleeps up to 100 ms at a time).
WRITE_WAIT_STEPS = (0.0005, 0.002)


def _begin_immediate(connection: Any) -> None:
    """``BEGIN IMMEDIATE``, waiting for the write lock in short steps up to the busy timeout.
    SQLite's busy handler sleeps 1, 2, 5, … then 100 ms between tries: a writer that has
    waited a while sleeps on long after the lock is free, while newcomers take it (eight
    scorekeepers at once: a p99 of over a second for requests of a few milliseconds). Here
    the first try does not wait (busy timeout 0 for it), and the next come every 0.5–2 ms."""
    raw = connection.connection.dbapi_connection
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = WRITE_WAIT_STEPS[0]
    raw.execute("PRAGMA busy_timeout = 0")
    try:
        while True:
            try:
                connection.exec_driver_sql("BEGIN IMMEDIATE")
                return
            except DBAPIError as exc:
                if "database is locked" not in str(exc.orig) or time.monotonic() > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, WRITE_WAIT_STEPS[1])
    finally:
        raw.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


def _private_file(_dialect: Any, _record: Any, cargs: list[Any],
                  cparams: dict[str, Any]) -> None:
    """A SQLite file the app makes is made 0600, before SQLite makes it with the process's
    umask (644: anyone on the machine could read the password hashes). Its journal and
    WAL files take its permissions."""
    path = cargs[0] if cargs and isinstance(cargs[0], str) else ""
    if not path or path == ":memory:" or path.startswith("file:") or cparams.get("uri"):
        return
    try:
        private_file(path)
    except OSError:  # no such folder, a read-only one: SQLite says so as it opens
        pass


def _read_only_filesystem(_dialect: Any, _record: Any, cargs: list[Any],
                          cparams: dict[str, Any]) -> None:
    """A SQLite file on a read-only filesystem (a mount gone read-only, a backup disk) is
    opened as immutable, so that reading goes on: in WAL mode SQLite would need to make the
    ``-shm`` file beside it even to read, and refuse. (Only with no write-ahead log left
    over, whose changes an immutable reader would not see: then opening fails and says so.)
    Every write then answers 503, the database is read-only."""
    path = cargs[0] if cargs and isinstance(cargs[0], str) else ""
    if not path or path == ":memory:" or path.startswith("file:") or cparams.get("uri"):
        return
    try:
        read_only = bool(os.statvfs(os.path.dirname(os.path.abspath(path))).f_flag
                         & os.ST_RDONLY)
        logged = os.path.getsize(path + "-wal") if os.path.exists(path + "-wal") else 0
    except OSError:
        return
    if read_only and not logged:
        cargs[0] = f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1"
        cparams["uri"] = True


def _begin_changes(connection: Any) -> None:
    connection.info[_CHANGED] = False


def _note_change(connection: Any, _cursor: Any, _statement: Any, _parameters: Any,
                 context: Any, _many: bool) -> None:
    if context is not None and (context.isinsert or context.isupdate or context.isdelete) \
            and not context.execution_options.get("tonk_key_row"):
        connection.info[_CHANGED] = True


def changed_in_transaction(connection: Any) -> bool:
    """Whether the transaction ``connection`` is in has inserted, updated or deleted a row
    (what the session has not flushed yet not counted)."""
    return bool(connection.info.get(_CHANGED))


def _begin_postgres(connection: Any) -> None:
    connection.info[_BEGUN_TO_WRITE] = not _SNAPSHOT.get() or _IMMEDIATE.get()
    if connection.info[_BEGUN_TO_WRITE]:
        return
    raw = connection.connection.dbapi_connection
    if raw.info.transaction_status != 0:  # the pool's ping began one: begin afresh
        raw.rollback()
    connection.exec_driver_sql(_ONE_SNAPSHOT)


@contextmanager
def snapshot() -> Iterator[None]:
    """Read everything inside from one state of the database: on PostgreSQL in
    ``REPEATABLE READ, READ ONLY`` transactions (a write inside begins its own with
    :func:`begin_write`); what the session was reading before ends here."""
    session = db.session()
    session.rollback()  # what it read before (a change has committed at its boundary)
    token = _SNAPSHOT.set(True)
    try:
        yield
    finally:
        _SNAPSHOT.reset(token)
        if not session.info.get(_WRITING):
            session.rollback()


def read_requests(app: Flask) -> None:
    """Every request that only reads (GET, HEAD) reads from one snapshot: a session's
    money is drawn as it was before a change or after it, never between."""
    app.before_request(_read_request)
    app.teardown_request(_end_read)


def _read_request() -> None:
    if request.method in ("GET", "HEAD"):
        g.tonk_snapshot = _SNAPSHOT.set(True)


def _end_read(_exc: BaseException | None) -> None:
    token = g.pop("tonk_snapshot", None)
    if token is not None:
        _SNAPSHOT.reset(token)


def engine_options(url: str) -> dict[str, Any]:
    """Engine options for a database URL: on PostgreSQL a lock wait and a connection that
    give up (and answer 503) rather than hang a request (the URL's own ``connect_timeout``
    kept), and a connection checked before use, so that one that died with a restart is
    replaced (a round trip per checkout: about 55 µs here). (On SQLite no check: it would
    cost every request a query and find nothing.)"""
    options: dict[str, Any] = {}
    if url.startswith("postgresql"):  # a server can restart under the pool; a file cannot
        options["pool_pre_ping"] = True
        options["connect_args"] = {"options": f"-c lock_timeout={LOCK_TIMEOUT_MS}"}
        if "connect_timeout=" not in url:
            options["connect_args"]["connect_timeout"] = CONNECT_TIMEOUT_S
    return options


def begin_write() -> None:
    """End what the request was reading and begin a write transaction (or go on with the
    one already begun: a change and the key that guards it commit together). On SQLite it
    holds the write lock from its first statement (waiting up to the busy timeout). Called
    by the write boundary (:func:`app.db.unit.unit_of_work`), and by a change that must
    hold the lock (a session's, :func:`app.services.sessions.ledger.locked`)."""
    session = db.session()
    if session.in_transaction():
        if not session.info.get(_WRITING):
            token = _IMMEDIATE.set(True)  # (a transaction that has not begun yet: now, to write)
            try:
                connection = session.connection()
            finally:
                _IMMEDIATE.reset(token)
            if connection.info.get(_BEGUN_TO_WRITE) or session.new or session.dirty or \
                    session.deleted or changed_in_transaction(connection):
                # a transaction that can write (or has written, and so holds the lock): go
                # on in it rather than end it and wait for the lock again
                session.info[_WRITING] = True
        if session.info.get(_WRITING):
            return
        session.rollback()  # it only read
    token = _IMMEDIATE.set(True)
    try:
        session.connection()
    finally:
        _IMMEDIATE.reset(token)
    session.info[_WRITING] = True


def conflict_insert(dialect: str, table: Table) -> Any:
    """An INSERT into ``table`` that can say what to do ON CONFLICT, in the words of the
    database ``dialect`` names (PostgreSQL's or SQLite's, the two the app runs on)."""
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)


def read_before_write(statement: Any, params: dict[str, Any]) -> Any:
    """The first row of a read a write request makes before its change that needs no write
    lock (whose token signs it): on SQLite outside the write transaction, which then begins
    (``IMMEDIATE``, holding the one write lock) only when the change does, so the other
    writers do not wait while this is read; on PostgreSQL, or once the request's transaction
    has begun, in that transaction."""
    session = db.session()
    if session.in_transaction() or db.engine.dialect.name != "sqlite":
        return session.connection().execute(statement, params).first()
    token = _IMMEDIATE.set(False)
    try:
        with db.engine.connect() as connection:  # a reader, back to the pool at once
            return connection.execute(statement, params).first()
    finally:
        _IMMEDIATE.reset(token)


@event.listens_for(Session, "after_commit")
@event.listens_for(Session, "after_rollback")
def _written(session: Session) -> None:
    session.info.pop(_WRITING, None)


# -- faults ----------------------------------------------------------------------------------

def N_(message: str) -> str:
    """Marks a message for the catalogues (``scripts/i18n.sh``); the page that shows it
    translates it (:mod:`app.http.faults`)."""
    return message


_BUSY = N_("the database is busy with another change: try again in a moment")
_READ_ONLY_FILE = N_("the database is read-only: nothing can be saved until its file can be "
                     "written again (reading still works)")
_READ_ONLY = N_("the database is read-only: nothing can be saved until it can be written "
                "again (reading still works)")
_FULL = N_("the disk is full: nothing can be saved until there is room again (reading still "
           "works)")
_DISK = N_("the database's disk failed to read or write: nothing was saved")
_UNREACHABLE = N_("the database server cannot be reached: try again in a moment")
_SERVER_FULL = N_("the database server is full: try again in a moment")

# (a fragment of the driver's message or PostgreSQL's SQLSTATE, what it means for a person)
_FAULTS: tuple[tuple[str, str], ...] = (
    ("database is locked", _BUSY),
    ("database table is locked", _BUSY),
    ("readonly database", _READ_ONLY_FILE),
    ("read-only", _READ_ONLY),
    ("25006", _READ_ONLY),
    ("disk is full", _FULL),
    ("disk i/o error", _DISK),
    ("53100", _FULL),
    ("no space left", _FULL),
    ("55p03", _BUSY),
    ("lock timeout", _BUSY),
    ("40001", _BUSY),
    ("40p01", _BUSY),
    ("unable to open database", N_("the database cannot be opened: check its file and folder")),
    ("too many clients", _SERVER_FULL),
)

#: SQLSTATEs of a PostgreSQL server gone or going: class 08 (the connection failed or was
#: lost) and 57P01-57P05 (shut down by an operator, after a crash, not yet or no longer
#: accepting connections, the database dropped, an idle session ended).
_LOST_STATES = ("08", "57P0")


def fault(exc: BaseException) -> str | None:
    """What a database error means for a person, if it is a fault of the database rather
    than of the app (busy, read-only, disk full, unreachable or restarting, every pooled
    connection taken for longer than the pool waits); else None."""
    if isinstance(exc, PoolTimeout):
        return _SERVER_FULL
    if not isinstance(exc, DBAPIError):
        return None
    orig = exc.orig
    text = " ".join(str(part) for part in (
        getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None) or "", orig)).lower()
    meaning = next((meaning for fragment, meaning in _FAULTS if fragment in text), None)
    if meaning is None and (exc.connection_invalidated or _connection_lost(orig)):
        return _UNREACHABLE
    return meaning


def _connection_lost(error: BaseException | None) -> bool:
    """Whether a driver's error says the PostgreSQL server is out of reach, restarting, or
    dropped the connection: told by psycopg's class and the SQLSTATE, not by the words (an
    ``OperationalError`` with no SQLSTATE is psycopg's own: connecting failed, or the
    connection broke; PostgreSQL refusing a connection while it starts up, recovers or shuts
    down reaches psycopg only as such a failure, "the database system is starting up")."""
    psycopg = sys.modules.get("psycopg")  # loaded once the app runs on PostgreSQL
    if psycopg is None or not isinstance(error, psycopg.OperationalError):
        return False
    state = error.sqlstate
    return state is None or state.startswith(_LOST_STATES)
