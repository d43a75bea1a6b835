"""Slow phones cannot stall ``tonk serve``: ten sockets that send a header line every 2 s
(as a phone on a dying signal, or an attacker, would) delay a normal request by well under a
second, and the server cuts them off once they have taken ``HEADER_SECONDS`` over their
headers. (gunicorn's sync and threaded workers each wait on one such socket: with two
workers two of them held a normal request 31.8 s.)

Bounded: one ``tonk serve`` on 127.0.0.1 on a SQLite file, about 15 s, stopped by its PID.
"""
from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from app.cli.serving import HEADER_SECONDS
from tests.live import HOST, ROOT, free_port

SLOW = 10
LINE_EVERY = 2.0

pytestmark = pytest.mark.server


def _get(base: str, path: str) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(base + path, timeout=30) as response:
        assert response.status == 200
        response.read()
    return time.perf_counter() - started


def _served(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite'}",
           "SECRET_KEY": "slow"}
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port), "--workers", "1"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    base = f"http://{HOST}:{port}"
    deadline = time.monotonic() + 60
    while True:
        assert process.poll() is None, "tonk serve stopped"
        try:
            _get(base, "/check")
            return process, base
        except OSError:
            assert time.monotonic() < deadline, "tonk serve did not answer"
            time.sleep(0.2)


def _trickle(sock: socket.socket, until: float, closed: list[float]) -> None:
    """Send a request line, then a header line every LINE_EVERY seconds, never the end;
    note when the server closed the connection."""
    started = time.monotonic()
    try:
        sock.sendall(b"GET /check HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        n = 0
        while time.monotonic() < until:
            time.sleep(LINE_EVERY)
            n += 1
            sock.sendall(f"X-Slow-{n}: {'a' * 20}\r\n".encode())
            sock.settimeout(0.01)
            try:
                if sock.recv(1024) == b"":
                    break
            except TimeoutError:
                pass
    except OSError:
        pass
    closed.append(time.monotonic() - started)


def test_ten_slow_phones_delay_a_normal_request_by_under_a_second(tmp_path):
    process, base = _served(tmp_path)
    try:
        for _ in range(3):
            _get(base, "/check")  # warm
        alone = statistics.median(_get(base, "/check") for _ in range(5))
        until = time.monotonic() + HEADER_SECONDS + 4
        closed: list[float] = []
        sockets = [socket.create_connection((HOST, int(base.rsplit(":", 1)[1])))
                   for _ in range(SLOW)]
        threads = [threading.Thread(target=_trickle, args=(s, until, closed), daemon=True)
                   for s in sockets]
        for t in threads:
            t.start()
        time.sleep(LINE_EVERY + 0.5)  # every slow socket has sent a few lines
        during = []
        for _ in range(6):
            during.append(_get(base, "/check"))
            time.sleep(0.5)
        for t in threads:
            t.join(timeout=HEADER_SECONDS + 10)
        for s in sockets:
            s.close()
        delay = max(during) - alone
        print(f"a normal request: {alone * 1000:.0f} ms alone, at most "
              f"{max(during) * 1000:.0f} ms beside {SLOW} slow sockets (delay "
              f"{delay * 1000:.0f} ms); the slow sockets were cut off after "
              f"{min(closed):.1f} to {max(closed):.1f} s")
        assert delay < 1.0
        assert len(closed) == SLOW and max(closed) < HEADER_SECONDS + LINE_EVERY + 1
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
