"""The server people run, ``tonk serve``, asked what phones, browsers, service workers and
``curl -I`` ask: HEAD and conditional GETs of every kind of answer (a page, a static file,
``/sw.js``, the share poll, the board poll), a body too large, a worker killed, and its log
clean afterwards. Bounded: one ``tonk serve`` with two workers on 127.0.0.1, on a SQLite
file, stopped by its PID.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.live import HOST, Client, prepare, tonk_serve, workers

pytestmark = [pytest.mark.server, pytest.mark.xdist_group("serve")]

TEN = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"]


def ask(base: str, method: str, path: str, headers: dict[str, str] | None = None,
        body: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    host, port = base.rsplit("/", 1)[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        return (answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read())
    finally:
        connection.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``tonk serve`` with two workers, a session with a hand and a tournament's board."""
    folder = tmp_path_factory.mktemp("serve")
    url = f"sqlite:///{folder / 'serve.sqlite'}"
    token = prepare(url)
    with tonk_serve(url, workers=2, log=folder / "serve.log") as server:
        api = Client(server.base, token)
        made = api.call("POST", "/api/v1/sessions", {
            "name": "Friday", "players": ["Ann", "Bob", "Cy"], "rules": "pagat",
            "stake": "0.25"})
        assert made.status == 201, made
        hand = api.call("POST", f"/api/v1/sessions/{made.body['id']}/hands",
                        {"end": {"kind": "tonk_out", "player": "Ann"}})
        assert hand.status == 201, hand
        event = api.call("POST", "/api/v1/events", {
            "name": "Open", "rules": "pagat", "currency": "USD", "table_size": 4,
            "rounds": 1, "hands_per_round": 2, "entry_fee": "0", "prizes": ["1"]})
        assert event.status == 201, event
        for name in TEN[:4]:
            api.call("POST", f"/api/v1/events/{event.body['id']}/players", {"name": name})
        yield server, made.body, event.body


def paths(share_url: str, board: str, base: str) -> list[str]:
    """One address of each kind: pages, a stylesheet and a script, the worker, the polls."""
    token = share_url.rsplit("/", 1)[1]
    _status, _headers, home = ask(base, "GET", "/")
    statics = re.findall(r'/static/[^"?]+\.(?:css|js)\?v=[0-9a-f]+', home.decode())
    assert any(s.split("?")[0].endswith(".css") for s in statics), home[:500]
    _status, _headers, core = ask(base, "GET", "/phone/core.json")
    phone = json.loads(core)
    return ["/", "/check", "/rules/pagat", "/signin", share_url, f"/api/v1/share/{token}",
            board, board + "/state", "/sw.js", "/manifest.webmanifest",
            "/api/v1/openapi.json", *statics, "/phone/core.json", "/phone/core-worker.js",
            phone["pyodide"], next(iter(phone["files"].values()))]


def test_head_and_conditional_gets_of_every_kind_of_answer(served):
    """Each kind of answer, plain and compressed (a browser asks for br and gzip): GET and
    HEAD 200, and a conditional GET or HEAD with the validator it was given 304, bodiless."""
    server, session, event = served
    wrong: list[Any] = []
    for path in paths(session["share_url"], event["board"], server.base):
        for coding in ({}, {"Accept-Encoding": "gzip, deflate, br"}):
            status, headers, body = ask(server.base, "GET", path, coding)
            if status != 200:
                wrong.append(("GET", path, status, coding))
                continue
            head, head_headers, head_body = ask(server.base, "HEAD", path, coding)
            if head != 200 or head_body:
                wrong.append(("HEAD", path, head, len(head_body), coding))
            for name in ("etag", "last-modified"):
                if name not in headers:
                    continue
                asked = {"etag": "If-None-Match", "last-modified": "If-Modified-Since"}[name]
                again, _again_headers, again_body = ask(server.base, "GET", path,
                                                        {asked: headers[name], **coding})
                if again != 304 or again_body:
                    wrong.append((asked, path, again, len(again_body), coding))
                head_again, _h, _b = ask(server.base, "HEAD", path,
                                         {asked: headers[name], **coding})
                if head_again != 304:
                    wrong.append(("HEAD " + asked, path, head_again, coding))
    assert wrong == []
    assert server.errors() == []


def test_a_body_too_large_is_refused_in_the_apis_shape(served):
    server, _session, _event = served
    status, headers, body = ask(server.base, "POST", "/api/v1/settle", {
        "Content-Type": "application/json"}, b'{"a": "' + b"x" * (3 * 1024 * 1024) + b'"}')
    assert status == 413 and b'"error"' in body
    assert headers["x-content-type-options"] == "nosniff"  # the app's own headers


def test_a_killed_worker_is_replaced_and_the_other_answers_meanwhile(served):
    """``kill -9`` of one of two workers: the server stays up, most requests are answered
    meanwhile (a connection the kernel handed the dead worker in the half second before its
    replacement is refused: a phone sends it again), the worker is replaced within 10 s, and
    from then on every request is answered."""
    server, _session, _event = served
    running = workers(server.process.pid)
    assert len(running) == 2
    os.kill(running[0], signal.SIGKILL)
    while _alive(running[0]):
        time.sleep(0.01)
    meanwhile = [_status(server.base) for _ in range(20)]
    deadline = time.monotonic() + 10
    while len(set(workers(server.process.pid)) - {running[0]}) < 2:
        assert time.monotonic() < deadline, "the killed worker was not replaced in 10 s"
        time.sleep(0.1)
    time.sleep(0.5)  # the new worker is listening
    assert server.process.poll() is None
    assert meanwhile.count(200) >= 15, meanwhile
    assert [_status(server.base) for _ in range(20)] == [200] * 20


def _status(base: str) -> int:
    """GET /check's status, or 0 for a connection refused or reset."""
    try:
        return ask(base, "GET", "/check")[0]
    except (OSError, http.client.HTTPException):
        return 0
    finally:
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_slow_bodies_hold_no_thread(served):
    """Twenty sockets that send their headers and then a body a byte at a time (more than
    both workers' threads) delay nobody: the body is read before a thread is taken."""
    import socket

    server, _session, _event = served
    port = int(server.base.rsplit(":", 1)[1])
    sockets = []
    try:
        for _ in range(20):
            s = socket.create_connection((HOST, port))
            s.sendall(b"POST /api/v1/settle HTTP/1.1\r\nHost: x\r\nContent-Type: "
                      b"application/json\r\nContent-Length: 1000\r\n\r\n{")
            sockets.append(s)
        time.sleep(0.5)
        started = time.perf_counter()
        for _ in range(5):
            assert ask(server.base, "GET", "/check")[0] == 200
        assert time.perf_counter() - started < 5
    finally:
        for s in sockets:
            s.close()
