"""Who may do what is decided at every request from the roles as they are then: a league
admin who is removed loses every read and write of the league's sessions at once, even
those they started; a session's share link can be revoked and replaced; and a token with a
NUL or a control character finds nothing (PostgreSQL refused to compare it: it was a 500)."""
from __future__ import annotations

import re
from typing import Any

import pytest

from app.db.models import GameSession, League, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.services import leagues
from tests.clients import Api, account, sign_up, start
from tests.expect import fetched

HAND = {"end": {"kind": "tonk_out", "player": "Ann"}, "multiplier": 1000}



def _user(app: Any, email: str) -> User:
    return db.session.scalar(db.select(User).where(User.email == email))


def test_a_removed_league_admin_loses_every_write_at_once(db_app):
    owner = Api(db_app.test_client(), account(db_app, "olive@example.com", "Olive"))
    admin = Api(db_app.test_client(), account(db_app, "adam@example.com", "Adam"))
    lid = owner.ok("POST", "/leagues", {"name": "Fridays"}, 201)["id"]
    owner.ok("POST", f"/leagues/{lid}/admins", {"email": "adam@example.com"}, 201)
    sid = admin.ok("POST", "/sessions", {"name": "Night", "players": ["Ann", "Bob", "Cy"],
                                         "league": lid}, 201)["id"]
    admin.ok("POST", f"/sessions/{sid}/hands", HAND, 201)
    mine = owner.ok("POST", "/sessions", {"name": "Own", "players": ["Ann", "Bob"]}, 201)["id"]
    assert [s["id"] for s in admin.ok("GET", "/sessions")] == [sid]

    with db_app.app_context(), unit_of_work():
        leagues.remove_admin(fetched(League, lid),
                             _user(db_app, "adam@example.com").id)

    for method, path, body in [
        ("POST", f"/sessions/{sid}/hands", HAND),
        ("PUT", f"/sessions/{sid}/hands/1", {**HAND, "reason": "x"}),
        ("DELETE", f"/sessions/{sid}/hands/1", {"reason": "x"}),
        ("POST", f"/sessions/{sid}/close", {}),
        ("POST", f"/sessions/{sid}/share", None),
        ("GET", f"/sessions/{sid}", None),
        ("GET", f"/sessions/{mine}", None),
    ]:
        resp = admin(method, path, body)
        assert resp.status_code == 404, (method, path, resp.get_json())
    assert admin.ok("GET", "/sessions") == []
    ledger = owner.ok("GET", f"/sessions/{sid}/ledger")
    assert ledger["hands"] == 1  # nothing moved after the removal
    owner.ok("POST", f"/sessions/{sid}/hands", HAND, 201)  # the league still runs it

    web = db_app.test_client()
    web.post("/signin", data={"email": "adam@example.com", "password": "correct horse"})
    assert web.get(f"/sessions/{sid}").status_code == 404
    resp = web.post(f"/sessions/{sid}/hands/new",
                    data={"kind": "tonk_out", "player": "Ann", "multiplier": "1000"})
    assert resp.status_code == 404
    with db_app.app_context():
        assert fetched(GameSession, sid).hand_count == 2


def test_the_share_link_can_be_replaced_on_the_page(db_app):
    from tests.clients import share_token

    client = db_app.test_client()
    sign_up(client)
    sid = start(client)
    old = share_token(db_app, sid)
    assert client.get(f"/s/{old}").status_code == 200
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert f'action="/sessions/{sid}/share"' in page and "Make a new link" in page
    resp = client.post(f"/sessions/{sid}/share", follow_redirects=True)
    assert "no longer works" in resp.get_data(as_text=True)
    new = share_token(db_app, sid)
    assert new != old and len(new) >= 20
    assert client.get(f"/s/{old}").status_code == 404
    assert client.get(f"/s/{old}/hands/1").status_code == 404
    assert client.get(f"/api/v1/share/{old}").status_code in (404, 405)
    assert client.get(f"/s/{new}").status_code == 200
    other = db_app.test_client()
    sign_up(other, email="eve@example.com", name="Eve")
    assert other.post(f"/sessions/{sid}/share").status_code == 404
    assert share_token(db_app, sid) == new


def test_the_share_link_can_be_replaced_through_the_api(db_app):
    api = Api(db_app.test_client(), account(db_app, "ann@example.com", "Ann"))
    other = Api(db_app.test_client(), account(db_app, "eve@example.com", "Eve"))
    sid = api.start()
    old = api.ok("GET", f"/sessions/{sid}")["share_url"]
    assert api.client.get(old).status_code == 200
    new = api.ok("POST", f"/sessions/{sid}/share")["share_url"]
    assert new != old and api.client.get(old).status_code == 404
    assert api.client.get(new).status_code == 200
    assert other("POST", f"/sessions/{sid}/share").status_code == 404
    assert api("POST", f"/sessions/{sid}/share", token="tt_wrong").status_code == 401


def test_another_accounts_write_neither_takes_nor_waits_for_the_sessions_lock(db_app):
    """Eve writing to Ann's session is told "not found" at once, while Ann's change holds the
    session's row, and without locking it (PostgreSQL: the lock is a row's)."""
    import threading
    import time

    import sqlalchemy as sa

    url = db_app.config["SQLALCHEMY_DATABASE_URI"]
    if not url.startswith("postgresql"):
        pytest.skip("SQLite: every write takes the one write lock")
    ann = Api(db_app.test_client(), account(db_app, "ann@example.com", "Ann"))
    eve = Api(db_app.test_client(), account(db_app, "eve@example.com", "Eve"))
    sid = ann.start()
    tonk_out = {"end": {"kind": "tonk_out", "player": "Ann"}}
    with db_app.app_context():
        engine = db.engine
    seen: list[tuple[str, int]] = []

    def note(_conn, cursor, statement, _params, _context, _many):
        seen.append((statement, cursor.rowcount))

    def locking() -> list[str]:
        return [s for s, rows in seen if re.search(r"\bFOR (NO KEY )?UPDATE\b", s) and rows > 0]

    sa.event.listen(engine, "after_cursor_execute", note)
    try:
        assert eve("POST", f"/sessions/{sid}/hands", tonk_out).status_code == 404
        assert locking() == []
        assert ann("POST", f"/sessions/{sid}/hands", tonk_out).status_code == 201
        assert len(locking()) == 1  # (the owner's write does lock it: the check sees locks)
    finally:
        sa.event.remove(engine, "after_cursor_execute", note)

    holder = sa.create_engine(url)
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        with holder.begin() as conn:
            conn.execute(sa.text("SELECT id FROM game_sessions WHERE id = :i FOR UPDATE"),
                         {"i": sid})
            held.set()
            done.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(10)
        started = time.perf_counter()
        assert eve("POST", f"/sessions/{sid}/hands", tonk_out).status_code == 404
        assert time.perf_counter() - started < 1.0
    finally:
        done.set()
        thread.join()
        holder.dispose()


# -- a NUL in a share token (PostgreSQL refuses to compare it: it was a 500) ---------------

def test_a_nul_in_a_share_token_finds_nothing(db_app):
    client = db_app.test_client()
    for path in ("/s/abc%00", "/s/abc%00/live", "/s/abc%00/chart.svg", "/s/abc%00/hands/1",
                 "/api/v1/share/abc%00", "/s/" + "a" * 500, "/api/v1/share/" + "a" * 500):
        resp = client.get(path)
        assert resp.status_code == 404, (path, resp.status_code)


# -- a NUL in a table's or a board's token -------------------------------------------------

def test_a_nul_or_a_control_character_in_any_token_finds_nothing(db_app):
    client = db_app.test_client()
    for token in ("abc%00", "abc%01", "%00", "abc%7F", "a" * 500):
        for path in (f"/t/{token}", f"/t/{token}/hands/new", f"/t/{token}/hands/1",
                     f"/board/{token}", f"/board/{token}/state", f"/board/{token}/live",
                     f"/board/{token}/players/Ann", f"/s/{token}", f"/api/v1/share/{token}"):
            resp = client.get(path)
            assert resp.status_code == 404, (path, resp.status_code)
