"""How many tables one `tonk serve` carries, as a club's host would ask it: N tables at once,
each with a hand recorded every 30 s, five phones polling the share view every 1.5 s and the
settle page opened now and then (every 60 s), on SQLite and on PostgreSQL. Prints, for each
N tried, the requests a second, p50 and p99 latency, errors and the server's CPU a request,
then the largest N whose p99 stays under 250 ms. Target: at least 500 tables on two cores.

    python benchmarks/bench_capacity.py [--seconds 20] [--database sqlite|postgresql|both]
                                        [--quick]

The load is open-loop: every request is sent at its time whether or not earlier ones were
answered, and its latency counts from that time (a server that falls behind shows it). The
phones of a table poll with the ETag of their last answer, as the share view does (an
unchanged poll is a 304). The load generator (asyncio, 64 keep-alive connections) runs on
the same machine and takes part of its CPU: the figure is what this machine does, load
included. N doubles from 100 until the p99 passes 250 ms (or a request fails), then is
bisected to within a tenth.

``--quick`` (the test suite's): SQLite, 5 and then 10 tables for 2 s each: shows the
benchmark still runs (a request that fails still fails it); the target is not judged.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import random
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from tests.live import HOST, PLAYERS, Browser, a_hand, children, prepare, tonk_serve  # noqa: E402

PHONES, POLL_EVERY, RECORD_EVERY, SETTLE_EVERY = 5, 1.5, 30.0, 60.0
TARGET_P99, TARGET_TABLES = 0.250, 500
CONNECTIONS = 64
WARM_UP = 3.0  # seconds of each step not counted
EMAIL, PASSWORD = "host@example.com", "correct horse battery staple"  # prepare()'s
PG_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def seed(url: str, tables: int) -> tuple[str, list[tuple[int, str]]]:
    """An account, its API token (tests/live.py's ``prepare``) and ``tables`` sessions,
    each with one hand: (token, [(session id, share token)])."""
    from app import create_app
    from app.db.unit import unit_of_work
    from app.extensions import db
    from app.services.accounts import user_by_email
    from app.services.sessions import ledger

    token = prepare(url, EMAIL)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench"})
    with app.app_context():
        user = user_by_email(EMAIL)
        assert user is not None
        made = []
        for n in range(tables):
            with unit_of_work():
                gs = ledger.create_session(user, name=f"Table {n + 1}", players=PLAYERS,
                                           stake="0.25")
            with unit_of_work():
                ledger.record_hand(gs, user, a_hand(n))
            made.append((gs.id, gs.share_token))
        db.session.remove()
        db.engine.dispose()
    return token, made


@dataclass
class Step:
    tables: int
    latencies: list[float] = field(default_factory=list)
    kinds: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    seconds: float = 0.0
    cpu_ms: float = 0.0
    load_cpu_ms: float = 0.0

    def p(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

    @property
    def ok(self) -> bool:
        return not self.errors and self.p(0.99) <= TARGET_P99

    def line(self) -> str:
        rate = len(self.latencies) / self.seconds if self.seconds else 0.0
        each = ", ".join(f"{kind} {sorted(seen)[int(0.99 * len(seen))] * 1000:.0f}"
                         for kind, seen in sorted(self.kinds.items()) if seen)
        return (f"  {self.tables:5d} tables: {rate:7.0f} req/s, p50 {self.p(0.5) * 1000:6.1f} ms, "
                f"p99 {self.p(0.99) * 1000:7.1f} ms ({each}), {len(self.errors)} errors, "
                f"CPU a request: server {self.cpu_ms:.2f} ms, load generator "
                f"{self.load_cpu_ms:.2f} ms  {'ok' if self.ok else 'over'}")


class Connections:
    """A pool of keep-alive HTTP/1.1 connections to the server (a small client of its
    own: the standard library has no asyncio HTTP client)."""

    def __init__(self, port: int, size: int) -> None:
        self.port = port
        self.free: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter] | None] = (
            asyncio.Queue())
        for _ in range(size):
            self.free.put_nowait(None)  # opened when first used

    async def ask(self, method: str, path: str, headers: dict[str, str],
                  body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
        connection = await self.free.get()
        try:
            if connection is None:
                connection = await asyncio.open_connection(HOST, self.port)
            reader, writer = connection
            head = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}",
                    f"Content-Length: {len(body)}"] + [f"{k}: {v}" for k, v in headers.items()]
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
            status = int((await reader.readline()).split()[1])
            got: dict[str, str] = {}
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                got[name.strip().lower()] = value.strip()
            if "content-length" in got:
                content = await reader.readexactly(int(got["content-length"]))
            elif got.get("transfer-encoding") == "chunked":
                parts = []
                while (size := int((await reader.readline()).strip(), 16)) > 0:
                    parts.append(await reader.readexactly(size))
                    await reader.readline()
                await reader.readline()
                content = b"".join(parts)
            else:
                content = b""
            if got.get("connection") == "close":
                writer.close()
                connection = None
            return status, got, content
        except BaseException:
            if connection is not None:
                connection[1].close()
            connection = None
            raise
        finally:
            self.free.put_nowait(connection)


async def load(port: int, token: str, cookie: str, tables: list[tuple[int, str]],
               seconds: float, step: Step, rng: random.Random) -> None:
    """Every request of ``tables`` tables over WARM_UP and then ``seconds``, each sent at
    its time; those of the warm-up are not counted (every phone's first poll has no ETag
    yet, and the connections are being opened)."""
    seconds += WARM_UP
    pool = Connections(port, CONNECTIONS)
    events: list[tuple[float, str, int, int]] = []
    for t in range(len(tables)):
        for phone in range(PHONES):
            at = rng.uniform(0, POLL_EVERY)
            while at < seconds:
                events.append((at, "poll", t, phone))
                at += POLL_EVERY
        for kind, every in (("record", RECORD_EVERY), ("settle", SETTLE_EVERY)):
            at = rng.uniform(0, every)
            while at < seconds:
                events.append((at, kind, t, 0))
                at += every
    events.sort()
    etags: dict[tuple[int, int], str] = {}
    numbers = iter(range(10**9))

    async def send(due: float, kind: str, t: int, phone: int) -> None:
        session_id, share = tables[t]
        call: tuple[str, str, dict[str, str], bytes, tuple[int, ...]]
        if kind == "poll":
            headers = {"If-None-Match": etags[(t, phone)]} if (t, phone) in etags else {}
            call = ("GET", f"/api/v1/share/{share}", headers, b"", (200, 304))
        elif kind == "record":
            body = json.dumps(a_hand(next(numbers))).encode()
            call = ("POST", f"/api/v1/sessions/{session_id}/hands", {
                "Authorization": f"Bearer {token}", "Content-Type": "application/json",
                "Idempotency-Key": uuid.uuid4().hex}, body, (201,))
        else:
            call = ("GET", f"/sessions/{session_id}/settle", {"Cookie": cookie}, b"", (200,))
        method, path, headers, body, expected = call
        try:
            status, got, _content = await pool.ask(method, path, headers, body)
        except (OSError, ValueError, IndexError, asyncio.IncompleteReadError) as exc:
            step.errors.append(f"{kind}: {type(exc).__name__}")
            return
        took = time.perf_counter() - due
        if due - started >= WARM_UP:
            step.latencies.append(took)
            step.kinds.setdefault(kind, []).append(took)
        step.statuses[status] = step.statuses.get(status, 0) + 1
        if status not in expected:
            step.errors.append(f"{kind}: {status}")
        if kind == "poll" and "etag" in got:
            etags[(t, phone)] = got["etag"]

    started = time.perf_counter()
    tasks = []
    for at, kind, t, phone in events:
        due = started + at
        wait = due - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        tasks.append(asyncio.create_task(send(due, kind, t, phone)))
    await asyncio.gather(*tasks)
    step.seconds = time.perf_counter() - started - WARM_UP


def cpu_ms(pids: list[int]) -> float:
    """CPU time ``pids`` have used, all their threads (the app runs in several), in ms
    (Linux: /proc/<pid>/stat, in clock ticks)."""
    tick, total = 1000 / os.sysconf("SC_CLK_TCK"), 0.0
    for pid in pids:
        try:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) * tick
        except (OSError, ValueError, IndexError):
            pass
    return total


def run(name: str, url: str, seconds: float, quick: bool) -> bool:
    sizes = [5, 10] if quick else None
    most = 10 if quick else 2000
    token, tables = seed(url, most)
    print(f"{name}: tonk serve --workers 2, {PHONES} phones a table polling every "
          f"{POLL_EVERY} s, a hand every {RECORD_EVERY:.0f} s, the settle page every "
          f"{SETTLE_EVERY:.0f} s; {seconds:.0f} s a step", flush=True)
    rng = random.Random(7)
    failed = False
    with tonk_serve(url, workers=2, timeout=120) as served:
        browser = Browser(served.base)
        browser.sign_in(EMAIL, PASSWORD)
        cookie = browser.cookie()
        port = int(served.base.rsplit(":", 1)[1])

        def step(n: int) -> Step:
            result = Step(n)
            pids = [served.process.pid, *children(served.process.pid)]
            before, mine = cpu_ms(pids), time.process_time()
            asyncio.run(load(port, token, cookie, tables[:n], seconds, result, rng))
            answered = max(1, sum(result.statuses.values()))
            result.cpu_ms = (cpu_ms(pids) - before) / answered
            result.load_cpu_ms = (time.process_time() - mine) * 1000 / answered
            print(result.line(), flush=True)
            for error in sorted(set(result.errors))[:5]:
                print(f"    {error} x{result.errors.count(error)}")
            return result

        if sizes:
            for n in sizes:
                failed |= bool(step(n).errors)
            return not failed
        good, bad = 0, None
        n = 100
        while n <= most:
            if step(n).ok:
                good, n = n, n * 2
            else:
                bad = n
                break
        if bad is None:
            bad = most + 1
        while bad - good > max(10, good // 10):
            middle = (good + bad) // 2
            if step(middle).ok:
                good = middle
            else:
                bad = middle
        verdict = "met" if good >= TARGET_TABLES else "MISSED"
        print(f"{name}: {good} tables with p99 under {TARGET_P99 * 1000:.0f} ms "
              f"(target {TARGET_TABLES}: {verdict})", flush=True)
        return good >= TARGET_TABLES and not served.errors()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--database", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--quick", action="store_true",
                        help="SQLite, 5 and 10 tables for 2 s: does it still run?")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.database = 2, "sqlite"
        global WARM_UP
        WARM_UP = 0.5
    ok = True
    with tempfile.TemporaryDirectory() as folder:
        if args.database in ("sqlite", "both"):
            ok &= run("SQLite", f"sqlite:///{folder}/capacity.sqlite", args.seconds, args.quick)
        if args.database in ("postgresql", "both"):
            import sqlalchemy as sa

            name = f"tonk_bench_capacity_{uuid.uuid4().hex[:8]}"
            admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
            try:
                with admin.connect() as conn:
                    conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
            except sa.exc.OperationalError:
                print("PostgreSQL: skipped, no server at TEST_POSTGRES_URL")
            else:
                try:
                    ok &= run("PostgreSQL", PG_URL.rsplit("/", 1)[0] + "/" + name,
                              args.seconds, args.quick)
                finally:
                    with admin.connect() as conn:
                        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    if args.quick:
        print("quick: not judged")
        return 0 if ok else 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
