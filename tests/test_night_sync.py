"""A night started on a phone with no signal, sent when the signal is back (issue 41):
``PUT /api/v1/nights/{uid}/events`` takes its events in order, each once, whether sent in
one list, in three, twice, or cut halfway and sent again; the session it makes holds the
money the core's fold of the same events gives, to the cent. Bad input is refused with its
field and changes nothing. On SQLite and PostgreSQL."""
from __future__ import annotations

import copy
import threading
import uuid
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import func, select

from app.core.night import fold
from app.db.models import GameSession, Hand, NightEvent, SettlePayment
from app.extensions import db
from tests.apps import problems_at
from tests.clients import Api
from tests.live import Client, at_once, prepare, server

UID = "0f8e6c1d2b3a49e5a7c6d5e4f3a2b1c0"
PATH = f"/nights/{UID}/events"


def _hand(kind: str, who: str | None, counts: dict[str, int] | None,
          side: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    hand: dict[str, Any] = {"end": {"kind": kind, **({"player": who} if who else {})}}
    if counts:
        hand["counts"] = counts
    if side:
        hand["side_bets"] = side
    return hand


def night_events() -> list[dict[str, Any]]:
    """A whole night of four: five hands of different ends (the naturals played), the first
    corrected, the second voided, Eve joins and Dee leaves, a payment undone and another
    made. Each event as the phone keeps it: its id, its place, its kind and facts."""
    events: list[dict[str, Any]] = [
        {"kind": "started", "name": "Basement", "players": ["Ann", "Bob", "Cy", "Dee"],
         "dealer": "Dee", "rules": "pagat", "stake": "0.25", "currency": "USD",
         "side_bets": {"naturals": {}}},
        {"kind": "hand", "hand": _hand("tonk_out", "Bob", {"Ann": 12, "Bob": 0, "Cy": 9,
                                                         "Dee": 30},
                                       [{"bet": "naturals", "winner": None}])},
        {"kind": "hand", "hand": _hand("drop", "Bob", {"Ann": 12, "Bob": 5, "Cy": 9,
                                                     "Dee": 30})},
        {"kind": "joined", "player": "Eve"},
        {"kind": "hand", "hand": _hand("run_out", "Cy", {"Ann": 7, "Bob": 11, "Cy": 0,
                                                       "Dee": 4, "Eve": 20},
                                       [{"bet": "naturals", "winner": "Cy"}])},
        {"kind": "corrected", "number": 1, "reason": "it was Ann",
         "hand": _hand("run_out", "Ann", {"Ann": 0, "Bob": 3, "Cy": 9, "Dee": 30},
                       [{"bet": "naturals", "winner": None}])},
        {"kind": "left", "player": "Dee"},
        {"kind": "hand", "hand": _hand("deal", None, {"Ann": 49, "Bob": 20, "Cy": 25,
                                                     "Eve": 30})},
        {"kind": "hand", "hand": _hand("dead", None, None)},
        {"kind": "voided", "number": 2, "reason": "never played"},
    ]
    events = [{"id": f"e{n}", "seq": n, **e} for n, e in enumerate(events, 1)]
    # settle-up: a payment of what the fold leaves open, undone (a mis-tap), made again
    left = fold(events).open()
    payer, payee = min(left, key=lambda n: left[n]), max(left, key=lambda n: left[n])
    pay = {"payer": payer, "payee": payee, "amount": "0.50"}
    events += [{"id": "e11", "seq": 11, "kind": "paid", **pay},
               {"id": "e12", "seq": 12, "kind": "undone", "payment": "e11",
                "reason": "tapped twice"},
               {"id": "e13", "seq": 13, "kind": "paid", **pay}]
    return events


def money(events: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Each player's money by part, as the core's fold of ``events`` gives it."""
    return {name: m.to_json() for name, m in fold(events).money().items()}


def _same_money(answer: dict[str, Any], events: list[dict[str, Any]]) -> None:
    night = fold(events)
    assert {n: {p: Decimal(v) for p, v in m.items()} for n, m in answer["money"].items()} == {
        n: {p: Decimal(v) for p, v in m.items()} for n, m in money(events).items()}
    assert {n: Decimal(v) for n, v in answer["ledger"]["balances"].items()} == night.open()
    assert answer["ledger"]["hands"] == night.counted


def stored(app) -> tuple[int | None, int | None, int | None, list[int]]:
    """What the database holds: events, hands, payments, each session's revision."""
    with app.app_context():
        count = [db.session.scalar(select(func.count()).select_from(t))
                 for t in (NightEvent, Hand, SettlePayment)]
        revisions = list(db.session.scalars(select(GameSession.revision)
                                            .order_by(GameSession.id)))
        db.session.remove()
    return count[0], count[1], count[2], revisions


def send(api: Api, events: list[dict[str, Any]], status: int, uid: str = UID) -> Any:
    return api.ok("PUT", f"/nights/{uid}/events", {"events": events}, status)


def test_a_whole_night_in_one_list_is_the_folds_to_the_cent(db_app, api):
    events = night_events()
    answer = send(api, events, 201)
    assert answer["taken"] == [e["id"] for e in events] and answer["already"] == []
    assert (answer["held"], answer["next"]) == (13, 14)
    _same_money(answer, events)
    sid = answer["session"]["id"]
    assert answer["url"] == f"/api/v1/sessions/{sid}"
    session = api.ok("GET", f"/sessions/{sid}")
    night = fold(events)
    assert session["players"] == list(night.seated) and session["left"] == ["Dee"]
    assert session["dealer"] == night.dealer
    assert (session["name"], session["hands"], session["voided_hands"]) == ("Basement", 4, 1)
    assert api.ok("GET", f"/sessions/{sid}/ledger") == answer["ledger"]
    history = api.ok("GET", f"/sessions/{sid}/hands/1/history")
    assert [v["action"] for v in history] == ["recorded", "corrected"]
    assert history[1]["reason"] == "it was Ann"
    payments = answer["ledger"]["payments"]
    assert [p["undone"] for p in payments] == [True, False]


def test_a_night_in_three_lists_is_the_same_night(db_app, api):
    events = night_events()
    statuses = []
    for part in (events[:4], events[4:9], events[9:]):
        resp = api("PUT", PATH, {"events": part})
        statuses.append(resp.status_code)
        answer = resp.get_json()
        assert answer["taken"] == [e["id"] for e in part]
        _same_money(answer, events[:part[-1]["seq"]])
    assert statuses == [201, 200, 200]
    assert stored(db_app)[:3] == (13, 5, 2)


def test_a_night_sent_twice_is_stored_once(db_app, api):
    events = night_events()
    first = send(api, events, 201)
    before = stored(db_app)
    again = send(api, events, 200)
    assert again["taken"] == [] and again["already"] == [e["id"] for e in events]
    assert stored(db_app) == before  # not even the session's revision moved on
    assert again["money"] == first["money"] and again["ledger"] == first["ledger"]
    assert again["session"]["id"] == first["session"]["id"]
    with db_app.app_context():
        assert db.session.scalar(select(GameSession.uid)) == UID


def test_a_send_cut_halfway_and_sent_again_takes_the_rest_once(db_app, api):
    events = night_events()
    send(api, events[:6], 201)  # the signal went: the phone never heard the answer
    answer = send(api, events, 200)  # so it sends the whole night again
    assert answer["already"] == [e["id"] for e in events[:6]]
    assert answer["taken"] == [e["id"] for e in events[6:]]
    _same_money(answer, events)
    assert stored(db_app)[:3] == (13, 5, 2)
    later = send(api, events[9:], 200)  # and a tab that held the last few sends them too
    assert later["taken"] == [] and later["money"] == answer["money"]


def test_two_sends_of_a_night_at_once_store_it_once(db_app, api):
    """Two tabs send the same night at the same moment (threads of one app: on PostgreSQL
    two connections, one waiting on the other's session lock or uid)."""
    events = night_events()
    answers: list[Any] = []

    def tab() -> None:
        resp = api("PUT", PATH, {"events": events})
        answers.append((resp.status_code, resp.get_json()))

    threads = [threading.Thread(target=tab) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(status for status, _ in answers) == [200, 201], answers
    assert sorted(len(a["taken"]) for _, a in answers) == [0, 13]
    assert stored(db_app)[:3] == (13, 5, 2)
    _same_money(answers[0][1], events)


# -- refused: with the field, the event, and nothing changed ----------------------------------

def _refused(resp: Any, status: int, field: str, words: str) -> dict[str, Any]:
    body = resp.get_json()
    assert resp.status_code == status, body
    assert body["field"] == field and words.lower() in body["error"].lower(), body
    return body


@pytest.mark.parametrize(("change", "status", "field", "words"), [
    (lambda e: e[4].update(kind="tea"), 422, "events[0].kind", 'no event "tea"'),
    (lambda e: e[4].update(seq=7), 409, "events[0].seq", "send the events from number 5"),
    (lambda e: e[4]["hand"]["end"].update(player="Zed"), 422, "end.player",
     "Zed is not at the table"),
    (lambda e: e[4].update(colour="red"), 422, "events[0].colour", 'no field "colour"'),
    (lambda e: e[4].update(id="e2"), 422, "events[0].id", "other contents"),
    (lambda e: e[4].update(kind="voided", number=9, reason="x", hand=None) or
     e[4].pop("hand"), 422, "number", "no hand 9"),
    (lambda e: e[4].update(kind="corrected", number=1, reason="x", version="1"), 422,
     "version", 'the version must be a whole number, not "1"'),
    (lambda e: e[4].update(kind="voided", number=1, reason="x", version=True) or
     e[4].pop("hand"), 422, "version", "the version must be a whole number, not true"),
])
def test_a_refused_event_is_named_and_changes_nothing(db_app, api, change, status, field,
                                                     words):
    events = night_events()
    send(api, events[:4], 201)
    before = stored(db_app)
    bad = copy.deepcopy(events)
    change(bad)
    body = _refused(api("PUT", PATH, {"events": bad[4:5]}), status, field, words)
    assert stored(db_app) == before
    if "event" in body:  # one event refused (not the list): what the server holds
        assert (body["event"], body["index"], body["taken"]) == (bad[4]["id"], 0, [])
        assert (body["held"], body["next"]) == (4, 5)
        _same_money(body, events[:4])


def test_a_refused_event_stops_the_list_and_keeps_what_came_before(db_app, api):
    events = night_events()
    bad = copy.deepcopy(events)
    bad[5]["hand"]["end"]["player"] = "Zed"  # the correction names someone not there
    body = _refused(api("PUT", PATH, {"events": bad}), 422, "end.player", "Zed")
    assert body["event"] == "e6" and body["index"] == 5
    assert body["taken"] == [e["id"] for e in events[:5]] and body["next"] == 6
    _same_money(body, events[:5])
    answer = send(api, events, 200)  # fixed on the phone, sent again
    assert answer["taken"] == [e["id"] for e in events[5:]]
    _same_money(answer, events)


def test_a_night_must_begin_with_its_start(db_app, api):
    events = night_events()
    body = _refused(api("PUT", PATH, {"events": events[1:]}), 409, "events[0].seq",
                    "the server holds 0")
    assert body["session"] is None and body["taken"] == []
    _refused(api("PUT", PATH, {"events": [{**events[1], "seq": 1}]}), 422, "events[0].kind",
             "begins with its started event")
    bad = copy.deepcopy(events[:1])
    bad[0]["players"] = ["Ann"]
    body = _refused(api("PUT", PATH, {"events": bad}), 422, "players", "")
    assert body["event"] == "e1" and body["session"] is None
    assert stored(db_app) == (0, 0, 0, [])


@pytest.mark.parametrize(("body", "field"), [
    ({}, "events"), ({"events": []}, "events"), ({"events": {}}, "events"),
    ({"events": [7]}, "events[0]"), ({"events": [{"seq": 1, "kind": "started"}]},
                                     "events[0].id"),
    ({"events": [{"id": "a b", "seq": 1, "kind": "started"}]}, "events[0].id"),
    ({"events": [{"id": "a", "seq": True, "kind": "started"}]}, "events[0].seq"),
    ({"events": [{"id": "a", "seq": 1, "kind": "started"},
                 {"id": "a", "seq": 2, "kind": "left"}]}, "events[1].id"),
    ({"events": [{"id": "a", "seq": 1, "kind": "started"},
                 {"id": "b", "seq": 3, "kind": "left"}]}, "events[1].seq"),
    ({"events": [], "more": 1}, "more"),
])
def test_a_list_that_cannot_be_read_is_refused_whole(db_app, api, body, field):
    resp = api("PUT", PATH, body)
    assert resp.status_code in (409, 422) and resp.get_json()["field"] == field, \
        resp.get_json()
    assert stored(db_app) == (0, 0, 0, [])


def test_a_bad_uid_is_refused(db_app, api):
    resp = api("PUT", "/nights/" + "x" * 33 + "/events", {"events": night_events()})
    assert resp.status_code == 422 and resp.get_json()["field"] == "uid"


def test_another_accounts_night_is_not_found_and_stays_as_it_was(db_app, api, other):
    events = night_events()
    send(api, events[:6], 201)
    before = stored(db_app)
    for part in (events, events[6:], events[:1]):
        _refused(other("PUT", PATH, {"events": part}), 404, "uid", "no night")
    assert stored(db_app) == before
    other_night = send(other, events, 201, uid="eves-own-night")
    assert other_night["session"]["id"] != send(api, events, 200)["session"]["id"]


def test_a_session_not_started_on_a_phone_takes_no_events(db_app, api):
    sid = api.start()
    with db_app.app_context():
        uid = db.session.get_one(GameSession, sid).uid
        db.session.remove()
    _refused(api("PUT", f"/nights/{uid}/events", {"events": night_events()}), 409, "uid",
             "not started on a phone")


# -- under a real multi-worker server -----------------------------------------------------------

@pytest.fixture(scope="module")
def served(database_url):
    """One tonk serve (four workers) on the database, and a phone's client of its API."""
    token = prepare(database_url)
    with server(database_url, workers=4) as base:
        yield Client(base, token)


def test_four_tabs_sending_a_night_at_once_store_it_once(served, database_url):
    """Four tabs of a phone send the same night at the same moment, twice over (a first
    send, racing for the night's uid; then the rest of it, racing for its lock): one
    session, each event once, the fold's money, never a 5xx."""
    events = night_events()
    # a write first: the token's use is noted (a write of its row) at most once a minute,
    # which would line the tabs up one after another
    assert served.call("PUT", f"/api/v1/nights/{uuid.uuid4().hex}/events",
                       {"events": events[:1]}).status == 201
    uid = uuid.uuid4().hex
    path = f"/api/v1/nights/{uid}/events"
    for part, created in ((events[:7], True), (events, False)):
        answers = at_once(4, lambda part=part: served.call("PUT", path, {"events": part}))
        statuses = sorted(a.status for a in answers)
        assert statuses == ([200, 200, 200, 201] if created else [200] * 4), answers
        assert sorted(len(a.body["taken"]) for a in answers) == [0, 0, 0, len(part) - (
            0 if created else 7)]
        assert len({a.body["session"]["id"] for a in answers}) == 1
        for a in answers:
            _same_money(a.body, part)
    found = problems_at(database_url)
    assert found == [], "tonk check: " + "; ".join(found)


def test_a_refusal_speaks_the_readers_language(db_app, api):
    events = night_events()
    send(api, events[:2], 201)
    resp = api("PUT", PATH, {"events": events[5:6]}, headers={"Accept-Language": "de"})
    body = _refused(resp, 409, "events[0].seq", "schick die Ereignisse ab Nummer 3")
    assert body["next"] == 3
    bad = copy.deepcopy(events[2:3])
    bad[0]["hand"]["end"]["player"] = "Zed"
    resp = api("PUT", PATH, {"events": bad}, headers={"Accept-Language": "ja"})
    assert resp.status_code == 422 and "Zed" in resp.get_json()["error"]
    assert resp.get_json()["error"] != _refused(api("PUT", PATH, {"events": bad}), 422,
                                                "end.player", "Zed")["error"]


def test_an_idempotency_key_answers_a_list_again_as_first_answered(db_app, api):
    events = night_events()
    key = {"Idempotency-Key": "night-1"}
    first = api("PUT", PATH, {"events": events[:3]}, headers=key)
    refused = api("PUT", PATH, {"events": events[4:6]}, headers={"Idempotency-Key": "night-2"})
    assert (first.status_code, refused.status_code) == (201, 409)
    before = stored(db_app)
    for sent, answer, k in ((events[:3], first, key), (events[4:6], refused,
                                                      {"Idempotency-Key": "night-2"})):
        again = api("PUT", PATH, {"events": sent}, headers=k)
        assert again.headers.get("Idempotent-Replayed") == "true"
        assert (again.status_code, again.get_json()) == (answer.status_code, answer.get_json())
    assert stored(db_app) == before


def test_a_night_of_a_league_is_the_leagues_and_another_accounts_league_is_refused(
        db_app, api, other):
    lid = api.ok("POST", "/leagues", {"name": "Thursday", "rules": "pagat", "stake": "0.25",
                                      "currency": "USD"}, 201)["id"]
    events = night_events()
    started = {**events[0], "league": lid}
    body = _refused(other("PUT", PATH, {"events": [started]}), 404, "league", "")
    assert body["event"] == "e1" and body["session"] is None
    assert stored(db_app) == (0, 0, 0, [])
    answer = send(api, [started, *events[1:]], 201)
    assert answer["session"]["league"] == lid
    _same_money(answer, events)


def test_a_night_keeps_the_share_token_its_phone_made_for_its_qr(db_app, api):
    """The phone showed the share view's QR before the night was sent, with a token it made:
    the session takes that token, so the QR leads to it once sent. A token that is no token,
    or another session's, is refused by its field and the night stays unsent."""
    events = night_events()
    mine = "Zm9yLXRoZS1xci1sYXRlcg"  # 22 characters: 16 bytes, base64url
    other = api.ok("GET", f"/sessions/{api.start()}")["share_url"].rsplit("/", 1)[1]
    for token, words in (("short", "22 to 43 letters"), (other, "another session's")):
        bad = copy.deepcopy(events)
        bad[0]["share_token"] = token
        before = stored(db_app)
        _refused(api("PUT", PATH, {"events": bad[:1]}), 422, "share_token", words)
        assert stored(db_app) == before
    events[0]["share_token"] = mine
    answer = send(api, events, 201)
    session = api.ok("GET", f"/sessions/{answer['session']['id']}")
    assert session["share_url"] == f"/s/{mine}"
    assert api.ok("GET", f"/share/{mine}")["session"]["name"] == "Basement"
