"""Pages under load: the share page, the session page and the JSON a phone polls, of a
2,000-hand session, against Flask's hello world on the same server, in one run.

Both apps are served in turn the way ``tonk serve`` serves (granian, two workers, the app in
a2wsgi's threads behind app.http.bodies; hello world as ``hello:whole``) on 127.0.0.1 and
loaded by
wrk with 16 connections; hello world and the app take turns in short runs (six of 2 s
each a page), and each page's mean throughput is given as a share of hello world's over
the runs interleaved with it: on a busy machine both meet the same load. Targets: the share page,
the session page and the ledger API at least 25% of hello world's requests per second, the
unchanged live poll (304, one indexed row) at least 70% (42% at first); the settle API (a
hand POSTed, its body read and checked, settled, nothing stored) at least 25%.

    python benchmarks/bench_pages.py [--seconds 2] [--rounds 6] [--database sqlite|postgresql]
                                     [--only LABEL] [--quick]

``--quick`` (the test suite's): a 30-hand session, one 1-second run of each page and one of
hello world, no warm-up: shows the benchmark still runs (an answer that is not 2xx/3xx still
fails it); the targets are printed but not judged.

Needs wrk (``apt-get install wrk``); without it, says so and skips (exit 0).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from tests.live import HOST, Browser, free_port  # noqa: E402

HANDS = 2000
TARGET = 0.25
POLL_TARGET = 0.70
CONNECTIONS, WORKERS = 16, 2
PG_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@contextmanager
def served(command: list[str], cwd: pathlib.Path, env: dict[str, str], probe: str
           ) -> Iterator[str]:
    """``python -m command…`` (given its port by ``{port}``) on a free loopback port; yields
    its base URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", *(a.format(port=port) for a in command)],
        cwd=cwd, env={**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)]),
                      **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    base = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + 120  # a busy machine starts a server slowly
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{command} stopped")
            try:
                with urllib.request.urlopen(base + probe, timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


HELLO = ["granian", "--interface", "asginl", "--workers", str(WORKERS), "--no-ws",
         "--log-level", "warning", "--port", "{port}", "hello:whole"]
TONK = ["app", "serve", "--workers", str(WORKERS), "--port", "{port}"]


def wrk(url: str, seconds: int, headers: dict[str, str] | None = None,
        body: str | None = None) -> tuple[float, float]:
    """Requests per second and the median latency (ms) of ``url`` under wrk (a POST of
    ``body``, JSON, when one is given)."""
    command = ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{seconds}s", "--latency"]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    if body is not None:
        command += ["-H", "Content-Type: application/json", "-s", _post_script(body)]
    for _attempt in range(3):  # wrk gives up at once on a refused connection: try again
        done = subprocess.run(command + [url], capture_output=True, text=True,
                              timeout=seconds + 30, check=False)
        if done.returncode == 0:
            break
        time.sleep(1)
    else:
        raise RuntimeError(f"wrk {url}: {done.stderr or done.stdout}")
    out = done.stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)\b", out)
    assert p50 is not None, out
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p50.group(2)]
    answered = re.search(r"(\d+) requests in", out)
    if answered is None or int(answered.group(1)) == 0:
        raise RuntimeError(f"{url}: no request was answered in {seconds} s\n{out}")
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise RuntimeError(f"{url}: {errors.group(1)} answers that were not 2xx/3xx\n{out}")
    return rate, float(p50.group(1)) * scale


def _post_script(body: str) -> str:
    """A wrk script (in the temporary folder) that POSTs ``body``."""
    script = pathlib.Path(tempfile.gettempdir()) / f"bench_pages_{os.getpid()}.lua"
    script.write_text(f'wrk.method = "POST"\nwrk.body = {json.dumps(body)}\n')
    return str(script)


#: The dispute checker's hand (POST /api/v1/settle): its body is read and checked, the hand
#: settled, nothing stored.
SETTLE_HAND = {"rules": "pagat", "stake": "0.25", "multiplier": 1,
               "players": ["Ann", "Bob", "Cy"], "dealer": "Cy",
               "end": {"kind": "drop", "player": "Bob"},
               "counts": {"Ann": 12, "Bob": 9, "Cy": 9}}


def seed(url: str, rng: random.Random, hands: int = HANDS) -> tuple[int, str, str]:
    """An account, its API token and a 2,000-hand session (a few corrected and voided):
    (session id, share token, API token)."""
    from bench_table import PLAYERS, hand
    from flask_migrate import stamp

    from app import create_app
    from app.db.unit import unit_of_work
    from app.extensions import db
    from app.services.accounts import create_token, create_user
    from app.services.sessions import ledger

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench",
                      "QUIET_MIGRATIONS": True})
    with app.app_context():
        db.drop_all()
        db.create_all()
        stamp()  # made whole: `tonk serve` finds nothing to migrate
        with unit_of_work():
            user = create_user("keeper@example.com", "Keeper", "correct horse battery staple")
            api_token = create_token(user, "bench")
            gs = ledger.create_session(user, name="Long night", players=PLAYERS, stake="0.25")
        for _ in range(hands):
            with unit_of_work():
                ledger.record_hand(gs, user, hand(rng))
        for number in (hands - 3, hands - 10):
            with unit_of_work():
                ledger.correct_hand(gs, user, number, hand(rng), "miscounted")
        with unit_of_work():
            ledger.void_hand(gs, user, hands - 5, "misdeal")
        found = (gs.id, gs.share_token, api_token)
        db.session.remove()
        db.engine.dispose()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=2, help="per run")
    parser.add_argument("--rounds", type=int, default=6,
                        help="runs of each page, each followed by one of hello world")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--only", default="",
                        help="measure only the pages whose label holds this (e.g. settle)")
    parser.add_argument("--quick", action="store_true",
                        help="a small session, one short run each: does it still run?")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.rounds = 1, 1
    if shutil.which("wrk") is None:
        print("pages under load: skipped, wrk is not installed (apt-get install wrk)")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        pg_name = None
        if args.database == "sqlite":
            url = f"sqlite:///{folder}/pages.sqlite"
        else:
            import sqlalchemy as sa

            pg_name = f"tonk_bench_pages_{uuid.uuid4().hex[:8]}"
            admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(sa.text(f'CREATE DATABASE "{pg_name}"'))
            url = PG_URL.rsplit("/", 1)[0] + "/" + pg_name
        try:
            return measure(url, args.seconds, args.database, args.rounds, args.quick,
                           args.only)
        finally:
            if pg_name is not None:
                with admin.connect() as conn:
                    conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{pg_name}" WITH (FORCE)'))
                admin.dispose()


def measure(url: str, seconds: int, database: str, rounds: int, quick: bool = False,
            only: str = "") -> int:
    started = time.perf_counter()
    hands = 30 if quick else HANDS
    session_id, share, api_token = seed(url, random.Random(7), hands)
    print(f"pages under load: tonk serve --workers {WORKERS}, wrk {CONNECTIONS} connections, "
          f"{rounds} runs of {seconds} s each, {database}, a session of {hands:,} hands "
          f"(seeded in {time.perf_counter() - started:.0f} s)")
    env = {"DATABASE_URL": url, "SECRET_KEY": "bench"}
    with served(HELLO, HERE, {}, "/") as hello_base, \
            served(TONK, ROOT, env, "/api/v1/openapi.json") as base:
        phone = Browser(base)
        phone.sign_in("keeper@example.com", "correct horse battery staple")
        phone.get("/")  # shows (and so clears) what signing in flashed, as a phone would
        jar = next(h.cookiejar for h in phone.opener.handlers  # type: ignore[attr-defined]
                   if hasattr(h, "cookiejar"))
        cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
        with urllib.request.urlopen(f"{base}/api/v1/share/{share}") as answer:
            etag = answer.headers["ETag"]
        bearer = {"Authorization": f"Bearer {api_token}"}
        cases = [
            ("share page /s/<token>", f"/s/{share}", {}, TARGET),
            ("session page (signed in)", f"/sessions/{session_id}", {"Cookie": cookie}, TARGET),
            ("ledger API", f"/api/v1/sessions/{session_id}/ledger", bearer, TARGET),
            ("share API, changed (200)", f"/api/v1/share/{share}", {}, None),
            ("share API, unchanged (304)", f"/api/v1/share/{share}", {"If-None-Match": etag},
             POLL_TARGET),
            ("settle API (POST a hand)", "/api/v1/settle", {}, TARGET),
        ]
        cases = [case for case in cases if only in case[0]]
        # Hello world and the app take turns in short runs, so that both meet the same
        # machine (on a shared one, other work comes and goes within a minute): each page
        # is compared with the hello-world runs interleaved with its own.
        if not quick:
            wrk(hello_base + "/", 1)
        hello_all: list[float] = []
        rows: list[tuple[str, float, float, float | None, float]] = []
        for label, path, headers, target in cases:
            body = json.dumps(SETTLE_HAND) if path.endswith("/settle") else None
            if not quick:  # warm: the workers' caches and the database's
                wrk(base + path, 1, headers, body)
            else:  # a page's first answer, each worker's (templates made): not a second
                for _ in range(4):  # of wrk, but none of its runs meets a cold worker
                    try:
                        sent = {**headers, "Content-Type": "application/json"} if body else headers
                        with urllib.request.urlopen(urllib.request.Request(
                                base + path, headers=sent, data=body.encode() if body else None),
                                timeout=30):
                            pass
                    except urllib.error.HTTPError:  # (the unchanged poll's 304)
                        pass
            mine, theirs, p50s = [], [], []
            for _round in range(rounds):
                rate, p50 = wrk(base + path, seconds, headers, body)
                mine.append(rate)
                p50s.append(p50)
                if not quick or not hello_all:  # quick: hello world once, for all
                    theirs.append(wrk(hello_base + "/", seconds)[0])
                    hello_all.append(theirs[-1])
            theirs = theirs or hello_all
            rate = statistics.mean(mine)
            rows.append((label, rate, statistics.median(p50s), target,
                         rate / statistics.mean(theirs)))
    ok = True
    print(f"  {'Flask hello world':<28} {statistics.mean(hello_all):8.0f} requests/s  "
          f"(runs from {min(hello_all):.0f} to {max(hello_all):.0f})")
    for label, rate, p50, target, share_of in rows:
        met = target is None or share_of >= target
        ok &= met or quick
        verdict = "" if target is None else f"(target >= {target:.0%}) " + (
            "(quick: not judged)" if quick else "OK" if met else "MISSED")
        print(f"  {label:<28} {rate:8.0f} requests/s  p50 {p50:6.2f} ms  "
              f"{share_of:6.1%} of hello world  {verdict}")
    print(f"targets: the share page, the session page, the ledger and settle APIs at >= "
          f"{TARGET:.0%} "
          f"of hello world, the unchanged poll at >= {POLL_TARGET:.0%}: "
          f"{'(quick: not judged)' if quick else 'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
