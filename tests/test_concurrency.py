"""Several people writing at once, against a real multi-worker server (tonk serve on
127.0.0.1) on SQLite and on PostgreSQL: afterwards every 201 is one stored hand, the
totals equal the hands and sum to zero, ``tonk check`` finds nothing, and no answer was a
5xx. Retried requests (the same Idempotency-Key) and double-submitted forms store once;
eight identical payments of one debt record one.

Bounded: a few hundred requests per database, a few seconds each.
"""
from __future__ import annotations

import threading
import uuid
from decimal import Decimal
from typing import Any

import pytest

from tests.apps import problems_at
from tests.live import (
    Browser,
    Client,
    at_once,
    new_session,
    prepare,
    run_scorekeepers,
    server,
)

KEEPERS = 8
HANDS = 12  # each: with retries, reads, corrections and voids about 300 requests in all


@pytest.fixture(scope="module")
def served(database_url):
    """One tonk serve (four workers) on the database for this module's tests, each of which
    keeps score in a session of its own."""
    token = prepare(database_url)
    with server(database_url, workers=4) as base:
        yield base, Client(base, token)


@pytest.fixture
def live(served, database_url):
    """The server's base URL and a client of its API; after the test, ``tonk check``
    finds nothing wrong."""
    yield served
    found = problems_at(database_url)
    assert found == [], "tonk check after this test: " + "; ".join(found)


def _stored(client: Client, session_id: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    base = f"/api/v1/sessions/{session_id}"
    ledger = client.call("GET", base + "/ledger").body
    session = client.call("GET", base).body
    count = session["hands"] + session["voided_hands"]  # numbered: voids included
    hands = [client.call("GET", f"{base}/hands/{n}").body for n in range(1, count + 1)]
    return hands, ledger


def test_eight_scorekeepers_at_once_leave_totals_equal_to_the_hands(live):
    _base, client = live
    session_id = new_session(client)
    tally, _seconds = run_scorekeepers(client, session_id, KEEPERS, HANDS)
    assert tally.errors == []
    assert not any(status >= 500 for status in tally.statuses)
    hands, ledger = _stored(client, session_id)
    # every 201 is one stored hand, numbered 1…n without a gap or a double
    assert sorted(tally.recorded) == [h["number"] for h in hands] == list(
        range(1, KEEPERS * HANDS + 1))
    nets = {p: Decimal(0) for p in ledger["totals"]}
    for hand in hands:
        if not hand["voided"]:
            for player, net in hand["result"]["net"].items():
                nets[player] += Decimal(net)
    assert {p: Decimal(v) for p, v in ledger["totals"].items()} == nets
    assert sum(nets.values()) == 0


def test_a_retried_record_with_the_same_key_stores_one_hand(live):
    _base, client = live
    session_id = new_session(client)
    path = f"/api/v1/sessions/{session_id}/hands"
    body, key = {"end": {"kind": "tonk_out", "player": "Ann"}}, uuid.uuid4().hex
    answers = []

    def send() -> None:
        answers.append(client.call("POST", path, body, key=key))

    threads = [threading.Thread(target=send) for _ in range(6)]  # sent at once, too
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    answers.append(client.call("POST", path, body, key=key))  # and again, later
    assert {a.status for a in answers} == {201}
    assert {a.body["number"] for a in answers} == {1}
    assert sum(a.headers.get("Idempotent-Replayed") == "true" for a in answers) == 6
    assert client.call("GET", f"/api/v1/sessions/{session_id}").body["hands"] == 1
    other = client.call("POST", path, {"end": {"kind": "tonk_out", "player": "Bob"}}, key=key)
    assert other.status == 422 and other.body["field"] == "Idempotency-Key"


def test_eight_identical_payments_of_one_debt_record_one(live):
    _base, client = live
    session_id = new_session(client, stake="1.00")
    base = f"/api/v1/sessions/{session_id}"
    assert client.call("POST", base + "/hands",
                       {"end": {"kind": "tonk_out", "player": "Ann"}}).status == 201
    transfer = client.call("GET", base + "/ledger").body["transfers"][0]
    payment = {"from": transfer["from"], "to": transfer["to"], "amount": transfer["amount"]}
    answers = []

    def pay() -> None:
        answers.append(client.call("POST", base + "/payments", payment))

    threads = [threading.Thread(target=pay) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(a.status for a in answers) == [200] + [422] * 7
    ledger = client.call("GET", base + "/ledger").body
    assert [{k: p[k] for k in ("from", "to", "amount")} for p in ledger["paid"]] == [payment]


def test_a_double_submitted_form_stores_one_hand(live):
    base, client = live
    session_id = new_session(client)
    phone = Browser(base)
    phone.sign_in("keeper@example.com", "correct horse battery staple")
    path = f"/sessions/{session_id}/hands/new"
    form = {**phone.tokens(path), "kind": "tonk_out", "player": "Cy"}
    answers = []

    def tap() -> None:
        answers.append(phone.post(path, form))

    threads = [threading.Thread(target=tap) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    answers.append(phone.post(path, form))  # back, and "Save hand" again
    assert {status for status, _ in answers} == {302}
    assert {where for _, where in answers} == {f"/sessions/{session_id}"}
    assert client.call("GET", f"/api/v1/sessions/{session_id}").body["hands"] == 1


def test_a_tournament_checked_in_and_drawn_from_several_phonesat_once(live):
    """Four phones check the same player in at once: one does; four draw at once: one
    round is drawn, the others are told one is being played; never a 5xx."""
    _base, client = live
    event = client.call("POST", "/api/v1/events", {
        "name": "Cup", "table_size": 3, "rounds": 2, "hands_per_round": 1}).body
    base = f"/api/v1/events/{event['id']}"
    answers = at_once(4, lambda: client.call("POST", base + "/players", {"name": "Ann"}))
    assert sorted(a.status for a in answers) == [200, 409, 409, 409]
    for name in ("Bob", "Cy", "Dee", "Eve"):
        assert client.call("POST", base + "/players", {"name": name}).status == 200
    answers = at_once(4, lambda: client.call("POST", base + "/rounds", {}))
    assert sorted(a.status for a in answers) == [201, 409, 409, 409]
    drawn = client.call("GET", base).body["rounds_played"]
    assert len(drawn) == 1 and sorted(len(t["players"]) for t in drawn[0]["tables"]) == [2, 3]

    # The round's one hand, sent by four at once: one is stored, three are refused.
    hands = f"/api/v1/sessions/{drawn[0]['tables'][0]['session']}/hands"
    answers = at_once(4, lambda: client.call("POST", hands, {"end": {"kind": "dead"}}))
    assert sorted(a.status for a in answers) == [201, 409, 409, 409]
    assert {a.body["field"] for a in answers if a.status == 409} == {"round"}
    assert client.call("GET", base).body["rounds_played"][0]["tables"][0]["hands"] == 1
