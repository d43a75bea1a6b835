"""Settling speed: a realistic mix of hands at tables of several house rules.

Rules are resolved once per table (as a session does), hands are validated once, then
settled. Prints hands a second for settling alone (target: 150,000 on one core; 56,000
at first), for validating + settling from JSON data (target: 70,000; 17,500 at first),
and for building explanations, for reference. Each rate is of the process's CPU time (what
the engine costs, judged against the target) and of the clock, with the load average: on a
machine others share, the clock also counts their turns.

    python benchmarks/bench_settle.py [--quick]

``--quick`` (the test suite's): a few thousand hands, once, to show the benchmark still runs;
the target is printed but not judged.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from app.core import parse_hand, resolve_rules, settle  # noqa: E402
from app.core.hand import PlayedHand  # noqa: E402

TARGET = 150_000
JSON_TARGET = 70_000
PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
TABLES = ["pagat", "pagat", {"preset": "pagat", "catch": "alt3"}, "texas", "chicago",
          "washington", "rushville", "push_ups"]
# How hands end at a real table, roughly: drops most often, deal wins rarely.
MIX = ["drop"] * 35 + ["tonk_out"] * 20 + ["run_out"] * 25 + ["stock_out"] * 10 + \
    ["deal"] * 5 + ["dead"] * 5


def make_hand(rng: random.Random, rules_spec: object) -> dict[str, Any]:
    rules = resolve_rules(rules_spec)
    kind = rng.choice(MIX)
    counts = {p: rng.randint(0, 40) for p in PLAYERS}
    end: dict[str, Any] = {"kind": kind}
    if kind in ("tonk_out", "run_out", "drop"):
        end["player"] = rng.choice(PLAYERS)
    if kind in ("tonk_out", "run_out"):
        counts[end["player"]] = 0
    if kind == "deal":
        counts = {p: rng.randint(15, 45) for p in PLAYERS}
        win = rules.deal_wins[0] if rules.deal_wins else None
        if win is None:
            end = {"kind": "dead"}
        elif win.five_face_cards:
            counts[PLAYERS[1]] = 50
            end["five_face_cards"] = [PLAYERS[1]]
        else:
            top = win.totals[-1] if win.totals else win.at_most
            assert top is not None  # a deal win names its totals or its most
            counts[rng.choice(PLAYERS)] = top
    stake = rng.choice(["0.25", "1", "5"]) if rules.scoring != "points" else "1"
    return {"rules": rules, "stake": stake,
            "multiplier": 2 if rng.random() < 0.05 else 1, "players": PLAYERS,
            "dealer": rng.choice(PLAYERS), "end": end, "counts": counts}


def rate(work: Callable[[Any], None], items: Sequence[Any], repeat: int = 5
         ) -> tuple[float, float]:
    """Best of ``repeat`` runs, in items a second: of CPU time, and of the clock."""
    cpu = wall = float("inf")
    for _ in range(repeat):
        start, used = time.perf_counter(), time.process_time()
        work(items)
        cpu = min(cpu, time.process_time() - used)
        wall = min(wall, time.perf_counter() - start)
    return len(items) / max(cpu, 1e-9), len(items) / max(wall, 1e-9)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="a few hands only: does it still run? (target not judged)")
    args = parser.parse_args(argv)
    size, part, repeat = (2_000, 1_000, 1) if args.quick else (40_000, 10_000, 5)
    rng = random.Random(2026)
    data = [make_hand(rng, TABLES[i % len(TABLES)]) for i in range(size)]
    hands = [parse_hand(d) for d in data]

    def settle_all(hs: list[PlayedHand]) -> None:
        for h in hs:
            settle(h)

    def parse_and_settle(ds: list[dict[str, Any]]) -> None:
        for d in ds:
            settle(parse_hand(d))

    def explain_all(hs: list[PlayedHand]) -> None:
        for h in hs:
            settle(h).explanation  # noqa: B018

    settled, settled_wall = rate(settle_all, hands, repeat)
    parsed, parsed_wall = rate(parse_and_settle, data[:part], repeat=min(3, repeat))
    explained, explained_wall = rate(explain_all, hands[:part], repeat=min(3, repeat))
    ok = settled >= TARGET and parsed >= JSON_TARGET

    def verdict(met: bool) -> str:
        return "(quick: not judged)" if args.quick else "OK" if met else "MISSED"

    def clock(wall: float) -> str:
        return f"(by the clock {wall:,.0f}, load {os.getloadavg()[0]:.1f})"

    print(f"settle, realistic mix of {len(hands):,} hands at {len(TABLES)} tables: "
          f"{settled:,.0f} hands/s of CPU time {clock(settled_wall)} (target >= {TARGET:,}) "
          f"{verdict(settled >= TARGET)}")
    print(f"validate + settle from JSON data: {parsed:,.0f} hands/s of CPU time "
          f"{clock(parsed_wall)} (target >= {JSON_TARGET:,}) {verdict(parsed >= JSON_TARGET)}")
    print(f"settle + build the explanation: {explained:,.0f} hands/s of CPU time "
          f"{clock(explained_wall)}")
    return 0 if ok or args.quick else 1


if __name__ == "__main__":
    sys.exit(main())
