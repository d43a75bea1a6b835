"""PostgreSQL restarted under a busy server: while it is down, shutting down, starting up or
recovering, every request is answered 503 with ``Retry-After`` (a page for pages, the JSON
error for the API, signed in or not), never 500; once it is back, the pooled connections that
died with it are replaced before use, so nobody sees them.

The cluster is the test's own (:mod:`tests.cluster`: ``initdb`` in a temporary folder, on a
free port), never the shared server; it is restarted as after a crash (``pg_ctl -m
immediate``, down a second, then recovery on start) and as an operator would (``-m fast``).
Around it, quick tests of the pieces: what each driver error means (told by class and
SQLSTATE), a server that never answers (the connect timeout), every pooled connection taken,
and a database session whose ending rollback fails after its answer was made.
"""
from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
import urllib.error
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message

import psycopg
import pytest
from flask import has_request_context
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from app.db import storage
from app.extensions import db
from tests import cluster
from tests.apps import problems_at
from tests.live import Browser, Client, a_hand, new_session, prepare, server

#: Phones at once: API scorekeepers, signed-in page readers, share-link readers.
SCOREKEEPERS, READERS, WATCHERS = 5, 4, 2
#: Seconds of load before, between and after the two restarts (answers are counted by when
#: they came).
STEADY = 2.5
#: Seconds the crashed server stays down before it starts (and recovers): every phone meets
#: it, however slow the machine (a bare restart takes a few tenths of a second here).
DOWN = 1.0
#: Seconds after ``pg_ctl`` says the server is back from which no request may fail (one
#: that failed just before may be answered a moment later).
SETTLED = 1.0
PASSWORD = "correct horse battery staple"
#: What a request came back with: status, headers, body (JSON parsed, or the page).
Answered = tuple[int, Message, object]  # the headers' names in any case, as HTTP's


@dataclass
class Seen:
    """Each answer: when it came (monotonic: by when it was asked, a request may have
    waited a second for a busy worker), to whom, and its status."""

    answers: list[tuple[float, str, int]] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)  # every 500, every 503 missing its parts
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, who: str, status: int, headers: Message, body: object) -> None:
        answered, problem = time.monotonic(), ""
        if status >= 500 and status != 503:
            problem = "not 503"
        elif status == 503:
            kind = headers.get("Content-Type", "")
            if headers.get("Retry-After") != "2":
                problem = "no Retry-After"
            elif who == "api" and not (isinstance(body, dict) and body.get("error")):
                problem = "no JSON error"
            elif who != "api" and not kind.startswith("text/html"):
                problem = "not a page"
        with self.lock:
            self.answers.append((answered, who, status))
            if problem:
                self.wrong.append(f"{who} {status} ({problem}): {str(body)[:300]}")

    def counts(self, since: float = 0.0, until: float = float("inf")) -> Counter[int]:
        with self.lock:
            return Counter(status for at, _who, status in self.answers
                           if since <= at < until)

    def refused(self, since: float) -> list[str]:
        """Who was answered 503 after ``since``, and when (seconds after it)."""
        with self.lock:
            return [f"{who} at +{at - since:.2f} s" for at, who, status in self.answers
                    if status == 503 and at >= since]


UNREACHABLE = "the database server cannot be reached: try again in a moment"


@pytest.mark.parametrize("error", [
    psycopg.errors.AdminShutdown("terminating connection due to administrator command"),
    psycopg.errors.CrashShutdown("terminating connection because of crash of another server "
                                 "process"),
    psycopg.errors.CannotConnectNow("the database system is shutting down"),
    psycopg.errors.IdleSessionTimeout("terminating connection due to idle-session timeout"),
    psycopg.errors.ConnectionFailure("could not receive data from client"),
    # what psycopg raises when connecting fails, or a connection breaks: no SQLSTATE
    psycopg.OperationalError('connection failed: connection to server at "127.0.0.1", port '
                             "5432 failed: FATAL:  the database system is starting up"),
    psycopg.OperationalError("connection failed: ... FATAL:  the database system is not yet "
                             "accepting connections"),
    psycopg.OperationalError("consuming input failed: server closed the connection "
                             "unexpectedly"),
    psycopg.errors.ConnectionTimeout("connection timeout expired"),
], ids=lambda error: type(error).__name__)
def test_a_server_gone_or_restarting_is_a_fault(error):
    assert storage.fault(OperationalError("SELECT 1", {}, error)) == UNREACHABLE


@pytest.mark.parametrize("error, meaning", [
    (psycopg.OperationalError('connection failed: ... FATAL:  sorry, too many clients '
                              "already"), "the database server is full: try again in a moment"),
    (psycopg.errors.LockNotAvailable("canceling statement due to lock timeout"),
     "the database is busy with another change: try again in a moment"),
    (psycopg.errors.QueryCanceled("canceling statement due to user request"), None),
    (psycopg.errors.UndefinedTable('relation "hands" does not exist'), None),
    (sqlite3.OperationalError("no such table: hands"), None),  # a fault of the app: a 500
], ids=lambda value: type(value).__name__)
def test_what_else_a_database_error_means(error, meaning):
    assert storage.fault(OperationalError("SELECT 1", {}, error)) == meaning


def test_a_database_server_that_does_not_answer_is_a_503_within_the_connect_timeout(
        monkeypatch):
    """A PostgreSQL server that takes the connection and never answers (hung, or a host
    whose packets are lost): the request gives up after the connect timeout and answers 503,
    instead of holding its worker for good."""
    from app import create_app

    monkeypatch.setattr(storage, "CONNECT_TIMEOUT_S", 2)  # psycopg's least
    answers: list[tuple[int, str | None, float]] = []
    with socket.socket() as silent:  # the kernel completes the handshake; nobody answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"postgresql+psycopg://postgres@127.0.0.1:{silent.getsockname()[1]}/hung"
        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "test",
                          "TESTING": True})

        def ask() -> None:
            started = time.monotonic()
            answer = app.test_client().get("/api/v1/sessions",
                                           headers={"Authorization": "Bearer nobody"})
            answers.append((answer.status_code, answer.headers.get("Retry-After"),
                            time.monotonic() - started))

        asking = threading.Thread(target=ask, daemon=True)
        asking.start()
        asking.join(timeout=20)
    assert answers, "the request was still waiting for the database after 20 s"
    status, retry_after, took = answers[0]
    assert (status, retry_after) == (503, "2") and took < 10
    with app.app_context():
        db.engine.dispose()


def test_every_pooled_connection_taken_is_a_503_not_a_500(tmp_path):
    """When every connection of the pool is held (a restart's requests each waiting to
    connect, more threads than connections) for longer than the pool waits, the next request
    is a 503 saying the database server is full, page and API alike."""
    from app import create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'pool.sqlite'}",
                      "SECRET_KEY": "test", "TESTING": True, "SQLALCHEMY_ENGINE_OPTIONS": {
                          "pool_size": 1, "max_overflow": 0, "pool_timeout": 0.1}})
    with app.app_context():
        held = db.engine.connect()
    try:
        client = app.test_client()
        api = client.get("/api/v1/sessions", headers={"Authorization": "Bearer nobody"})
        page = client.get("/s/abc")
        poll = client.get("/api/v1/share/abc", headers={"If-None-Match": '"seen"'})
    finally:
        held.close()
    for answer in (api, page, poll):
        assert (answer.status_code, answer.headers["Retry-After"]) == (503, "2")
        assert "the database server is full" in answer.get_data(as_text=True)
    assert api.get_json()["error"] == "the database server is full: try again in a moment"
    assert page.mimetype == "text/html"
    with app.app_context():
        db.engine.dispose()


def test_a_read_whose_database_session_cannot_end_is_still_answered(db_app, api):
    """A request that read, and was answered, while the server went down: the rollback that
    ends its database session when its app context ends fails (the connection is gone). The answer
    stands: no 500 after it (the server's own, the response already made)."""
    sid = api.start()
    with db_app.app_context():
        engine = db.engine
    failed: list[str] = []

    def fail_at_the_end(_conn: object) -> None:
        if not failed and not has_request_context():  # the request's context is gone
            failed.append("ROLLBACK")
            raise OperationalError("ROLLBACK", {}, psycopg.OperationalError(
                "consuming input failed: server closed the connection unexpectedly"))

    event.listen(engine, "rollback", fail_at_the_end)
    try:
        answer = api("GET", f"/sessions/{sid}")
    finally:
        event.remove(engine, "rollback", fail_at_the_end)
    assert failed and answer.status_code == 200
    assert answer.get_json()["id"] == sid
    assert api("GET", f"/sessions/{sid}").status_code == 200  # and the next is served


@pytest.mark.server
@pytest.mark.skipif(cluster.missing() is not None,
                    reason=f"no PostgreSQL cluster of the test's own: {cluster.missing()}")
def test_a_postgresql_restart_under_load_is_503_never_500():
    with cluster.cluster() as pg:
        token = prepare(pg.url)
        with server(pg.url, workers=3) as base:
            api = Client(base, token)
            sid = new_session(api)
            share = api.call("GET", f"/api/v1/sessions/{sid}").body["share_url"]
            browser = Browser(base)
            browser.sign_in("keeper@example.com", PASSWORD)
            seen, stop = Seen(), threading.Event()

            def asked(who: str, ask: Callable[..., Answered], *args: object) -> None:
                seen.note(who, *ask(*args))

            def scorekeeper(k: int) -> None:
                base_path, i = f"/api/v1/sessions/{sid}", 0
                while not stop.is_set():
                    if i % 3 == 0:
                        asked("api", _api, api, "POST", base_path + "/hands",
                              a_hand(k * 1000 + i))
                    else:
                        asked("api", _api, api, "GET",
                              base_path if i % 3 == 1 else base_path + "/ledger", None)
                    i += 1

            def reader(k: int) -> None:
                path = ("/", f"/sessions/{sid}")[k % 2]
                while not stop.is_set():
                    asked("page", _page, browser, path)

            def watcher(k: int) -> None:  # not signed in: the share link's page and poll
                anyone = Browser(base)
                path = (share, "/api/v1/share/" + share.rsplit("/", 1)[1])[k % 2]
                while not stop.is_set():
                    asked("api" if path.startswith("/api/") else "share", _page, anyone, path)

            phones = ([threading.Thread(target=scorekeeper, args=(k,))
                       for k in range(SCOREKEEPERS)]
                      + [threading.Thread(target=reader, args=(k,)) for k in range(READERS)]
                      + [threading.Thread(target=watcher, args=(k,))
                         for k in range(WATCHERS)])
            restarts: dict[str, tuple[float, float]] = {}
            try:
                for phone in phones:
                    phone.start()
                for mode, down in (("immediate", DOWN), ("fast", 0.0)):
                    time.sleep(STEADY)
                    began = time.monotonic()
                    pg.restart(mode, down)
                    restarts[mode] = (began, time.monotonic())
                time.sleep(STEADY + SETTLED)
            finally:
                stop.set()
                for phone in phones:
                    phone.join(timeout=30)
        problems = problems_at(pg.url)
    assert not any(phone.is_alive() for phone in phones)
    (immediate, back), (fast, end) = restarts["immediate"], restarts["fast"]
    report = {"before": seen.counts(until=immediate),
              "immediate restart": seen.counts(immediate, back + SETTLED),
              "between": seen.counts(back + SETTLED, fast),
              "fast restart": seen.counts(fast, end + SETTLED),
              "after": seen.counts(end + SETTLED)}
    print("\nanswers by status:", {phase: dict(sorted(c.items())) for phase, c in
                                    report.items()})
    assert seen.wrong == []
    everything = seen.counts()
    assert set(everything) <= {200, 201, 409, 422, 503}, everything
    # the restarts were seen (while the server was down or starting, requests were made) ...
    assert everything[503] > 0, report
    # ... and once it was back, the connections that died with it were not: nothing failed
    for phase, since in (("between", back + SETTLED), ("after", end + SETTLED)):
        assert report[phase][503] == 0, (report, seen.refused(since))
        assert report[phase][200] > 0, report
    assert problems == []


def _api(client: Client, method: str, path: str, body: object) -> Answered:
    key = uuid.uuid4().hex if method == "POST" else None
    answer = client.call(method, path, body, key=key, timeout=15)
    return answer.status, answer.headers, answer.body


def _page(browser: Browser, path: str) -> Answered:
    """A GET as the browser makes it (its cookies): status, headers, and the page (or the
    JSON, parsed)."""
    try:
        with browser.opener.open(browser.base + path, timeout=15) as response:
            status, headers, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        status, headers, raw = exc.code, exc.headers, exc.read()
    if headers.get("Content-Type", "").startswith("application/json"):
        return status, headers, json.loads(raw)
    return status, headers, raw.decode()
