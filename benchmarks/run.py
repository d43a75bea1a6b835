"""Runs every benchmark and prints its figures; exits non-zero if a target is missed.

    python benchmarks/run.py

The first run makes the import document and the 1,000,000-hand league (several minutes);
later runs reuse them from ``instance/bench/``.
"""
from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import bench_import  # noqa: E402
import bench_league  # noqa: E402
import bench_pages  # noqa: E402
import bench_scorekeepers  # noqa: E402
import bench_settle  # noqa: E402
import bench_table  # noqa: E402
import bench_transfers  # noqa: E402

if __name__ == "__main__":
    results = [bench_settle.main(), bench_transfers.main(), bench_table.main(),
               bench_scorekeepers.main([]), bench_pages.main([]), bench_import.main([]),
               bench_league.main([])]
    sys.exit(1 if any(results) else 0)
