"""Runs every benchmark and prints its figures; exits non-zero if a target is missed.

    .venv/bin/python benchmarks/run.py          # the league pages on a 50,000-hand league
    .venv/bin/python benchmarks/run.py --full   # … on the 1,000,000-hand league
    .venv/bin/python benchmarks/run.py --quick  # small sizes: does each still run? (seconds)

The first run makes the import document (100,000 hands, about a minute) and the league
(50,000 hands: a minute or two; with ``--full`` 1,000,000 hands: half an hour or more, and
about 2 GB on disk); later runs reuse them from ``instance/bench/``. ``--quick`` is what the
test suite runs (tests/test_benchmarks.py, one benchmark at a time): every benchmark at small
sizes, failing when one cannot run, never because the machine is slow.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import bench_capacity  # noqa: E402
import bench_import  # noqa: E402
import bench_league  # noqa: E402
import bench_pages  # noqa: E402
import bench_phone  # noqa: E402
import bench_scorekeepers  # noqa: E402
import bench_servers  # noqa: E402
import bench_settle  # noqa: E402
import bench_snapshot_reads  # noqa: E402
import bench_stream  # noqa: E402
import bench_table  # noqa: E402
import bench_transfers  # noqa: E402

SMALL_LEAGUE = 50_000

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true",
                        help=f"time the league pages on {bench_league.HANDS:,} hands, not "
                             f"{SMALL_LEAGUE:,} (the first run makes it: half an hour or more)")
    parser.add_argument("--quick", action="store_true",
                        help="every benchmark at small sizes: does each still run? (targets "
                             "not judged)")
    args = parser.parse_args()
    if args.quick:
        quick = ["--quick"]
        results = [bench_settle.main(quick), bench_transfers.main(quick),
                   bench_table.main(quick), bench_scorekeepers.main(quick),
                   bench_pages.main(quick), bench_import.main(quick), bench_league.main(quick),
                   bench_snapshot_reads.main(quick), bench_servers.main(quick),
                   bench_capacity.main(quick), bench_stream.main(quick),
                   bench_phone.main(quick)]
        sys.exit(1 if any(results) else 0)
    hands = bench_league.HANDS if args.full else SMALL_LEAGUE
    print(f"Benchmarks: settle, transfers, a table, scorekeepers, pages, import, a league of "
          f"{hands:,} hands, reads during writes, the servers compared, capacity, the core on "
          f"the phone, live tables pushed. Documents and leagues not yet in instance/bench/ "
          f"are made first"
          f"{' (the 1,000,000-hand league: half an hour or more)' if args.full else ''}.",
          flush=True)
    results = [bench_settle.main([]), bench_transfers.main([]), bench_table.main([]),
               bench_scorekeepers.main([]), bench_pages.main([]), bench_import.main([]),
               bench_league.main(["--hands", str(hands)]), bench_snapshot_reads.main([]),
               bench_servers.main([]), bench_capacity.main([]), bench_stream.main([]),
               bench_phone.main([])]
    sys.exit(1 if any(results) else 0)
