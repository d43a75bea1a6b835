"""The stateless API: settle (the dispute checker), transfers, the OpenAPI document, and
that no input, however malformed, gets anything but a 4xx with an error message."""
from __future__ import annotations

import json

import pytest

from tests.hands import load_json

EXAMPLES = load_json("examples.json") + load_json("rule_changes.json")


def post(client, path, body):
    raw = body if isinstance(body, str | bytes) else json.dumps(body, default=str)
    return client.post(path, data=raw, content_type="application/json")


@pytest.mark.parametrize("case", EXAMPLES, ids=[c["name"] for c in EXAMPLES])
def test_worked_hands_through_the_api(open_client, case):
    resp = post(open_client, "/api/v1/settle", case["hand"])
    body = resp.get_json()
    expect = case["expect"]
    if expect.get("error"):
        assert 400 <= resp.status_code < 500
        assert body["error"]
        return
    assert resp.status_code == 200, body
    assert body["outcome"] == expect["outcome"]
    assert sorted(body["winners"]) == sorted(expect["winners"])
    key = "net" if "net" in expect else "pushed"
    from decimal import Decimal

    assert {k: Decimal(str(v)) for k, v in body[key].items()} == \
        {k: Decimal(str(v)) for k, v in expect[key].items()}


def test_settle_answers_in_the_documented_shape(open_client):
    resp = post(open_client, "/api/v1/settle", {
        "rules": {"preset": "pagat", "catch": "alt3"}, "stake": "0.25",
        "players": ["Ann", "Bob", "Cy", "Dee"], "dealer": "Dee",
        "end": {"kind": "drop", "player": "Bob"},
        "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}})
    body = resp.get_json()
    assert body["net"] == {"Ann": "-0.25", "Bob": "-0.50", "Cy": "1.00", "Dee": "-0.25"}
    assert body["payments"][0]["from"] == "Bob" and body["payments"][0]["amount"] == "0.25"
    assert body["explanation"][0].startswith("Bob dropped with 9; Cy holds 9")


def test_a_float_stake_in_json_is_read_exactly(open_client):
    resp = post(open_client, "/api/v1/settle", '{"stake": 0.1, "players": ["Ann", "Bob"], '
                '"end": {"kind": "run_out", "player": "Ann"}}')
    assert resp.get_json()["net"] == {"Ann": "0.10", "Bob": "-0.10"}
    resp = post(open_client, "/api/v1/transfers", '{"balances": {"Ann": 0.1, "Bob": -0.1}}')
    assert resp.get_json()["transfers"] == [{"from": "Bob", "to": "Ann", "amount": "0.1"}]


def test_errors_name_the_field(open_client):
    resp = post(open_client, "/api/v1/settle", {"players": ["Ann", "Bob"],
                                           "end": {"kind": "drop", "player": "Ann"},
                                           "counts": {"Ann": 3}})
    assert resp.status_code == 422
    assert resp.get_json() == {"error": "Bob's count is missing: a drop needs every "
                                        "player's count", "field": "counts.Bob"}


def test_a_card_given_twice_is_named_by_its_place(open_client):
    """Two aces of spades were refused with no field: the copy the deck does not hold is the
    one named."""
    resp = post(open_client, "/api/v1/settle", {
        "players": ["Ann", "Bob"], "end": {"kind": "drop", "player": "Ann"},
        "cards": {"Ann": ["AS", "2S"], "Bob": ["3S", "AS"]}})
    assert resp.status_code == 422
    assert resp.get_json() == {"error": "AS is given 2 times (Ann, Bob), but the deck holds "
                                        "it only once", "field": "cards.Bob[1]"}


@pytest.mark.parametrize("raw", [
    "", "not json", "[1, 2]", '"text"', "null", '{"players": NaN}', "{" * 5000,
    '{"stake": 1e999999999, "players": ["A", "B"], "end": {"kind": "dead"}}',
    '{"stake": "1e999999999", "players": ["A", "B"], "end": {"kind": "dead"}}',
    '{"players": ["A", "B"], "end": {"kind": "drop", "player": "A"}, "counts": {"A": '
    + "9" * 5000 + ', "B": 1}}',
    b"\xff\xfe{}",
])
def test_malformed_bodies_get_a_4xx_with_a_message(open_client, raw):
    resp = post(open_client, "/api/v1/settle", raw)
    assert 400 <= resp.status_code < 500
    assert resp.get_json()["error"]


def test_wrong_method_and_unknown_path_answer_json(open_client):
    assert open_client.get("/api/v1/settle").status_code == 405
    assert open_client.get("/api/v1/settle").get_json()["error"]
    assert open_client.get("/api/v1/nothing").get_json()["error"]


def test_transfers_fewest(open_client):
    resp = post(open_client, "/api/v1/transfers", {"balances": {
        "Ann": "-4.00", "Bob": "-3.00", "Cy": "-3.00", "Dee": "6.00", "Eve": "4.00"}})
    assert resp.status_code == 200
    transfers = resp.get_json()["transfers"]
    assert len(transfers) == 3
    assert {"from": "Ann", "to": "Eve", "amount": "4.00"} in transfers


@pytest.mark.parametrize("body, field", [
    ({"balances": {"Ann": "1.00", "Bob": "-0.95"}}, "balances"),
    ({"balances": {"Ann": True, "Bob": "-1"}}, "balances.Ann"),
    ({"balances": {"Ann": "lots", "Bob": "-1"}}, "balances.Ann"),
    ({"balances": []}, "balances"),
    ({}, "balances"),
    ({"balance": {}}, "balance"),  # a key it does not take: named, as every endpoint does
])
def test_transfers_bad_input(open_client, body, field):
    resp = post(open_client, "/api/v1/transfers", body)
    assert 400 <= resp.status_code < 500
    assert resp.get_json()["error"]
    assert resp.get_json().get("field") == field


def test_openapi_document_describes_the_endpoints(open_client):
    doc = open_client.get("/api/v1/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    assert {"/api/v1/settle", "/api/v1/transfers"} <= set(doc["paths"])
    assert "pagat" in doc["components"]["schemas"]["Rules"]["oneOf"][0]["enum"]


def test_the_number_of_jokers_is_an_option_of_the_api(open_client):
    """``jokers`` is documented with the other options, taken by the settle API
    and refused with its field when the deck has no jokers."""
    doc = open_client.get("/api/v1/openapi.json").get_json()
    options = doc["components"]["schemas"]["Rules"]["oneOf"][1]["properties"]
    assert "jokers" in options and "two, or more" in options["jokers"]["description"]
    hand = {"rules": {"preset": "chicago", "jokers": 3}, "stake": "1",
            "players": ["Ann", "Bob", "Cy"], "end": {"kind": "deal"}, "counts": {"Ann": 2}}
    resp = post(open_client, "/api/v1/settle", hand)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["net"]["Ann"] == "4.00"
    resp = post(open_client, "/api/v1/settle", {**hand, "rules": {"jokers": 3}})
    assert resp.status_code == 422 and resp.get_json()["field"] == "rules.jokers"


HAND = '"players": ["Ann", "Bob"], "end": {"kind": "run_out", "player": "Ann"}'


@pytest.mark.parametrize("raw, field, shown", [
    ('{"multiplier": 1e9, ' + HAND + "}", "multiplier", "not 1000000000"),
    ('{"multiplier": 2.5, ' + HAND + "}", "multiplier", "not 2.5"),
    ('{"multiplier": 1e400, ' + HAND + "}", "multiplier", "not 1e400"),
    ('{"multiplier": true, ' + HAND + "}", "multiplier", "not true"),
    ('{"multiplier": null, ' + HAND + "}", "multiplier", "not null"),
    ('{"multiplier": "x", ' + HAND + "}", "multiplier", 'not "x"'),
    ('{"multiplier": [2], ' + HAND + "}", "multiplier", "not [2]"),
    ('{"stake": true, ' + HAND + "}", "stake", "not true"),
    ('{"dealer": ["Ann"], ' + HAND + "}", "dealer", 'not ["Ann"]'),
    ('{"reason": 1, ' + HAND + "}", "reason", 'no field "reason"'),
])
def test_an_error_quotes_a_value_as_the_user_wrote_it_not_as_python(open_client, raw, field,
                                                                     shown):
    resp = post(open_client, "/api/v1/settle", raw)
    assert 400 <= resp.status_code < 500
    body = resp.get_json()
    assert body["field"] == field and shown in body["error"], body
    for python in ("Decimal(", "True", "None", "['", "'x'"):
        assert python not in body["error"], body
