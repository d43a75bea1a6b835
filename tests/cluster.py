"""A PostgreSQL cluster of a test's own, to restart under a running server: ``initdb`` into a
temporary folder, served on a free loopback port, restarted with ``pg_ctl``, and stopped by
its postmaster's PID at the end. Never the shared server on 5432, which no test may stop.

Run as root (as in the project's containers), ``initdb`` and ``pg_ctl`` refuse: they are then
run as the ``postgres`` account, which owns the folder.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.live import HOST, free_port

#: Where Debian puts the server programs (not on PATH); PATH is looked at first.
BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def bin_dir() -> Path | None:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres``, or None."""
    found = shutil.which("initdb")
    candidates = ([Path(found).parent] if found else []) + BIN_DIRS
    return next((d for d in candidates
                 if all((d / name).exists() for name in ("initdb", "pg_ctl", "postgres"))),
                None)


def missing() -> str | None:
    """Why a cluster cannot be made here (None: it can)."""
    if bin_dir() is None:
        return "initdb/pg_ctl not found (on PATH or under /usr/lib/postgresql/*/bin)"
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "run as root and there is no postgres account to run initdb as"
    return None


@dataclass
class Cluster:
    folder: Path
    port: int
    as_postgres: list[str]

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@{HOST}:{self.port}/postgres"

    def ctl(self, *args: str, timeout: float = 60) -> None:
        """``pg_ctl`` on this cluster; fails the caller with its output when it fails."""
        where = bin_dir()
        assert where is not None, missing()
        run = subprocess.run(
            [*self.as_postgres, str(where / "pg_ctl"), "-D", str(self.folder / "data"),
             "-l", str(self.folder / "log"), "-w", "-t", str(int(timeout)), *args],
            stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout + 10)
        if run.returncode:
            raise RuntimeError(f"pg_ctl {' '.join(args)}: "
                               f"{(run.stdout + run.stderr).decode()[-1000:]}"
                               f"\n{self.log()[-2000:]}")

    def restart(self, mode: str, down: float = 0.0) -> None:
        """``pg_ctl -m mode restart``: ``immediate`` as after a crash (recovery on start),
        ``fast`` as an operator's restart; with ``down`` seconds between the stop and the
        start (the server refusing connections all that time)."""
        if not down:
            self.ctl("-m", mode, "restart", "-o", self.options())
            return
        self.ctl("-m", mode, "stop")
        time.sleep(down)
        self.ctl("start", "-o", self.options())

    def options(self) -> str:
        return (f"-p {self.port} -c listen_addresses={HOST} "
                f"-c unix_socket_directories={self.folder} -c max_connections=60 "
                "-c fsync=off")

    def postmaster(self) -> int | None:
        try:
            return int((self.folder / "data" / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def log(self) -> str:
        try:
            return (self.folder / "log").read_text(errors="replace")
        except OSError:
            return ""


@contextmanager
def cluster() -> Iterator[Cluster]:
    """A fresh cluster, started; stopped (by its postmaster's PID if ``pg_ctl`` cannot) and
    removed at the end."""
    where = bin_dir()
    assert where is not None, missing()
    folder = Path(tempfile.mkdtemp(prefix="tonk-pg-"))
    as_postgres: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        as_postgres = ["runuser", "-u", "postgres", "--"]
    made = Cluster(folder, free_port(), as_postgres)
    try:
        subprocess.run([*as_postgres, str(where / "initdb"), "-D", str(folder / "data"),
                        "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8",
                        "--no-sync"], check=True, capture_output=True, timeout=120,
                       stdin=subprocess.DEVNULL)
        made.ctl("start", "-o", made.options())
        yield made
    finally:
        try:
            made.ctl("-m", "immediate", "stop", timeout=20)
        except (RuntimeError, subprocess.TimeoutExpired):
            pid = made.postmaster()
            if pid is not None:
                try:
                    os.kill(pid, signal.SIGQUIT)  # the postmaster's immediate shutdown
                except ProcessLookupError:
                    pass
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
                    time.sleep(0.1)
        shutil.rmtree(folder, ignore_errors=True)
