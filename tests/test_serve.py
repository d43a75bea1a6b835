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
#: The module's server cuts a silent or idle connection after this many seconds
#: (``TONK_HEADER_SECONDS``; its default, 10, is app.cli.serving.HEADER_SECONDS): not to wait
#: ten seconds for the cut.
HEADER_SECONDS = 4


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
    with tonk_serve(url, workers=2, log=folder / "serve.log",
                    env={"TONK_HEADER_SECONDS": str(HEADER_SECONDS)}) as server:
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


# -- what an attacker or a broken client sends (issue 38) ------------------------------------

def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def _raw(base: str, data: bytes, wait: float = 5.0, source: str = HOST) -> bytes:
    """Send ``data`` on a connection of its own from ``source``; what came back before the
    server closed it or ``wait`` seconds passed."""
    import socket

    with socket.create_connection((HOST, _port(base)), timeout=wait,
                                  source_address=(source, 0)) as s:
        s.sendall(data)
        got = b""
        try:
            while chunk := s.recv(65536):
                got += chunk
        except TimeoutError:
            pass
    return got


def _head(answer: bytes) -> tuple[int, dict[str, str]]:
    """The status and headers (names in lower case) of a raw answer."""
    lines = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    return int(lines[0].split()[1]), {
        k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}


def _secure(headers: dict[str, str]) -> bool:
    from app.http.headers import CONTENT_SECURITY_POLICY

    return (headers.get("content-security-policy") == CONTENT_SECURITY_POLICY
            and headers.get("x-content-type-options") == "nosniff")


def _seconds_to_get(base: str, path: str = "/api/v1/openapi.json") -> float:
    """How long a normal request took (inf: not answered within 5 s)."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection(HOST, _port(base), timeout=5)
    try:
        connection.request("GET", path)
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 200
    except TimeoutError:
        return float("inf")
    finally:
        connection.close()
    return time.perf_counter() - started


def test_a_thousand_silent_connections_delay_nobody_and_are_cut_within_seconds(served):
    """1,100 connections that send nothing (before: every request hung, and none was ever
    closed) and ten idle after one request: a normal request is answered at once beside
    them, and the server closes every one of them after HEADER_SECONDS."""
    import resource
    import select
    import socket

    server, _session, _event = served
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < 2048:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(2048, hard), hard))
    sockets: list[socket.socket] = []
    try:
        opened = time.monotonic()
        for _ in range(1100):
            sockets.append(socket.create_connection((HOST, _port(server.base)), timeout=5))
        for _ in range(10):
            s = socket.create_connection((HOST, _port(server.base)), timeout=5)
            s.sendall(b"GET /check HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            sockets.append(s)
        time.sleep(0.5)
        beside = [_seconds_to_get(server.base) for _ in range(3)]
        waiting = {s.fileno(): s for s in sockets}
        poller = select.poll()
        for fd in waiting:
            poller.register(fd, select.POLLIN)
        while waiting and time.monotonic() - opened < HEADER_SECONDS + 10:
            for fd, _event_mask in poller.poll(500):
                try:
                    ended = waiting[fd].recv(65536) == b""
                except OSError:
                    ended = True
                if ended:
                    poller.unregister(fd)
                    del waiting[fd]
        cut = time.monotonic() - opened
        print(f"beside 1,110 silent or idle connections a request took "
              f"{', '.join(f'{t * 1000:.0f}' for t in beside)} ms; all were cut after "
              f"{cut:.1f} s ({len(waiting)} still open)")
        assert max(beside) < 2.0, beside
        assert not waiting, f"{len(waiting)} silent connections still open after {cut:.0f} s"
        assert _seconds_to_get(server.base) < 2.0
    finally:
        for s in sockets:
            s.close()


def test_one_address_holds_no_more_than_its_share(served):
    """300 requests whose bodies never end, from one address (127.0.0.2): past
    PER_ADDRESS of them in a worker the answer is 429 at once, with Retry-After and the
    security headers, and another address is answered meanwhile; once they go, the first
    address is answered again."""
    import socket

    from app.cli.serving import PER_ADDRESS

    server, _session, _event = served
    sockets = []
    try:
        for _ in range(300):
            s = socket.create_connection((HOST, _port(server.base)), timeout=5,
                                         source_address=("127.0.0.2", 0))
            s.sendall(b"POST /api/v1/settle HTTP/1.1\r\nHost: x\r\nContent-Type: "
                      b"application/json\r\nContent-Length: 1000\r\n\r\n{")
            sockets.append(s)
        time.sleep(1.0)
        refused = []
        for s in sockets:
            s.setblocking(False)
            try:
                refused.append(_head(s.recv(65536)))
            except BlockingIOError:
                pass
        other = _seconds_to_get(server.base)  # from 127.0.0.1
        print(f"300 never-ending bodies from 127.0.0.2: {len(refused)} refused at once; "
              f"a request from 127.0.0.1 took {other * 1000:.0f} ms")
        assert len(refused) >= 300 - 2 * PER_ADDRESS
        assert all(status == 429 and headers["retry-after"] and _secure(headers)
                   for status, headers in refused), refused[:3]
        assert other < 2.0
    finally:
        for s in sockets:
            s.close()
    deadline = time.monotonic() + 10
    while _head(_raw(server.base, b"GET /check HTTP/1.1\r\nHost: x\r\nConnection: close"
                                  b"\r\n\r\n", source="127.0.0.2"))[0] != 200:
        assert time.monotonic() < deadline, "127.0.0.2 still refused after its sockets went"
        time.sleep(0.2)


@pytest.mark.parametrize("chunked", [b"zz\r\n{}\r\n0\r\n\r\n", b"2\r\n{}0\r\n\r\n"],
                         ids=["no-size", "no-crlf"])
def test_a_malformed_chunked_body_is_a_400_with_the_apps_headers(served, chunked):
    server, _session, _event = served
    answer = _raw(server.base, b"POST /api/v1/settle HTTP/1.1\r\nHost: x\r\nContent-Type: "
                  b"application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked)
    status, headers = _head(answer)
    assert status == 400 and _secure(headers), answer[:300]
    assert "error" in json.loads(answer.split(b"\r\n\r\n", 1)[1])


def test_the_loop_reads_repeated_headers_as_the_app_does(served):
    """Two Accept-Language headers (``xx``, ``ja``) with the English ETag, and two Cookie
    headers (``lang=ja``, ``x=1``) with the Japanese one: the app reads them joined with
    ``,`` (Japanese, then English) and answers 200; so must the poll answered in the
    event loop (it answered 304 to both)."""
    server, session, _event = served
    path = urllib_path(session["share_url"])
    tags = {lang: ask(server.base, "GET", path, {"Accept-Language": lang})[1]["etag"]
            for lang in ("en", "ja")}
    assert tags["en"] != tags["ja"]
    for tag, repeated in ((tags["en"], b"Accept-Language: xx\r\nAccept-Language: ja\r\n"),
                          (tags["ja"], b"Cookie: lang=ja\r\nCookie: x=1\r\n")):
        answer = _raw(server.base, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                      f"If-None-Match: {tag}\r\n".encode() + repeated + b"\r\n")
        status, headers = _head(answer)
        assert status == 200 and headers["etag"] != tag, (repeated, answer[:300])


@pytest.mark.parametrize("announced,body", [
    (b"Transfer-Encoding: chunked", b"0\r\n\r\n"), (b"Content-Length: 5", b"hello")],
    ids=["chunked", "length"])
def test_a_poll_announcing_a_body_is_answered_only_once_it_is_in(served, announced, body):
    """A GET that announces a body is not answered before the body is in (the loop
    answered it 304 at once): the app reads it, then answers."""
    import socket

    server, session, _event = served
    path = urllib_path(session["share_url"])
    tag = ask(server.base, "GET", path)[1]["etag"]
    with socket.create_connection((HOST, _port(server.base)), timeout=1.0) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nIf-None-Match: "
                  f"{tag}\r\n".encode() + announced + b"\r\n\r\n")
        with pytest.raises(TimeoutError):
            s.recv(65536)  # nothing before the body
        s.sendall(body)
        s.settimeout(10)
        assert _head(s.recv(65536))[0] == 304


def urllib_path(url: str) -> str:
    """The path of a share link (the API's poll of it)."""
    return "/api/v1/share/" + url.rsplit("/", 1)[1]


def test_an_import_past_2_mb_is_taken_and_a_body_past_a_pages_limit_is_413_in_words(served):
    """The import page takes an export of 2.5 MB under ``tonk serve`` (the body reader
    stopped at 2 MB for every route: 400); a form past the 2 MB of the sign-in page is
    413 saying so, with the app's headers."""
    from tests.live import Browser

    server, session, _event = served
    phone = Browser(server.base)
    phone.sign_in("keeper@example.com", "correct horse battery staple")
    status, exported = phone.get(f"/sessions/{session['id']}/export.json")
    assert status == 200 and json.loads(exported)["sessions"]
    document = exported.encode() + b" " * (2_500_000 - len(exported))  # valid JSON still
    csrf = phone.tokens("/import")["csrf_token"]
    boundary = "tonk38boundary"
    form = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n"
            f"{csrf}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"night.json\"\r\nContent-Type: application/json\r\n\r\n").encode() \
        + document + f"\r\n--{boundary}--\r\n".encode()
    status, headers, page = ask(server.base, "POST", "/import", {
        "Cookie": phone.cookie(), "Content-Type": f"multipart/form-data; boundary={boundary}",
        "Accept-Language": "en"}, form)
    assert status == 200, page[:500]
    assert b"already here" in page  # the same night: skipped, every hand checked
    status, headers, page = ask(server.base, "POST", "/signin", {
        "Content-Type": "application/x-www-form-urlencoded", "Accept-Language": "en"},
        b"email=" + b"x" * (3 * 1024 * 1024))
    assert status == 413 and b"2 MB" in page and _secure(headers)
