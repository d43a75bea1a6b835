"""Shared fixtures: the app on a throw-away database, its test client, a signed-in helper,
and the worked hands of ``tests/data``. After every test on a database, what ``tonk check``
checks must hold of whatever the test left stored.

Database tests take ``db_app`` and run twice: on SQLite, and on the PostgreSQL server at
``TEST_POSTGRES_URL`` (default 127.0.0.1:5432, database ``test``) in a database of their own
made for the run. When that server cannot be reached, the PostgreSQL runs are skipped and
the report header and the skip reason say so.
"""
from __future__ import annotations

import json
import os
import pathlib
import uuid
from decimal import Decimal
from typing import Any

import pytest

DATA = pathlib.Path(__file__).parent / "data"
PG_URL = os.environ.get("TEST_POSTGRES_URL",
                        "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def load_json(name: str) -> Any:
    return json.loads((DATA / name).read_text(), parse_float=Decimal)


def _pg_problem() -> str | None:
    try:
        import psycopg

        with psycopg.connect(PG_URL.replace("+psycopg", ""), connect_timeout=3):
            return None
    except Exception as exc:  # noqa: BLE001 - any failure means: not reachable
        return f"PostgreSQL at {PG_URL} is not reachable ({str(exc).strip()[:80]})"


_PG_PROBLEM = _pg_problem()


def pytest_report_header(config):
    if _PG_PROBLEM:
        return f"database tests: SQLite only; {_PG_PROBLEM}"
    return f"database tests: SQLite and PostgreSQL ({PG_URL})"


def make_app(url: str, **extra: Any):
    from app import create_app

    config: dict[str, Any] = {"TESTING": True, "SECRET_KEY": "test",
                              "WTF_CSRF_ENABLED": False, "SQLALCHEMY_DATABASE_URI": url}
    if url.startswith("postgresql"):
        # A transaction a test leaves open must fail the next test quickly, not hang the run.
        config["SQLALCHEMY_ENGINE_OPTIONS"] = {
            "pool_pre_ping": True, "connect_args": {"options": "-c lock_timeout=15000"}}
    return create_app({**config, **extra})


@pytest.fixture(scope="session")
def pg_url():
    """A PostgreSQL database of this run's own, dropped at the end."""
    if _PG_PROBLEM:
        pytest.skip(_PG_PROBLEM)
    import sqlalchemy as sa

    name = f"tonk_test_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = PG_URL.rsplit("/", 1)[0] + "/" + name
    yield url
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def _fresh(app):
    from app.extensions import db

    with app.app_context():
        db.drop_all()
        db.create_all()


def stored_problems(app) -> list[str]:
    """What ``tonk check`` finds wrong with the app's stored data (nothing, always)."""
    from sqlalchemy import inspect

    from app.extensions import db
    from app.integrity import problems

    with app.app_context():
        db.session.remove()
        if not inspect(db.engine).has_table("game_sessions"):
            return []
        return problems()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_app(request, tmp_path):
    """The app on an empty database: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'test.sqlite'}"
    else:
        url = request.getfixturevalue("pg_url")
    app = make_app(url)
    _fresh(app)
    yield app
    from app.extensions import db

    found = stored_problems(app)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    assert found == [], "tonk check after this test: " + "; ".join(found)


@pytest.fixture
def app(tmp_path):
    """The app on an empty SQLite database (for tests that are not about the database)."""
    app = make_app(f"sqlite:///{tmp_path / 'test.sqlite'}")
    _fresh(app)
    yield app
    found = stored_problems(app)
    assert found == [], "tonk check after this test: " + "; ".join(found)


@pytest.fixture
def client(app):
    return app.test_client()
