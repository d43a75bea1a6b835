"""A real server for concurrency tests and benchmarks: ``tonk serve`` (the server people
run) with several workers on a free loopback port, on a database of the caller's, stopped
by its PID; and scorekeepers
that talk to it over HTTP as phones at a table would (standard library only).

Everything here talks to 127.0.0.1 only, with bounded counts and time.
"""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def prepare(url: str, email: str = "keeper@example.com") -> str:
    """An empty database at ``url`` with the schema, one account, and its API token."""
    from flask_migrate import stamp

    from app import create_app
    from app.db.unit import unit_of_work
    from app.extensions import db
    from app.services.accounts import create_token, create_user

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "live",
                      "QUIET_MIGRATIONS": True})
    with app.app_context():
        db.drop_all()
        db.create_all()
        stamp()  # made whole: `tonk serve` finds nothing to migrate
        with unit_of_work():
            user = create_user(email, "Keeper", "correct horse battery staple")
            token = create_token(user, "live")
        db.session.remove()
        db.engine.dispose()
    return token


@dataclass
class Served:
    """A running ``tonk serve``: its base URL, its process, and the file its log goes to."""

    base: str
    process: subprocess.Popen[bytes]
    log: Path

    def errors(self) -> list[str]:
        """The log's lines that say something went wrong: a 5xx answer, a traceback, an
        error of the server's or the app's."""
        wrong = re.compile(r'" 5\d\d |Traceback|\[ERROR\]|^ERROR|Exception')
        return [line for line in self.log.read_text(errors="replace").splitlines()
                if wrong.search(line)]


@contextmanager
def tonk_serve(url: str, workers: int = 2, timeout: float = 60.0,
               env: dict[str, str] | None = None, log: Path | None = None,
               probe: str = "/api/v1/openapi.json", grace: float = 3.0) -> Iterator[Served]:
    """``tonk serve`` (the server the README starts) with ``workers`` workers on a free
    loopback port, on the database at ``url``; stopped by its PID afterwards (killed if it
    has not stopped ``grace`` seconds after being asked to: test_stream tests how it stops). Its
    ``TONK_HOME`` (where its rate limits count) is a folder of its own unless ``env`` gives
    one."""
    port = free_port()
    log = log or Path(tempfile.mkstemp(prefix="tonk-serve-", suffix=".log")[1])
    home = tempfile.TemporaryDirectory(prefix="tonk-home-")
    environment = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": "live",
                   "TONK_HOME": home.name, **(env or {})}
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", "--port", str(port), "--workers",
             str(workers)], cwd=ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)
    base = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError("tonk serve stopped: " + log.read_text()[-2000:])
            try:
                with urllib.request.urlopen(base + probe, timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield Served(base, process, log)
    finally:
        stop(process, grace)
        home.cleanup()


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux: /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def workers(pid: int) -> list[int]:
    """The worker processes of the server whose PID is ``pid``: its children but
    multiprocessing's resource tracker."""
    found = []
    for child in children(pid):
        try:
            if b"resource_tracker" not in (Path("/proc") / str(child) / "cmdline").read_bytes():
                found.append(child)
        except OSError:
            pass
    return found


def stop(process: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """Stop a server started in a session of its own, and its workers, by its PID: asked
    (SIGTERM), then killed if it has not stopped in ``grace`` seconds."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


@contextmanager
def server(url: str, workers: int = 4, timeout: float = 60.0) -> Iterator[str]:
    """``tonk serve`` on ``url``'s database; yields the base URL."""
    with tonk_serve(url, workers, timeout) as served:
        yield served.base


@dataclass
class Answer:
    status: int
    body: Any
    headers: Message  # names in any case, as HTTP has them
    seconds: float


class Client:
    """A phone talking JSON to the API with a personal token."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base, token

    def call(self, method: str, path: str, body: Any = None, key: str | None = None,
             timeout: float = 30.0, headers: dict[str, str] | None = None) -> Answer:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if key is not None:
            request.add_header("Idempotency-Key", key)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                status, raw, got = response.status, response.read(), response.headers
        except urllib.error.HTTPError as exc:
            status, raw, got = exc.code, exc.read(), exc.headers
        seconds = time.perf_counter() - started
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        return Answer(status, parsed, got, seconds)


class Browser:
    """A phone using the pages: cookies, CSRF token and the form's one-time token."""

    INPUT = re.compile(r"<input[^>]*>")
    NAME, VALUE = re.compile(r'name="(csrf_token|once)"'), re.compile(r'value="([^"]*)"')

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect())

    def cookie(self) -> str:
        """The ``Cookie`` header this phone sends (its sign-in), for another client."""
        return "; ".join(f"{c.name}={c.value}" for c in self.cookies)

    def get(self, path: str) -> tuple[int, str]:
        try:
            with self.opener.open(self.base + path, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def tokens(self, path: str) -> dict[str, str]:
        """The hidden tokens of the first form on ``path``."""
        status, page = self.get(path)
        assert status == 200, (status, path)
        found: dict[str, str] = {}
        for tag in self.INPUT.findall(page):
            name, value = self.NAME.search(tag), self.VALUE.search(tag)
            if name and value:
                found.setdefault(name.group(1), value.group(1))
        return found

    def post(self, path: str, form: dict[str, str]) -> tuple[int, str]:
        data = urllib.parse.urlencode(form).encode()
        try:
            with self.opener.open(urllib.request.Request(self.base + path, data=data),
                                  timeout=30) as response:
                return response.status, response.headers.get("Location", "")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers.get("Location", "")

    def sign_in(self, email: str, password: str) -> None:
        status, _where = self.post("/signin", {**self.tokens("/signin"), "email": email,
                                               "password": password})
        assert status in (302, 303), status


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


# -- a night of scorekeepers writing at once -------------------------------------------------

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]


def new_session(client: Client, stake: str = "0.25") -> int:
    answer = client.call("POST", "/api/v1/sessions", {
        "name": "Busy night", "players": PLAYERS, "rules": "pagat", "stake": stake})
    assert answer.status == 201, answer
    return int(answer.body["id"])


def a_hand(i: int) -> dict[str, Any]:
    """A hand of many kinds, by number: tonk outs, won and caught drops, stock outs."""
    who = PLAYERS[i % len(PLAYERS)]
    kind = i % 4
    if kind == 0:
        return {"end": {"kind": "tonk_out", "player": who}}
    counts = {p: 5 + (i * 7 + j * 3) % 30 for j, p in enumerate(PLAYERS)}
    if kind == 1:
        counts[who] = 2
        return {"end": {"kind": "drop", "player": who}, "counts": counts}
    if kind == 2:
        counts[who] = 40
        return {"end": {"kind": "drop", "player": who}, "counts": counts}
    return {"end": {"kind": "stock_out"}, "counts": counts}


@dataclass
class Tally:
    """What the scorekeepers saw."""

    recorded: list[int] = field(default_factory=list)  # hand numbers answered 201
    statuses: dict[int, int] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # every 5xx, and any surprise
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, what: str, answer: Answer, allowed: tuple[int, ...]) -> None:
        with self.lock:
            self.statuses[answer.status] = self.statuses.get(answer.status, 0) + 1
            self.latencies.append(answer.seconds)
            if answer.status >= 500 or answer.status not in allowed:
                self.errors.append(f"{what}: {answer.status} {str(answer.body)[:200]}")


def scorekeeper(client: Client, session_id: int, me: int, hands: int, tally: Tally,
                corrections: bool = True, retry_every: int = 5) -> None:
    """Record ``hands`` hands; now and then correct or void one (naming its version), and
    send some records twice with the same Idempotency-Key, as after a lost reply."""
    base = f"/api/v1/sessions/{session_id}"
    for i in range(hands):
        key = uuid.uuid4().hex
        body = a_hand(me * 1000 + i)
        answer = client.call("POST", base + "/hands", body, key=key)
        tally.note("record", answer, (201,))
        if answer.status != 201:
            continue
        number = answer.body["number"]
        if retry_every and i % retry_every == 0:  # the reply was "lost": send it again
            again = client.call("POST", base + "/hands", body, key=key)
            tally.note("record again", again, (201,))
            if again.body != answer.body:
                with tally.lock:
                    tally.errors.append(f"a retry answered {again.body} after {answer.body}")
        with tally.lock:
            tally.recorded.append(number)
        if not corrections or i % 3 != 2:
            continue
        target = max(1, number - 1 - (me % 3))
        seen = client.call("GET", f"{base}/hands/{target}")
        tally.note("read", seen, (200,))
        if seen.status != 200:
            continue
        version = seen.body["version"]
        if i % 2:
            change = client.call("PUT", f"{base}/hands/{target}", {
                **a_hand(me * 1000 + i + 1), "reason": "miscounted", "version": version},
                key=uuid.uuid4().hex)
        else:
            change = client.call("DELETE", f"{base}/hands/{target}", {
                "reason": "misdeal", "version": version}, key=uuid.uuid4().hex)
        # 409: someone changed it since it was read; 422: voiding a hand already void
        tally.note("correct/void", change, (200, 409, 422))


def run_scorekeepers(client: Client, session_id: int | list[int], keepers: int, hands: int,
                     **options: Any) -> tuple[Tally, float]:
    """``keepers`` scorekeepers at once, on one session, or (a list) the k-th on the
    k-th session of the list, round the list."""
    tally = Tally()
    ids = session_id if isinstance(session_id, list) else [session_id]
    threads = [threading.Thread(target=scorekeeper,
                                args=(client, ids[k % len(ids)], k, hands, tally),
                                kwargs=options, daemon=True) for k in range(keepers)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    return tally, time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]



def at_once(count: int, send: Callable[..., Any]) -> list[Any]:
    """``send()`` from ``count`` threads started together: their answers (each thread
    waited for at most 60 s)."""
    answers: list[Any] = []
    threads = [threading.Thread(target=lambda: answers.append(send())) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return answers
