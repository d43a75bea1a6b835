"""Where the rate limits count when no Redis is given: a small SQLite file (``limits.sqlite``
in the instance folder by default) that every worker process of a server, and every
server on the machine sharing that folder, counts in together.

A storage of the ``limits`` library (Flask-Limiter's store), registered under the scheme
``tonk+sqlite://`` followed by the file's path. The library keeps its counts in one process's
memory or in Redis, Memcached, MongoDB: none is shared between processes without a server
of its own. A count is one row (key, count, when its window ends); a try is counted with one
UPSERT that returns the new count, atomic in SQLite, so tries sent at the same moment to
two workers cannot both pass a limit's last place. The file is the app's alone (0600), and
apart from the app's database: counting never waits for a change of the table's."""
from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from limits.storage import Storage

from ..config import private_file

#: The scheme of :data:`RATELIMIT_STORAGE_URI` that names such a file.
SCHEME = "tonk+sqlite"
#: How long a count waits for another process's before it gives up, in seconds.
BUSY_SECONDS = 5.0
#: Every so many counts a process deletes the windows that have ended.
SWEEP_EVERY = 200

T = TypeVar("T")

_SCHEMA = ("CREATE TABLE IF NOT EXISTS counts (key TEXT PRIMARY KEY, count INTEGER NOT NULL,"
           " expires REAL NOT NULL) WITHOUT ROWID")
_COUNT = ("INSERT INTO counts (key, count, expires) VALUES (:key, :amount, :expires) "
          "ON CONFLICT (key) DO UPDATE SET "
          "count = CASE WHEN expires <= :now THEN excluded.count ELSE count + excluded.count END,"
          " expires = CASE WHEN expires <= :now THEN excluded.expires ELSE expires END "
          "RETURNING count")


def uri(path: str | os.PathLike[str]) -> str:
    """The storage URI of the counts kept in the file at ``path``."""
    return f"{SCHEME}://{os.fspath(path)}"


def _again(step: Callable[[], T], opening: bool = False) -> T:
    """``step`` done, tried again while another process holds the file: it holds it for well
    under a millisecond, so every 0.5-2 ms (SQLite's own busy handler sleeps up to 100 ms
    at a time, long after the file is free), for :data:`BUSY_SECONDS` at most. Opening a
    new file, "disk I/O error" too: another connection is setting its WAL index up."""
    deadline, pause = time.monotonic() + BUSY_SECONDS, 0.0005
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            passing = "locked" in str(exc) or (opening and "disk I/O" in str(exc))
            if not passing or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.002)


class SQLiteCounts(Storage):
    """The rate limits' fixed windows counted in a SQLite file (one connection a thread)."""

    STORAGE_SCHEME = [SCHEME]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False,
                 **options: float | str | bool) -> None:
        super().__init__(uri, wrap_exceptions, **options)
        self.path = (uri or "").split("://", 1)[1] if uri and "://" in uri else ""
        if not self.path:
            raise ValueError(f"{SCHEME}:// needs a file's path, e.g. {SCHEME}:///tmp/limits.sqlite")
        self._local = threading.local()
        self._counted = 0

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return sqlite3.Error

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection (made anew in a process forked from the one that had
        it); the file made 0600 from the start, and its table. Threads and workers opening
        a new file at the same moment race to make it WAL and to make its table: the loser
        is told "locked" at once (SQLite calls no busy handler there), or, while the other
        sets the WAL index up, "disk I/O error"; it tries again, as a count does."""
        held = getattr(self._local, "held", None)
        if held is not None and held[0] == os.getpid():
            return held[1]  # type: ignore[no-any-return]
        private_file(self.path)
        # (no busy handler of SQLite's: each step waits in short steps of its own, _again)
        connection = sqlite3.connect(self.path, timeout=0, isolation_level=None,
                                     check_same_thread=False)
        _again(lambda: connection.execute("PRAGMA journal_mode = WAL"), opening=True)
        connection.execute("PRAGMA synchronous = NORMAL")
        _again(lambda: connection.execute(_SCHEMA), opening=True)
        self._local.held = (os.getpid(), connection)
        return connection

    def incr(self, key: str, expiry: int | float, amount: int = 1) -> int:
        """Count ``amount`` tries (a negative one gives them back) in ``key``'s window, begun
        now if it had none or it had ended; the count after."""
        now = time.time()
        connection = self._connection()
        values = {"key": key, "amount": amount, "now": now, "expires": now + expiry}
        row = _again(lambda: connection.execute(_COUNT, values).fetchone())
        self._counted += 1
        if self._counted % SWEEP_EVERY == 0:
            _again(lambda: connection.execute("DELETE FROM counts WHERE expires <= ?", (now,)))
        return int(row[0])

    def _row(self, key: str) -> Any:
        connection = self._connection()
        return _again(lambda: connection.execute(
            "SELECT count, expires FROM counts WHERE key = ? AND expires > ?",
            (key, time.time())).fetchone())

    def get(self, key: str) -> int:
        row = self._row(key)
        return int(row[0]) if row else 0

    def get_expiry(self, key: str) -> float:
        row = self._row(key)
        return float(row[1]) if row else time.time()

    def check(self) -> bool:
        try:
            self._connection().execute("SELECT 1").fetchone()
        except sqlite3.Error:
            return False
        return True

    def reset(self) -> int | None:
        return self._connection().execute("DELETE FROM counts").rowcount

    def clear(self, key: str) -> None:
        self._connection().execute("DELETE FROM counts WHERE key = ?", (key,))
