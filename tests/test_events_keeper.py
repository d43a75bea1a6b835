"""A tournament table's scorekeeping link (/t/<token>): a phone without an account records,
corrects and voids hands at that one table while its round is open, and nothing else; the
director can replace the link; a closed round's link records nothing."""
from __future__ import annotations

from app.db.models import HandVersion
from app.extensions import db
from tests.helpers import api_error


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
