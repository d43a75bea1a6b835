"""Eight scorekeepers at once on one session, through a real server: ``tonk serve`` with four
workers on 127.0.0.1, on SQLite and on PostgreSQL. Each records hands over the JSON API
(every record with an Idempotency-Key, every fifth sent twice as after a lost reply) and
now and then corrects or voids a recent hand naming its version. Prints hands recorded per
second, all requests per second, latency (p50, p99) and errors, which must be 0 (no 5xx,
no answer other than the expected ones), the CPU time a request took in the app's
processes, the database server's and this one (the scorekeepers), and that ``tonk check``
finds nothing. Targets (one
commit per write request): p50 at most 40 ms on PostgreSQL, p99 at most 300 ms on SQLite
(before: p50 130 ms, p99 1.1 s).

Then the same scorekeepers recording, each at a table (a session) of its own, as at a bar's
eight tables: printed beside the one session's figures, not judged. The gap between the two
is what the one session's lock costs: every change of a session's money waits for it.

    python benchmarks/bench_scorekeepers.py [--hands 40] [--keepers 8] [--quick]

``--quick`` (the test suite's): two scorekeepers, three hands each, one worker, with
corrections only (then two tables, on the same server and database): shows the benchmark
still runs (errors still count; the speed does not). PostgreSQL is skipped, saying so,
when it cannot be reached.

PostgreSQL: TEST_POSTGRES_URL (default the local server's ``test`` database); a database of
the run's own is made and dropped.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.live import (  # noqa: E402
    Client,
    new_session,
    percentile,
    prepare,
    run_scorekeepers,
    server,
)

#: (database label, percentile, at most ms): the latency targets.
TARGETS = (("SQLite", .99, 300.0), ("PostgreSQL", .5, 40.0))
PG_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _problems(url: str) -> list[str]:
    from app import create_app
    from app.extensions import db
    from app.services.upkeep.integrity import problems

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench"})
    with app.app_context():
        found = problems()
        db.session.remove()
        db.engine.dispose()
    return found


def _cpu_ms(pids: list[int]) -> dict[int, float]:
    """CPU time each of ``pids`` has used, all its threads (the server's run the app in
    several), in ms (Linux: /proc/<pid>/stat, in clock ticks); a process that cannot be read
    is left out."""
    tick = 1000 / os.sysconf("SC_CLK_TCK")
    used = {}
    for pid in pids:
        try:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            used[pid] = (int(fields[11]) + int(fields[12])) * tick
        except (OSError, ValueError, IndexError):
            pass
    return used


def _server_pids(base: str) -> list[int]:
    """The processes of the server at ``base`` (``tonk serve`` and its workers): those whose
    command line names its port."""
    address = ("--port\0" + base.rsplit(":", 1)[1] + "\0").encode()
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and address in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def _database_pids(url: str) -> list[int]:
    """The PostgreSQL server processes of the app's connections to ``url`` (none for
    SQLite, which works inside the app's processes)."""
    if not url.startswith("postgresql"):
        return []
    import sqlalchemy as sa

    aside = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with aside.connect() as conn:
            return list(conn.scalars(sa.text(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND backend_type = 'client backend'")))
    finally:
        aside.dispose()


def _cpu_moved(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(ms - before.get(pid, 0.0) for pid, ms in after.items())


def run(label: str, url: str, keepers: int, hands: int, steps: list[tuple[bool, int]],
        workers: int = 4, quick: bool = False) -> bool:
    """Runs on one server and database, one a step (``corrections``, ``tables``):
    ``keepers`` scorekeepers on one session (``tables`` 1: the target's case), or spread over
    ``tables`` sessions (printed beside it, not judged)."""
    token = prepare(url)
    ok = True
    with server(url, workers=workers, timeout=120) as base:  # a busy machine starts slowly
        client = Client(base, token)
        for corrections, tables in steps:
            ok &= _step(label, url, base, client, keepers, hands, corrections, quick, tables)
    return ok


def _step(label: str, url: str, base: str, client: Client, keepers: int, hands: int,
          corrections: bool, quick: bool, tables: int) -> bool:
    """One step of :func:`run` on its server at ``base``: its figures printed; whether it
    had no error and ``tonk check`` finds nothing (and, unless ``quick``, met its target)."""
    session_id: int | list[int] = new_session(client) if tables == 1 else \
        [new_session(client) for _ in range(tables)]
    app_pids = _server_pids(base)
    app_before, db_before = _cpu_ms(app_pids), _cpu_ms(_database_pids(url))
    mine = time.process_time()
    tally, seconds = run_scorekeepers(client, session_id, keepers, hands,
                                      corrections=corrections)
    mine = (time.process_time() - mine) * 1000
    app_ms = _cpu_moved(app_before, _cpu_ms(app_pids))
    db_ms = _cpu_moved(db_before, _cpu_ms(_database_pids(url)))
    problems = _problems(url)
    requests = sum(tally.statuses.values())
    kind = "records, corrections, voids" if corrections else "records only"
    if tables > 1:
        kind += f", {tables} tables"
    p50, p99 = (percentile(tally.latencies, q) * 1000 for q in (.5, .99))
    print(f"  {label:<10} {kind:<28} {len(tally.recorded) / seconds:7.1f} hands/s  "
          f"{requests / seconds:7.1f} requests/s  p50 {p50:6.1f} ms"
          f"  p99 {p99:6.1f} ms  errors {len(tally.errors)}"
          f"  statuses {dict(sorted(tally.statuses.items()))}  tonk check: "
          f"{'clean' if not problems else problems[:3]}")
    each = max(requests, 1)
    print(f"    CPU a request: app {app_ms / each:.1f} ms, database server "
          f"{db_ms / each:.1f} ms, scorekeepers {mine / each:.1f} ms; load "
          f"{os.getloadavg()[0]:.1f}")
    for error in tally.errors[:5]:
        print(f"    {error}")
    met = True
    for database, q, most in TARGETS if tables == 1 else ():
        if database == label:
            figure = percentile(tally.latencies, q) * 1000
            met = figure <= most
            verdict = "(quick: not judged)" if quick else "OK" if met else "MISSED"
            print(f"    target: p{q * 100:.0f} <= {most:.0f} ms on {label}: {figure:.1f} ms "
                  f"{verdict}")
    return not tally.errors and not problems and (met or quick)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=40, help="hands per scorekeeper")
    parser.add_argument("--keepers", type=int, default=8)
    parser.add_argument("--quick", action="store_true",
                        help="2 scorekeepers, 3 hands each: does it still run?")
    args = parser.parse_args(argv)
    if args.quick:
        args.keepers, args.hands = 2, 3
    workers = 1 if args.quick else 4
    kinds = (True,) if args.quick else (False, True)
    # Each measured step on a server and a database of its own; quick: one server a database
    # for its two steps (starting a server cost more than the steps).
    steps = [(corrections, 1) for corrections in kinds] + [(False, args.keepers)]
    runs = [steps] if args.quick else [[step] for step in steps]
    print(f"{args.keepers} scorekeepers at once, {args.hands} hands each, tonk serve "
          f"--workers {workers} on 127.0.0.1, all on one session (the targets'), then each "
          "at a table of its own (records only; not judged: what the one session's lock "
          "costs):")
    ok = True
    with tempfile.TemporaryDirectory() as folder:
        for i, part in enumerate(runs):
            ok &= run("SQLite", f"sqlite:///{folder}/bench-{i}.sqlite", args.keepers,
                      args.hands, part, workers, args.quick)
    import sqlalchemy as sa

    name = f"tonk_bench_keepers_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT",
                             connect_args={"connect_timeout": 3})
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    except sa.exc.OperationalError as exc:
        print(f"  PostgreSQL at {PG_URL} is not reachable ({str(exc).strip()[:80]}): skipped")
        print("errors must be 0 and the targets met:", "yes" if ok else "MISSED")
        return 0 if ok else 1
    try:
        url = PG_URL.rsplit("/", 1)[0] + "/" + name
        for part in runs:
            ok &= run("PostgreSQL", url, args.keepers, args.hands, part, workers, args.quick)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
    print("errors must be 0 and the targets met:", "yes" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
