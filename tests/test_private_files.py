"""The files the app makes are its user's alone: TONK_HOME 0700; the SQLite file, the
secret key, the rate limits' counts and every backup 0600 from the start (they hold the
password hashes and what signs sign-ins); and ``tonk serve`` says, in one line at start,
when it finds them readable by others."""
from __future__ import annotations

import os
import socket
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli.commands import cli
from app.extensions import db
from tests.apps import make_app
from tests.live import prepare


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask():
    """The most open umask a user can have: whatever stays private, the app made so."""
    old = os.umask(0)
    yield
    os.umask(old)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "home" / "tonk"
    monkeypatch.setenv("TONK_HOME", str(folder))
    for name in ("DATABASE_URL", "SECRET_KEY", "RATELIMIT_STORAGE_URI"):
        monkeypatch.delenv(name, raising=False)
    return folder


def test_the_folder_the_database_and_the_key_are_the_users_alone(home, open_umask):
    from app import create_app

    app = create_app({"TESTING": True})
    with app.app_context():
        db.create_all()  # SQLite makes the file (and its WAL and shared memory)
        db.session.execute(db.text("SELECT 1"))
    assert mode(home) == 0o700
    made = sorted(p.name for p in home.iterdir())
    assert "tonk.sqlite" in made and "secret_key" in made, made
    for path in home.iterdir():
        assert mode(path) == 0o600, (path.name, oct(mode(path)))


def test_the_secret_key_is_written_private_never_changed_to_it(home, open_umask,
                                                               monkeypatch):
    """Made with its mode, not made open and changed after (a watcher read it in that
    window); two workers starting at once keep one key."""
    from app import config

    def no_change(*_args: Any, **_kwargs: Any) -> None:
        raise AssertionError("a file's mode changed after it was made")

    monkeypatch.setattr(os, "chmod", no_change)
    monkeypatch.setattr(Path, "chmod", no_change)
    config.private_folder(home)
    key = config.secret_key(str(home))
    assert len(key) == 64 and mode(home / "secret_key") == 0o600
    assert config.secret_key(str(home)) == key
    assert sorted(p.name for p in home.iterdir()) == ["secret_key"]  # nothing left aside


def test_backups_hold_password_hashes_and_are_the_users_alone(tmp_path, open_umask):
    from app.services.upkeep import backup_to, copy_sqlite

    url = f"sqlite:///{tmp_path / 'b.sqlite'}"
    prepare(url)
    app = make_app(url)
    (tmp_path / "old.gz.partial").write_bytes(b"left by a backup that stopped")
    os.chmod(tmp_path / "old.gz.partial", 0o644)
    with app.app_context():
        assert backup_to(tmp_path / "old.gz") > 0
        copy_sqlite(tmp_path / "copy.sqlite")
    assert mode(tmp_path / "old.gz") == 0o600
    assert not (tmp_path / "old.gz.partial").exists()
    assert mode(tmp_path / "copy.sqlite") == 0o600
    assert mode(tmp_path / "b.sqlite") == 0o600  # the database the tests made, too


def test_tonk_backup_writes_a_private_file(tmp_path, monkeypatch, open_umask):
    url = f"sqlite:///{tmp_path / 'c.sqlite'}"
    prepare(url)
    monkeypatch.setenv("DATABASE_URL", url)
    out = CliRunner().invoke(cli, ["backup", str(tmp_path / "night.gz")])
    assert out.exit_code == 0, out.output
    assert mode(tmp_path / "night.gz") == 0o600


def _serve(monkeypatch) -> str:
    """What ``tonk serve`` prints at start (its server not started)."""
    from granian.server import Server

    monkeypatch.setattr(Server, "serve", lambda *_args, **_kwargs: None)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = CliRunner().invoke(cli, ["serve", "--port", str(port)])
    assert out.exit_code == 0, out.output
    return out.output


def _warned(monkeypatch) -> list[str]:
    """The lines of the files' warning ``tonk serve`` prints at start (its output may also
    hold a logging error's traceback, quoting this test's source)."""
    return [line for line in _serve(monkeypatch).splitlines()
            if line.startswith("Warning: others")]


def test_tonk_serve_says_when_others_can_read_the_files(home, monkeypatch):
    """An instance folder made before (755, its database 644): one line at start names
    them; once they are the user's alone, nothing is said."""
    home.mkdir(parents=True, mode=0o755)
    os.chmod(home, 0o755)
    (home / "tonk.sqlite").touch()
    os.chmod(home / "tonk.sqlite", 0o644)
    said = _warned(monkeypatch)
    assert len(said) == 1, said
    assert str(home) in said[0] and str(home / "tonk.sqlite") in said[0]
    assert "700" in said[0] and "600" in said[0]
    os.chmod(home, 0o700)
    os.chmod(home / "tonk.sqlite", 0o600)
    assert _warned(monkeypatch) == []
