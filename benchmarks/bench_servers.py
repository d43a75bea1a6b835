"""Which server `tonk serve` runs, chosen by measurement: each candidate serves the app with
two workers on 127.0.0.1, in turn, and is asked what a table's phones ask of it.

    python benchmarks/bench_servers.py [--seconds 3] [--quick]

For each server: HEAD of a page; a stylesheet asked again with its ETag (304, no body); a
3 MB body (413 with the JSON error); ten sockets trickling their headers and two trickling
their bodies while another phone loads ``/check`` ten times (the slowest of those ten);
``kill -9`` of one worker (requests that failed over the next 8 s, whether the server still
answers and a worker took its place); HTTPS from a certificate and key file; requests a
second for ``/`` against Flask's hello world on the same server (wrk, 16 connections);
memory (the resident size of the server's processes, summed, after the load).

The candidates: `tonk serve` itself (granian's ASGI side, the app in a2wsgi's threads behind
app.http.bodies), granian's own WSGI side, waitress, uvicorn over a2wsgi, Hypercorn (its own
WSGI wrapper, and over a2wsgi, which works round its HEAD/304 bug), and gunicorn. Only
granian and a2wsgi are dependencies of the app: the others are measured when installed
(``pip install waitress uvicorn hypercorn gunicorn``) and listed as "not installed" otherwise.

``--quick`` (the test suite's): `tonk serve` alone, short runs: shows the measurement still
runs; nothing is judged.
"""
from __future__ import annotations

import argparse
import http.client
import importlib.util
import os
import pathlib
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from tests.live import HOST, children, free_port, workers  # noqa: E402

WORKERS = 2


ASGI_WRAPPERS = '''
from a2wsgi import WSGIMiddleware
from app import create_app
import hello
app = WSGIMiddleware(create_app())
hello_app = WSGIMiddleware(hello.app)
'''
TONK_SERVE = "tonk serve (granian + a2wsgi)"


@dataclass
class Candidate:
    name: str
    module: str  # what must be importable
    app: list[str]  # the command's arguments (after python -m) serving the app
    hello: list[str]  # ... serving hello world
    tls: list[str] | None  # the arguments that add HTTPS (cert, key formatted in)
    notes: list[str] = field(default_factory=list)


def candidates(port: int) -> list[Candidate]:
    bind = f"{HOST}:{port}"
    granian = ["granian", "--interface", "wsgi", "--workers", str(WORKERS), "--no-ws",
               "--respawn-failed-workers", "--respawn-interval", "0.5", "--host", HOST,
               "--port", str(port), "--log-level", "warning"]
    uvicorn = ["uvicorn", "--workers", str(WORKERS), "--host", HOST, "--port", str(port),
               "--log-level", "warning"]
    hypercorn = ["hypercorn", "--workers", str(WORKERS), "--bind", bind, "--log-level",
                 "warning"]
    return [
        Candidate(TONK_SERVE, "granian", ["app", "serve", "--port", str(port), "--workers",
                                          str(WORKERS)],
                  [a.replace("wsgi", "asginl") for a in granian] + ["hello:whole"],
                  ["--certfile", "{cert}", "--keyfile", "{key}"],
                  ["whole bodies read before a thread is taken (app/http/bodies.py)"]),
        Candidate("granian (WSGI)", "granian", granian + ["--factory", "app:create_app"],
                  granian + ["hello:app"], ["--ssl-certificate", "{cert}", "--ssl-keyfile",
                                           "{key}"]),
        Candidate("waitress", "waitress",
                  ["waitress", "--listen", bind, "--threads", "8", "--call", "app:create_app"],
                  ["waitress", "--listen", bind, "--threads", "8", "hello:app"], None,
                  ["one process: no workers to kill or replace", "no HTTPS"]),
        Candidate("uvicorn + a2wsgi", "uvicorn", uvicorn + ["tonk_asgi:app"],
                  uvicorn + ["tonk_asgi:hello_app"], ["--ssl-certfile", "{cert}",
                                                      "--ssl-keyfile", "{key}"]),
        Candidate("Hypercorn (WSGI)", "hypercorn", hypercorn + ["wsgi:app:create_app()"],
                  hypercorn + ["wsgi:hello:app"], ["--certfile", "{cert}", "--keyfile", "{key}"]),
        Candidate("Hypercorn + a2wsgi", "hypercorn", hypercorn + ["tonk_asgi:app"],
                  hypercorn + ["tonk_asgi:hello_app"], ["--certfile", "{cert}", "--keyfile",
                                                        "{key}"]),
        Candidate("gunicorn (gthread)", "gunicorn",
                  ["gunicorn", "-w", str(WORKERS), "--threads", "4", "-b", bind,
                   "--log-level", "warning", "app:create_app()"],
                  ["gunicorn", "-w", str(WORKERS), "--threads", "4", "-b", bind,
                   "--log-level", "warning", "hello:app"],
                  ["--certfile", "{cert}", "--keyfile", "{key}"]),
    ]


@contextmanager
def serving(args: list[str], port: int, env: dict[str, str], scheme: str = "http"
            ) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-m", *args], cwd=env["WORKDIR"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    context = ssl._create_unverified_context()  # a self-signed certificate of this run
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{args[0]} stopped at start")
            try:
                with urllib.request.urlopen(f"{scheme}://{HOST}:{port}/", timeout=2,
                                            context=context if scheme == "https" else None):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield process
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def ask(port: int, method: str, path: str, body: bytes | None = None,
        headers: dict[str, str] | None = None, timeout: float = 10) -> tuple[int, dict[str, str],
                                                                          bytes]:
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())
    finally:
        connection.close()


def status_or_error(call: object) -> tuple[int, dict[str, str], bytes]:
    try:
        return call()  # type: ignore[operator,no-any-return]
    except (OSError, http.client.HTTPException):
        return 0, {}, b""


def check_head(port: int) -> str:
    status, _headers, _body = status_or_error(lambda: ask(port, "HEAD", "/"))
    return str(status)


def check_304(port: int) -> str:
    _status, _headers, page = ask(port, "GET", "/")
    css = re.search(rb'/static/[^"]*\.css[^"]*', page)
    if css is None:
        return "no stylesheet"
    path = css.group().decode()
    _status, headers, _body = ask(port, "GET", path)
    etag = headers.get("etag", "")
    status, _headers, body = status_or_error(
        lambda: ask(port, "GET", path, headers={"If-None-Match": etag}))
    return f"{status}" + ("" if not body else f" ({len(body)} B body)")


def check_413(port: int) -> str:
    body = b'{"a": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    status, headers, answer = status_or_error(lambda: ask(
        port, "POST", "/api/v1/settle", body=body,
        headers={"Content-Type": "application/json"}))
    json_error = b'"error"' in answer
    return f"{status}" + (" JSON" if json_error else " bare") + (
        "" if "x-content-type-options" in headers else ", no security headers")


def check_slow(port: int, seconds: float) -> str:
    """The slowest of ten loads of /check while 10 sockets trickle headers and 2 bodies."""
    stop = threading.Event()
    sockets: list[socket.socket] = []

    def trickle(first: bytes, drip: bytes) -> None:
        try:
            s = socket.create_connection((HOST, port), timeout=5)
        except OSError:
            return
        sockets.append(s)
        try:
            s.sendall(first)
            while not stop.wait(0.3):
                s.sendall(drip)
        except OSError:
            pass

    threads = [threading.Thread(target=trickle, args=(
        b"GET / HTTP/1.1\r\nHost: x\r\n", b"X"), daemon=True) for _ in range(10)]
    threads += [threading.Thread(target=trickle, args=(
        b"POST /api/v1/settle HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100000\r\n\r\n", b" "), daemon=True) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(min(1.0, seconds / 3))
    slowest, failed = 0.0, 0
    deadline = time.monotonic() + seconds
    for _ in range(10):
        started = time.perf_counter()
        status, _h, _b = status_or_error(lambda: ask(port, "GET", "/check", timeout=seconds))
        failed += status != 200
        slowest = max(slowest, time.perf_counter() - started)
        if time.monotonic() > deadline:
            break
    stop.set()
    for s in sockets:
        s.close()
    for t in threads:
        t.join(timeout=2)
    return f"{slowest * 1000:.0f} ms" + (f", {failed} failed" if failed else "")


def tree(pid: int) -> list[int]:
    found = [pid]
    for child in children(pid):
        found += tree(child)
    return found


def rss_mb(pid: int) -> float:
    total = 0
    for p in tree(pid):
        try:
            for line in pathlib.Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def check_kill(process: subprocess.Popen[bytes], port: int, seconds: float) -> str:
    running = workers(process.pid)
    if len(running) < 2:
        return "n/a (one process)"
    os.kill(running[0], signal.SIGKILL)
    failed = answered = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, _h, _b = status_or_error(lambda: ask(port, "GET", "/", timeout=2))
        if status == 200:
            answered += 1
        else:
            failed += 1
        time.sleep(0.05)
    alive = process.poll() is None
    replaced = alive and len(set(workers(process.pid)) - {running[0]}) >= len(running)
    status, _h, _b = status_or_error(lambda: ask(port, "GET", "/", timeout=5))
    if not alive or status != 200:
        return f"server down ({failed} refused)"
    return f"{'replaced' if replaced else 'NOT replaced'}, {failed} of {failed + answered} lost"


def wrk_rate(url: str, seconds: int) -> float:
    done = subprocess.run(["wrk", "-t2", "-c16", f"-d{seconds}s", url], capture_output=True,
                          text=True, timeout=seconds + 30, check=False)
    found = re.search(r"Requests/sec:\s+([\d.]+)", done.stdout)
    return float(found.group(1)) if found else 0.0


def certificate(folder: pathlib.Path) -> tuple[str, str] | None:
    if shutil.which("openssl") is None:
        return None
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)


def pick(name: str, port: int) -> Candidate:
    """The candidate called ``name``, built to listen on ``port``."""
    return next(c for c in candidates(port) if c.name == name)


def check_tls(name: str, env: dict[str, str], pem: tuple[str, str] | None) -> str:
    port = free_port()
    candidate = pick(name, port)
    if candidate.tls is None:
        return "no"
    if pem is None:
        return "untested (no openssl)"
    extra = [a.format(cert=pem[0], key=pem[1]) for a in candidate.tls]
    try:
        with serving(candidate.app + extra, port, env, scheme="https"):
            return "yes"
    except (OSError, RuntimeError):
        return "failed"


def measure(name: str, env: dict[str, str], seconds: int,
            pem: tuple[str, str] | None) -> dict[str, str]:
    row: dict[str, str] = {"server": name}
    port = free_port()
    with serving(pick(name, port).hello, port, env):
        hello = wrk_rate(f"http://{HOST}:{port}/", seconds) if shutil.which("wrk") else 0.0
    port = free_port()
    with serving(pick(name, port).app, port, env) as process:
        row["HEAD /"] = check_head(port)
        row["304"] = check_304(port)
        row["3 MB body"] = check_413(port)
        row["12 slow sockets"] = check_slow(port, seconds * 2)
        rate = wrk_rate(f"http://{HOST}:{port}/", seconds) if shutil.which("wrk") else 0.0
        row["req/s (hello)"] = (f"{rate:.0f} ({hello:.0f})" if hello else "no wrk")
        row["memory"] = f"{rss_mb(process.pid):.0f} MB"
        row["killed worker"] = check_kill(process, port, seconds * 3)
    row["HTTPS"] = check_tls(name, env, pem)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="`tonk serve` alone, short runs: does it still run?")
    args = parser.parse_args(argv)
    quick, seconds = args.quick, 1 if args.quick else args.seconds
    work = pathlib.Path(tempfile.mkdtemp(prefix="tonk-servers-"))
    try:
        (work / "tonk_asgi.py").write_text(ASGI_WRAPPERS)
        database = f"sqlite:///{work / 'servers.sqlite'}"
        env = {**os.environ, "DATABASE_URL": database, "SECRET_KEY": "servers",
               "PYTHONPATH": os.pathsep.join([str(work), str(HERE), str(ROOT)]),
               "WORKDIR": str(work)}
        subprocess.run([sys.executable, "-m", "app", "db", "upgrade"], env=env, cwd=ROOT,
                       check=True, capture_output=True)
        pem = certificate(work)
        rows = []
        for candidate in candidates(0):
            if quick and candidate.name != TONK_SERVE:
                continue
            if importlib.util.find_spec(candidate.module) is None or (
                    "a2wsgi" in candidate.name and importlib.util.find_spec("a2wsgi") is None):
                rows.append({"server": candidate.name, "HEAD /": "not installed"})
                continue
            try:
                row = measure(candidate.name, env, seconds, pem)
            except (OSError, RuntimeError) as exc:
                row = {"server": candidate.name, "HEAD /": f"failed: {exc}"}
            row["notes"] = "; ".join(candidate.notes)
            rows.append(row)
            print(row, flush=True)
        columns = ["server", "HEAD /", "304", "3 MB body", "12 slow sockets", "killed worker",
                   "HTTPS", "req/s (hello)", "memory", "notes"]
        print()
        print(f"{WORKERS} workers each, 127.0.0.1, {os.cpu_count()} cores; "
              f"wrk -c16 -d{seconds}s of / (signed out)")
        print("| " + " | ".join(columns) + " |")
        print("|" + "---|" * len(columns))
        for row in rows:
            print("| " + " | ".join(row.get(c, "") for c in columns) + " |")
        if quick:
            print("quick: not judged")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
