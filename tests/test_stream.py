"""The live view's stream on a real ``tonk serve`` (:mod:`app.api.stream`): a hand recorded
through the API reaches an open stream within a second, whichever worker (or, on
PostgreSQL, whichever server) recorded it; a stream killed mid-night and opened again with
``Last-Event-ID`` misses nothing and is told nothing twice; Ctrl+C stops a server whose
streams are open at once; past its limit a worker answers
503 with Retry-After, and a server that holds no streams 204 (the page polls)."""
from __future__ import annotations

import os
import signal
import socket
import threading
import time
from contextlib import ExitStack

import pytest

from tests.live import HOST, Client, prepare, tonk_serve

pytestmark = [pytest.mark.server, pytest.mark.xdist_group("serve")]

PLAYERS = ["Ann", "Bob", "Cy"]
#: How long the idle-timeout test's server gives a connection to send its headers.
HEADER_SECONDS = 3
HAND = {"end": {"kind": "tonk_out", "player": "Ann"}}


class Follower:
    """A phone following a stream (``path``) on a connection of its own: the events it
    was sent, each with when it arrived (time.monotonic)."""

    def __init__(self, base: str, path: str, last_event_id: str | None = None) -> None:
        host, port = base.rsplit("/", 1)[1].split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        extra = f"Last-Event-ID: {last_event_id}\r\n" if last_event_id else ""
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n"
                          f"Accept: text/event-stream\r\n{extra}\r\n".encode())
        self.head = b""
        self.events: list[tuple[float, str]] = []  # (arrived, id)
        self.said: list[str] = []  # every field and comment line, in order
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self) -> None:
        buffer = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                buffer += chunk
                if not self.head and b"\r\n\r\n" in buffer:
                    self.head, buffer = buffer.split(b"\r\n\r\n", 1)
                # chunked transfer: the chunk sizes are lines of their own, not fields
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    for line in block.decode().splitlines():
                        line = line.strip("\r")
                        if not line or all(c in "0123456789abcdefABCDEF" for c in line):
                            continue
                        self.said.append(line)
                        if line.startswith("id: "):
                            self.events.append((time.monotonic(), line[4:]))
        except OSError:
            pass
        finally:
            self.closed.set()

    @property
    def status(self) -> int:
        return int(self.head.split(b" ", 2)[1]) if self.head else 0

    def answered(self, timeout: float = 5.0) -> None:
        """Wait for the answer's head (its connection is kept alive after a 404)."""
        deadline = time.monotonic() + timeout
        while not self.head and not self.closed.is_set() and time.monotonic() < deadline:
            time.sleep(0.005)

    def wait(self, count: int, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.events) < count and time.monotonic() < deadline:
            time.sleep(0.005)

    def close(self) -> None:
        """The phone goes: its connection ends (shut down first: a socket closed while its
        reading thread waits in recv stays open in the kernel until that recv returns, so
        the server would go on streaming to a phone that is gone)."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # (the server ended it already)
        self.sock.close()
        self.thread.join(timeout=5)


def _stream(share: str) -> str:
    return f"/api/v1/share/{share}/stream"


def _session(api: Client) -> tuple[int, str]:
    made = api.call("POST", "/api/v1/sessions", {"name": "Friday", "players": PLAYERS,
                                                  "stake": "0.25"})
    assert made.status == 201, made
    return made.body["id"], made.body["share_url"].rsplit("/", 1)[1]


def _opened(follower: Follower, events: int = 1) -> None:
    follower.wait(events)
    assert follower.status == 200 and len(follower.events) == events, follower.said


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_a_hand_reaches_every_open_stream_within_a_second(database, tmp_path, request):
    url = (f"sqlite:///{tmp_path / 'stream.sqlite'}" if database == "sqlite"
           else request.getfixturevalue("pg_url"))
    token = prepare(url)
    with tonk_serve(url, workers=2, log=tmp_path / "serve.log") as served:
        api = Client(served.base, token)
        session_id, share = _session(api)
        # ten phones: both workers hold some (a connection each, taken in turn)
        phones = [Follower(served.base, _stream(share)) for _ in range(10)]
        for phone in phones:
            _opened(phone)  # the state they opened at, at once
        assert "retry: 2000" in phones[0].said
        for n in range(1, 4):
            assert api.call("POST", f"/api/v1/sessions/{session_id}/hands", HAND).status == 201
            committed = time.monotonic()  # (at the latest: the answer follows the commit)
            for phone in phones:
                phone.wait(n + 1, timeout=2)
                assert len(phone.events) == n + 1, phone.said
                assert phone.events[-1][0] - committed < 1.0
                assert phone.events[-1][1].split(".")[:2] == [str(session_id), str(n)]
        for phone in phones:
            phone.close()
        assert served.errors() == []


def test_a_stream_killed_mid_night_resumes_and_misses_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'stream.sqlite'}"
    token = prepare(url)
    with tonk_serve(url, workers=2, log=tmp_path / "serve.log") as served:
        api = Client(served.base, token)
        session_id, share = _session(api)
        hands = f"/api/v1/sessions/{session_id}/hands"
        phone = Follower(served.base, _stream(share))
        _opened(phone)
        api.call("POST", hands, HAND)
        _opened(phone, 2)
        last = phone.events[-1][1]
        phone.close()  # the signal goes
        for _ in range(2):  # two hands while it is away
            assert api.call("POST", hands, HAND).status == 201
        back = Follower(served.base, _stream(share), last_event_id=last)
        _opened(back)  # at once: the newest state, once (not each hand it missed)
        assert back.events[0][1].split(".")[1] == "3"
        time.sleep(0.5)
        assert len(back.events) == 1
        back.close()
        same = Follower(served.base, _stream(share), last_event_id=back.events[0][1])
        time.sleep(0.5)  # nothing missed: nothing told again
        assert same.status == 200 and same.events == [], same.said
        assert api.call("POST", hands, HAND).status == 201
        _opened(same)
        assert same.events[0][1].split(".")[1] == "4"
        same.close()
        gone = Follower(served.base, _stream("no-such-link-at-all"))
        gone.answered()
        assert gone.status == 404
        gone.close()
        assert served.errors() == []


def test_a_stream_outlives_the_idle_timeout_of_connections(tmp_path):
    """granian cuts a connection idle for HEADER_SECONDS (here ``TONK_HEADER_SECONDS``,
    shorter, not to wait ten seconds for it), not one an answer streams on: a table where
    nothing happens for longer still hears its next hand."""
    url = f"sqlite:///{tmp_path / 'stream.sqlite'}"
    token = prepare(url)
    with tonk_serve(url, workers=1, log=tmp_path / "serve.log",
                    env={"TONK_HEADER_SECONDS": str(HEADER_SECONDS)}) as served:
        api = Client(served.base, token)
        session_id, share = _session(api)
        phone = Follower(served.base, _stream(share))
        _opened(phone)
        host, port = served.base.rsplit("/", 1)[1].split(":")
        idle = socket.create_connection((host, int(port)), timeout=5)  # sends nothing
        assert not phone.closed.wait(HEADER_SECONDS + 2)
        assert idle.recv(1) == b"", "the idle connection beside it was not cut"
        idle.close()
        assert api.call("POST", f"/api/v1/sessions/{session_id}/hands", HAND).status == 201
        _opened(phone, 2)
        phone.close()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_server_told_to_stop_ends_its_streams_and_stops_at_once(stop, tmp_path):
    """Ctrl+C (or a service manager's SIGTERM) with phones following: each stream ends
    with the end of its answer, and the server stops within seconds, not after the
    STOP_SECONDS (10 s) granian waits before killing a worker whose connection is open."""
    url = f"sqlite:///{tmp_path / 'stream.sqlite'}"
    token = prepare(url)
    with tonk_serve(url, workers=2, log=tmp_path / "serve.log", grace=30) as served:
        _session_id, share = _session(Client(served.base, token))
        phones = [Follower(served.base, _stream(share)) for _ in range(4)]  # (both workers)
        for phone in phones:
            _opened(phone)
        asked = time.monotonic()
        os.killpg(served.process.pid, stop)  # as a terminal's Ctrl+C reaches every process
        served.process.wait(timeout=15)
        took = time.monotonic() - asked
        for phone in phones:
            assert phone.closed.wait(1), "a stream was left open"
            phone.close()
        assert took < 3, f"the server took {took:.1f} s to stop"
        assert served.process.returncode == 0
        assert served.errors() == []


def test_a_server_told_to_stop_while_answering_clients_that_went_stops_at_once(tmp_path):
    """Clients that go before their answer (a phone that gives up, a load tool's end), then
    the stop at once: the app's threads still answering them find the worker's loop stopped
    and give up, so the worker ends (a2wsgi's thread waits for that loop forever, and the
    worker with it until granian kills it, app.cli.serving.STOP_SECONDS later)."""
    url = f"sqlite:///{tmp_path / 'stream.sqlite'}"
    prepare(url)
    with tonk_serve(url, workers=2, log=tmp_path / "serve.log", grace=30) as served:
        port = int(served.base.rsplit(":", 1)[1])
        until = time.monotonic() + 1.0

        def leave() -> None:  # asks for the home page and goes before the answer
            while time.monotonic() < until:
                with socket.create_connection((HOST, port), timeout=5) as sock:
                    sock.sendall(f"GET / HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
        clients = [threading.Thread(target=leave) for _ in range(16)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        asked = time.monotonic()
        os.killpg(served.process.pid, signal.SIGTERM)
        served.process.wait(timeout=15)
        took = time.monotonic() - asked
        assert took < 3, f"the server took {took:.1f} s to stop"
        assert served.process.returncode == 0


def test_a_tournament_board_follows_its_event_by_stream(tmp_path):
    """The TV board's stream: its state is its poll's ETag before the language, and a
    change to the event (a player checked in) reaches it within a second."""
    url = f"sqlite:///{tmp_path / 'stream.sqlite'}"
    token = prepare(url)
    with tonk_serve(url, workers=2, log=tmp_path / "serve.log") as served:
        api = Client(served.base, token)
        event = api.call("POST", "/api/v1/events", {
            "name": "Open", "rules": "pagat", "currency": "USD", "table_size": 4,
            "rounds": 1, "hands_per_round": 2, "entry_fee": "0", "prizes": ["1"]})
        assert event.status == 201, event
        board = event.body["board"]
        polled = api.call("GET", board + "/state", headers={"Accept-Language": "de"})
        etag = polled.headers["ETag"].strip('"')
        assert etag.endswith(".de")
        tv = Follower(served.base, f"{board}/stream?seen={etag.rsplit('.', 1)[0]}")
        time.sleep(0.5)
        assert tv.status == 200 and tv.events == [], tv.said  # it has this state: nothing
        added = api.call("POST", f"/api/v1/events/{event.body['id']}/players", {"name": "Ann"})
        assert added.status == 200, added
        committed = time.monotonic()
        tv.wait(1, timeout=2)
        assert len(tv.events) == 1 and tv.events[0][0] - committed < 1.0, tv.said
        after = api.call("GET", board + "/state", headers={"Accept-Language": "de"})
        assert after.headers["ETag"].strip('"') == tv.events[0][1] + ".de"
        tv.close()
        assert served.errors() == []



@pytest.mark.postgres
def test_a_hand_on_one_server_reaches_a_phone_on_another(pg_url, tmp_path):
    token = prepare(pg_url)
    with ExitStack() as stack:
        one = stack.enter_context(tonk_serve(pg_url, workers=1, log=tmp_path / "one.log"))
        two = stack.enter_context(tonk_serve(pg_url, workers=1, log=tmp_path / "two.log"))
        api = Client(one.base, token)
        session_id, share = _session(api)
        phone = Follower(two.base, _stream(share))
        _opened(phone)
        # (where NOTIFY is heard, the revisions are read once a second only: three hands
        # each within half a second are NOTIFY's)
        for n in range(1, 4):
            assert api.call("POST", f"/api/v1/sessions/{session_id}/hands", HAND).status == 201
            committed = time.monotonic()
            phone.wait(n + 1, timeout=2)
            assert len(phone.events) == n + 1 and phone.events[-1][0] - committed < 0.5
        phone.close()
        assert one.errors() == [] and two.errors() == []

