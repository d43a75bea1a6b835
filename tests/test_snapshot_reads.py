"""Reads during writes see a whole change or none of it: two `tonk serve` servers on one
database, 4 writers (hands with side bets, corrections, voids, payments and their undo) and
6 readers of the live, share and ledger endpoints. Every read is a 200 (or 304), nothing is
a 5xx, and ``tonk check`` is clean afterwards. On PostgreSQL, before reads took one snapshot,
a commit landing between the SELECTs of one read gave 500s and "the balances do not add up
to zero" (422); SQLite reads one snapshot per transaction already.

Short here: until 100 reads and 20 recorded hands, at most TONK_READERS_SECONDS (default 60 s,
a bound, not a speed check: a slow machine takes longer, it does not fail);
``benchmarks/bench_snapshot_reads.py`` runs the full 30 s and prints the figures.
"""
from __future__ import annotations

import os

from tests.apps import problems_at
from tests.live import prepare, server
from tests.readers import run_night

SECONDS = float(os.environ.get("TONK_READERS_SECONDS", "60"))
ENOUGH = (100, 20)  # reads, recorded hands: about what 4 s gave on a quiet machine


def test_readers_see_a_change_whole_on_two_servers(database_url):
    token = prepare(database_url)
    with server(database_url, workers=2) as one, server(database_url, workers=2) as two:
        night, _session = run_night([one, two], token, SECONDS, enough=ENOUGH)
    print(night.figures, *night.bad[:20], sep="\n")
    assert night.bad == []
    assert sum(night.reads.values()) >= ENOUGH[0] and night.writes[201] >= ENOUGH[1], \
        night.figures
    assert problems_at(database_url) == []
