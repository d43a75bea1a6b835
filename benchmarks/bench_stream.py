"""Live tables as phones load them, pushed: N tables, each with five phones and the
scorekeeper's own page following the session by its stream (app/api/stream.py), every one
its own client with its own connections, as a phone's browser has them: the stream, and a
keep-alive connection that fetches the live part (compressed) after each change. The
scorekeeper records a hand through the API every 30 s and opens the settle page every 60 s
(its own connection). Prints, for each N: the connections open at the server, the p50/p99 of
requests (a hand's POST, the settle page, the live part, a stream's opening: open loop, from
each one's scheduled time), the delay from a hand's request sent to its event's arrival on
every following phone (p50/p95/max: the commit is inside it), events missed, 503s (a server
at its limit), and the CPU of the server and of this generator (cores, over the step).

    python benchmarks/bench_stream.py [--tables 250,500,1000] [--seconds 40]
                                      [--database sqlite|postgresql] [--servers 1|2]
                                      [--quick]

``--servers 2`` (PostgreSQL): two ``tonk serve`` on different ports sharing the database;
the hands are recorded on the first, half the phones follow on the second (a hand reaches
them through NOTIFY). Targets (docs/benchmarks.md): 1,000 tables (7,000 phone pages) on
SQLite with requests at p99 <= 250 ms and every event on every phone within 500 ms at p95.
The generator runs on the same two cores as the server: when its own CPU nears a core, it
is the limit, and the line says so.

``--quick`` (the test suite's): SQLite, 5 tables for 4 s, a hand every 1.5 s: shows it
still runs (a phone that misses an event, or a request that fails, fails it); the targets
are not judged.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import pathlib
import random
import resource
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from dataclasses import dataclass, field

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_capacity import EMAIL, PASSWORD, PG_URL, cpu_ms, seed  # noqa: E402

from tests.live import HOST, Browser, a_hand, children, tonk_serve  # noqa: E402

PHONES = 6  # five players' phones and the scorekeeper's page
RECORD_EVERY, SETTLE_EVERY = 30.0, 60.0
TARGET_P99, TARGET_DELAY_P95 = 0.250, 0.500
RAMP = 10.0  # seconds over which the phones open their streams (not counted)
#: Seconds the last hands' events have to arrive once answered, before those not in count as
#: missed (the quick mode, on a machine the suite keeps busy, waits longer: it asks whether
#: every event arrives, not how soon).
GRACE = 1.0
SOURCES = 64  # loopback source addresses the phones connect from (127.0.0.2...)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


@dataclass
class Step:
    tables: int
    requests: dict[str, list[float]] = field(default_factory=dict)
    delays: list[float] = field(default_factory=list)  # from the hand's request sent
    after: list[float] = field(default_factory=list)  # from its answer (< 0: came before it)
    expected: int = 0
    errors: list[str] = field(default_factory=list)
    refused: int = 0
    streams_open: int = 0
    connections: int = 0
    seconds: float = 0.0
    server_cores: float = 0.0
    load_cores: float = 0.0

    @property
    def all(self) -> list[float]:
        return [t for seen in self.requests.values() for t in seen]

    @property
    def missed(self) -> int:
        return max(0, self.expected - len(self.delays))

    @property
    def ok(self) -> bool:
        return (not self.errors and not self.missed and pct(self.all, 0.99) <= TARGET_P99
                and pct(self.delays, 0.95) <= TARGET_DELAY_P95)

    def line(self) -> str:
        each = ", ".join(f"{kind} {pct(seen, 0.99) * 1000:.0f}"
                         for kind, seen in sorted(self.requests.items()) if seen)
        limit = "  (the generator was the limit)" if self.load_cores > 0.9 else ""
        return (f"  {self.tables:5d} tables: {self.connections} connections open "
                f"({self.streams_open} streams), requests p50 {pct(self.all, 0.5) * 1000:.1f} "
                f"ms p99 {pct(self.all, 0.99) * 1000:.1f} ms (p99: {each}); hand to phone "
                f"p50 {pct(self.delays, 0.5) * 1000:.0f} ms p95 "
                f"{pct(self.delays, 0.95) * 1000:.0f} ms max "
                f"{max(self.delays, default=0) * 1000:.0f} ms (after the hand's answer: p50 "
                f"{pct(self.after, 0.5) * 1000:.0f} p95 {pct(self.after, 0.95) * 1000:.0f} "
                f"ms) over {len(self.delays)} arrivals, {self.missed} missed, "
                f"{self.refused} refused (503), "
                f"{len(self.errors)} errors; CPU: server {self.server_cores:.2f} cores, "
                f"generator {self.load_cores:.2f}  {'ok' if self.ok else 'over'}{limit}")


class Connection:
    """One keep-alive HTTP/1.1 connection of one phone (opened again when the server has
    closed it), from one of the loopback source addresses."""

    def __init__(self, port: int, source: str) -> None:
        self.port, self.source = port, source
        self.io: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def ask(self, method: str, path: str, headers: dict[str, str],
                  body: bytes = b"", again: bool = True) -> tuple[int, dict[str, str], bytes]:
        fresh = self.io is None
        if self.io is None:
            self.io = await asyncio.open_connection(HOST, self.port,
                                                    local_addr=(self.source, 0))
        reader, writer = self.io
        head = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{self.port}",
                f"Content-Length: {len(body)}"] + [f"{k}: {v}" for k, v in headers.items()]
        try:
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
            line = await reader.readline()
            if not line:
                raise ConnectionResetError("closed")
            status = int(line.split()[1])
            got = await _headers(reader)
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
        except (OSError, asyncio.IncompleteReadError):
            writer.close()
            self.io = None
            if again and not fresh:  # the server closed an idle one: a phone opens another
                return await self.ask(method, path, headers, body, again=False)
            raise
        if got.get("connection") == "close":
            writer.close()
            self.io = None
        return status, got, content


async def _headers(reader: asyncio.StreamReader) -> dict[str, str]:
    got: dict[str, str] = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        got[name.strip().lower()] = value.strip()
    return got


class Table:
    """A table's shared facts: when each of its hands was sent, by the revision it makes."""

    def __init__(self, session_id: int, share: str) -> None:
        self.session_id, self.share = session_id, share
        self.base: int | None = None  # the revision the phones opened at
        self.sent: dict[int, float] = {}  # revision -> when its hand's request was sent
        self.counted: set[int] = set()  # the revisions whose arrivals are counted
        self.answered: dict[int, float] = {}  # revision -> when its hand was answered
        self.recorded = 0
        self.followers = 0  # its phones (each should have every counted event)
        self.arrivals: list[tuple[int, float]] = []  # (revision, when) of counted events


async def follow(port: int, source: str, table: Table, step: Step, counting: list[bool],
                 stop: asyncio.Event, opened_at: float) -> None:
    """One phone: its stream, and on each event the live part on its other connection."""
    fetcher = Connection(port, source)
    try:
        reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
    except OSError as exc:
        step.errors.append(f"stream: {type(exc).__name__}")
        return
    writer.write(f"GET /api/v1/share/{table.share}/stream HTTP/1.1\r\nHost: {HOST}\r\n"
                 f"Accept: text/event-stream\r\n\r\n".encode())
    try:
        line = await reader.readline()
        status = int(line.split()[1]) if line else 0
        await _headers(reader)
        if status != 200:
            if status == 503:
                step.refused += 1
            else:
                step.errors.append(f"stream: {status}")
            return
        step.streams_open += 1
        first = True
        stopping = asyncio.ensure_future(stop.wait())
        while not stop.is_set():
            reading = asyncio.ensure_future(reader.readuntil(b"\n\n"))
            await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if not reading.done():
                reading.cancel()
                break
            block = reading.result().decode()
            arrived = time.perf_counter()
            tag = next((part[4:] for part in block.split("\n") if part.startswith("id: ")),
                       None)
            if tag is None:
                continue
            revision = int(tag.rsplit(".", 2)[-2])
            if first:
                first = False
                if table.base is None:
                    table.base = revision
                step.requests.setdefault("stream", []).append(arrived - opened_at) \
                    if counting[0] else None
                continue
            if revision in table.counted:
                step.delays.append(arrived - table.sent[revision])
                table.arrivals.append((revision, arrived))
            due = time.perf_counter()
            try:
                got, _h, _b = await fetcher.ask("GET", f"/s/{table.share}/live",
                                                {"Accept-Encoding": "gzip"})
            except (OSError, ValueError, IndexError, asyncio.IncompleteReadError) as exc:
                step.errors.append(f"live part: {type(exc).__name__}")
                continue
            if counting[0]:
                step.requests.setdefault("live part", []).append(time.perf_counter() - due)
            if got != 200:
                step.errors.append(f"live part: {got}")
        stopping.cancel()
    except (OSError, ValueError, IndexError, asyncio.IncompleteReadError) as exc:
        if not stop.is_set():
            step.errors.append(f"stream: {type(exc).__name__}")
    finally:
        writer.close()
        if fetcher.io is not None:
            fetcher.io[1].close()


async def keep(port: int, source: str, token: str, cookie: str, table: Table, step: Step,
               counting: list[bool], until: float, rng: random.Random, n: list[int]) -> None:
    """The scorekeeper: a hand every RECORD_EVERY s, the settle page every SETTLE_EVERY s,
    each at its time (open loop) on its own connection."""
    connection = Connection(port, source)
    at = [time.perf_counter() + RAMP + rng.uniform(0, RECORD_EVERY),
          time.perf_counter() + RAMP + rng.uniform(0, SETTLE_EVERY)]
    while True:
        kind = 0 if at[0] <= at[1] else 1
        due, made = at[kind], None
        if due >= until:
            break
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        if kind == 0:
            if table.base is None:  # no phone of this table has opened yet
                at[0] += RECORD_EVERY
                continue
            table.recorded += 1
            revision = made = table.base + table.recorded
            table.sent[revision] = due
            n[0] += 1
            body = json.dumps(a_hand(n[0])).encode()
            call = ("POST", f"/api/v1/sessions/{table.session_id}/hands", {
                "Authorization": f"Bearer {token}", "Content-Type": "application/json",
                "Idempotency-Key": uuid.uuid4().hex}, body, 201, "hand")
            if counting[0]:
                table.counted.add(revision)
                step.expected += table.followers
        else:
            call = ("GET", f"/sessions/{table.session_id}/settle",
                    {"Cookie": cookie, "Accept-Encoding": "gzip"}, b"", 200, "settle")
        at[kind] += RECORD_EVERY if kind == 0 else SETTLE_EVERY
        method, path, headers, body, expected, name = call
        try:
            status, _got, _content = await connection.ask(method, path, headers, body)
        except (OSError, ValueError, IndexError, asyncio.IncompleteReadError) as exc:
            step.errors.append(f"{name}: {type(exc).__name__}")
            continue
        if counting[0]:
            step.requests.setdefault(name, []).append(time.perf_counter() - due)
        if made is not None:
            table.answered[made] = time.perf_counter()
        if status == 503:
            step.refused += 1
        elif status != expected:
            step.errors.append(f"{name}: {status}")


async def load(ports: list[int], token: str, cookie: str, sessions: list[tuple[int, str]],
               seconds: float, step: Step, rng: random.Random) -> None:
    tables = [Table(sid, share) for sid, share in sessions]
    stop, counting, n = asyncio.Event(), [False], [0]
    started = time.perf_counter()
    until = started + RAMP + seconds
    tasks = []
    phones = [(t, p) for t in range(len(tables)) for p in range(PHONES)]
    rng.shuffle(phones)
    for i, (t, p) in enumerate(phones):
        await asyncio.sleep(max(0.0, started + RAMP * 0.6 * i / len(phones)
                                - time.perf_counter()))
        port = ports[p % len(ports)]
        source = f"127.0.0.{2 + i % SOURCES}"
        tables[t].followers += 1
        tasks.append(asyncio.create_task(follow(port, source, tables[t], step, counting, stop,
                                                time.perf_counter())))
    keepers = [asyncio.create_task(keep(ports[0], f"127.0.0.{2 + t % SOURCES}", token, cookie,
                                        table, step, counting, until, rng, n))
               for t, table in enumerate(tables)]
    await asyncio.sleep(max(0.0, started + RAMP - time.perf_counter()))
    counting[0] = True
    await asyncio.sleep(max(0.0, until - time.perf_counter()))
    step.connections = _connections(ports)
    await asyncio.gather(*keepers)  # the last hands answered,
    grace = time.perf_counter() + GRACE
    while step.missed and time.perf_counter() < grace:  # and their events arrived
        await asyncio.sleep(0.05)
    counting[0] = False
    stop.set()
    await asyncio.gather(*tasks)
    step.after = [arrived - table.answered[revision] for table in tables
                  for revision, arrived in table.arrivals if revision in table.answered]


def _connections(ports: list[int]) -> int:
    """Established TCP connections to the servers' ports (Linux: /proc/net/tcp)."""
    wanted = {f"{port:04X}" for port in ports}
    count = 0
    for line in pathlib.Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1].rsplit(":", 1)[1] in wanted and fields[3] == "01":
            count += 1
    return count


def run(name: str, url: str, sizes: list[int], seconds: float, servers: int,
        quick: bool, workers: int = 2) -> bool:
    token, sessions = seed(url, max(sizes))
    print(f"{name}: {servers} tonk serve --workers {workers}, {PHONES} pages a table following by "
          f"stream, a hand every {RECORD_EVERY:.0f} s, the settle page every "
          f"{SETTLE_EVERY:.0f} s; {seconds:.0f} s a step after {RAMP:.0f} s of opening",
          flush=True)
    rng = random.Random(7)
    failed = False
    with ExitStack() as stack:
        served = [stack.enter_context(tonk_serve(url, workers=workers, timeout=120))
                  for _ in range(servers)]
        browser = Browser(served[0].base)
        browser.sign_in(EMAIL, PASSWORD)
        cookie = browser.cookie()
        ports = [int(s.base.rsplit(":", 1)[1]) for s in served]
        pids = [pid for s in served for pid in (s.process.pid, *children(s.process.pid))]
        for n in sizes:
            step = Step(n)
            before, mine, wall = cpu_ms(pids), time.process_time(), time.perf_counter()
            asyncio.run(load(ports, token, cookie, sessions[:n], seconds, step, rng))
            wall = time.perf_counter() - wall
            step.server_cores = (cpu_ms(pids) - before) / 1000 / wall
            step.load_cores = (time.process_time() - mine) / wall
            print(step.line(), flush=True)
            for error in sorted(set(step.errors))[:5]:
                print(f"    {error} x{step.errors.count(error)}")
            failed |= (bool(step.errors) or bool(step.missed) or not step.delays
                       or (not quick and not step.ok))
            if n != sizes[-1]:
                time.sleep(2)  # the step's connections gone before the next step opens its
        for s in served:
            for line in s.errors()[:5]:
                print(f"    server: {line}")
            failed |= bool(s.errors())
    return not failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="250,500,1000")
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--servers", type=int, choices=(1, 2), default=1)
    parser.add_argument("--workers", type=int, default=2, help="each tonk serve's workers")
    parser.add_argument("--quick", action="store_true",
                        help="SQLite, 5 tables for 4 s: does it still run?")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.tables.split(",")]
    if args.quick:
        global RAMP, RECORD_EVERY, SETTLE_EVERY, GRACE
        sizes, args.seconds, args.database, args.servers = [5], 4, "sqlite", 1
        RAMP, RECORD_EVERY, SETTLE_EVERY, GRACE = 2.0, 1.5, 2.0, 10.0
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # a socket a phone's connection
    ok = True
    with tempfile.TemporaryDirectory() as folder:
        if args.database == "sqlite":
            ok = run("SQLite", f"sqlite:///{folder}/stream.sqlite", sizes, args.seconds,
                     args.servers, args.quick, args.workers)
        else:
            import sqlalchemy as sa

            name = f"tonk_bench_stream_{uuid.uuid4().hex[:8]}"
            admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
            try:
                with admin.connect() as conn:
                    conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
            except sa.exc.OperationalError:
                print("PostgreSQL: skipped, no server at TEST_POSTGRES_URL")
            else:
                try:
                    ok = run("PostgreSQL", PG_URL.rsplit("/", 1)[0] + "/" + name, sizes,
                             args.seconds, args.servers, args.quick, args.workers)
                finally:
                    with admin.connect() as conn:
                        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()
    if args.quick:
        print("quick: not judged")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
