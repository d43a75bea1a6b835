"""Benchmarks that cannot rot: each one in benchmarks/ runs in its quick mode (small sizes,
seconds), and this fails when one cannot run: an exception, a sign-in refused, a page that
does not answer, a scorekeeper's error. It never fails because the machine is slow: the
quick mode prints the targets without judging them."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

BENCHMARKS = pathlib.Path(__file__).resolve().parent.parent / "benchmarks"
ALL = sorted(p.name for p in BENCHMARKS.glob("bench_*.py"))

# They start servers of their own (tonk serve), one benchmark at a time, as server tests do.
pytestmark = pytest.mark.server


def test_the_runner_runs_every_benchmark():
    runner = (BENCHMARKS / "run.py").read_text()
    for name in ALL:
        assert f"{name[:-3]}.main(quick)" in runner, f"run.py --quick leaves out {name}"
        assert f"{name[:-3]}.main([" in runner, f"run.py leaves out {name}"


@pytest.mark.parametrize("name", ALL)
def test_benchmark_runs_in_quick_mode(name, tmp_path):
    done = subprocess.run([sys.executable, str(BENCHMARKS / name), "--quick"],
                          capture_output=True, text=True, timeout=300, check=False,
                          cwd=BENCHMARKS.parent,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, f"{name} --quick failed:\n{done.stdout}\n{done.stderr}"
    skipped = [line for line in done.stdout.splitlines() if "skipped" in line]
    if skipped:  # no wrk or no PostgreSQL here (scripts/test.sh installs wrk): said, not hidden
        pytest.skip(skipped[0].strip())
    assert "quick: not judged" in done.stdout, done.stdout
