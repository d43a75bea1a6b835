"""The wheel is the app: built from this clone, installed into a new virtual environment,
and run from another folder, it migrates an empty database and serves every kind of page,
its static files and its languages. (The new environment gets the app's dependencies from
the test's own, through a path file, so that nothing is downloaded; the app itself comes
from the wheel alone: the clone is nowhere on its path.)

Bounded: one ``pip wheel``, one ``tonk db upgrade``, one ``tonk serve`` on 127.0.0.1,
stopped by its PID.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.request
import venv
from pathlib import Path

import pytest

from tests.live import HOST, ROOT, free_port, stop

pytestmark = pytest.mark.server


def _get(base: str, path: str, language: str = "en") -> str:
    request = urllib.request.Request(base + path, headers={"Accept-Language": language})
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 200, path
        return str(answer.read().decode())


def test_the_wheel_installed_elsewhere_serves_the_app(tmp_path):
    # built from a copy: setuptools builds in the tree it is given (build/, *.egg-info)
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "instance", "test-artifacts", "__pycache__",
        ".*_cache", ".hypothesis"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                            str(tmp_path / "dist"), str(source)], capture_output=True,
                           text=True, timeout=300, check=False)
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("tonk_tally-*.whl"))
    target = tmp_path / "env"
    venv.create(target, with_pip=False)
    python = target / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True, check=True).stdout
    (Path(site.strip()) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"])
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                                "--no-deps", "-q", str(wheel)], capture_output=True, text=True,
                               timeout=300, check=False)
    assert installed.returncode == 0, installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "SECRET_KEY", "TONK_HOME", "PYTHONPATH")}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    tonk = str(target / "bin" / "tonk")
    where = subprocess.run([str(python), "-c", "import app; print(app.__file__)"],
                           cwd=elsewhere, env=env, capture_output=True, text=True, check=True)
    assert where.stdout.startswith(str(target)), where.stdout  # the wheel's, not the clone's

    empty = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    migrated = subprocess.run([tonk, "db", "upgrade"], cwd=elsewhere, capture_output=True,
                              text=True, timeout=120, env={**env, "DATABASE_URL": empty})
    assert migrated.returncode == 0, migrated.stderr
    assert "Running upgrade" in migrated.stderr and "0012" in migrated.stderr

    port = free_port()
    server = subprocess.Popen([tonk, "serve", "--port", str(port), "--workers", "1"],
                              cwd=elsewhere, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://{HOST}:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert server.poll() is None, server.stdout.read().decode()  # type: ignore[union-attr]
            try:
                home = _get(base, "/")
                break
            except OSError:
                assert time.monotonic() < deadline, "the installed tonk serve did not answer"
                time.sleep(0.2)
        for path in ("/check", "/rules/pagat", "/sw.js", "/signin", "/leagues/static/leagues.css"):
            _get(base, path)
        stylesheet = re.search(r'/static/[^"]+\.css[^"]*', home)
        assert stylesheet is not None
        assert "body" in _get(base, stylesheet.group())
        assert 'lang="de"' in _get(base, "/check", "de")
        assert 'lang="ja"' in _get(base, "/rules/pagat", "ja")
    finally:
        stop(server)
    said = server.stdout.read().decode()  # type: ignore[union-attr]
    data = tmp_path / "data" / "tonk-tally"
    assert str(data) in said  # it says where it keeps its database
    assert (data / "tonk.sqlite").is_file() and (data / "secret_key").is_file()
