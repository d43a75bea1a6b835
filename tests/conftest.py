"""Shared fixtures: the app on a throw-away database, its test client, a client of the JSON
API with a personal token (the helpers they are made of, which tests import by name, are in
``tests/apps.py`` and ``tests/clients.py``). After every test on a database, what ``tonk
check`` checks must hold of whatever the test left stored.

Database tests take ``db_app`` and run twice: on SQLite, and on the PostgreSQL server at
``TEST_POSTGRES_URL`` (default 127.0.0.1:5432, database ``test``) in a database of their own
made for the run (one per xdist worker). When that server cannot be reached, the PostgreSQL
runs are skipped and their skip reason says so; the server is looked for only when a test
needs it.

The schema is built once per run, not per test: SQLite tests get a copy of a file made once
with every table; PostgreSQL tests get the run's database emptied (every row deleted, ids
from 1 again), and rebuilt only when the test before changed its schema (the migration tests
do). Data that several tests read and that takes long to make (a generated league) is made
once per run too, and each test gets a copy of it (``db_copy``). The statements SQLAlchemy
compiles are kept once per run for every app the tests make (``tests/apps.py``).

Markers, applied here (see ``pyproject.toml``): ``postgres`` (the PostgreSQL run of a test),
``browser`` (``tests/browser``), ``server`` (tests that start real servers or commands in
other processes). The fast part: ``pytest -m "not browser and not postgres and not
server"``. Under xdist (``-n 2 --dist loadgroup``) both workers share the browser and the
server tests: each worker has its own Chromium, its own PostgreSQL database and free ports,
and a test's SQLite files are its own. The server tests of one module run on one worker,
one after another (a module's server is started once; one benchmark at a time), and so do
the browser tests of one module (module-scoped fixtures; each worker's browser tests share
one ``tonk serve``).
"""
from __future__ import annotations

import functools
import pathlib
import uuid
from collections.abc import Callable, Iterator

import pytest
from flask import Flask

from tests.apps import PG_URL, make_app, sqlite_copy, stored_problems
from tests.clients import Api, account


@functools.cache
def pg_problem() -> str | None:
    """Why the PostgreSQL server cannot be used (None: it can). Asked once, and only when a
    test needs the server: a run of tests that do not never looks for it."""
    try:
        import psycopg

        with psycopg.connect(PG_URL.replace("+psycopg", ""), connect_timeout=3):
            return None
    except Exception as exc:  # noqa: BLE001 - any failure means: not reachable
        return f"PostgreSQL at {PG_URL} is not reachable ({str(exc).strip()[:80]})"


def pytest_report_header(config):
    return (f"database tests: SQLite, and PostgreSQL at {PG_URL} when the run has any "
            "(skipped, and said so, if it cannot be reached)")


# -- markers ---------------------------------------------------------------------------------

BROWSER_DIR = pathlib.Path(__file__).parent / "browser"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Mark each test by what it needs: a PostgreSQL server, a browser, real servers."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and "postgresql" in callspec.params.values():
            item.add_marker(pytest.mark.postgres)
        if BROWSER_DIR in pathlib.Path(item.path).parents:
            item.add_marker(pytest.mark.browser)
        if "database_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.server)
        if item.get_closest_marker("server"):
            # the module's servers (module-scoped ones) and its session-scoped data on one
            # worker, its tests one after another; the other worker runs other tests
            item.add_marker(pytest.mark.xdist_group(f"server-{pathlib.Path(item.path).stem}"))
        elif item.get_closest_marker("browser"):
            # likewise a browser module's module-scoped fixtures (tests/browser/)
            item.add_marker(pytest.mark.xdist_group(f"browser-{pathlib.Path(item.path).stem}"))


class _LongestFirst:
    """Server tests, then browser tests, then the rest (after pytest's own ordering by
    fixtures): the long groups start first, so that two processes end at about the same
    time."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items):
        items.sort(key=lambda item: 0 if item.get_closest_marker("server") else
                   1 if item.get_closest_marker("browser") else 2)


def pytest_configure(config):
    config.pluginmanager.register(_LongestFirst(), "tonk-longest-first")


# -- the app on a database -------------------------------------------------------------------


# What Werkzeug's Rule._compile_builder returns: a rule's URL builder, giving the domain part
# and the path.
Builder = Callable[..., tuple[str, str]]


def _build_url_builders_once() -> None:
    """Each URL rule's builder compiled once per run, for every app the tests make
    (Werkzeug writes and compiles two small functions per rule, most of a new app's 30 ms).
    A builder depends only on the rule's parts and defaults; it reads the rule's converters
    from the rule it is bound to when called."""
    from werkzeug.routing import Rule

    compile_builder: Callable[[Rule, bool], Builder] | None = getattr(
        Rule, "_compile_builder", None)
    if compile_builder is None:  # another Werkzeug: build them each time
        return
    built: dict[tuple[str, tuple[tuple[bool, str], ...], str, bool], Builder] = {}

    def once(rule: Rule, append_unknown: bool = True) -> Builder:
        key = (rule.rule, tuple(rule._trace), repr(sorted((rule.defaults or {}).items())),
               append_unknown)
        if key not in built:
            built[key] = compile_builder(rule, append_unknown)
        return built[key]

    # Replacing the method on the class is the point, and ``once`` has its signature; mypy
    # refuses any function put in a method's place (python/mypy#2427).
    Rule._compile_builder = once  # type: ignore[method-assign,assignment]


_build_url_builders_once()


@pytest.fixture(scope="session")
def pg_url():
    """A PostgreSQL database of this run's own (of this xdist worker's), dropped at the
    end with the second one :func:`tests.apps.other_pg_url` may have made beside it."""
    problem = pg_problem()
    if problem:
        pytest.skip(problem)
    import sqlalchemy as sa

    name = f"tonk_test_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = PG_URL.rsplit("/", 1)[0] + "/" + name
    yield url
    with admin.connect() as conn:
        for made in (name, name + "_restore"):
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{made}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(scope="session")
def sqlite_schema(tmp_path_factory) -> pathlib.Path:
    """A SQLite file with every table and nothing in them, made once per run: each test
    gets a copy."""
    import sqlalchemy as sa

    import app.db.models  # noqa: F401  (the tables)
    from app.extensions import db

    path = tmp_path_factory.mktemp("schema") / "schema.sqlite"
    engine = sa.create_engine(f"sqlite:///{path}")
    db.metadata.create_all(engine)
    engine.dispose()
    return path


#: One text that changes whenever a table, column, constraint or index of the public schema
#: does (read from PostgreSQL's catalogue, a few milliseconds).
_PG_SCHEMA_MARK = """
SELECT md5(coalesce(string_agg(d, ',' ORDER BY d), '')) FROM (
  SELECT c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod)
         || ':' || a.attnotnull::text AS d
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
   WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT conname || ':' || pg_get_constraintdef(oid) FROM pg_constraint
   WHERE connamespace = 'public'::regnamespace
  UNION ALL
  SELECT indexdef FROM pg_indexes WHERE schemaname = 'public') AS parts
"""


class PostgresSchema:
    """The run's PostgreSQL database with every table, emptied for each test."""

    def __init__(self, url: str) -> None:
        import sqlalchemy as sa

        import app.db.models  # noqa: F401  (the tables)
        from app.extensions import db

        self.engine = sa.create_engine(url, pool_size=1, pool_pre_ping=True, connect_args={
            "options": "-c lock_timeout=15000"})
        self.mark: str | None = None
        # Deleting the rows of a few small tables is many times faster than TRUNCATE, which
        # makes every table and index anew.
        self.empty = "; ".join(
            [f'DELETE FROM "{t.name}"' for t in reversed(db.metadata.sorted_tables)]
            + ["SELECT setval(c.oid, 1, false) FROM pg_class c WHERE c.relkind = 'S'"
               " AND c.relnamespace = 'public'::regnamespace"])

    def fresh(self) -> None:
        """Every table there and empty, ids from 1 again."""
        import sqlalchemy as sa

        from app.extensions import db

        with self.engine.begin() as conn:
            if self.mark is not None and conn.scalar(sa.text(_PG_SCHEMA_MARK)) == self.mark:
                conn.exec_driver_sql(self.empty)
                return
            # the first test, or the one before changed the schema: build it again
            conn.execute(sa.text("DROP SCHEMA public CASCADE"))
            conn.execute(sa.text("CREATE SCHEMA public"))
            db.metadata.create_all(conn)
            self.mark = conn.scalar(sa.text(_PG_SCHEMA_MARK))


@pytest.fixture(scope="session")
def pg_schema(pg_url) -> Iterator[PostgresSchema]:
    schema = PostgresSchema(pg_url)
    yield schema
    schema.engine.dispose()


def _closed(app) -> list[str]:
    """What ``tonk check`` finds wrong in ``app``'s database; then its connections go."""
    from app.extensions import db

    found = stored_problems(app)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    return found


def _checked(app):
    """Yield ``app``; afterwards ``tonk check`` must find nothing, and its connections go."""
    yield app
    found = _closed(app)
    assert found == [], "tonk check after this test: " + "; ".join(found)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_app(request, tmp_path, sqlite_schema):
    """The app on an empty database: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        url = sqlite_copy(sqlite_schema, tmp_path)
    else:
        url = request.getfixturevalue("pg_url")
        request.getfixturevalue("pg_schema").fresh()
    yield from _checked(make_app(url))


@pytest.fixture(scope="session")
def _filled() -> Iterator[dict[tuple[str, str], str]]:
    """The databases ``db_copy`` filled, by kind and name: a SQLite file's path, or a
    PostgreSQL URL (those are dropped at the end)."""
    made: dict[tuple[str, str], str] = {}
    yield made
    for (kind, _name), url in made.items():
        if kind == "postgresql":
            _pg_admin(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


@pytest.fixture
def db_copy(request, tmp_path, tmp_path_factory, sqlite_schema, _filled):
    """``db_copy(kind, name, fill)``: the app on a copy of a database that ``fill(app)``
    filled, from the empty schema, once per run (per xdist worker) and kind ("sqlite" or
    "postgresql"): for data that many tests read and takes long to make. SQLite copies the
    file; PostgreSQL makes a database of its own with the filled one as its template.
    Afterwards ``tonk check`` must find nothing, as with ``db_app``."""
    import sqlalchemy as sa

    from app.extensions import db

    apps: list[Flask] = []
    copies: list[str] = []

    def fill_once(kind: str, name: str, fill: Callable[..., object]) -> str:
        if (kind, name) in _filled:
            return _filled[kind, name]
        if kind == "sqlite":
            path = tmp_path_factory.mktemp("filled") / f"{name}.sqlite"
            url = sqlite_copy(sqlite_schema, path.parent, path.name)
            where = str(path)
        else:
            base = request.getfixturevalue("pg_url")
            url = where = f"{base}_{name}"
            _pg_admin(f'CREATE DATABASE "{url.rsplit("/", 1)[1]}"')
            engine = sa.create_engine(url)
            db.metadata.create_all(engine)
            engine.dispose()
        filled = make_app(url)
        with filled.app_context():
            fill(filled)
            db.session.remove()
            db.engine.dispose()
        _filled[kind, name] = where
        return where

    def copy(kind: str, name: str, fill: Callable[..., object]):
        source = fill_once(kind, name, fill)
        if kind == "sqlite":
            url = sqlite_copy(pathlib.Path(source), tmp_path)
        else:
            url = f"{source}_{uuid.uuid4().hex[:8]}"
            _pg_admin(f'CREATE DATABASE "{url.rsplit("/", 1)[1]}" '
                      f'TEMPLATE "{source.rsplit("/", 1)[1]}"')
            copies.append(url)
        apps.append(make_app(url))
        return apps[-1]

    yield copy
    found = [problem for app in apps for problem in _closed(app)]
    for url in copies:
        _pg_admin(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')
    assert found == [], "tonk check after this test: " + "; ".join(found)


def _pg_admin(statement: str) -> None:
    """Run ``statement`` (CREATE or DROP DATABASE) on the PostgreSQL server."""
    import sqlalchemy as sa

    admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(statement))
    admin.dispose()


@pytest.fixture
def app(tmp_path, sqlite_schema):
    """The app on an empty SQLite database (for tests that are not about the database)."""
    yield from _checked(make_app(sqlite_copy(sqlite_schema, tmp_path)))


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def open_client(tmp_path_factory, sqlite_schema):
    """A client of one app for all of a module's tests of what stores nothing (settling,
    comparing, transfers, the dispute checker): afterwards the database must still be
    empty."""
    import sqlalchemy as sa

    from app.extensions import db

    app = make_app(sqlite_copy(sqlite_schema, tmp_path_factory.mktemp("open")))
    yield app.test_client()
    with app.app_context():
        stored = {t.name: db.session.scalar(sa.select(sa.func.count()).select_from(t))
                  for t in db.metadata.sorted_tables}
        db.session.remove()
        db.engine.dispose()
    assert not any(stored.values()), f"stored: {stored}"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def database_url(request, tmp_path_factory):
    """The URL of a database, SQLite then PostgreSQL, for servers and commands a module's
    tests start in other processes (each test sets the schema up itself, e.g. with
    ``tests.live.prepare``). Such tests are marked ``server``."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('live') / 'live.sqlite'}"
    return request.getfixturevalue("pg_url")


# -- accounts --------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def quick_hashing(request, monkeypatch):
    """The cheapest argon2 for every test (they are about scores, pages and data, not about
    password hashing), but those marked ``real_hashing``."""
    if request.node.get_closest_marker("real_hashing"):
        return
    from argon2 import PasswordHasher

    from app.services import accounts

    monkeypatch.setattr(accounts, "HASHER",
                        PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))


@pytest.fixture
def api(db_app) -> Api:
    """The API as Ann (ann@example.com), on the database of ``db_app``."""
    return Api(db_app.test_client(), account(db_app, "ann@example.com", "Ann"))


@pytest.fixture
def other(db_app, api) -> Api:
    """The API as a second account, Eve, on the same app."""
    return Api(db_app.test_client(), account(db_app, "eve@example.com", "Eve"))


# -- the pages -------------------------------------------------------------------------------


