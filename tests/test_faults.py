"""Faults on a real night, on SQLite and PostgreSQL: ``tonk import`` killed with -9 half-way
leaves no checking process behind and nothing imported; scorekeepers recording while a
large import runs are never answered 500 (on SQLite the import checks everything before it
takes the write lock); a server worker killed with -9 in the middle of recording loses no
hand and counts none twice, because the phone sends the same Idempotency-Key again (one
killed after its hand was saved but before its answer was kept: the retry says so).

Everything talks to servers on 127.0.0.1 that these tests start and stop themselves.
"""
from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from app.extensions import db
from app.services.exchange import demo
from tests.apps import make_app, problems_at
from tests.live import (
    ROOT,
    Client,
    a_hand,
    children,
    new_session,
    prepare,
    server,
    tonk_serve,
    workers,
)

IMPORT_HANDS = 10_000
#: Hands the phone records while both workers are killed (after its 3rd and its 10th).
PHONE_HANDS = 30


@pytest.fixture(scope="session")
def big_export(tmp_path_factory) -> Path:
    """A demo league of 10,000 hands as an export document (written straight from the demo
    generator, as ``tonk demo-data`` hands it to the importer): an import that takes a few
    seconds."""
    path = tmp_path_factory.mktemp("export") / "league.json"
    header, sessions = demo.demo_documents(3, IMPORT_HANDS)
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps({**header, "sessions": []})[:-2])  # ... "sessions": [
        for i, session in enumerate(sessions):
            out.write((", " if i else "") + json.dumps(session))
        out.write("]}")
    return path


def _tonk(*args: str, url: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT,
                            env={**os.environ, "DATABASE_URL": url},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _counts(url: str) -> tuple[int, int]:
    app = make_app(url)
    with app.app_context():
        sessions = db.session.execute(db.text("SELECT count(*) FROM game_sessions")).scalar()
        hands = db.session.execute(db.text("SELECT count(*) FROM hands")).scalar()
        db.session.remove()
        db.engine.dispose()
    return int(sessions or 0), int(hands or 0)


def test_killing_an_import_leaves_no_checker_and_nothing_imported(big_export, database_url):
    prepare(database_url)
    process = _tonk("import", str(big_export), "--owner", "keeper@example.com",
                    "--jobs", "2", url=database_url)
    deadline = time.monotonic() + 60
    checkers: set[int] = set()
    while len(checkers) < 2 and time.monotonic() < deadline:  # both are checking
        assert process.poll() is None, process.stderr.read()  # type: ignore[union-attr]
        checkers = {pid for pid in children(process.pid)  # forked or spawned, not the
                    # resource tracker a spawned one starts
                    if "resource_tracker" not in (Path("/proc") / str(pid) / "cmdline")
                    .read_text()}
        time.sleep(0.01)
    assert len(checkers) == 2
    # Killed at once: forked checkers get through 10,000 hands in about a second.
    assert process.poll() is None, "the import ended before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in checkers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in checkers), "checking processes were left behind"
    assert _counts(database_url) == (0, 0)
    assert problems_at(database_url) == []
    for stream in (process.stdout, process.stderr):
        assert stream is not None
        stream.close()


def test_scorekeepers_recording_during_a_large_import_get_no_500(big_export, database_url):
    token = prepare(database_url)
    with server(database_url, workers=2) as base:
        client = Client(base, token)
        session_id = new_session(client)
        statuses: list[int] = []
        stop = threading.Event()

        def keep_score() -> None:
            i = 0
            while not stop.is_set() and i < 400:
                answer = client.call("POST", f"/api/v1/sessions/{session_id}/hands", a_hand(i))
                statuses.append(answer.status)
                if answer.status == 503:
                    assert answer.headers.get("Retry-After") == "2"
                i += 1

        keepers = [threading.Thread(target=keep_score) for _ in range(2)]
        for keeper in keepers:
            keeper.start()
        started = time.monotonic()
        imported = _tonk("import", str(big_export), "--owner", "keeper@example.com",
                         "--jobs", "1", url=database_url)
        out, err = imported.communicate(timeout=240)
        took = time.monotonic() - started
        stop.set()
        for keeper in keepers:
            keeper.join(timeout=60)
    assert imported.returncode == 0, err.decode()
    assert f"{IMPORT_HANDS} hands" in out.decode()
    assert took > 1  # the scorekeepers really did write during the import
    assert statuses and set(statuses) <= {201, 503}
    assert statuses.count(201) >= len(statuses) * 0.9
    assert problems_at(database_url) == []


def test_a_worker_killed_mid_record_loses_nothing_when_the_phone_retries(database_url):
    token = prepare(database_url)
    recorded: list[int] = []
    with tonk_serve(database_url, workers=2) as served:
        client = Client(served.base, token)
        session_id = new_session(client)
        path = f"/api/v1/sessions/{session_id}/hands"
        running = workers(served.process.pid)
        assert len(running) == 2

        killed: list[int] = []

        def killer() -> None:
            # Each worker is killed while the phone is sending: the first after the phone's
            # third hand, the second after its tenth (by time alone, a fast server had all
            # 30 hands recorded before the second kill).
            for pid, after in zip(sorted(running), (3, 10), strict=True):
                while len(recorded) < after and not done.is_set():
                    time.sleep(0.005)
                time.sleep(0.01)
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        done = threading.Event()
        kills = threading.Thread(target=killer, daemon=True)
        kills.start()
        answers_lost = 0
        for i in range(PHONE_HANDS):
            key, body = uuid.uuid4().hex, a_hand(i)
            for _attempt in range(20):  # a lost reply: send the same request again
                try:
                    answer = client.call("POST", path, body, key=key, timeout=10)
                except (OSError, http.client.HTTPException):  # cut off, or cut short
                    time.sleep(0.1)
                    continue
                if answer.status in (502, 503):
                    time.sleep(0.1)
                    continue
                if answer.status == 409 and "answer was lost" in answer.body["error"]:
                    # The worker died after the hand was stored and before its answer was:
                    # the retry is told so, and nothing is recorded twice (counted below).
                    answers_lost += 1
                    break
                assert answer.status == 201, answer
                recorded.append(answer.body["number"])
                break
            time.sleep(0.01)
        done.set()
        kills.join(timeout=10)
        stored = client.call("GET", f"/api/v1/sessions/{session_id}").body["hands"]
        # the server is still up, with two workers again (granian replaces the killed ones)
        deadline = time.monotonic() + 10
        while len(set(workers(served.process.pid)) - set(killed)) < 2:
            assert time.monotonic() < deadline, "the killed workers were not replaced"
            time.sleep(0.1)
        assert served.process.poll() is None
    assert len(killed) == 2  # both workers were killed while the phone was sending
    assert answers_lost <= 2  # one kill, one lost answer at most
    assert len(set(recorded)) == len(recorded) == PHONE_HANDS - answers_lost
    assert set(recorded) <= set(range(1, PHONE_HANDS + 1)) and stored == PHONE_HANDS
    assert problems_at(database_url) == []
