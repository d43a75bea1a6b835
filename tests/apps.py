"""The app on a database of its own, as the tests make it (:func:`make_app`): the pages'
templates and SQLAlchemy's compiled statements kept once per run for every app; a fresh
SQLite copy of the empty schema, a second PostgreSQL database, a database migrated from
nothing; what ``tonk check`` finds in what a test stored; and the commits and statements a
call sends. Fixtures built from these live in ``conftest.py``."""
from __future__ import annotations

import os
import pathlib
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import jinja2
import jinja2.bccache
from sqlalchemy import event, text
from sqlalchemy.util import LRUCache

from app.extensions import db

PG_URL = os.environ.get("TEST_POSTGRES_URL",
                        "postgresql+psycopg://postgres@127.0.0.1:5432/test")


class _CompiledTemplates(jinja2.BytecodeCache):
    """The pages' templates compiled once per run, for every app the tests make (compiling
    them again for each test's new app took most of a short test's time)."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


_TEMPLATES = _CompiledTemplates()


class _CompiledStatements:
    """SQLAlchemy's compiled statements, kept once per run for every app the tests make
    (its ``compiled_cache``). Each engine keeps its own and keys them by its own dialect
    object, so each test's new app compiled every statement it ran again: a quarter of the
    database tests' time. Here a dialect is known by what its compiling depends on (its
    kind, the server's version, its parameter style and name lengths), so engines of the
    same kind share what one of them compiled."""

    def __init__(self) -> None:
        self.compiled: LRUCache[tuple[Any, ...], Any] = LRUCache(4000)

    @staticmethod
    def _key(key: tuple[Any, ...]) -> tuple[Any, ...]:
        dialect, *rest = key
        return (type(dialect), dialect.server_version_info, dialect.paramstyle,
                dialect.label_length, dialect.max_identifier_length, *rest)

    def get(self, key: tuple[Any, ...], default: Any = None) -> Any:
        return self.compiled.get(self._key(key), default)

    def __setitem__(self, key: tuple[Any, ...], value: Any) -> None:
        self.compiled[self._key(key)] = value


_STATEMENTS = _CompiledStatements()


def make_app(url: str, **extra: Any):
    from app import create_app

    # Each test's app counts its rate limits alone (the default file of the instance folder
    # would be shared by every test of the run).
    config: dict[str, Any] = {"TESTING": True, "SECRET_KEY": "test",
                              "WTF_CSRF_ENABLED": False, "SQLALCHEMY_DATABASE_URI": url,
                              "RATELIMIT_STORAGE_URI": "memory://"}
    options: dict[str, Any] = {"execution_options": {"compiled_cache": _STATEMENTS}}
    if url.startswith("postgresql"):
        # A transaction a test leaves open must fail the next test quickly, not hang the run.
        options |= {"pool_pre_ping": True,
                    "connect_args": {"options": "-c lock_timeout=15000"}}
    config["SQLALCHEMY_ENGINE_OPTIONS"] = options
    app = create_app({**config, **extra})
    app.jinja_env.bytecode_cache = _TEMPLATES
    return app


@contextmanager
def counting_commits(engine: Any) -> Iterator[list[int]]:
    """The commits ``engine`` makes inside the block, as a list that grows by one each
    (so a test can say how many commits a request costs)."""
    commits: list[int] = []

    def count(_conn: Any) -> None:
        commits.append(1)

    event.listen(engine, "commit", count)
    try:
        yield commits
    finally:
        event.remove(engine, "commit", count)


def sqlite_copy(template: pathlib.Path, folder: pathlib.Path, name: str = "test.sqlite") -> str:
    """The URL of a fresh copy of the empty schema in ``folder``."""
    target = folder / name
    shutil.copyfile(template, target)
    return f"sqlite:///{target}"


def stored_problems(app) -> list[str]:
    """What ``tonk check`` finds wrong with the app's stored data (nothing, always)."""
    from sqlalchemy import inspect

    from app.extensions import db
    from app.services.upkeep.integrity import problems

    with app.app_context():
        db.session.remove()
        if not inspect(db.engine).has_table("game_sessions"):
            return []
        return problems()


def problems_at(url: str) -> list[str]:
    """What ``tonk check`` finds wrong with the database at ``url`` (its connections closed
    afterwards)."""
    from app.extensions import db

    app = make_app(url)
    found = stored_problems(app)
    with app.app_context():
        db.engine.dispose()
    return found


def other_pg_url(request) -> str:
    """A second PostgreSQL database of this run's own (the first holds the source), named
    after the first: ``pg_url`` drops both."""
    url = request.getfixturevalue("pg_url")
    import sqlalchemy as sa

    name = url.rsplit("/", 1)[1] + "_restore"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return url.rsplit("/", 1)[0] + "/" + name


def migrated_to(revision: str = "head") -> None:
    """Inside an app context: the database emptied (the fixture's tables and Alembic's mark
    dropped) and migrated from nothing up to ``revision``."""
    from flask_migrate import upgrade

    db.drop_all()
    with db.engine.begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
    upgrade(revision=revision)


def statements_sent(app: Any, call: Any) -> list[str]:
    """The SQL statements ``call()`` sends to ``app``'s database, in order."""
    with app.app_context():
        engine = db.engine
    seen: list[str] = []

    def note(*args: Any) -> None:
        seen.append(args[2])

    event.listen(engine, "before_cursor_execute", note)
    try:
        call()
    finally:
        event.remove(engine, "before_cursor_execute", note)
    return seen
