"""Reads during writes, the full run of tests/test_snapshot_reads.py: two `tonk serve` servers
(two workers each) on one database, 4 writers changing a side-bet session (hands,
corrections, voids, payments, undos) and 6 readers of the share API, the share page and its
live part, the scorekeeper's live part and the ledger API, for 30 s. Prints the writes and
reads by status; the reads must be 0 x 5xx and 0 x 4xx, and ``tonk check`` clean after.

    python benchmarks/bench_snapshot_reads.py [--seconds 30] [--sqlite] [--quick]

``--quick`` (the test suite's): 1 s on SQLite, to show the benchmark still runs (a bad read
still fails it; the suite's tests/test_snapshot_reads.py covers PostgreSQL).

PostgreSQL: TEST_POSTGRES_URL (default the local server's ``test`` database); a database of
the run's own is made and dropped.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.live import prepare, server  # noqa: E402
from tests.readers import run_night  # noqa: E402

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


def run(url: str, seconds: float) -> bool:
    token = prepare(url)
    with server(url, workers=2, timeout=120) as one, \
            server(url, workers=2, timeout=120) as two:
        night, _session = run_night([one, two], token, seconds)
    found = _problems(url)
    print(f"{url.split('://')[0]}, {seconds:.0f} s: {night.figures}; tonk check: "
          f"{'clean' if not found else '; '.join(found)}")
    for line in night.bad[:20]:
        print("  ", line)
    return not night.bad and not found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--sqlite", action="store_true", help="on SQLite instead")
    parser.add_argument("--quick", action="store_true",
                        help="1 s on SQLite: does it still run? (quick: not judged for speed)")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds, args.sqlite = 1.0, True
        print("reads during writes (quick: not judged for speed; a bad read still fails it)")
    if args.sqlite:
        with tempfile.TemporaryDirectory() as folder:
            return 0 if run(f"sqlite:///{folder}/bench.sqlite", args.seconds) else 1
    import sqlalchemy as sa

    name = f"tonk_bench_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        return 0 if run(PG_URL.rsplit("/", 1)[0] + "/" + name, args.seconds) else 1
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


if __name__ == "__main__":
    sys.exit(main())
