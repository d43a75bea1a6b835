"""Import: a 100,000-hand league from its JSON export into an empty SQLite database and an
empty PostgreSQL one, every version of every hand settled again (target: at least 25,000
hands a second; 6,300 on SQLite at first), with the peak memory (RSS) of the writing
process and of the checking processes.

The document is the demo league (app.services.exchange.demo) written as an export; it is made once
and kept in ``instance/bench/``. The figure is the whole of ``tonk import``: reading the file,
checking every hand through the core, writing every row, committing, rating the league.
It is measured as ``tonk import`` runs by default (hands checked in other processes while
this one writes; the best of three, as a shared machine is noisy), and once with everything
in one process.

    python benchmarks/bench_import.py [--hands N] [--seed S] [--quick] [--no-postgres]

``--quick`` (the test suite's): a 300-hand document, imported once each way: shows the
benchmark still runs (a failed import still fails it); the target is printed but not judged.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import sys
import tempfile
import time
import uuid

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from app import create_app  # noqa: E402
from app.db.unit import unit_of_work  # noqa: E402
from app.extensions import db  # noqa: E402
from app.services import exchange  # noqa: E402
from app.services.accounts import create_user  # noqa: E402
from app.services.exchange import demo  # noqa: E402

HANDS = 100_000
SEED = 11
TARGET = 25_000  # hands a second
PG_URL = os.environ.get("TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
CACHE = HERE.parent / "instance" / "bench"


def document(hands: int, seed: int) -> pathlib.Path:
    """The demo league as an export file (made once, then kept)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"import-s{seed}-h{hands}.json"
    if path.exists():
        return path
    started = time.perf_counter()
    header, sessions = demo.demo_documents(seed, hands)
    partial = path.with_suffix(".part")
    with open(partial, "w", encoding="utf-8") as out:
        out.write(f'{{"format": "{exchange.FORMAT}", "version": {exchange.VERSION}, '
                  f'"league": {json.dumps(header["league"])},\n"sessions": [')
        sep = "\n"
        for session in sessions:
            out.write(sep + json.dumps(session))
            sep = ",\n"
        out.write("\n]}\n")
    partial.rename(path)
    print(f"(made {path.name}: {path.stat().st_size / 1e6:.0f} MB in "
          f"{time.perf_counter() - started:.0f} s)")
    return path


def cpu_seconds() -> tuple[float, float]:
    """CPU time (user + system) of this process, and of its checking processes that ended."""
    mine = resource.getrusage(resource.RUSAGE_SELF)
    theirs = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime, theirs.ru_utime + theirs.ru_stime


#: Each timed import's CPU time and the load, as printed beside its figure.
CPU: list[str] = []


def timed_import(path: pathlib.Path, hands: int, jobs: int, postgres: bool = False) -> float:
    """Hands a second for one import of ``path`` into an empty database (SQLite, or a
    PostgreSQL database of its own, dropped after); its CPU time is kept in :data:`CPU`."""
    import sqlalchemy as sa

    with tempfile.TemporaryDirectory() as folder:
        url, admin, name = f"sqlite:///{folder}/bench.sqlite", None, ""
        if postgres:
            name = f"tonk_bench_import_{uuid.uuid4().hex[:8]}"
            admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
            url = PG_URL.rsplit("/", 1)[0] + "/" + name
        try:
            app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "bench"})
            with app.app_context():
                db.create_all()
                with unit_of_work():
                    owner = create_user("keeper@example.com", "Keeper", "correct horse")
                started, cpu = time.perf_counter(), cpu_seconds()
                with unit_of_work(begin=False):  # as `tonk import`
                    report = exchange.import_path(str(path), owner, jobs=jobs)
                seconds = time.perf_counter() - started
                mine, theirs = (b - a for a, b in zip(cpu, cpu_seconds(), strict=True))
                CPU.append(f"{seconds:.1f} s: CPU {mine:.1f} s writing"
                           + (f", {theirs:.1f} s checking" if jobs else "")
                           + f", load {os.getloadavg()[0]:.1f}")
                if not report.ok or report.hands != hands:
                    raise SystemExit(f"the import failed: {report.problems[:3]}")
                db.session.remove()
                db.engine.dispose()
        finally:
            if admin is not None:
                with admin.connect() as conn:
                    conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                admin.dispose()
    return hands / seconds


def postgres_reachable() -> bool:
    import sqlalchemy as sa

    try:
        engine = sa.create_engine(PG_URL, connect_args={"connect_timeout": 3})
        with engine.connect():
            pass
        engine.dispose()
        return True
    except sa.exc.OperationalError:
        return False


def peak_rss() -> str:
    """The peak resident memory of this process and of its largest checking process."""
    mine = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return f"peak RSS {mine:,.0f} MB (writing process), {children:,.0f} MB (checking process)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=HANDS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--trials", type=int, default=3,
                        help="imports timed; the best counts (a shared machine is noisy)")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="300 hands, one import each way: does it still run?")
    args = parser.parse_args(argv)
    if args.quick:
        args.hands, args.trials = 300, 1
    path = document(args.hands, args.seed)
    jobs = exchange.default_jobs()
    ok = True
    verdict = "(quick: not judged)" if args.quick else None
    for label, postgres in (("SQLite", False), ("PostgreSQL", True)):
        if postgres and (args.no_postgres or not postgres_reachable()):
            print(f"import into PostgreSQL at {PG_URL}: skipped (not reachable or "
                  "--no-postgres)")
            continue
        del CPU[:]
        rates = [timed_import(path, args.hands, jobs, postgres) for _ in range(args.trials)]
        rate = max(rates)
        met = rate >= TARGET
        ok &= met or args.quick
        print(f"import {args.hands:,} hands ({path.stat().st_size / 1e6:.0f} MB of JSON) into "
              f"an empty {label} database: {rate:,.0f} hands/s with {jobs} checking "
              f"process(es), best of {args.trials} (all: {', '.join(f'{r:,.0f}' for r in rates)})"
              f" (target >= {TARGET:,}) {verdict or ('OK' if met else 'MISSED')}\n  ("
              f"{'; '.join(CPU)})", flush=True)
    alone = timed_import(path, args.hands, 0)
    print(f"the same into SQLite in one process: {alone:,.0f} hands/s ({CPU[-1]}); "
          f"{peak_rss()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
