"""What the tests share, imported by name (``from tests.helpers import …``): the app on a
database of its own (:func:`make_app`), ``tonk check`` over what a test stored, clients of
the JSON API and of the pages, the worked hands of ``tests/data``, and the data export and
import tests build on. Fixtures live in ``conftest.py``; no test module imports another.
"""
from __future__ import annotations

import io
import json
import os
import pathlib
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, TypeVar

import jinja2
import jinja2.bccache
import pytest
from markupsafe import escape
from sqlalchemy import event, func, select, text
from sqlalchemy.util import LRUCache

from app.core import PRESETS
from app.db.models import (
    CarriedDebt,
    GameSession,
    Hand,
    HandEntry,
    HandVersion,
    League,
    LeagueAdmin,
    Player,
    PlayerSessionStat,
    Rating,
    RulesChange,
    Season,
    SessionPlayer,
    SettlePayment,
    User,
)
from app.db.unit import unit_of_work
from app.extensions import db
from app.services import accounts, exchange
from app.services.sessions import archive, ledger

DATA = pathlib.Path(__file__).parent / "data"


PG_URL = os.environ.get("TEST_POSTGRES_URL",
                        "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def load_json(name: str) -> Any:
    return json.loads((DATA / name).read_text(), parse_float=Decimal)


Stored = TypeVar("Stored")


def fetched(model: type[Stored], key: Any) -> Stored:
    """The ``model`` row stored under the primary key ``key``; the test fails, saying which
    row, when there is none."""
    found = db.session.get(model, key)
    if found is None:
        pytest.fail(f"no {model.__name__} {key!r} is stored")
    return found


def matched(pattern: str, text: str, flags: int = 0) -> re.Match[str]:
    """``re.search(pattern, text, flags)``; the test fails, showing the pattern and the start
    of the text, when nothing in the text matches."""
    found = re.search(pattern, text, flags)
    if found is None:
        pytest.fail(f"nothing matches {pattern!r} in the text, which begins {text[:300]!r}")
    return found


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


def _share_the_mappers_statements() -> None:
    """The ORM's inserts and updates are kept in a cache of each mapper's, also keyed by
    the dialect object: share those the same way (a mapper made afresh keeps its own)."""
    # (Flask-SQLAlchemy's type of Model leaves out the declarative registry it has)
    for mapper in db.Model.registry.mappers:  # type: ignore[attr-defined]
        mapper.__dict__["_compiled_cache"] = _CompiledStatements()


_share_the_mappers_statements()


def make_app(url: str, **extra: Any):
    from app import create_app

    config: dict[str, Any] = {"TESTING": True, "SECRET_KEY": "test",
                              "WTF_CSRF_ENABLED": False, "SQLALCHEMY_DATABASE_URI": url}
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


def account(app: Any, email: str, name: str) -> str:
    """An account made on ``app`` (password "correct horse"), and a personal token of it."""
    from app.db.unit import unit_of_work
    from app.services.accounts import create_token, create_user

    with app.app_context(), unit_of_work():
        return create_token(create_user(email, name, "correct horse"), "tests")


class Api:
    """The test client of the JSON API, signed in with a personal token."""

    PLAYERS = ["Ann", "Bob", "Cy", "Dee"]

    def __init__(self, client: Any, token: str | None) -> None:
        self.client, self.token = client, token

    def __call__(self, method: str, path: str, body: Any = None, *,
                 token: str | None = None, headers: dict[str, str] | None = None) -> Any:
        sent = dict(headers or {})
        if token or self.token:
            sent.setdefault("Authorization", f"Bearer {token or self.token}")
        raw = body if body is None or isinstance(body, str | bytes) else json.dumps(body)
        return self.client.open("/api/v1" + path, method=method, data=raw, headers=sent,
                                content_type="application/json")

    def ok(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        """The answer's JSON, which must come with ``status``."""
        resp = self(method, path, body)
        assert resp.status_code == status, resp.get_json()
        return resp.get_json()

    def start(self, **extra: Any) -> int:
        """A session of Ann, Bob, Cy and Dee under pagat at 0.25 USD, Dee dealing first."""
        body = {"name": "Friday", "players": self.PLAYERS, "rules": "pagat", "stake": "0.25",
                "currency": "USD", "first_dealer": "Dee", **extra}
        return int(self.ok("POST", "/sessions", body, 201)["id"])


def api_error(resp: Any, status: int, field: str | None, words: str) -> None:
    """The answer is ``status`` in the API's error shape, naming ``field`` and saying
    ``words`` (in any case)."""
    assert resp.status_code == status, resp.get_json()
    body = resp.get_json()
    assert body.get("field") == field, body
    assert words.lower() in body["error"].lower(), body


def sign_up(client, email="sam@example.com", name="Sam", password="secret-table-9"):
    """Sign up through the page (which signs the client in)."""
    resp = client.post("/signup", data={"name": name, "email": email, "password": password})
    assert resp.status_code == 302, resp.data
    return resp


def start(client, players=("Ann", "Bob", "Cy"), preset="pagat", stake="0.25", **extra) -> int:
    """Start a session through the page (the first player deals first); its id."""
    data = {"name": "Friday", "first_dealer": "0", "stake": stake, "currency": "USD",
            "preset": preset, **{f"player-{i}": p for i, p in enumerate(players)}, **extra}
    resp = client.post("/sessions/new", data=data)
    assert resp.status_code == 302, errors_of(resp)
    return int(resp.location.rsplit("/", 1)[1])


def record(client, sid, **form):
    """Post the record-hand form of session ``sid``."""
    return client.post(f"/sessions/{sid}/hands/new", data=form)


def errors_of(resp) -> list[str]:
    """The messages shown beside fields."""
    return [m.replace("&#39;", "'").replace("&#34;", '"').replace("&lt;", "<")
            .replace("&gt;", ">").replace("&amp;", "&")
            for m in re.findall(r'class="err"[^>]*>([^<]*)<', resp.get_data(as_text=True))]


def shown_beside(resp, field, message):
    """The page refused the form (422) and shows ``message`` beside the field ``field``."""
    assert f'id="err-{field}">{escape(message)}<' in resp.get_data(as_text=True), \
        (field, message, errors_of(resp))
    assert resp.status_code == 422, resp.status_code


# -- the pages' sessions ---------------------------------------------------------------------

def share_token(app, sid):
    with app.app_context():
        gs = db.session.get(GameSession, sid)
        assert gs is not None
        return gs.share_token


# -- export and import ----------------------------------------------------------------------

TABLES = (GameSession, SessionPlayer, Hand, HandVersion, HandEntry, PlayerSessionStat,
          SettlePayment, RulesChange, Player, League, LeagueAdmin, Season)


def user(email: str = "keeper@example.com", name: str = "Keeper") -> User:
    with unit_of_work():
        return accounts.create_user(email, name, "correct horse")


def snapshot() -> dict[str, Any]:
    """Everything a league's pages show, by stable keys (uids and names, never ids)."""
    sessions = {gs.id: gs for gs in db.session.scalars(select(GameSession))}
    uid = {i: gs.uid for i, gs in sessions.items()}
    names = {p.id: p.name for p in db.session.scalars(select(Player))}
    out: dict[str, Any] = {"sessions": sorted(
        (gs.uid, gs.name, exchange.iso(gs.created_at),
         gs.closed_at and exchange.iso(gs.closed_at), gs.currency, gs.stake_minor,
         gs.rules_json, gs.hand_count, gs.next_dealer, gs.league.uid if gs.league else None)
        for gs in sessions.values())}
    out["totals"] = sorted((uid[s.session_id], s.seat, s.name, names[s.player_id],
                            s.total_minor) for s in db.session.scalars(select(SessionPlayer)))
    hands = {h.id: h for h in db.session.scalars(select(Hand))}
    out["hands"] = sorted((uid[h.session_id], h.number, h.version, h.voided, h.outcome,
                           h.hand_json, h.result_json, h.nets_json) for h in hands.values())
    out["histories"] = {f"{uid[h.session_id]}/{h.number}": ledger.history(h)
                        for h in hands.values()}
    out["entries"] = sorted((uid[e.session_id], hands[e.hand_id].number, names[e.player_id],
                             e.scoring, e.amount_minor, e.won, e.tonked_out, e.drop_won,
                             e.caught) for e in db.session.scalars(select(HandEntry)))
    out["records"] = sorted((uid[r.session_id], names[r.player_id], r.scoring,
                             exchange.iso(r.played_at), r.net_minor, r.hands, r.hands_won,
                             r.tonks_out, r.drops_won, r.times_caught)
                            for r in db.session.scalars(select(PlayerSessionStat)))
    pss = PlayerSessionStat
    out["standings"] = sorted(tuple(row) for row in db.session.execute(
        select(Player.name, pss.scoring, func.sum(pss.net_minor), func.sum(pss.hands),
               func.sum(pss.hands_won), func.sum(pss.tonks_out), func.sum(pss.drops_won),
               func.sum(pss.times_caught), func.count())
        .join(Player, Player.id == pss.player_id).group_by(Player.name, pss.scoring)))
    out["payments"] = sorted((uid[p.session_id], p.payer_seat, p.payee_seat, p.amount_minor,
                              exchange.iso(p.created_at), p.transfer_id is not None,
                              p.undone_at and exchange.iso(p.undone_at), p.undone_by_name,
                              p.undo_reason)
                             for p in db.session.scalars(select(SettlePayment)))
    out["settle"] = sorted((gs.uid, gs.voided_hands, gs.archived_at and exchange.iso(
        gs.archived_at), gs.plan_no, [(t.payer, t.payee, t.amount, t.paid)
                                      for t in ledger.ledger_of(gs).plan])
        for gs in sessions.values())
    out["debts"] = sorted((uid[d.session_id], names[d.payer_id], names[d.payee_id],
                           d.amount_minor, exchange.iso(d.created_at), d.paid_at, d.paid_by_name)
                          for d in db.session.scalars(select(CarriedDebt)))

    out["rules_changes"] = sorted((uid[c.session_id], c.from_hand, c.rules_json,
                                   c.stake_minor, exchange.iso(c.created_at))
                                  for c in db.session.scalars(select(RulesChange)))
    out["leagues"] = sorted((lg.uid, lg.name, lg.rules_json, lg.stake_minor, lg.currency,
                             sorted((s.name, s.starts_on, s.ends_on) for s in lg.seasons))
                            for lg in db.session.scalars(select(League)))
    out["members"] = sorted((p.name, p.league_id is not None)
                            for p in db.session.scalars(select(Player)))
    out["ratings"] = sorted((names[r.player_id], round(r.mu, 9), round(r.sigma, 9), r.sessions)
                            for r in db.session.scalars(select(Rating)))
    return out


def wipe(app) -> None:
    db.session.remove()
    db.drop_all()
    db.create_all()


def document(chunks) -> str:
    return "".join(chunks)


def importing(text: str, who: User, **kw: Any) -> exchange.ImportReport:
    with unit_of_work(begin=False):  # as `tonk import` does
        return exchange.import_file(io.BytesIO(text.encode()), who, **kw)


# -- hands of every kind under every preset ---------------------------------------------------

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
COUNTS = {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}
#: An instant win on the deal each preset pays (Ann claims); the encyclopedia has none.
DEAL_CLAIM = {"pagat": 49, "wikipedia": 49, "texas": 50, "rushville": 50, "chicago": 50,
              "washington": 49, "dc": 50, "newark": 49, "baton_rouge": 47, "seattle": 49,
              "push_ups": 49}

END_KINDS = ("deal", "tonk_out", "run_out", "drop", "stock_out", "dead")


def hand_json(preset: str, kind: str) -> dict[str, Any]:
    """A hand that ends with ``kind`` under ``preset``, as docs/rules.md §1 writes it."""
    stake = "1" if PRESETS[preset].rules.scoring == "points" else "0.25"
    end: dict[str, Any] = {"kind": kind}
    counts = dict(COUNTS)
    if kind in ("tonk_out", "run_out", "drop"):
        end["player"] = "Bob"
    if kind in ("tonk_out", "run_out"):
        counts["Bob"] = 0
    if kind == "deal":
        counts = {"Ann": DEAL_CLAIM[preset], "Bob": 20, "Cy": 25, "Dee": 30}
        if preset == "rushville":
            end["five_face_cards"] = ["Ann"]
    if kind == "dead":
        counts = {}
    return {"rules": preset, "stake": stake, "players": PLAYERS, "dealer": "Dee", "end": end,
            **({"counts": counts} if counts else {})}


def hand_form(preset: str, kind: str) -> dict[str, Any]:
    """The same hand as the /check form sends it."""
    data = hand_json(preset, kind)
    form = {"players": ", ".join(PLAYERS), "stake": data["stake"], "preset": preset,
            "step": "check", "kind": kind, "dealer": "Dee",
            "player": data["end"].get("player", "")}
    for seat, name in enumerate(PLAYERS):
        if name in data.get("counts", {}):
            form[f"count-{seat}"] = str(data["counts"][name])
    if data["end"].get("five_face_cards"):
        form["five_face"] = "Ann"
    return form


# -- hands sent to the API -------------------------------------------------------------------

DROP_CAUGHT: dict[str, Any] = {"end": {"kind": "drop", "player": "Bob"},
                               "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}}


#: (hand, outcome, Ann's net): pagat at 0.25, Dee deals first
EVERY_END: list[tuple[dict[str, Any], str, str]] = [
    ({"end": {"kind": "deal"}, "counts": {"Ann": 50}}, "deal_win", "1.50"),
    ({"end": {"kind": "tonk_out", "player": "Bob"}}, "tonk_out", "-0.50"),
    ({"end": {"kind": "run_out", "player": "Cy"}}, "run_out", "-0.25"),
    ({"end": {"kind": "drop", "player": "Bob"},
      "counts": {"Ann": 12, "Bob": 5, "Cy": 9, "Dee": 30}}, "drop_won", "-0.25"),
    (DROP_CAUGHT, "caught", "-0.25"),
    ({"end": {"kind": "stock_out"}, "counts": {"Ann": 3, "Bob": 10, "Cy": 20, "Dee": 7}},
     "stock_out", "0.75"),
    ({"end": {"kind": "dead"}, "multiplier": 2}, "dead", "0.00"),
]


# -- a second database ------------------------------------------------------------------------

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


# -- a league played through the ledger, for export and import ------------------------------

DROP: dict[str, Any] = {"end": {"kind": "drop", "player": "Bob"},
                        "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}}


def make_league(owner: User, uid: str = "a" * 32) -> League:
    """A league with two seasons and a member who never played (rows only: the league
    service is not what these tests are about)."""
    league = League(uid=uid, name="Thursday Tonk", owner_id=owner.id,
                    rules_json=json.dumps({"preset": "pagat"}), stake_minor=50, currency="USD",
                    share_token="league-share-" + uid[:8])
    db.session.add(league)
    db.session.flush()
    db.session.add(LeagueAdmin(league_id=league.id, user_id=owner.id))
    from datetime import date

    db.session.add_all([Season(league_id=league.id, name="Spring", starts_on=date(2025, 3, 1),
                               ends_on=date(2025, 5, 31)),
                        Season(league_id=league.id, name="All 2025",
                               starts_on=date(2025, 1, 1), ends_on=date(2025, 12, 31)),
                        Player(owner_id=owner.id, league_id=league.id, name="Zoe")])
    db.session.commit()
    return league


def play_league(owner: User, helper: User) -> League:
    """Sessions played through the ledger: corrections (by another scorekeeper), voids, a
    void restored, a rules change, push-ups, payments, a closed session."""
    league = make_league(owner)
    friday = ledger.create_session(owner, name="Friday", players=PLAYERS, stake="0.25",
                                   first_dealer="Dee", league_id=league.id)
    ledger.record_hand(friday, owner, DROP)
    ledger.record_hand(friday, owner, {"end": {"kind": "tonk_out", "player": "Ann"}})
    ledger.record_hand(friday, helper, {"end": {"kind": "stock_out"},
                                        "counts": {"Ann": 3, "Bob": 3, "Cy": 9, "Dee": 30}})
    ledger.correct_hand(friday, helper, 1, {"end": {"kind": "run_out", "player": "Cy"}},
                        "counts were misread")
    ledger.void_hand(friday, owner, 2, "misdeal")
    ledger.void_hand(friday, owner, 3, "recorded twice")
    ledger.correct_hand(friday, owner, 3, {"end": {"kind": "dead"}}, "it was a dead hand")
    ledger.change_rules(friday, owner, rules="chicago", stake="0.50")
    ledger.record_hand(friday, owner, {"end": {"kind": "deal"}, "counts": {"Bob": 50},
                                       "multiplier": 2})
    ledger.record_hand(friday, owner, {"end": {"kind": "drop", "player": "Cy"},
                                       "counts": {"Ann": 30, "Bob": 20, "Cy": 2, "Dee": 9}})
    state = ledger.ledger_of(friday)
    mistaken = ledger.record_payment(friday, owner, state.transfers[0].payer,
                                     state.transfers[0].payee, "0.05")
    ledger.undo_payment(friday, owner, mistaken, "mis-tap")  # version 2: kept, undone
    for t in state.transfers[:-1]:
        ledger.record_payment(friday, owner, t.payer, t.payee, str(t.amount))
    ledger.close_session(friday, carry_over=True)  # version 2: the last one carried over

    saturday = ledger.create_session(owner, name="Saturday", players=["Cy", "Eve", "Ann"],
                                     rules="push_ups", league_id=league.id)
    ledger.record_hand(saturday, owner, {"end": {"kind": "run_out", "player": "Eve"},
                                         "counts": {"Cy": 12, "Ann": 30}})
    ledger.record_hand(saturday, owner, {"end": {"kind": "stock_out"},
                                         "counts": {"Cy": 4, "Eve": 9, "Ann": 4}})
    sunday = ledger.create_session(owner, name="Sunday", players=["Bob", "Dee"],
                                   rules={"preset": "texas", "catch": "alt3"}, stake="1",
                                   league_id=league.id)
    ledger.record_hand(sunday, owner, {"end": {"kind": "drop", "player": "Dee"},
                                       "counts": {"Bob": 7, "Dee": 7}})
    ledger.record_payment(sunday, owner, "Dee", "Bob", "0.50")
    archive.set_archived(sunday, True)  # version 2: archived
    db.session.commit()
    return league


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
