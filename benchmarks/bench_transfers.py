"""Benchmark of the fewest-transfers settle-up (app.core.transfers.fewest_transfers).

Run from the project root: ``python benchmarks/bench_transfers.py``. Each line times
``fewest_transfers`` on seeded random tables of generic cents (no zero balances, no exact
opposite pairs, so the exact search runs at full size) and states its target; the script exits
with 1 when a target is missed. ``main()`` returns that exit code for a runner. ``--quick``
(the test suite's): one table of each kind, to show the benchmark still runs; the targets are
printed but not judged.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.core.transfers import EXACT_LIMIT, fewest_transfers  # noqa: E402

Table = dict[str, Decimal]


def generic_table(people: int, seed: int) -> Table:
    """``people`` random balances in cents summing to zero, none zero, no two opposite."""
    rng = random.Random(seed)
    while True:
        cents = [rng.choice((-1, 1)) * rng.randint(1, 100_000) for _ in range(people - 1)]
        cents.append(-sum(cents))
        if all(cents) and not any(-c in cents for c in cents):
            break
    return {f"player {i:02}": Decimal(f"{c}E-2") for i, c in enumerate(cents)}


def grouped_table(people: int, seed: int) -> Table:
    """Hardest exact case: as many zero-sum groups as possible (threes, the last up to five)."""
    rng = random.Random(seed)
    sizes = [3] * (people // 3 - 1) + [3 + people % 3]
    while True:
        cents: list[int] = []
        for size in sizes:
            group = [rng.randint(1, 100_000) for _ in range(size - 1)]
            cents += [*group, -sum(group)]
        if not any(-c in cents for c in cents):
            break
    rng.shuffle(cents)
    return {f"player {i:02}": Decimal(f"{c}E-2") for i, c in enumerate(cents)}


def timings(make: Callable[[int, int], Table], people: int, instances: int) -> list[float]:
    tables = [make(people, 1_000 + seed) for seed in range(instances)]
    fewest_transfers(tables[0])  # warm up
    seconds = []
    for table in tables:
        start = time.perf_counter()
        fewest_transfers(table)
        seconds.append(time.perf_counter() - start)
    return seconds


def report(label: str, seconds: list[float], target: float, in_ms: bool,
           quick: bool = False) -> bool:
    median, worst = statistics.median(seconds), max(seconds)
    if in_ms:
        figures = f"median {median * 1e3:.3f} ms, worst {worst * 1e3:.3f} ms"
        goal = f"target < {target * 1e3:g} ms"
    else:
        figures = f"median {median:.6f} s, worst {worst:.6f} s"
        goal = f"target < {target:g} s"
    met = worst < target
    verdict = "  (quick: not judged)" if quick else "" if met else "  MISSED"
    print(f"fewest transfers, {label}: {figures} ({goal}){verdict}")
    return met


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="one table of each kind: does it still run? (targets not judged)")
    args = parser.parse_args(argv)
    cases = [
        ("8 people", generic_table, 8, 200, 0.005, True),
        ("15 people", generic_table, 15, 30, 0.5, False),
        (f"{EXACT_LIMIT} people (EXACT_LIMIT)", generic_table, EXACT_LIMIT, 10, 0.5, False),
        (
            f"{EXACT_LIMIT} people in {EXACT_LIMIT // 3} zero-sum groups",
            grouped_table,
            EXACT_LIMIT,
            10,
            0.5,
            False,
        ),
        ("60 people (heuristic)", generic_table, 60, 10, 0.5, False),
    ]
    all_met = True
    for label, make, people, instances, target, in_ms in cases:
        instances = 1 if args.quick else instances
        all_met &= report(label, timings(make, people, instances), target, in_ms, args.quick)
    return 0 if all_met or args.quick else 1


if __name__ == "__main__":
    raise SystemExit(main())
