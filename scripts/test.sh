#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs the whole suite:
# ruff, mypy over app/, pytest (unit, API, property, database and browser tests).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e '.[test]'

.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/pytest "$@"
