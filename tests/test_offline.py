"""The app on the phone, on the server's side: the manifest and its icons, the service worker
at the site's root, the offline page, the outbox's sends (one hand per phone-made key,
whichever way it arrives; refusals as JSON with the reason; CSRF kept), and keys kept as
long as what they made (the browser tests are tests/browser/test_offline.py)."""
from __future__ import annotations

import re
import struct
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from app.db.unit import unit_of_work
from tests.apps import make_app, sqlite_copy
from tests.clients import record, sign_up, start
from tests.expect import fetched

TONK_OUT = {"kind": "tonk_out", "player": "Bob", "dealer": "Ann"}


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_names_the_app_its_icons_and_how_it_opens(client):
    resp = client.get("/manifest.webmanifest")
    assert resp.status_code == 200
    assert resp.mimetype == "application/manifest+json"
    body = resp.get_json()
    assert body["display"] == "standalone"
    assert body["start_url"] == "/" and body["scope"] == "/"
    assert body["name"] == "Tonk Tally" and body["theme_color"].startswith("#")
    sizes = {}
    for icon in body["icons"]:
        image = client.get(icon["src"])
        assert image.status_code == 200 and image.mimetype == "image/png"
        width, height = png_size(image.data)
        assert icon["sizes"] == f"{width}x{height}"
        sizes[icon["purpose"], width] = True
    assert {("any", 192), ("any", 512), ("maskable", 512)} <= set(sizes)
    page = client.get("/").get_data(as_text=True)
    assert 'rel="manifest" href="/manifest.webmanifest"' in page
    assert 'name="theme-color"' in page


def test_the_service_worker_is_served_from_the_root_under_the_strict_policy(client):
    resp = client.get("/sw.js")
    assert resp.status_code == 200
    assert resp.mimetype == "text/javascript"
    assert resp.headers["Cache-Control"] == "no-cache"  # a new version is found at once
    assert "script-src 'self'" in resp.headers["Content-Security-Policy"]
    assert b'importScripts("/static/outbox.js")' in resp.data
    for asset in ("/static/outbox.js", "/static/offline.js", "/offline"):
        assert client.get(asset).status_code == 200


def test_a_pages_files_are_named_by_what_is_in_them_and_kept_a_year(client):
    """A page's every file (the app's and the league pages') carries the digest of what is in
    it: that address may be kept a year without asking; a bare or an old one is asked for
    again each time. A phone with a poor signal then sends one request for a page seen
    before, not that and one for each of its files."""
    import hashlib

    from app.http.assets import YEAR

    sign_up(client)
    addresses = []
    for path in ("/", "/leagues/new"):
        page = client.get(path).get_data(as_text=True)
        addresses += re.findall(r'(?:href|src)="(/(?:leagues/)?static/[^"]+)"', page)
    named = {a.split("?")[0] for a in addresses}
    assert {"/static/tonk.css", "/static/tonk.js", "/static/outbox.js", "/static/offline.js",
            "/static/print.css", "/leagues/static/leagues.css"} <= named
    for address in set(addresses):
        path, _, query = address.partition("?v=")
        with client.get(address) as resp:
            assert query == hashlib.sha256(resp.data).hexdigest()[:12], address
            assert resp.headers["Cache-Control"] == f"public, max-age={YEAR}, immutable"
        for other in (path, path + "?v=0123456789ab"):
            with client.get(other) as resp:
                assert resp.status_code == 200
                assert resp.headers["Cache-Control"] == "no-cache", other
    with client.get("/static/nothing.css?v=0123456789ab") as resp:
        assert resp.status_code == 404


def test_a_changed_file_gets_a_new_address(tmp_path):
    from app.http.assets import digest

    (tmp_path / "a.css").write_text("body { color: black }")
    before = digest(str(tmp_path), "a.css")
    (tmp_path / "a.css").write_text("body { color: navy }")
    assert digest(str(tmp_path), "a.css") not in (before, None)
    assert digest(str(tmp_path), "missing.css") is None
    assert digest(str(tmp_path), "../a.css") is None  # outside the folder: not a file of it


def test_the_offline_page_says_what_works_with_no_signal(client):
    resp = client.get("/offline", headers={"Accept-Language": "de"})
    assert resp.status_code == 200
    assert "Kein Netz" in resp.get_data(as_text=True)


def _sent(client, sid, key, **fields):
    return client.post(f"/sessions/{sid}/hands/sent", data={"once": key, **fields})


def _hands(app, sid):
    from app.db.models import Hand
    from app.extensions import db

    with app.app_context():
        return db.session.scalars(select(Hand.number).where(Hand.session_id == sid)
                                  .order_by(Hand.number)).all()


def test_a_hand_sent_from_the_outbox_is_stored_once_however_often_and_whichever_way(app):
    client = app.test_client()
    sign_up(client)
    sid = start(client)
    first = _sent(client, sid, "phone-key-1", **TONK_OUT)
    assert first.status_code == 201
    assert first.get_json()["number"] == 1
    again = _sent(client, sid, "phone-key-1", **TONK_OUT)
    assert again.status_code == 200 and again.get_json()["replayed"] is True
    assert again.headers["Cache-Control"] == "no-store"
    # the form itself with the same phone-made key (it got through, its reply was lost)
    form = record(client, sid, once="phone-key-1", **TONK_OUT)
    assert form.status_code == 302
    assert _hands(app, sid) == [1]
    # and the other way round: the form first, then the outbox with its key
    assert record(client, sid, once="phone-key-2", **TONK_OUT).status_code == 302
    assert _sent(client, sid, "phone-key-2", **TONK_OUT).status_code == 200
    assert _hands(app, sid) == [1, 2]


def test_the_outbox_hears_why_a_hand_is_refused_and_nothing_is_stored(app):
    from app.db.models import GameSession
    from app.services.sessions.ledger import close_session

    client = app.test_client()
    assert _sent(client, 1, "k", **TONK_OUT).status_code == 401
    sign_up(client)
    sid = start(client)
    bad = _sent(client, sid, "k-bad", kind="tonk_out", player="Zed", dealer="Ann")
    assert bad.status_code == 422
    assert bad.get_json()["field"] == "player" and bad.get_json()["error"]
    assert _sent(client, sid, "", **TONK_OUT).status_code == 422  # no key: not the outbox's
    assert _sent(client, 999, "k-none", **TONK_OUT).status_code == 404
    with app.app_context(), unit_of_work():
        close_session(fetched(GameSession, sid), False)
    closed = _sent(client, sid, "k-closed", **TONK_OUT)
    assert closed.status_code == 409
    assert "closed" in closed.get_json()["error"]
    assert closed.get_json()["field"] == "session"  # (the API's field for it)
    assert _hands(app, sid) == []


def _csrf(page: str) -> str:
    tag = re.search(r'<input[^>]*name="csrf_token"[^>]*>', page)
    assert tag, "no CSRF token on the page"
    found = re.search(r'value="([^"]+)"', tag.group(0))
    assert found
    return found.group(1)


def test_the_outbox_sends_with_a_fresh_csrf_token_in_its_header(tmp_path, sqlite_schema):
    app = make_app(sqlite_copy(sqlite_schema, tmp_path), WTF_CSRF_ENABLED=True)
    client = app.test_client()
    assert client.get("/outbox/token").status_code == 401
    token = _csrf(client.get("/signup").get_data(as_text=True))
    client.post("/signup", data={"name": "Sam", "email": "sam@example.com",
                                 "password": "secret-table-9", "csrf_token": token})
    fresh = client.get("/outbox/token").get_json()
    assert fresh["account"] == 1 and fresh["csrf"]
    token = _csrf(client.get("/sessions/new").get_data(as_text=True))
    client.post("/sessions/new", data={"name": "F", "first_dealer": "0", "stake": "1",
                                       "currency": "USD", "preset": "pagat", "player-0": "Ann",
                                       "player-1": "Bob", "csrf_token": token})
    refused = client.post("/sessions/1/hands/sent", data={"once": "k", **TONK_OUT})
    assert refused.status_code == 400  # no CSRF token: a cookie alone changes nothing
    sent = client.post("/sessions/1/hands/sent", data={"once": "k", **TONK_OUT},
                       headers={"X-CSRFToken": fresh["csrf"]})
    assert sent.status_code == 201, sent.data
    assert _hands(app, 1) == [1]
    with app.app_context():
        from app.extensions import db
        db.engine.dispose()


@pytest.mark.parametrize("days", [2, 30])
def test_a_key_is_kept_as_long_as_the_hand_it_made(db_app, api, days):
    """A phone offline for days sends its hand again: the first answer, never a second hand;
    a refusal (which made nothing) is forgotten after a day."""
    from app.db import idempotency
    from app.db.models import RequestKey, utcnow
    from app.extensions import db

    sid = api.start()
    hand = {"end": {"kind": "tonk_out", "player": "Bob"}}
    headers = {"Idempotency-Key": "offline-for-days"}
    assert api("POST", f"/sessions/{sid}/hands", hand, headers=headers).status_code == 201
    api.ok("POST", f"/sessions/{sid}/close", {"carry_over": True})
    refused = api("POST", f"/sessions/{sid}/hands", hand, headers={"Idempotency-Key": "late"})
    assert refused.status_code == 409
    with db_app.app_context():
        db.session.execute(update(RequestKey).values(
            created_at=utcnow() - timedelta(days=days)))
        idempotency.forget_refusals()
        db.session.commit()
        kept = set(db.session.scalars(select(RequestKey.key)))
    assert kept == {"offline-for-days"}
    again = api("POST", f"/sessions/{sid}/hands", hand, headers=headers)
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert api.ok("GET", f"/sessions/{sid}")["hands"] == 1
