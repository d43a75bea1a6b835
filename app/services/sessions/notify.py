"""Word of a session's change, sent when it commits: to this process at once, and through
PostgreSQL (``NOTIFY``) to every process and server on the same database, for the streams
that push the live view to phones (:mod:`app.api.stream`).

A change of a session moves its ``revision`` on (:func:`.ledger._move_on` marks the row; it
is written at a flush). Each flush notes which sessions' revisions it wrote; on PostgreSQL
it also sends ``NOTIFY`` with their ids in the same transaction, so that the word goes out
only if the change commits, and only once it has (a listener that reads the revision then
sees the new one). After the commit, the listeners of this process (:func:`on_moved`) are
told too: a stream of this worker hears it without a round trip to the database. Nothing
here is needed for correctness: a stream also reads its sessions' revisions now and then
(SQLite has no NOTIFY: there that reading, every fraction of a second, is the word).
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from ...db.models import GameSession

#: The PostgreSQL channel the ids of moved sessions are sent on (comma-separated).
CHANNEL = "tonk_moved"
_MOVED = "tonk_moved_sessions"  # in a database session's info: ids moved in this transaction
_listeners: list[Callable[[set[int]], None]] = []

log = logging.getLogger(__name__)


def on_moved(listener: Callable[[set[int]], None]) -> Callable[[], None]:
    """Call ``listener`` (in the committing thread) with the ids of the sessions each
    commit of this process moved on; returns what stops it."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener)


@event.listens_for(Session, "after_flush")
def _noted(session: Session, _context: Any) -> None:
    moved = {obj.id for obj in session.dirty if isinstance(obj, GameSession)
             and inspect(obj).attrs.revision.history.added}
    if not moved:
        return
    session.info.setdefault(_MOVED, set()).update(moved)
    connection = session.connection()
    if connection.dialect.name == "postgresql":  # delivered at commit, dropped at rollback
        connection.execute(text("SELECT pg_notify(:channel, :ids)"),
                           {"channel": CHANNEL, "ids": ",".join(map(str, sorted(moved)))})


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    moved = session.info.pop(_MOVED, None)
    if moved:
        for listener in list(_listeners):
            try:
                listener(moved)
            except Exception:  # a listener's fault is never the change's
                log.exception("a listener of moved sessions failed")


@event.listens_for(Session, "after_soft_rollback")
def _rolled_back(session: Session, _previous: Any) -> None:
    session.info.pop(_MOVED, None)


def parse_ids(payload: str) -> set[int]:
    """The session ids of a notification's payload (anything else in it is ignored)."""
    return {int(part) for part in payload.split(",") if part.isdigit()}


def listen(engine: Engine, heard: Callable[[set[int]], None],
           stopped: Callable[[], None]) -> threading.Thread | None:
    """On PostgreSQL, a daemon thread that LISTENs on :data:`CHANNEL` on a connection of
    its own and calls ``heard`` with each notification's ids (``stopped`` when the
    connection is lost: the caller then reads revisions more often); None on a database
    that has no NOTIFY."""
    if engine.dialect.name != "postgresql":
        return None
    raw = engine.raw_connection()
    connection = raw.driver_connection
    raw.detach()  # its own for good: never back to the pool
    connection.autocommit = True  # type: ignore[union-attr]
    connection.execute(f"LISTEN {CHANNEL}")  # type: ignore[union-attr]

    def run() -> None:
        try:
            for note in connection.notifies():  # type: ignore[union-attr]
                heard(parse_ids(note.payload))
        except Exception:
            log.warning("the LISTEN connection for live updates was lost", exc_info=True)
        finally:
            stopped()

    thread = threading.Thread(target=run, name="tonk-listen", daemon=True)
    thread.start()
    return thread

