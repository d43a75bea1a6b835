"""A tournament table's scorekeeping link (/t/<token>): a phone without an account records,
corrects and voids hands at that one table while its round is open, and nothing else; the
director can replace the link; a closed round's link records nothing and shows how the table
ended."""
from __future__ import annotations

import re

from app.db.models import HandVersion
from app.extensions import db
from tests.clients import api_error, shown_beside
from tests.expect import matched


def _event(api, players=("Ann", "Bob", "Cy", "Dee", "Eve")):
    eid = api.ok("POST", "/events", {"name": "Cup", "table_size": 3, "rounds": 2,
                                     "hands_per_round": 1, "entry_fee": "5"}, 201)["id"]
    for name in players:
        api.ok("POST", f"/events/{eid}/players", {"name": name, "paid": True})
    return eid, api.ok("POST", f"/events/{eid}/rounds", {"seed": 3}, 201)["tables"]


def test_a_table_phone_records_corrects_and_voids_without_an_account(db_app, api):
    eid, tables = _event(api)
    first, second = tables
    phone = db_app.test_client()  # no account, no sign-in
    page = phone.get(first["link"])
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "Table 1, round 1" in text and first["dealer"] in text and "<svg" in text
    winner = first["players"][0]
    resp = phone.post(first["link"] + "/hands/new", data={"kind": "tonk_out", "player": winner})
    assert resp.status_code == 302 and resp.location.endswith(first["link"])
    shown = phone.get(first["link"]).get_data(as_text=True)
    assert "Hand 1" in shown and "this table is done" in shown
    ledger = api.ok("GET", f"/sessions/{first['session']}/ledger")
    assert ledger["hands"] == 1 and ledger["totals"][winner] == "4"

    # Correct it (another winner), then void it: the history names the table's link.
    other = first["players"][1]
    resp = phone.post(first["link"] + "/hands/1/correct",
                      data={"kind": "tonk_out", "player": other, "reason": "wrong name",
                            "version": "1"})
    assert resp.status_code == 302
    assert api.ok("GET", f"/sessions/{first['session']}/ledger")["totals"][other] == "4"
    resp = phone.post(first["link"] + "/hands/1/void", data={"reason": "misdeal",
                                                              "version": "2"})
    assert resp.status_code == 302
    history = api.ok("GET", f"/sessions/{first['session']}/hands/1/history")
    assert [v["action"] for v in history] == ["recorded", "corrected", "voided"]
    assert all(v["by"] == "Table 1, round 1 (link)" for v in history)
    with db_app.app_context():
        assert db.session.query(HandVersion).count() == 3

    # The link reaches its own table only: not the other table's hands, not the director's.
    assert phone.get(f"/sessions/{second['session']}").status_code in (302, 401)
    assert phone.get(second["link"] + "/hands/1").status_code == 404
    assert phone.get("/t/not-a-token").status_code == 404


def test_a_sent_twice_form_is_saved_once(db_app, api):
    _eid, tables = _event(api)
    phone = db_app.test_client()
    link = tables[0]["link"]
    form = {"kind": "tonk_out", "player": tables[0]["players"][0], "once": "tap-1"}
    assert phone.post(link + "/hands/new", data=form).status_code == 302
    assert phone.post(link + "/hands/new", data=form).status_code == 302
    assert api.ok("GET", f"/sessions/{tables[0]['session']}/ledger")["hands"] == 1


def test_a_replaced_link_and_a_closed_round_record_nothing(db_app, api):
    eid, tables = _event(api)
    phone = db_app.test_client()
    old = tables[0]["link"]
    new = api.ok("POST", f"/events/{eid}/rounds/1/tables/1/link")["link"]
    assert new != old and phone.get(old).status_code == 404
    assert phone.get(new).status_code == 200
    api.ok("POST", f"/events/{eid}/rounds/1/close", {"force": True})
    resp = phone.post(new + "/hands/new", data={"kind": "dead"})
    assert resp.status_code == 409 and "round 1 is closed" in resp.get_data(as_text=True)
    assert api.ok("GET", f"/sessions/{tables[0]['session']}/ledger")["hands"] == 0
    api_error(api("POST", f"/events/{eid}/rounds/1/tables/9/link"), 404, "table", "no table 9")


def _full_table(api, hands_per_round=2):
    """One table of three (Ann, Bob, Cy) in a round of ``hands_per_round`` hands."""
    eid = api.ok("POST", "/events", {"name": "Cup", "table_size": 3, "rounds": 1,
                                     "hands_per_round": hands_per_round}, 201)["id"]
    for name in ("Ann", "Bob", "Cy"):
        api.ok("POST", f"/events/{eid}/players", {"name": name})
    return eid, api.ok("POST", f"/events/{eid}/rounds", {"seed": 1}, 201)["tables"][0]


def test_a_table_that_has_played_its_rounds_hands_records_no_more(db_app, api):
    """After 2 of 2 hands the link still offered "Record hand" and took a 3rd.
    Now the page says the round's hands are played, the form is not offered, a form sent
    anyway is refused beside it, and corrections and voids still work."""
    _eid, table = _full_table(api)
    phone = db_app.test_client()
    link = table["link"]
    for _ in range(2):
        assert 'id="record-hand"' in phone.get(link).get_data(as_text=True)
        assert phone.post(link + "/hands/new", data={"kind": "dead"}).status_code == 302
    page = phone.get(link).get_data(as_text=True)
    assert 'id="record-hand"' not in page and "+ Record hand" not in page
    assert "The hands of this round are all played: the table waits for the director" in page
    assert "2 of 2 hands played" in page
    asked = phone.get(link + "/hands/new")  # an old bookmark, or the back button
    assert asked.status_code == 302 and asked.location.endswith(link)
    sent = phone.post(link + "/hands/new", data={"kind": "tonk_out", "player": "Ann"})
    shown_beside(sent, "form", "this table has played every hand of its round (hands per "
                 "round: 2): no more can be recorded, but its hands can still be corrected or "
                 "voided")
    assert api.ok("GET", f"/sessions/{table['session']}/ledger")["hands"] == 2

    # Corrections and voids within the round: a void leaves room for one more hand.
    assert phone.post(link + "/hands/2/correct", data={
        "kind": "tonk_out", "player": "Ann", "reason": "Ann went out", "version": "1",
    }).status_code == 302
    assert phone.post(link + "/hands/1/void", data={"reason": "misdeal",
                                                    "version": "1"}).status_code == 302
    assert 'id="record-hand"' in phone.get(link).get_data(as_text=True)
    assert phone.post(link + "/hands/new", data={"kind": "dead"}).status_code == 302
    shown_beside(phone.post(link + "/hands/1/correct", data={
        "kind": "dead", "reason": "no misdeal", "version": "2"}), "form",
        "hand 1 is void, and this table has played every hand of its round without it (hands "
        "per round: 2): it cannot count again")
    ledger = api.ok("GET", f"/sessions/{table['session']}/ledger")
    assert ledger["hands"] == 2 and ledger["totals"]["Ann"] == "4"

    # The director's own record form of the table's session refuses it too.
    director = db_app.test_client()
    director.post("/signin", data={"email": "ann@example.com", "password": "correct horse"})
    asked = director.get(f"/sessions/{table['session']}/hands/new")
    assert asked.status_code == 302
    assert "hands per round: 2" in director.get(asked.location).get_data(as_text=True)


def test_two_phones_saving_the_last_hand_at_once_store_one(db_app, api):
    """The count is checked under the session's lock: both requests wait for it (held
    here by another connection), then one is stored and the other refused."""
    import threading
    import time

    import sqlalchemy as sa

    _eid, table = _full_table(api, hands_per_round=1)
    url = db_app.config["SQLALCHEMY_DATABASE_URI"]
    holder = sa.create_engine(url)
    answers: list[int] = []
    start = threading.Barrier(3)

    def save() -> None:
        phone = db_app.test_client()
        start.wait(10)
        answers.append(phone.post(table["link"] + "/hands/new",
                                  data={"kind": "dead"}).status_code)

    with holder.connect() as conn:
        if url.startswith("sqlite"):
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # the one write lock
        else:
            conn.execute(sa.text("BEGIN"))
            conn.execute(sa.text("SELECT id FROM game_sessions WHERE id = :i FOR UPDATE"),
                         {"i": table["session"]})
        threads = [threading.Thread(target=save) for _ in range(2)]
        for thread in threads:
            thread.start()
        start.wait(10)
        time.sleep(0.5)  # both are past reading the link, waiting for the lock
        conn.rollback()
    for thread in threads:
        thread.join(20)
    holder.dispose()
    assert sorted(answers) == [302, 422]
    assert api.ok("GET", f"/sessions/{table['session']}/ledger")["hands"] == 1


def test_a_tables_link_after_its_round_shows_how_it_ended_and_where_each_sits_next(db_app, api):
    """After round 1 closed, the link showed a bare "Not now" with nothing of the table's
    result. Now it answers 200, read-only: the table's places and totals, the hands, its
    players' places in the event so far and, once round 2 is drawn, each one's table; a
    hand sent anyway is still refused."""
    eid, tables = _event(api)
    first = tables[0]
    phone = db_app.test_client()
    winner = first["players"][0]
    assert phone.post(first["link"] + "/hands/new",
                      data={"kind": "tonk_out", "player": winner}).status_code == 302
    api.ok("POST", f"/events/{eid}/rounds/1/close", {"force": True})
    page = phone.get(first["link"])
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "Round 1 is over" in text and "Record hand" not in text
    places = matched(r'<ol class="totals table-result" id="table-result">(.*?)</ol>',
                     text, re.S).group(1)
    ranked = re.findall(r'data-player="([^"]+)" data-place="(\d+)"', places)
    assert ranked[0] == (winner, "1") and len(ranked) == len(first["players"])
    assert {p for p, _ in ranked} == set(first["players"])
    assert "#1" in text and "not drawn yet" in text
    event_places = dict(re.findall(r'data-player="([^"]+)" data-place="(\d+)"',
                                   matched(r'id="event-places">(.*?)</ul>', text, re.S).group(1)))
    assert event_places[winner] == "1"
    # Round 2 drawn: where each of the table's players sits now.
    drawn = api.ok("POST", f"/events/{eid}/rounds", {"seed": 5}, 201)["tables"]
    text = phone.get(first["link"]).get_data(as_text=True)
    seats = dict(re.findall(r'<li data-player="([^"]+)"><span class="who">[^<]*</span> Table (\d)',
                            matched(r'id="next-tables">(.*?)</ul>', text, re.S).group(1)))
    assert seats == {p: str(t["table"]) for t in drawn for p in t["players"]
                     if p in first["players"]}
    refused = phone.post(first["link"] + "/hands/new", data={"kind": "dead"})
    assert refused.status_code == 409
    assert f'href="{first["link"].replace("http://localhost", "")}" id="table-result-link"' \
        in refused.get_data(as_text=True)
    assert api.ok("GET", f"/sessions/{first['session']}/ledger")["hands"] == 1
