"""A night started on the phone with no signal, on the server's side: the night's page (one
shell for every night, which the phone fills in), and the door its events go through when the
signal is back (``POST /phone/nights/<uid>/events``: the API's night door for a phone signed
in by cookie, CSRF kept). Each event is stored once, however often it is sent; bad input is
4xx ``{"error", "field"}`` and changes nothing. The browser test is
tests/browser/test_phone_night.py."""
from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, select

from app.core.night import fold
from app.core.phone import answer
from app.db.models import GameSession, NightEvent
from app.extensions import db
from tests.apps import make_app, sqlite_copy
from tests.clients import sign_up

UID = "a" * 32
PATH = f"/phone/nights/{UID}/events"
FORM = [["name", "Basement"], ["player-0", "Ann"], ["player-1", "Bob"], ["player-2", "Cy"],
        ["first_dealer", "1"], ["stake", "0.25"], ["currency", "USD"], ["preset", "pagat"]]


def _events() -> list[dict[str, Any]]:
    """A night as the phone keeps it: started from the new-session form's fields and a hand
    from the record form's, read by the core's ``events`` op, then a newcomer."""
    started = answer({"op": "events", "events": [], "start": FORM}, {})["added"]
    events = [{"id": "e1", "seq": 1, **started}]
    hand = answer({"op": "events", "events": events,
                   "hand": [["kind", "tonk_out"], ["player", "Ann"], ["method", "spread"]]},
                  {})["added"]
    events.append({"id": "e2", "seq": 2, **hand})
    events.append({"id": "e3", "seq": 3, "kind": "joined", "player": "Dee"})
    events.append({"id": "e4", "seq": 4, "kind": "hand",
                   "hand": {"end": {"kind": "drop", "player": "Cy"},
                            "counts": {"Ann": 20, "Bob": 9, "Cy": 5, "Dee": 30}}})
    return events


def test_a_hands_side_bet_lines_are_worded_as_the_servers_page_words_them():
    """The phone's own night wrote a side bet's amounts bare ("0.10", a German reader's
    "0.40") where the server's page writes them in the reader's money ("$0.10", "0,40 €")."""
    start = [*FORM, ["sb-naturals", "on"], ["sb-naturals-stake", "0.10"]]
    started = answer({"op": "events", "events": [], "start": start}, {})["added"]
    assert started["side_bets"] == {"naturals": {"stake": "0.10"}}, started
    events = [{"id": "e1", "seq": 1, **started},
              {"id": "e2", "seq": 2, "kind": "hand", "hand": {
                  "end": {"kind": "dead"}, "side_bets": [{"bet": "naturals", "winner": None}]}}]
    read = answer({"op": "events", "events": events}, {})
    (line,) = read["hands"][0]["side_bets"]
    assert line["pot_shown"] == "$0.30" and read["pots"] == {"naturals": "$0.30"}
    said = " ".join(line["explanation"])
    assert "$0.10" in said and "$0.30" in said and " 0.30" not in said, said


def _count(app, model) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model)) or 0


def test_the_night_page_is_one_shell_for_every_night(client):
    page = client.get(f"/phone/nights/{UID}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="phone-night"' in html and 'id="check-hand"' in html
    assert "@@seat0@@" in html  # the hand fields for any players, filled in on the phone
    shell = client.get("/phone/nights/-").get_data(as_text=True)
    assert shell == html.replace(UID, "-")  # (but the language switcher's way back)


def test_the_night_is_sent_each_event_once_and_counted_as_the_phone_counts_it(client, app):
    sign_up(client)
    events = _events()
    first = client.post(PATH, json={"events": events[:2]})
    assert first.status_code == 201, first.get_json()
    assert first.get_json()["taken"] == ["e1", "e2"] and first.get_json()["held"] == 2
    # the answer to the first send was lost: the phone sends all of it again
    again = client.post(PATH, json={"events": events})
    said = again.get_json()
    assert again.status_code == 200, said
    assert said["already"] == ["e1", "e2"] and said["taken"] == ["e3", "e4"]
    assert said["page"] == f"/sessions/{said['session']}"
    phone = fold(events).money()
    assert {n: m["total"] for n, m in said["money"].items()} == {
        n: str(m.total) for n, m in phone.items()}
    assert client.post(PATH, json={"events": events}).get_json()["taken"] == []
    assert _count(app, NightEvent) == 4 and _count(app, GameSession) == 1
    # the page now leads to the session the server holds
    assert client.get(said["page"]).status_code == 200


def test_bad_input_is_refused_with_its_field_and_changes_nothing(client, app):
    assert client.post(PATH, json={"events": _events()}).status_code == 401
    sign_up(client)
    for body, status, field in (
            ({"events": "no"}, 422, "events"),
            ({"evnts": []}, 400, "events"),
            ({"events": [{"id": "e1", "seq": 1, "kind": "nap"}]}, 422, "events[0].kind")):
        resp = client.post(PATH, json=body)
        said = resp.get_json()
        assert resp.status_code == status, said
        assert said["error"] and said["field"] == field, said
    bad_uid = client.post("/phone/nights/" + "x" * 33 + "/events", json={"events": _events()})
    assert bad_uid.status_code == 422 and bad_uid.get_json()["field"] == "uid"
    # a refused event stops the list there: what came before it is taken
    events = _events()
    events[3]["hand"]["end"]["player"] = "Zed"
    refused = client.post(PATH, json={"events": events})
    said = refused.get_json()
    assert refused.status_code == 422 and said["event"] == "e4" and said["index"] == 3
    assert said["held"] == 3 and said["field"]
    assert _count(app, NightEvent) == 3


def test_a_send_without_the_csrf_token_changes_nothing(tmp_path, sqlite_schema):
    app = make_app(sqlite_copy(sqlite_schema, tmp_path), WTF_CSRF_ENABLED=True)
    client = app.test_client()
    page = client.get("/signup").get_data(as_text=True)
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    assert token
    client.post("/signup", data={"name": "Sam", "email": "sam@example.com",
                                 "password": "secret-table-9", "csrf_token": token.group(1)})
    assert client.post(PATH, json={"events": _events()}).status_code == 400
    token = client.get("/outbox/token").get_json()["csrf"]
    sent = client.post(PATH, json={"events": _events()}, headers={"X-CSRFToken": token})
    assert sent.status_code == 201, sent.get_json()
    assert _count(app, NightEvent) == 4
    with app.app_context():
        db.engine.dispose()
