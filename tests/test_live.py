"""The live share view: ``GET /api/v1/share/{token}`` answers the state with an ETag that is
the session's revision, 304 while nothing changed, and a new body after every change of the
session's money, whichever worker or server made it; a change that fails moves nothing."""
from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from sqlalchemy import select

from app.db.models import GameSession, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.services.sessions import ledger
from app.services.sessions.live import StateCache, stamp_by_token
from tests.apps import statements_sent
from tests.clients import Api


def _night(app) -> tuple[int, str, int]:
    with app.app_context(), unit_of_work():
        user = User(email="keeper@example.com", name="Keeper", password_hash="-")
        db.session.add(user)
        db.session.flush()
        gs = ledger.create_session(user, name="Friday", players=["Ann", "Bob", "Cy"],
                                   stake="0.25")
        return gs.id, gs.share_token, user.id


def _change(app, session_id: int, user_id: int, what: str) -> None:
    with app.app_context(), unit_of_work():
        gs, user = db.session.get(GameSession, session_id), db.session.get(User, user_id)
        assert gs is not None and user is not None
        if what == "record":
            ledger.record_hand(gs, user, {"end": {"kind": "tonk_out", "player": "Ann"}})
        elif what == "correct":
            ledger.correct_hand(gs, user, 1, {"end": {"kind": "tonk_out", "player": "Bob"}},
                                "it was Bob")
        elif what == "void":
            ledger.void_hand(gs, user, 1, "misdeal")
        elif what == "rules":
            ledger.change_rules(gs, user, rules="chicago", stake="1")
        elif what == "pay":
            ledger.record_payment(gs, user, "Bob", "Ann", "0.25")


def test_the_share_state_with_its_etag_and_304(db_app):
    session_id, token, user_id = _night(db_app)
    client = db_app.test_client()
    first = client.get(f"/api/v1/share/{token}")
    assert first.status_code == 200
    body = first.get_json()
    assert body["session"]["name"] == "Friday" and body["hands"] == 0
    assert [s["name"] for s in body["seats"]] == ["Ann", "Bob", "Cy"]
    assert body["totals"] == {"Ann": "0.00", "Bob": "0.00", "Cy": "0.00"}
    assert body["transfers"] == [] and body["pots"] == {} and body["dealer"] == "Ann"
    assert body["updated_at"] and body["revision"] == 0
    tag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "no-cache"
    again = client.get(f"/api/v1/share/{token}", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == tag

    _change(db_app, session_id, user_id, "record")
    changed = client.get(f"/api/v1/share/{token}", headers={"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    state = changed.get_json()
    assert state["hands"] == 1 and state["revision"] == 1
    assert state["totals"] == {"Ann": "1.00", "Bob": "-0.50", "Cy": "-0.50"}
    assert state["last_hands"][0] | {"values": None} == {
        "number": 1, "version": 1, "voided": False, "corrected": False, "multiplier": 1,
        "outcome": "tonk_out", "winners": ["Ann"], "values": None}
    assert state["transfers"] == [{"from": "Bob", "to": "Ann", "amount": "0.50"},
                                  {"from": "Cy", "to": "Ann", "amount": "0.50"}]
    assert state["dealer"] == "Bob"
    assert state["updated_at"] >= body["updated_at"]


@pytest.mark.parametrize("what", ["correct", "void", "rules", "pay"])
def test_every_change_moves_the_revision(db_app, what):
    session_id, token, user_id = _night(db_app)
    _change(db_app, session_id, user_id, "record")
    client = db_app.test_client()
    before = client.get(f"/api/v1/share/{token}")
    _change(db_app, session_id, user_id, what)
    after = client.get(f"/api/v1/share/{token}",
                       headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200
    assert after.get_json()["revision"] == before.get_json()["revision"] + 1
    last = after.get_json()["last_hands"][0]
    if what == "correct":
        assert last["corrected"] and last["winners"] == ["Bob"] and last["version"] == 2
    if what == "void":
        assert last["voided"] and not last["corrected"]


def test_a_change_that_fails_moves_nothing(db_app):
    from app.services.errors import LedgerError

    session_id, token, user_id = _night(db_app)
    with db_app.app_context():
        gs, user = db.session.get(GameSession, session_id), db.session.get(User, user_id)
        assert gs is not None and user is not None
        with pytest.raises(LedgerError), unit_of_work():
            ledger.record_payment(gs, user, "Ann", "Bob", "1.00")  # nobody owes anything
        assert stamp_by_token(token).revision == 0


def test_the_etag_follows_the_language(app):
    _session_id, token, _user_id = _night(app)
    client = app.test_client()
    english = client.get(f"/api/v1/share/{token}", headers={"Accept-Language": "en"})
    german = client.get(f"/api/v1/share/{token}", headers={"Accept-Language": "de"})
    assert english.headers["ETag"] != german.headers["ETag"]
    assert "Accept-Language" in english.headers["Vary"]
    assert client.get(f"/api/v1/share/{token}", headers={
        "Accept-Language": "de", "If-None-Match": english.headers["ETag"]}).status_code == 200


def test_an_unchanged_poll_is_answered_before_the_app_with_the_same_headers(db_app):
    """A phone not signed in polling an unchanged state gets its 304 from the one row,
    without a request of the app (no session, sign-in, CSRF or snapshot set up), with every
    header the app's own 304 has; a changed state, a signed-in reader and an unknown link
    go on to the app."""
    from flask import request_started
    from werkzeug.test import Client

    session_id, token, user_id = _night(db_app)
    client = db_app.test_client()
    path = f"/api/v1/share/{token}"
    tag = client.get(path, headers={"Accept-Language": "de"}).headers["ETag"]
    started: list[str] = []

    def note(_sender, **_extra):
        started.append("request")

    request_started.connect(note, db_app)
    try:
        fast = client.get(path, headers={"If-None-Match": tag, "Accept-Language": "de"})
        assert fast.status_code == 304 and fast.data == b"" and not started
        app_only = Client(db_app.wsgi_app.wsgi).get(  # the app's own answer
            path, headers={"If-None-Match": tag, "Accept-Language": "de"})
        assert started and app_only.status_code == 304
        assert sorted(fast.headers.items()) == sorted(app_only.headers.items())
        assert fast.headers["Content-Security-Policy"] and fast.headers["ETag"] == tag
        started.clear()
        english = client.get(path, headers={"If-None-Match": tag, "Accept-Language": "en"})
        assert english.status_code == 200 and started  # another language: another state
        started.clear()
        client.set_cookie("lang", "de")
        assert client.get(path, headers={"If-None-Match": tag}).status_code == 304
        assert not started  # the switcher's cookie names the language too
        client.set_cookie("session", "someone")
        assert client.get(path, headers={"If-None-Match": tag}).status_code == 304
        assert started  # a signed-in reader's language may be the account's: the app asks
        started.clear()
        assert client.get("/api/v1/share/nothing-here",
                          headers={"If-None-Match": tag}).status_code == 404
        assert started
    finally:
        request_started.disconnect(note, db_app)
    _change(db_app, session_id, user_id, "record")
    assert client.get(path, headers={"If-None-Match": tag}).status_code == 200


def test_tonk_serve_answers_an_unchanged_poll_in_its_event_loop(db_app):
    """Under ``tonk serve`` the same front sits in the ASGI event loop, before the app's
    threads: an unchanged poll (GET or HEAD) gets the same 304 and headers as the WSGI
    front gives, without reaching the app; another language, a signed-in reader, an
    unknown link and a changed state go on to it."""
    import asyncio

    from app.api.share import PollsInTheLoop

    session_id, token, user_id = _night(db_app)
    client = db_app.test_client()
    path = f"/api/v1/share/{token}"
    tag = client.get(path, headers={"Accept-Language": "de"}).headers["ETag"]
    wsgi = client.get(path, headers={"If-None-Match": tag, "Accept-Language": "de"})
    assert wsgi.status_code == 304
    passed: list[str] = []

    async def app(scope, _receive, _send):
        passed.append(scope["path"])

    front = PollsInTheLoop(db_app.wsgi_app, app)

    def ask(headers: dict[str, str], where: str = path, method: str = "GET",
            repeat: tuple[bytes, bytes] | None = None) -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": method, "path": where, "query_string": b"",
                 "http_version": "1.1", "headers": [
                     (k.lower().encode(), v.encode()) for k, v in headers.items()]
                 + ([repeat] if repeat else [])}
        asyncio.run(front(scope, None, send))
        return sent

    try:
        for method in ("GET", "HEAD"):
            start, body = ask({"If-None-Match": tag, "Accept-Language": "de"}, method=method)
            assert start["status"] == 304 and body["body"] == b"" and not passed
            assert sorted((k.decode(), v.decode()) for k, v in start["headers"]) == sorted(
                (k.lower(), v) for k, v in wsgi.headers.items())
        assert ask({"If-None-Match": tag, "Cookie": "lang=de"})[0]["status"] == 304
        assert ask({"If-None-Match": tag, "Cookie": "lang=de", "Content-Length": "0"}
                   )[0]["status"] == 304  # no body: nothing to read
        for announced in ({"Content-Length": "5"}, {"Transfer-Encoding": "chunked"}):
            # a body the loop would not read: the app reads it, then answers
            assert ask({"If-None-Match": tag, "Cookie": "lang=de", **announced}) == []
        # the repeated headers joined as the bridge joins them: "xx,de" is German
        assert ask({"If-None-Match": tag, "Accept-Language": "xx"}, repeat=(
            b"accept-language", b"de"))[0]["status"] == 304
        assert ask({"If-None-Match": tag, "Accept-Language": "en"}) == [] and passed
        assert ask({"If-None-Match": tag, "Cookie": "lang=de; session=someone"}) == []
        assert ask({"If-None-Match": tag}, "/api/v1/share/nothing-here") == []
        assert ask({"Accept-Language": "de"}) == []  # no ETag: the state itself
        assert len(passed) == 6
        _change(db_app, session_id, user_id, "record")
        assert ask({"If-None-Match": tag, "Accept-Language": "de"}) == [] and len(passed) == 7
    finally:
        if front.pool is not None:
            front.pool.shutdown()


def test_a_worker_past_its_streams_answers_503_with_retry_after_at_once(app):
    """Past ``limit`` open streams a worker refuses the next one at once (the page polls
    instead); a stream that ends frees its place; everything else goes on to the app."""
    import asyncio

    from app.api.stream import Streams
    from app.http.doors import Answers

    _session_id, token, _user_id = _night(app)
    passed: list[str] = []

    async def inner(scope, _receive, _send):
        passed.append(scope["path"])

    streams = Streams(app, inner, Answers(app), limit=1)
    path = f"/api/v1/share/{token}/stream"

    def scope(where: str = path) -> dict[str, Any]:
        return {"type": "http", "method": "GET", "path": where, "query_string": b"",
                "http_version": "1.1", "headers": []}

    async def night() -> None:
        first: list[dict[str, Any]] = []
        leave = asyncio.Event()

        async def receive():
            await leave.wait()
            return {"type": "http.disconnect"}

        async def send_first(message):
            first.append(message)

        held = asyncio.create_task(streams(scope(), receive, send_first))
        while len(first) < 2:
            await asyncio.sleep(0.01)
        assert first[0]["status"] == 200 and b"retry: 2000" in first[1]["body"]
        assert streams.open == 1
        second: list[dict[str, Any]] = []

        async def send_second(message):
            second.append(message)

        await streams(scope(), receive, send_second)
        assert second[0]["status"] == 503 and (b"retry-after", b"2") in second[0]["headers"]
        assert streams.refused == 1
        leave.set()
        await held
        assert streams.open == 0
        await streams(scope("/api/v1/share/" + token), receive, send_second)
        assert passed == ["/api/v1/share/" + token]
        streams.watch.stop()

    asyncio.run(night())


def test_an_unknown_or_replaced_link_is_404(app):
    session_id, token, _user_id = _night(app)
    client = app.test_client()
    missing = client.get("/api/v1/share/nothing-here")
    assert missing.status_code == 404 and "error" in missing.get_json()
    with app.app_context(), unit_of_work():
        gs = db.session.get(GameSession, session_id)
        assert gs is not None
        ledger.replace_share_link(gs)
    assert client.get(f"/api/v1/share/{token}").status_code == 404


def test_the_state_cache_keeps_the_newest():
    cache: StateCache[int] = StateCache(2)
    made: list[str] = []

    def make(key: str) -> int:
        made.append(key)
        return len(made)

    assert cache.get("a", lambda: make("a")) == 1
    assert cache.get("a", lambda: make("a")) == 1
    cache.get("b", lambda: make("b"))
    cache.get("c", lambda: make("c"))
    assert len(cache) == 2 and made == ["a", "b", "c"]
    cache.get("a", lambda: make("a"))
    assert made == ["a", "b", "c", "a"]


def test_the_state_cache_makes_a_key_once_for_many_askers_at_once():
    """The phones of a table ask for a pushed state together: one makes it, the others wait
    for it; a maker that fails leaves the next one to make it."""
    cache: StateCache[int] = StateCache(8)
    made: list[int] = []
    started, go = threading.Event(), threading.Event()

    def make() -> int:
        started.set()
        go.wait(5)
        made.append(1)
        return 7

    got: list[int] = []
    askers = [threading.Thread(target=lambda: got.append(cache.get("k", make)))
              for _ in range(6)]
    askers[0].start()
    started.wait(5)
    for asker in askers[1:]:
        asker.start()
    go.set()
    for asker in askers:
        asker.join(5)
    assert got == [7] * 6 and made == [1]

    def fail() -> int:
        raise RuntimeError("the database went away")
    with pytest.raises(RuntimeError):
        cache.get("x", fail)
    assert cache.get("x", lambda: 3) == 3


# -- the pages that follow the game ---------------------------------------------------------

def _signed_in(app):
    from tests.clients import sign_up, start

    client = app.test_client()
    sign_up(client)
    return client, start(client, players=("Ann", "Bob", "Cy", "Dee"))


def test_a_kept_page_has_fresh_tokens_and_follows_every_change(app):
    from app.web.shared.pagecache import CSRF_MARK, ONCE_MARK
    from tests.clients import record, share_token
    from tests.expect import matched

    client, sid = _signed_in(app)
    first = client.get(f"/sessions/{sid}").get_data(as_text=True)
    second = client.get(f"/sessions/{sid}").get_data(as_text=True)
    for page in (first, second):
        assert CSRF_MARK not in page and ONCE_MARK not in page
    once = [matched(r'name="once" value="([^"]+)"', p).group(1) for p in (first, second)]
    assert once[0] != once[1]  # each request its own one-time token
    token = share_token(app, sid)
    anonymous = app.test_client()
    assert "No hands yet." in anonymous.get(f"/s/{token}").get_data(as_text=True)
    assert record(client, sid, kind="tonk_out",
                  player="Bob").status_code == 302
    page = anonymous.get(f"/s/{token}").get_data(as_text=True)
    assert "No hands yet." not in page and "Bob tonked out" in page
    assert "Who pays whom now" in page and "Updated" in page


def test_the_live_part_answers_304_until_a_change(app):
    from tests.clients import record, share_token

    client, sid = _signed_in(app)
    token = share_token(app, sid)
    anonymous = app.test_client()
    part = anonymous.get(f"/s/{token}/live")
    assert part.status_code == 200 and "<html" not in part.get_data(as_text=True)
    tag = part.headers["ETag"]
    assert anonymous.get(f"/s/{token}/live", headers={"If-None-Match": tag}).status_code == 304
    owner = client.get(f"/sessions/{sid}/live")
    assert owner.status_code == 200 and f"/sessions/{sid}/hands" not in owner.get_data(
        as_text=True)
    record(client, sid, kind="run_out", player="Cy")
    again = anonymous.get(f"/s/{token}/live", headers={"If-None-Match": tag})
    assert again.status_code == 200 and f"/s/{token}/hands/1" in again.get_data(as_text=True)
    assert f"/sessions/{sid}/hands/1" in client.get(f"/sessions/{sid}/live").get_data(
        as_text=True)
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert f'data-poll="/api/v1/share/{token}"' in page
    assert f'<html lang="en" data-stream="/api/v1/share/{token}/stream">' in page  # as served
    shared = anonymous.get(f"/s/{token}").get_data(as_text=True)
    assert f'data-stream="/api/v1/share/{token}/stream"' in shared
    assert f'data-part="/sessions/{sid}/live"' in page


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_amounts_are_written_as_babel_writes_them(app, lang):
    from decimal import Decimal

    from flask_babel import format_decimal

    from app.web.shared.present import amount

    with app.test_request_context(headers={"Accept-Language": lang}):
        for value in ("0", "0.25", "-1234.5", "1234567.89", "999.995"):
            d = Decimal(value).quantize(Decimal("0.01"))
            assert amount(d, "money") == format_decimal(abs(d), format="#,##0.00")
            assert amount(d.quantize(Decimal(1)), "points") == format_decimal(
                abs(d.quantize(Decimal(1))), format="#,##0")


def test_axis_labels_do_not_overlap():
    from app.web.shared.chart import axis_values

    def at(value: int) -> float:  # 180 px from -100 to 10,000
        return 10 + (10_000 - value) / 10_100 * 180

    assert axis_values(-100, 10_000, at) == [-100, 10_000]  # 0 is 1.8 px from -1.00
    assert axis_values(-5_000, 5_000, at) == [-5_000, 0, 5_000]
    assert axis_values(0, 300, at) == [0, 300]


def test_pages_read_a_fixed_number_of_rows_sets_however_many_hands(app):
    """No N+1: the share page and the session page cost as many statements with 30 hands as
    with 3 when first drawn, and the share page one statement once it is kept."""
    from app.web.sessions import pages as routes
    from app.web.shared.pagecache import PAGES
    from tests.clients import record, share_token

    client, sid = _signed_in(app)
    token = share_token(app, sid)
    anonymous = app.test_client()
    counts = []
    for hands in (3, 30):
        with app.app_context():
            gs = db.session.get(GameSession, sid)
            assert gs is not None
            done = gs.hand_count
        for _ in range(hands - done):
            record(client, sid, kind="run_out", player="Bob")
        client.get(f"/sessions/{sid}")  # shows what was flashed: the hands just recorded
        for cache in (PAGES, routes.LIVE_PARTS, routes.HAND_CARDS):
            cache.clear()
        share = len(statements_sent(app, lambda: anonymous.get(f"/s/{token}")))
        own = len(statements_sent(app, lambda: client.get(f"/sessions/{sid}")))
        counts.append((share, own))
    assert counts[0] == counts[1], counts
    kept = statements_sent(app, lambda: anonymous.get(f"/s/{token}"))
    assert len(kept) <= 3, kept  # BEGIN, row, ROLLBACK


# -- the revision (what a watcher's ETag is made of) through the API's writes ---------------

TONK_OUT = {"end": {"kind": "tonk_out", "player": "Ann"}}


def _revision(app, session_id: int) -> int:
    with app.app_context():
        value = db.session.execute(select(GameSession.revision).where(
            GameSession.id == session_id)).scalar_one()
        db.session.remove()
    return value


@pytest.mark.parametrize("keyed", [False, True])
def test_every_change_through_the_api_moves_the_revision_once(db_app, api, keyed):
    """Each change a watcher must see moves the session's revision by one, with or without an
    Idempotency-Key (the API's writes take the session's lock once, moving it then); a
    refused one moves nothing."""
    sid = api.start(stake="1.00")
    base = f"/sessions/{sid}"

    def send(method, path, body=None, status=200):
        headers = {"Idempotency-Key": uuid.uuid4().hex} if keyed else None
        before = _revision(db_app, sid)
        resp = api(method, base + path, body, headers=headers)
        assert resp.status_code == status, resp.get_json()
        assert _revision(db_app, sid) - before == (1 if status < 400 else 0), (method, path)
        return resp.get_json()

    send("POST", "/hands", TONK_OUT, 201)
    send("POST", "/hands", TONK_OUT, 201)
    send("PUT", "/hands/1", {"end": {"kind": "tonk_out", "player": "Bob"}, "reason": "Bob"})
    send("DELETE", "/hands/2", {"reason": "misdeal", "version": 1})
    send("DELETE", "/hands/2", {"reason": "again"}, 422)  # void already: nothing moves
    send("PUT", "/hands/2", {**TONK_OUT, "reason": "it counted"})
    assert [v["action"] for v in api.ok("GET", base + "/hands/2/history")] == [
        "recorded", "voided", "corrected"]
    planned = api.ok("GET", base + "/ledger")["transfers"][0]
    paid = send("POST", "/payments", {"from": planned["from"], "to": planned["to"],
                                      "amount": "0.10"})
    send("DELETE", f"/payments/{paid['payments'][0]['id']}", {"reason": "mis-tap"})
    send("POST", "/seats", {"join": "Eve"})
    send("POST", "/seats", {"leave": "Eve"})
    send("PUT", "/rules", {"stake": "2.00"})
    send("POST", "/archive", {"archived": True})
    send("POST", "/archive", {"archived": False})
    send("POST", "/close", {"carry_over": True})


def test_no_move_of_the_revision_is_lost_when_hands_and_pay_handles_race(db_app, api):
    """Hands move the revision under the session's lock; a player's payment handle moves it
    by ``revision + 1`` without that lock: three scorekeepers and a player at once, every
    change counted."""
    sid = api.start()
    start = _revision(db_app, sid)
    hands, handles, errors = 12, 12, []

    def keeper(k: int) -> None:
        client = Api(db_app.test_client(), api.token)
        for _ in range(hands):
            resp = client("POST", f"/sessions/{sid}/hands", TONK_OUT,
                          headers={"Idempotency-Key": uuid.uuid4().hex} if k % 2 else None)
            if resp.status_code != 201:
                errors.append((resp.status_code, resp.get_json()))

    def payee() -> None:
        client = Api(db_app.test_client(), api.token)
        for i in range(handles):
            resp = client("PUT", f"/sessions/{sid}/players/Ann/pay", {"paypal": f"ann{i}"})
            if resp.status_code != 200:
                errors.append((resp.status_code, resp.get_json()))

    threads = [threading.Thread(target=keeper, args=(k,)) for k in range(3)]
    threads.append(threading.Thread(target=payee))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert _revision(db_app, sid) - start == 3 * hands + handles


def test_the_app_alone_holds_no_stream(app, client):
    """Under a server that is not ``tonk serve`` the route answers 204: the browser's
    EventSource does not ask again, and the page polls."""
    _session_id, share, _user = _night(app)
    assert client.get(f"/api/v1/share/{share}/stream").status_code == 204
    assert client.get("/api/v1/share/nothing-here-at-all/stream").status_code == 404
