#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs the whole suite:
# ruff, mypy over app/, the tests and the benchmarks, pytest (unit, API, property, database
# and browser tests).
# Arguments go to pytest, e.g. bash scripts/test.sh -m "not browser and not postgres and not server".
set -euo pipefail
cd "$(dirname "$0")/.."

# Chromium, and a Japanese font for the Japanese night's screenshots (tests/browser); poppler's
# pdftoppm, to look at the printed night's PDF; wrk, the load generator of
# benchmarks/bench_pages.py (tests/test_benchmarks.py runs it); Node.js, which runs the core
# in the vendored Pyodide against CPython (tests/test_phone_core.py).
if ! command -v chromium >/dev/null 2>&1 || ! command -v wrk >/dev/null 2>&1 \
    || ! command -v node >/dev/null 2>&1 \
    || ! command -v pdftoppm >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi ipagothic; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium fonts-ipafont-gothic poppler-utils wrk nodejs \
    >/dev/null
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
# The versions of requirements.lock, so that every install tests the same thing.
.venv/bin/pip install -q -c requirements.lock -e '.[test]'

# Keep compiled modules between processes: every pytest worker, server and `tonk` command the
# tests start would otherwise compile the app and pytest's rewritten plugins anew (machines
# that set PYTHONDONTWRITEBYTECODE, as this one does, lose about ten seconds a run).
unset PYTHONDONTWRITEBYTECODE

.venv/bin/ruff check .
.venv/bin/mypy
# Two processes (this machine's cores), sharing the browser tests and the server tests; the
# server tests of one module run one after another on one of them (see tests/conftest.py).
.venv/bin/pytest -n 2 --dist loadgroup "$@"
