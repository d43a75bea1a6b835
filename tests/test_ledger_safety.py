"""What keeps the ledger trustworthy on a real night, on SQLite and PostgreSQL: corrections
and voids that name their version (409 with who changed it), Idempotency-Key and the forms'
one-time tokens, a database that refuses (503 naming the cause, reads still working),
``tonk check`` finding what is broken, and backup → restore into the other kind of
database giving the same sessions back. (Many writers at once: ``test_concurrency.py``.)
"""
from __future__ import annotations

import gzip
import io
import json
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from flask_migrate import stamp
from sqlalchemy import event, text, update
from sqlalchemy.exc import OperationalError

from app.cli.commands import cli
from app.core.errors import TonkError
from app.db.models import SessionPlayer
from app.db.unit import unit_of_work
from app.extensions import db
from tests.apps import counting_commits, make_app, other_pg_url, stored_problems
from tests.clients import Api, account, errors_of, record, sign_up, start
from tests.expect import fetched
from tests.hands import DROP_CAUGHT, EVERY_END

TONK_OUT = {"end": {"kind": "tonk_out", "player": "Ann"}}


# -- versions --------------------------------------------------------------------------------

def test_a_correction_from_an_old_version_is_a_conflict_naming_who_and_when(api):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", TONK_OUT, 201)
    fixed = api.ok("PUT", f"/sessions/{sid}/hands/1",
                   {**DROP_CAUGHT, "reason": "it was a drop", "version": 1})
    assert fixed["version"] == 2
    stale = api("PUT", f"/sessions/{sid}/hands/1",
                {**TONK_OUT, "reason": "no, a tonk out", "version": 1})
    assert stale.status_code == 409
    body = stale.get_json()
    assert body["field"] == "version"
    assert body["current"]["version"] == 2 and body["current"]["by"] == "Ann"
    assert body["current"]["action"] == "corrected"
    assert re.match(r"hand 1 was corrected by Ann at \d\d:\d\d UTC \(now version 2\) while "
                    r"you were looking at version 1", body["error"])
    void = api("DELETE", f"/sessions/{sid}/hands/1", {"reason": "misdeal", "version": 1})
    assert void.status_code == 409
    assert api.ok("GET", f"/sessions/{sid}/hands/1")["version"] == 2  # nothing changed
    assert api.ok("DELETE", f"/sessions/{sid}/hands/1",
                  {"reason": "misdeal", "version": 2})["voided"] is True
    bad = api("DELETE", f"/sessions/{sid}/hands/1", {"reason": "x", "version": "two"})
    assert bad.status_code == 422 and bad.get_json()["field"] == "version"


@pytest.mark.parametrize("version", ["1", True, 1.0, "", [1], {"v": 1}])
def test_a_version_that_is_not_a_whole_number_is_refused_and_changes_nothing(api, version):
    """``"version": "1"`` was taken as 1 (the correction applied) and ``true`` as 1 (a 409
    for a hand at version 2): a version is a whole number, else 422 naming it."""
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", TONK_OUT, 201)
    before = api.ok("GET", f"/sessions/{sid}/hands/1")
    for method, body in (("PUT", {"end": {"kind": "dead"}, "reason": "x", "version": version}),
                         ("DELETE", {"reason": "x", "version": version})):
        resp = api(method, f"/sessions/{sid}/hands/1", body)
        assert resp.status_code == 422, resp.get_json()
        assert resp.get_json()["field"] == "version"
        assert "the version must be a whole number, not " in resp.get_json()["error"]
        assert api.ok("GET", f"/sessions/{sid}/hands/1") == before  # nothing changed
    assert api.ok("PUT", f"/sessions/{sid}/hands/1",
                  {"end": {"kind": "dead"}, "reason": "x", "version": None})["version"] == 2


@pytest.mark.parametrize("version", [0, -1])
def test_a_version_below_one_is_422_not_a_change_meanwhile(api, version):
    """No hand has version 0: a correction or a void made from it was a 409 "changed
    meanwhile" naming whoever made the last change."""
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", TONK_OUT, 201)
    for method, body in (("PUT", {"end": {"kind": "dead"}, "reason": "x", "version": version}),
                         ("DELETE", {"reason": "x", "version": version})):
        resp = api(method, f"/sessions/{sid}/hands/1", body)
        assert resp.status_code == 422, resp.get_json()
        assert resp.get_json() == {"error": f"versions are numbered from 1, not {version}",
                                   "field": "version"}
    assert api.ok("GET", f"/sessions/{sid}/hands/1")["version"] == 1


def test_the_correction_form_shows_both_when_someone_changed_the_hand(db_app):
    client = db_app.test_client()
    sign_up(client)
    sid = start(client)
    assert record(client, sid, kind="tonk_out", player="Ann").status_code == 302
    page = client.get(f"/sessions/{sid}/hands/1/correct").get_data(as_text=True)
    assert 'name="version" value="1"' in page
    # meanwhile someone else voids it
    assert client.post(f"/sessions/{sid}/hands/1/void",
                       data={"reason": "misdeal", "version": "1"}).status_code == 302
    resp = client.post(f"/sessions/{sid}/hands/1/correct", data={
        "kind": "tonk_out", "player": "Bob", "reason": "it was Bob", "version": "1"})
    assert resp.status_code == 422
    page = resp.get_data(as_text=True)
    assert "hand 1 was voided by Sam at" in page
    assert "Hand 1 as it is now" in page  # the hand as it is now …
    assert 'value="Bob" checked' in page  # … beside the correction as typed
    assert 'name="version" value="2"' in page  # saving again knowingly replaces it
    resp = client.post(f"/sessions/{sid}/hands/1/correct", data={
        "kind": "tonk_out", "player": "Bob", "reason": "it was Bob", "version": "2"})
    assert resp.status_code == 302


# -- retries ---------------------------------------------------------------------------------

def test_idempotency_key_answers_the_first_answer_again(api):
    key = uuid.uuid4().hex
    first = api("POST", "/sessions", {"name": "Fri", "players": ["Ann", "Bob"]},
                headers={"Idempotency-Key": key})
    again = api("POST", "/sessions", {"name": "Fri", "players": ["Ann", "Bob"]},
                headers={"Idempotency-Key": key})
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()
    assert again.headers["Location"] == first.headers["Location"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert len(api.ok("GET", "/sessions")) == 1
    reused = api("POST", "/sessions", {"name": "Sat", "players": ["Ann", "Bob"]},
                 headers={"Idempotency-Key": key})
    assert reused.status_code == 422
    assert reused.get_json()["field"] == "Idempotency-Key"
    assert "already used for another request" in reused.get_json()["error"]


def test_an_error_answer_is_kept_too_and_bad_keys_are_refused(api):
    sid = api.start()
    key = uuid.uuid4().hex
    bad = {"end": {"kind": "drop", "player": "Bob"}}  # no counts
    first = api("POST", f"/sessions/{sid}/hands", bad, headers={"Idempotency-Key": key})
    again = api("POST", f"/sessions/{sid}/hands", bad, headers={"Idempotency-Key": key})
    assert first.status_code == again.status_code == 422
    assert first.get_json() == again.get_json()
    for wrong in ("", "x" * 256, "é"):
        resp = api("POST", f"/sessions/{sid}/hands", TONK_OUT,
                   headers={"Idempotency-Key": wrong})
        assert resp.status_code == 422, wrong
        assert resp.get_json()["field"] == "Idempotency-Key"
    assert api.ok("GET", f"/sessions/{sid}")["hands"] == 0


def test_a_key_commits_with_the_change_it_guards_or_not_at_all(db_app):
    """A request that dies before its change commits leaves its key free to be sent again;
    one whose change committed is never carried out twice, even if its answer was lost."""
    from app.db import idempotency
    from app.db.models import GameSession, RequestKey, User
    from app.services.sessions import ledger

    api = Api(db_app.test_client(), account(db_app, "ann@example.com", "Ann"))
    sid = api.start()
    with db_app.app_context():
        user_id = db.session.scalar(db.select(User.id))

        def keys() -> int:
            return db.session.scalar(db.select(db.func.count()).select_from(RequestKey))

        def record(data):
            user = db.session.get(User, user_id)
            gs = db.session.get(GameSession, sid)
            assert gs is not None and user is not None
            return ledger.record_hand(gs, user, data)

        held = idempotency.claim(user_id, "k", "print")
        assert isinstance(held, idempotency.Claim)
        with pytest.raises(TonkError):  # the change is refused …
            record({"end": {}})
        idempotency.release(held)  # … and the request ends: its key is free again
        assert keys() == 0
        assert isinstance(idempotency.claim(user_id, "k", "print"), idempotency.Claim)
        db.session.rollback()  # the process "dies" before its change: nothing is left
        assert keys() == 0
        assert isinstance(idempotency.claim(user_id, "k", "print"), idempotency.Claim)
        with unit_of_work():
            record(TONK_OUT)  # the key commits with the hand; then the process dies
        assert keys() == 1
        monkey = pytest.MonkeyPatch()
        monkey.setattr(idempotency, "WAIT_SECONDS", 0.2)
        try:
            with pytest.raises(idempotency.InProgressError, match="carried out, but its "
                               "answer was lost"):
                idempotency.claim(user_id, "k", "print")
        finally:
            monkey.undo()
        assert db.session.execute(text("SELECT count(*) FROM hands")).scalar() == 1
        db.session.remove()


def test_a_write_request_commits_once(db_app, api):
    """The token's last use, the key, the hand and the answer kept for a retry: one commit."""
    from app.db.models import ApiToken, RequestKey

    sid = api.start()
    with db_app.app_context():
        db.session.execute(update(ApiToken).values(last_used_at=None))  # its use is due
        db.session.commit()
        with counting_commits(db.engine) as commits:
            resp = api("POST", f"/sessions/{sid}/hands", TONK_OUT,
                       headers={"Idempotency-Key": "one-commit"})
        assert resp.status_code == 201
        assert len(commits) == 1
        kept = db.session.scalar(db.select(RequestKey))
        assert (kept.state, kept.status) == ("done", 201)
        assert json.loads(kept.body) == resp.get_json()
        assert db.session.scalar(db.select(ApiToken.last_used_at)) is not None
        db.session.remove()


@contextmanager
def commit_fails_once(engine: Any) -> Iterator[list[int]]:
    """The engine's next COMMIT fails as when the database goes away at that moment; the
    list yielded holds one item once it has."""
    failed: list[int] = []

    def fail_once(_conn: Any) -> None:
        if not failed:
            failed.append(1)
            raise OperationalError("COMMIT", {}, psycopg.OperationalError(
                "consuming input failed: server closed the connection unexpectedly"))

    event.listen(engine, "commit", fail_once)
    try:
        yield failed
    finally:
        event.remove(engine, "commit", fail_once)


def test_a_failed_commit_keeps_neither_the_change_nor_its_key(db_app, api):
    """The one commit fails (the database goes away at that moment): the answer is 503, no
    hand and no key are kept, and the same request sent again is carried out, once."""
    from app.db.models import RequestKey

    sid = api.start()
    with db_app.app_context():
        with commit_fails_once(db.engine) as failed:
            resp = api("POST", f"/sessions/{sid}/hands", TONK_OUT,
                       headers={"Idempotency-Key": "k-fail"})
        assert failed and resp.status_code == 503, resp.get_json()
        db.session.rollback()
        assert db.session.execute(text("SELECT count(*) FROM hands")).scalar() == 0
        assert db.session.scalar(db.select(db.func.count()).select_from(RequestKey)) == 0
        again = api("POST", f"/sessions/{sid}/hands", TONK_OUT,
                    headers={"Idempotency-Key": "k-fail"})
        assert again.status_code == 201 and "Idempotent-Replayed" not in again.headers
        assert db.session.execute(text("SELECT count(*) FROM hands")).scalar() == 1
        db.session.remove()


def test_a_resent_form_saves_once(db_app):
    client = db_app.test_client()
    sign_up(client)
    sid = start(client)
    page = client.get(f"/sessions/{sid}/hands/new").get_data(as_text=True)
    found = re.search(r'name="once" value="([^"]+)"', page)
    assert found is not None
    once = found.group(1)
    form = {"kind": "tonk_out", "player": "Ann", "once": once}
    first = record(client, sid, **form)
    again = record(client, sid, **form)
    assert first.status_code == again.status_code == 302
    assert first.location == again.location
    assert "That was sent twice: it is saved once." in client.get(
        again.location).get_data(as_text=True)
    with db_app.app_context():
        assert db.session.execute(text("SELECT count(*) FROM hands")).scalar() == 1
    # a form shown again with its errors can be sent again, corrected, with its new token
    resp = record(client, sid, kind="drop", player="Ann", once="another")
    assert resp.status_code == 422
    assert record(client, sid, kind="tonk_out", player="Bob", once="another").status_code == 302


def test_a_form_write_commits_once(db_app):
    """A form sent with its one-time token: the token spent, the change and where the form
    led (kept for a repeat) in one commit, for every kind of change a page makes."""
    from app.db.models import RequestKey

    client = db_app.test_client()
    sign_up(client)
    sid = start(client)
    writes = [
        (f"/sessions/{sid}/hands/new", {"kind": "tonk_out", "player": "Ann"}),
        (f"/sessions/{sid}/hands/new", {"kind": "tonk_out", "player": "Bob"}),
        (f"/sessions/{sid}/hands/1/correct", {"kind": "tonk_out", "player": "Cy",
                                              "reason": "it was Cy", "version": "1"}),
        (f"/sessions/{sid}/hands/2/void", {"reason": "misdeal", "version": "1"}),
        (f"/sessions/{sid}/payments", {"payer": "Ann", "payee": "Cy", "amount": "0.20"}),
        (f"/sessions/{sid}/seats", {"join": "Dee", "after": "Cy"}),
        (f"/sessions/{sid}/seats", {"leave": "Dee"}),
    ]
    with db_app.app_context():
        engine = db.engine
    for number, (path, form) in enumerate(writes):
        once = f"form-{number}"
        with counting_commits(engine) as commits:
            resp = client.post(path, data={**form, "once": once})
        assert resp.status_code == 302, (path, errors_of(resp))
        assert len(commits) == 1, path
        with db_app.app_context():
            kept = db.session.scalar(db.select(RequestKey).where(
                RequestKey.key == "form:" + once))
            assert (kept.state, kept.location) == ("done", resp.location), path
        with counting_commits(engine) as commits:  # sent again: saved once
            again = client.post(path, data={**form, "once": once})
        assert (again.status_code, again.location) == (302, resp.location), path
        assert not commits, path
    with db_app.app_context():
        assert db.session.execute(text("SELECT count(*) FROM hands")).scalar() == 2
        assert db.session.execute(
            text("SELECT count(*) FROM settle_payments")).scalar() == 1


def test_a_change_a_form_answers_with_a_page_is_kept_with_its_token(db_app):
    """A form whose change is answered with a page rather than sent on: the change and the
    token still commit together (a repeat goes home, saying it was saved once)."""
    from app.db.models import GameSession
    from app.services.sessions import ledger
    from app.web.shared.form_tokens import once_per_form
    from app.web.shared.site import me

    @once_per_form
    def record_and_show(session_id: int) -> str:
        ledger.record_hand(fetched(GameSession, session_id), me(), TONK_OUT)
        return "recorded"

    db_app.add_url_rule("/test/<int:session_id>/record", "record_and_show", record_and_show,
                        methods=["POST"])
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob"))
    for _ in range(2):
        resp = client.post(f"/test/{sid}/record", data={"once": "page"})
    assert resp.status_code == 302
    assert "That was sent twice" in client.get(resp.location).get_data(as_text=True)
    with db_app.app_context():
        assert db.session.execute(text("SELECT count(*) FROM hands")).scalar() == 1


def test_a_failed_form_commit_keeps_neither_the_change_nor_its_token(db_app):
    """The one commit of a form fails: 503, the hand as it was, the token unspent and
    nothing said of a change; the same form sent again makes the change, once."""
    from app.db.models import RequestKey

    client = db_app.test_client()
    sign_up(client)
    sid = start(client)
    assert record(client, sid, kind="tonk_out", player="Ann").status_code == 302
    path = f"/sessions/{sid}/hands/1/correct"
    form = {"kind": "tonk_out", "player": "Bob", "reason": "it was Bob", "version": "1",
            "once": "fails-once"}
    with db_app.app_context():
        engine = db.engine
    with commit_fails_once(engine) as failed:
        resp = client.post(path, data=form)
    assert failed and resp.status_code == 503
    assert "is corrected" not in resp.get_data(as_text=True)  # nothing said to be saved

    def stored() -> tuple[int, int]:
        with db_app.app_context():
            return (db.session.execute(text("SELECT version FROM hands")).scalar_one(),
                    db.session.execute(db.select(db.func.count()).select_from(RequestKey))
                    .scalar_one())

    assert stored() == (1, 0)
    assert "is corrected" not in client.get(f"/sessions/{sid}").get_data(as_text=True)
    again = client.post(path, data=form)
    assert again.status_code == 302
    page = client.get(again.location).get_data(as_text=True)
    assert "Hand 1 is corrected" in page and "That was sent twice" not in page
    assert stored() == (2, 1)


# -- faults ----------------------------------------------------------------------------------

@pytest.fixture
def read_only(db_app, tmp_path):
    """The same database, opened read-only (as after a mount goes read-only)."""
    url = db_app.config["SQLALCHEMY_DATABASE_URI"]
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        return make_app(f"sqlite:///file:{path}?mode=ro&uri=true")
    return make_app(url, SQLALCHEMY_ENGINE_OPTIONS={
        "connect_args": {"options": "-c default_transaction_read_only=on"}})


def test_a_read_only_database_answers_503_naming_it_and_reads_still_work(db_app, read_only):
    token = account(db_app, "ann@example.com", "Ann")
    writer = Api(db_app.test_client(), token)
    sid = writer.start()
    writer.ok("POST", f"/sessions/{sid}/hands", TONK_OUT, 201)
    api = Api(read_only.test_client(), token)
    assert api.ok("GET", f"/sessions/{sid}/ledger")["totals"]["Ann"] == "1.50"
    resp = api("POST", f"/sessions/{sid}/hands", TONK_OUT,
               headers={"Idempotency-Key": "k1"})
    assert resp.status_code == 503
    assert resp.headers["Retry-After"] == "2"
    assert "read-only" in resp.get_json()["error"]
    signed_in = db_app.test_client()  # signing in writes (a sign-in row): before the fault
    assert signed_in.post("/signin", data={"email": "ann@example.com",
                                           "password": "correct horse"}).status_code == 302
    page = read_only.test_client()
    page.set_cookie("session", signed_in.get_cookie("session").value)
    assert page.get(f"/sessions/{sid}").status_code == 200
    cannot = read_only.test_client().post("/signin", data={"email": "ann@example.com",
                                                           "password": "correct horse"})
    assert cannot.status_code == 503 and "read-only" in cannot.get_data(as_text=True)
    resp = page.post(f"/sessions/{sid}/hands/new", data={"kind": "tonk_out", "player": "Bob"})
    assert resp.status_code == 503
    assert "the database is read-only" in resp.get_data(as_text=True)
    assert api.ok("GET", f"/sessions/{sid}")["hands"] == 1


def test_an_unreachable_database_is_a_503_for_anyone_signed_in_or_not(db_app):
    """The fault's answer needs nothing from the database that failed: the account of a
    sign-in cookie or a token is not loaded for it (its language neither)."""
    from tests.live import free_port

    token = account(db_app, "ann@example.com", "Ann")
    signed_in = db_app.test_client()
    assert signed_in.post("/signin", data={"email": "ann@example.com",
                                           "password": "correct horse"}).status_code == 302
    assert signed_in.post("/language", data={"code": "de"}).status_code == 303  # the account's
    gone = make_app(f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/gone")
    page = gone.test_client()
    page.set_cookie("session", signed_in.get_cookie("session").value)
    api = Api(gone.test_client(), token)
    anyone = gone.test_client()
    answers = [page.get("/"), page.get("/sessions/1"), page.get("/account"),
               page.post("/sessions/1/hands/new", data={"kind": "tonk_out", "player": "Ann"}),
               anyone.get("/s/abc"), anyone.get("/s/abc/live"),
               anyone.get("/api/v1/share/abc"),
               api("GET", "/sessions"), api("POST", "/sessions/1/hands", TONK_OUT)]
    for resp in answers:
        assert resp.status_code == 503, (resp.request.path, resp.status_code)
        assert resp.headers["Retry-After"] == "2"
        assert "cannot be reached" in resp.get_data(as_text=True)
    assert answers[0].mimetype == "text/html" and "<main" in answers[0].get_data(as_text=True)
    assert answers[-1].get_json()["error"] == \
        "the database server cannot be reached: try again in a moment"
    german = anyone.get("/s/abc", headers={"Accept-Language": "de"})
    assert german.status_code == 503 and "Datenbank" in german.get_data(as_text=True)


def test_a_full_disk_answers_503_and_keeps_what_was_saved(tmp_path):
    app = make_app(f"sqlite:///{tmp_path / 'full.sqlite'}")
    token = account(app, "ann@example.com", "Ann") if _created(app) else ""
    api = Api(app.test_client(), token)
    sid = api.start()
    with app.app_context():
        pages = db.session.execute(text("PRAGMA page_count")).scalar()
        assert pages is not None

        @event.listens_for(db.engine, "connect")
        def _no_room(dbapi_connection, _record):  # the disk fills a few pages from now
            dbapi_connection.execute(f"PRAGMA max_page_count = {pages + 3}")

        db.session.remove()
        db.engine.dispose()
    for _ in range(200):
        resp = api("POST", f"/sessions/{sid}/hands", TONK_OUT)
        if resp.status_code != 201:
            break
    assert resp.status_code == 503
    assert "the disk is full" in resp.get_json()["error"]
    saved = api.ok("GET", f"/sessions/{sid}")["hands"]
    assert saved >= 1
    assert api.ok("GET", f"/sessions/{sid}/ledger")["totals"]["Ann"] == f"{saved * 1.5:.2f}"
    assert stored_problems(app) == []


def _created(app) -> bool:
    with app.app_context():
        db.create_all()
    return True


# -- tonk check ------------------------------------------------------------------------------

def test_tonk_check_finds_a_total_that_drifted(db_app):
    api = Api(db_app.test_client(), account(db_app, "ann@example.com", "Ann"))
    sid = api.start()
    for hand, _outcome, _net in EVERY_END:
        api.ok("POST", f"/sessions/{sid}/hands", hand, 201)
    runner = db_app.test_cli_runner()
    clean = runner.invoke(cli, ["check"])
    assert clean.exit_code == 0, clean.output
    with db_app.app_context():
        db.session.execute(update(SessionPlayer).where(SessionPlayer.name == "Bob")
                           .values(total_minor=SessionPlayer.total_minor + 25))
        db.session.execute(text("UPDATE hands SET number = 9 WHERE number = 3"))
        db.session.commit()
    broken = runner.invoke(cli, ["check"])
    assert broken.exit_code == 1
    assert re.search(r"session \d+ \(Friday\): Bob's total is -?\d+\.\d\d but their hands "
                     r"add up to -?\d+\.\d\d", broken.output)
    assert "do not sum" not in broken.output  # the hands themselves still do
    assert "the totals sum to 0.25" in broken.output
    assert "it says 7 hands, but holds 7 numbered 1 to 9" in broken.output
    with db_app.app_context():  # put it back, for the check after the test
        db.session.execute(update(SessionPlayer).where(SessionPlayer.name == "Bob")
                           .values(total_minor=SessionPlayer.total_minor - 25))
        db.session.execute(text("UPDATE hands SET number = 3 WHERE number = 9"))
        db.session.commit()
    assert stored_problems(db_app) == []


def test_tonk_check_allows_a_payment_a_later_void_left_to_be_paid_back(db_app):
    """Run out by Ann, Bob pays Ann 1.00, the hand is voided: the ledger rightly plans
    Ann → Bob 1.00, and the check agrees (it said "Ann has paid or been paid 1.00 against a
    total of 0.00")."""
    api = Api(db_app.test_client(), account(db_app, "ann@example.com", "Ann"))
    sid = api.start(players=["Ann", "Bob"], stake="1.00", first_dealer="Bob")
    base = f"/sessions/{sid}"
    api.ok("POST", base + "/hands", {"end": {"kind": "run_out", "player": "Ann"}}, 201)
    assert api.ok("GET", base + "/ledger")["open"] == [
        {"from": "Bob", "to": "Ann", "amount": "1.00", "pay": []}]
    api.ok("POST", base + "/payments", {"from": "Bob", "to": "Ann", "amount": "1.00"})
    api.ok("DELETE", base + "/hands/1", {"reason": "misdeal", "version": 1})
    assert api.ok("GET", base + "/ledger")["open"] == [
        {"from": "Ann", "to": "Bob", "amount": "1.00", "pay": []}]  # no handles kept
    clean = db_app.test_cli_runner().invoke(cli, ["check"])
    assert clean.exit_code == 0, clean.output
    assert stored_problems(db_app) == []


def test_tonk_check_still_finds_a_payment_past_what_was_owed(db_app):
    api = Api(db_app.test_client(), account(db_app, "ann@example.com", "Ann"))
    sid = api.start(players=["Ann", "Bob"], stake="1.00", first_dealer="Bob")
    base = f"/sessions/{sid}"
    api.ok("POST", base + "/hands", {"end": {"kind": "run_out", "player": "Ann"}}, 201)
    api.ok("POST", base + "/payments", {"from": "Bob", "to": "Ann", "amount": "1.00"})
    with db_app.app_context():  # nothing changed after it, yet it is now 50.00
        db.session.execute(text("UPDATE settle_payments SET amount_minor = 5000"))
        db.session.commit()
    broken = db_app.test_cli_runner().invoke(cli, ["check"])
    assert broken.exit_code == 1
    assert "Bob has paid or been paid 50.00 against a total of -1.00" in broken.output
    assert "50.00 was paid along a planned transfer of 1.00" in broken.output
    with db_app.app_context():
        db.session.execute(text("UPDATE settle_payments SET amount_minor = 100"))
        db.session.commit()
    assert stored_problems(db_app) == []


# -- backup and restore ----------------------------------------------------------------------

def _everything(api: Api, sid: int) -> dict[str, object]:
    """All a session shows through the API: itself, every hand with its history, the
    ledger."""
    session = api.ok("GET", f"/sessions/{sid}")
    hands = {n: (api.ok("GET", f"/sessions/{sid}/hands/{n}"),
                 api.ok("GET", f"/sessions/{sid}/hands/{n}/history"))
             for n in range(1, session["hands"] + 1)}
    return {"session": session, "hands": hands,
            "ledger": api.ok("GET", f"/sessions/{sid}/ledger")}


@pytest.mark.parametrize("target", ["sqlite", "postgresql"])
def test_backup_restores_into_an_empty_database_of_either_kind(db_app, target, tmp_path,
                                                                request):
    token = account(db_app, "ann@example.com", "Ann")
    api = Api(db_app.test_client(), token)
    sid = api.start()
    for hand, _outcome, _net in EVERY_END:
        api.ok("POST", f"/sessions/{sid}/hands", hand, 201)
    api.ok("PUT", f"/sessions/{sid}/hands/2", {**DROP_CAUGHT, "reason": "a drop, really"})
    api.ok("DELETE", f"/sessions/{sid}/hands/3", {"reason": "misdeal"})
    transfer = api.ok("GET", f"/sessions/{sid}/ledger")["transfers"][0]
    api.ok("POST", f"/sessions/{sid}/payments", {"from": transfer["from"],
                                                 "to": transfer["to"], "amount": "0.05"})
    before = _everything(api, sid)
    page_before = _page(db_app, sid)

    runner = db_app.test_cli_runner()
    with db_app.app_context():  # as if made by the migrations: it has a schema revision
        stamp()
    file = tmp_path / "club.tonk.gz"
    made = runner.invoke(cli, ["backup", str(file)])
    assert made.exit_code == 0, made.output

    url = (f"sqlite:///{tmp_path / 'restored.sqlite'}" if target == "sqlite"
           else other_pg_url(request))
    restored = make_app(url)
    with restored.app_context():
        db.drop_all()
        db.session.execute(text("DROP TABLE IF EXISTS alembic_version"))
        db.session.commit()
    runner = restored.test_cli_runner()
    done = runner.invoke(cli, ["restore", str(file)])
    assert done.exit_code == 0, done.output
    assert _everything(Api(restored.test_client(), token), sid) == before
    assert _page(restored, sid) == page_before
    assert stored_problems(restored) == []
    again = runner.invoke(cli, ["restore", str(file)])  # not into a database with data
    assert again.exit_code == 1
    assert "restore into an empty database" in again.output
    with restored.app_context():  # the next id follows the restored ones
        Api(restored.test_client(), token).ok("POST", f"/sessions/{sid}/hands", TONK_OUT, 201)
        db.session.remove()
        db.engine.dispose()


def _page(app, sid: int) -> str:
    client = app.test_client()
    assert client.post("/signin", data={"email": "ann@example.com",
                                        "password": "correct horse"}).status_code == 302
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    return re.sub(r'name="(csrf_token|once)" value="[^"]*"', "", page)


def test_a_damaged_backup_restores_nothing(db_app, tmp_path):
    runner = db_app.test_cli_runner()
    cut = tmp_path / "cut.gz"
    with gzip.open(cut, "wt") as out:
        out.write(json.dumps({"format": "tonk-tally-backup", "version": 1,
                              "schema": None}) + "\n")
    resp = runner.invoke(cli, ["restore", str(cut)])
    assert resp.exit_code == 1
    not_gz = tmp_path / "x.gz"
    not_gz.write_bytes(io.BytesIO(b"hello").getvalue())
    resp = runner.invoke(cli, ["restore", str(not_gz)])
    assert resp.exit_code == 1 and "not a readable Tonk Tally backup" in resp.output


# -- SQLite on a read-only filesystem: reading goes on -------------------------------------

@pytest.fixture
def read_only_mount(tmp_path):
    """A folder on a filesystem of its own, to be made read-only (a small tmpfs: needs the
    right to mount, else the test is skipped); unmounted afterwards."""
    import shutil
    import subprocess

    folder = tmp_path / "mount"
    folder.mkdir()
    if shutil.which("mount") is None or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)],
            capture_output=True).returncode != 0:
        pytest.skip("cannot mount a filesystem here (needs root)")

    def read_only() -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)

    yield folder, read_only
    subprocess.run(["umount", "-l", str(folder)], check=False)


def test_sqlite_on_a_read_only_filesystem_still_reads(read_only_mount, sqlite_schema):
    import shutil

    folder, read_only = read_only_mount
    path = folder / "club.sqlite"
    shutil.copyfile(sqlite_schema, path)
    url = f"sqlite:///{path}"
    app = make_app(url)
    token = account(app, "ann@example.com", "Ann")
    api = Api(app.test_client(), token)
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "tonk_out", "player": "Ann"}},
           201)
    share = api.ok("GET", f"/sessions/{sid}")["share_url"]
    with app.app_context():
        db.session.remove()
        db.engine.dispose()  # the app stops; its WAL is checkpointed and removed
    assert not (folder / "club.sqlite-wal").exists()
    read_only()
    served = make_app(url)  # starts again on the read-only disk
    api = Api(served.test_client(), token)
    assert api.ok("GET", f"/sessions/{sid}/ledger")["totals"]["Ann"] == "1.50"
    assert served.test_client().get(share).status_code == 200
    refused = api("POST", f"/sessions/{sid}/hands", {"end": {"kind": "tonk_out",
                                                             "player": "Bob"}})
    assert refused.status_code == 503 and "read-only" in refused.get_json()["error"]
    with served.app_context():
        db.session.remove()
        db.engine.dispose()
