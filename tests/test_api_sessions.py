"""The session endpoints of the JSON API on SQLite and PostgreSQL: the whole night through
the API (start, record every kind of end, correct, void, history, ledger, settle up in
part and in full, close), personal-token auth, another account's sessions, and every bad
input answered with a 4xx, a message and the field; and that the OpenAPI document
describes every route."""
from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import select

from app.db.models import RulesChange
from app.extensions import db
from tests.clients import Api, api_error
from tests.hands import DROP_CAUGHT, EVERY_END

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]


def current_nets(api: Api, sid: int) -> dict[str, Decimal]:
    """Each player's sum of the nets of the hands that count, from the hands themselves."""
    count = api.ok("GET", f"/sessions/{sid}")["hands"]
    sums = dict.fromkeys(PLAYERS, Decimal(0))
    for n in range(1, count + 1):
        hand = api.ok("GET", f"/sessions/{sid}/hands/{n}")
        if not hand["voided"]:
            for player, amount in hand["result"]["net"].items():
                sums[player] += Decimal(amount)
    return sums


def check_totals(api: Api, sid: int) -> dict[str, Any]:
    """The ledger's totals are the sum of the current hands' nets, exactly."""
    book = api.ok("GET", f"/sessions/{sid}/ledger")
    assert {p: Decimal(v) for p, v in book["totals"].items()} == current_nets(api, sid)
    assert sum(Decimal(v) for v in book["totals"].values()) == 0
    return book


# -- the whole night -------------------------------------------------------------------------

def test_a_whole_night_through_the_api(api):
    session = api.ok("POST", "/sessions", {
        "name": "Friday", "players": PLAYERS, "rules": {"preset": "pagat", "catch": "alt3"},
        "stake": "0.25", "currency": "USD", "first_dealer": "Dee"}, 201)
    sid = session["id"]
    assert session["players"] == PLAYERS and session["dealer"] == "Dee"
    assert session["rules"] == {"preset": "pagat", "catch": "alt3"}
    assert (session["stake"], session["currency"], session["closed"]) == ("0.25", "USD", False)
    assert session["hands"] == 0 and session["share_url"].startswith("/s/")
    endpoint, _ = api.client.application.url_map.bind("").match(session["share_url"])
    assert endpoint == "web.shared"  # the read-only page
    assert api.ok("GET", f"/sessions/{sid}") == session
    api.ok("PUT", f"/sessions/{sid}/rules", {"rules": "pagat"})  # back to the main rules

    for i, (hand, outcome, ann) in enumerate(EVERY_END, start=1):
        resp = api("POST", f"/sessions/{sid}/hands", hand)
        assert resp.status_code == 201, resp.get_json()
        assert resp.headers["Location"].endswith(f"/sessions/{sid}/hands/{i}")
        body = resp.get_json()
        assert body["number"] == i and body["result"]["outcome"] == outcome
        assert body["result"]["net"]["Ann"] == ann
        assert body["hand"]["dealer"] == PLAYERS[(3 + i - 1) % 4]  # Dee, then clockwise
        check_totals(api, sid)
    caught = api.ok("GET", f"/sessions/{sid}/hands/5")
    assert caught["result"]["net"] == {"Ann": "-0.25", "Bob": "-0.50", "Cy": "1.00",
                                       "Dee": "-0.25"}
    assert (caught["version"], caught["voided"], caught["stake"]) == (1, False, "0.25")
    assert "players" not in caught["hand"] and "rules" not in caught["hand"]

    # Correct hand 5 from its own current version: the old one stays in the history.
    fixed = api.ok("PUT", f"/sessions/{sid}/hands/5", {
        **caught["hand"], "end": {"kind": "run_out", "player": "Ann"}, "counts": {},
        "reason": "Ann had gone out before the drop"})
    assert (fixed["number"], fixed["version"], fixed["voided"]) == (5, 2, False)
    assert fixed["result"]["outcome"] == "run_out" and fixed["hand"]["dealer"] == "Dee"
    check_totals(api, sid)

    voided = api.ok("DELETE", f"/sessions/{sid}/hands/2", {"reason": "misdeal"})
    assert voided["voided"] and voided["version"] == 2
    assert api.ok("GET", f"/sessions/{sid}/hands/2")["voided"]
    book = check_totals(api, sid)
    assert book["hands"] == len(EVERY_END) - 1

    history = api.ok("GET", f"/sessions/{sid}/hands/5/history")
    assert [(v["version"], v["action"], v["by"], v["reason"]) for v in history] == [
        (1, "recorded", "Ann", None), (2, "corrected", "Ann", "Ann had gone out before the drop")]
    assert history[0]["result"]["outcome"] == "caught"
    assert history[0]["hand"]["end"] == DROP_CAUGHT["end"]
    assert all(re.match(r"\d{4}-\d\d-\d\dT.*\+00:00$", v["at"]) for v in history)
    assert [v["action"] for v in api.ok("GET", f"/sessions/{sid}/hands/2/history")] == [
        "recorded", "voided"]

    # Settle up: one transfer in part, then every open transfer in full.
    assert book["paid"] == [] and not book["all_paid"]
    api_error(api("POST", f"/sessions/{sid}/close"), 422, "carry_over", "not everything is paid")
    first = book["transfers"][0]
    part = str(Decimal(first["amount"]) - Decimal("0.01"))
    after = api.ok("POST", f"/sessions/{sid}/payments", {**first, "amount": part})
    assert [{k: p[k] for k in ("from", "to", "amount")} for p in after["paid"]] == [
        {**first, "amount": part}]
    assert Decimal(after["balances"][first["from"]]) == \
        Decimal(book["balances"][first["from"]]) + Decimal(part)
    assert after["totals"] == book["totals"]
    api_error(api("POST", f"/sessions/{sid}/payments", {**first, "amount": "1000"}), 422, "amount",
          "more than is open")
    while after["transfers"]:
        after = api.ok("POST", f"/sessions/{sid}/payments", after["transfers"][0])
    assert after["all_paid"] and set(after["balances"].values()) == {"0.00"}
    assert after["open"] == []
    assert after["totals"] == book["totals"]

    closed = api.ok("POST", f"/sessions/{sid}/close")
    assert closed["closed"] and closed["closed_at"]
    assert api.ok("GET", f"/sessions/{sid}")["closed"]
    for method, path, body in [  # (a payment's 409 spoke of hands, and none named a field)
        ("POST", "/hands", DROP_CAUGHT),
        ("PUT", "/hands/1", {**DROP_CAUGHT, "reason": "late"}),
        ("DELETE", "/hands/1", {"reason": "late"}),
        ("PUT", "/rules", {"rules": "texas"}),
        ("POST", "/payments", {"from": "Ann", "to": "Bob", "amount": "1"}),
        ("POST", "/seats", {"join": "Fay"}),
        ("POST", "/close", None),
    ]:
        api_error(api(method, f"/sessions/{sid}{path}", body), 409, "session",
                  "this session is closed: nothing in it can change any more")
    assert check_totals(api, sid)["totals"] == book["totals"]


def test_rules_change_applies_to_later_hands_only(api):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", DROP_CAUGHT, 201)
    changed = api.ok("PUT", f"/sessions/{sid}/rules",
                     {"rules": {"preset": "pagat", "catch": "alt4"}, "stake": "1"})
    assert (changed["rules"], changed["stake"]) == ({"preset": "pagat", "catch": "alt4"}, "1.00")
    assert api.ok("PUT", f"/sessions/{sid}/rules", {"stake": "0.50"})["rules"] == \
        changed["rules"]  # a stake alone keeps the rules
    second = api.ok("POST", f"/sessions/{sid}/hands", DROP_CAUGHT, 201)
    assert second["result"]["net"]["Bob"] == "-3.00" and second["stake"] == "0.50"
    first = api.ok("GET", f"/sessions/{sid}/hands/1")
    assert (first["rules"], first["stake"]) == ({"preset": "pagat"}, "0.25")
    assert first["result"]["net"]["Bob"] == "-0.50"
    api_error(api("PUT", f"/sessions/{sid}/rules", {}), 422, "rules", "send the new house rules")
    api_error(api("PUT", f"/sessions/{sid}/rules", {"rules": "nope"}), 422, "rules.preset",
          "no house rules called")


def test_list_shows_only_my_sessions(api, other):
    mine = [api.start(name="Friday"), api.start(name="Saturday")]
    other.start(name="Eve's night")
    listed = api.ok("GET", "/sessions")
    assert sorted(s["id"] for s in listed) == sorted(mine)
    assert set(listed[0]) == {"id", "name", "players", "currency", "closed", "hands",
                              "voided_hands", "archived",
                              "created_at"}
    assert [s["name"] for s in other.ok("GET", "/sessions")] == ["Eve's night"]


def test_a_player_named_like_markup_is_kept_verbatim_as_data(api):
    name = "<script>alert(1)</script>"
    sid = api.start(players=[name, "Bob"], first_dealer=None)
    resp = api("GET", f"/sessions/{sid}")
    assert resp.mimetype == "application/json"
    assert resp.get_json()["players"] == [name, "Bob"]
    hand = api.ok("POST", f"/sessions/{sid}/hands",
                  {"end": {"kind": "run_out", "player": name}}, 201)
    assert hand["result"]["winners"] == [name]
    assert api.ok("GET", f"/sessions/{sid}/ledger")["totals"] == {name: "0.25", "Bob": "-0.25"}


# -- auth and other accounts -----------------------------------------------------------------

def _session_routes(app: Any) -> list[tuple[str, str]]:
    """Every (method, path) of the session endpoints, ids filled in."""
    out = []
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/v1/sessions"):
            path = re.sub(r"<[^>]+>", "1", rule.rule)[len("/api/v1"):]
            out += [(m, path) for m in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return out


@pytest.mark.parametrize("header", [
    None, "", "Bearer", "Bearer ", "Bearer tt_not-a-real-token", "Basic YW5uOnB3",
    "Token tt_x", "Bearer " + "x" * 5000,
])
def test_every_session_endpoint_needs_a_valid_token(db_app, api, header):
    sid = api.start()
    routes = _session_routes(db_app)
    assert len(routes) >= 12
    anonymous = Api(db_app.test_client(), None)
    headers = {} if header is None else {"Authorization": header}
    for method, path in routes:
        resp = anonymous(method, path.replace("/1", f"/{sid}", 1), {"reason": "x"},
                         headers=headers)
        assert resp.status_code == 401, (method, path, resp.get_json())
        assert resp.headers["WWW-Authenticate"].startswith("Bearer realm=")
        assert resp.get_json()["field"] == "Authorization" and resp.get_json()["error"]


def test_the_token_scheme_is_case_insensitive_and_open_endpoints_stay_open(db_app, api):
    sid = api.start()
    resp = api("GET", f"/sessions/{sid}", headers={"Authorization": f"bearer  {api.token}"})
    assert resp.status_code == 200
    anonymous = Api(db_app.test_client(), None)
    assert anonymous("GET", "/openapi.json").status_code == 200
    assert anonymous("POST", "/transfers", {"balances": {"A": "1", "B": "-1"}}).status_code \
        == 200
    assert anonymous("POST", "/settle", {"players": ["A", "B"], "end": {"kind": "dead"}}
                     ).status_code == 200


def test_another_accounts_session_is_not_found(api, other):
    sid = other.start()
    other.ok("POST", f"/sessions/{sid}/hands", DROP_CAUGHT, 201)
    missing = api("GET", "/sessions/999999").get_json()
    for method, path, body in [
        ("GET", "", None), ("POST", "/hands", DROP_CAUGHT),
        ("PUT", "/hands/1", {**DROP_CAUGHT, "reason": "mine now"}),
        ("DELETE", "/hands/1", {"reason": "mine now"}), ("GET", "/hands/1", None),
        ("GET", "/hands/1/history", None), ("GET", "/ledger", None),
        ("POST", "/payments", {"from": "Bob", "to": "Cy", "amount": "0.50"}),
        ("PUT", "/rules", {"rules": "texas"}), ("POST", "/close", None),
    ]:
        resp = api(method, f"/sessions/{sid}{path}", body)
        assert resp.status_code == 404, (method, path)
        # Word for word what a session that does not exist gets: nothing is revealed.
        assert resp.get_json() == {**missing, "error": missing["error"].replace(
            "999999", str(sid))}
    assert other.ok("GET", f"/sessions/{sid}/hands/1")["version"] == 1
    assert other.ok("GET", f"/sessions/{sid}/ledger")["paid"] == []


@pytest.mark.parametrize("path", [
    "/sessions/99999999999999999999", "/sessions/{sid}/hands/99999999999999999999",
    "/sessions/{sid}/hands/7", "/sessions/{sid}/hands/0/history",
])
def test_ids_that_name_nothing_are_404(api, path):
    sid = api.start()
    resp = api("GET", path.format(sid=sid))
    assert resp.status_code == 404 and resp.get_json()["error"]


# -- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("hand, field, words", [
    ({"end": {"kind": "drop", "player": "Zed"}}, "end.player", "Zed is not at the table"),
    ({**DROP_CAUGHT, "counts": {**DROP_CAUGHT["counts"], "Zed": 3}}, "counts.Zed",
     "Zed is not at the table"),
    ({**DROP_CAUGHT, "counts": {**DROP_CAUGHT["counts"], "Ann": 51}}, "counts.Ann",
     "more than five cards can hold"),
    ({**DROP_CAUGHT, "counts": {**DROP_CAUGHT["counts"], "Ann": -1}}, "counts.Ann",
     "cannot be negative"),
    ({**DROP_CAUGHT, "players": PLAYERS}, "players", "set by the session"),
    ({**DROP_CAUGHT, "rules": "texas"}, "rules", "set by the session"),
    ({**DROP_CAUGHT, "stake": "5"}, "stake", "set by the session"),
    ({**DROP_CAUGHT, "reason": "x"}, "reason", "no field"),
    ({"end": {"kind": "drop", "player": "Bob"}}, "counts.Ann", "count is missing"),
    ({"end": {"kind": "tonk_out", "player": "Bob"}, "dealer": "Zed"}, "dealer", "Zed"),
])
def test_a_bad_hand_is_422_naming_the_field_and_changes_nothing(api, hand, field, words):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", DROP_CAUGHT, 201)
    before = api.ok("GET", f"/sessions/{sid}/ledger")
    api_error(api("POST", f"/sessions/{sid}/hands", hand), 422, field, words)
    if field != "reason":  # in a correction, the reason is taken out first
        api_error(api("PUT", f"/sessions/{sid}/hands/1", {**hand, "reason": "typo"}), 422,
              field, words)
    assert api.ok("GET", f"/sessions/{sid}/ledger") == before
    assert api.ok("GET", f"/sessions/{sid}")["hands"] == 1


@pytest.mark.parametrize("reason, words", [
    (None, "needs a reason"), ("", "needs a reason"), ("   ", "needs a reason"),
    (7, "the reason must be text, not 7"),  # (it said "needs a reason")
])
def test_a_correction_or_void_without_a_reason_changes_nothing(api, reason, words):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", DROP_CAUGHT, 201)
    before = api.ok("GET", f"/sessions/{sid}/ledger")
    body: dict[str, Any] = {"end": {"kind": "run_out", "player": "Ann"}}
    if reason is not None:
        body["reason"] = reason
    api_error(api("PUT", f"/sessions/{sid}/hands/1", body), 422, "reason", words)
    api_error(api("DELETE", f"/sessions/{sid}/hands/1", {} if reason is None else
              {"reason": reason}), 422, "reason", words)
    assert api.ok("GET", f"/sessions/{sid}/ledger") == before
    assert api.ok("GET", f"/sessions/{sid}/hands/1")["version"] == 1
    assert len(api.ok("GET", f"/sessions/{sid}/hands/1/history")) == 1


@pytest.mark.parametrize("raw", ["", "not json", "{'end': 1}", "[1, 2]", "null",
                                 '{"stake": NaN}', "{" * 5000, b"\xff\xfe{}"])
def test_a_body_that_is_not_a_json_object_is_400(api, raw):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", DROP_CAUGHT, 201)
    for method, path in [("POST", "/sessions"), ("POST", f"/sessions/{sid}/hands"),
                         ("PUT", f"/sessions/{sid}/hands/1"),
                         ("DELETE", f"/sessions/{sid}/hands/1"),
                         ("POST", f"/sessions/{sid}/payments"),
                         ("PUT", f"/sessions/{sid}/rules")]:
        resp = api(method, path, raw)
        assert resp.status_code == 400, (method, path, resp.get_json())
        assert resp.get_json()["error"]
    assert api.ok("GET", f"/sessions/{sid}/hands/1")["version"] == 1


def test_text_with_a_nul_character_is_refused_before_the_database(api):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", DROP_CAUGHT, 201)
    for method, path, body, field in [
        ("POST", "/sessions", {"name": "Fri\u0000day", "players": PLAYERS}, "name"),
        ("POST", "/sessions", {"name": "x", "players": ["A\u0000", "B"]}, "players[0]"),
        ("PUT", f"/sessions/{sid}/hands/1", {**DROP_CAUGHT, "reason": "a\u0000"}, "reason"),
        ("DELETE", f"/sessions/{sid}/hands/1", {"reason": "why\u0000"}, "reason"),
    ]:
        api_error(api(method, path, body), 422, field, "control characters")
    assert api.ok("GET", f"/sessions/{sid}/hands/1")["version"] == 1
    assert [s["id"] for s in api.ok("GET", "/sessions")] == [sid]


@pytest.mark.parametrize("body, field, words", [
    ({"players": PLAYERS}, "name", "cannot be empty"),
    ({"name": 5, "players": PLAYERS}, "name", "the session's name must be text, not 5"),
    ({"name": "x", "players": ["Ann", 5]}, "players[1]", "player 2's name must be text, not 5"),
    ({"name": "x", "players": PLAYERS, "currency": 5}, "currency", "must be text, not 5"),
    ({"name": "x", "players": PLAYERS, "currency": True}, "currency", "must be text, not true"),
    ({"name": "x", "players": ["Ann"]}, "players", "2 to 8 players"),
    ({"name": "x", "players": ["Ann", "ann"]}, "players[1]", "twice"),
    ({"name": "x", "players": PLAYERS, "stake": 0.1}, None, None),  # an exact decimal: fine
    ({"name": "x", "players": PLAYERS, "stake": "0.001"}, "stake", "two decimal places"),
    ({"name": "x", "players": PLAYERS, "rules": {"catch": "sideways"}}, "rules.catch", ""),
    ({"name": "x", "players": PLAYERS, "first_dealer": "Zed"}, "first_dealer", "Zed"),
    ({"name": "x", "players": PLAYERS, "stakes": "1"}, "stakes", 'no field "stakes"'),
])
def test_starting_a_session_checks_its_fields(api, body, field, words):
    resp = api("POST", "/sessions", body)
    if field is None:
        assert resp.status_code == 201 and resp.get_json()["stake"] == "0.10"
    else:
        api_error(resp, 422, field, words)


@pytest.mark.parametrize("body, field, words", [
    ({"from": "Zed", "to": "Cy", "amount": "0.10"}, "from", "not at this table"),
    ({"from": "Bob", "to": "Zed", "amount": "0.10"}, "to", "not at this table"),
    ({"from": "Cy", "to": "Bob", "amount": "0.10"}, "from", "owes nothing"),
    ({"from": "Bob", "to": "Cy", "amount": "0.001"}, "amount", "two decimal places"),
    ({"from": "Bob", "to": "Cy", "amount": "-1"}, "amount", "more than zero"),
    ({"from": "Bob", "to": "Cy", "amount": "1e999999"}, "amount", "must be like"),  # digits only
    ({"from": "Bob", "to": "Cy", "amount": 10**40}, "amount", "at most"),
    ({"from": "Bob", "to": "Cy", "amount": 0.5}, None, None),  # exact: pays Bob's 0.50
    ({"from": "Bob", "to": "Cy"}, "amount", "say how much"),
    ({"to": "Cy", "amount": "1"}, "from", "say who paid"),
    ({"from": "Bob", "to": "Cy", "amount": "1", "note": "cash"}, "note", "no field"),
])
def test_payments_check_who_and_how_much(api, body, field, words):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", DROP_CAUGHT, 201)
    resp = api("POST", f"/sessions/{sid}/payments", body)
    if field is None:
        assert resp.status_code == 200 and resp.get_json()["balances"]["Bob"] == "0.00"
    else:
        api_error(resp, 422, field, words)
        assert api.ok("GET", f"/sessions/{sid}/ledger")["paid"] == []


def test_voiding_twice_and_hands_that_do_not_exist(api):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", DROP_CAUGHT, 201)
    api.ok("DELETE", f"/sessions/{sid}/hands/1", {"reason": "misdeal"})
    api_error(api("DELETE", f"/sessions/{sid}/hands/1", {"reason": "again"}), 422, "number",
          "already void")
    restored = api.ok("PUT", f"/sessions/{sid}/hands/1", {**DROP_CAUGHT, "reason": "no"})
    assert (restored["voided"], restored["version"]) == (False, 3)
    check_totals(api, sid)
    for method, body in [("GET", None), ("PUT", {**DROP_CAUGHT, "reason": "x"}),
                         ("DELETE", {"reason": "x"})]:
        api_error(api(method, f"/sessions/{sid}/hands/2", body), 404, None, "no hand 2")


# -- the OpenAPI document --------------------------------------------------------------------

def test_the_openapi_document_describes_every_route(db_app):
    doc = db_app.test_client().get("/api/v1/openapi.json").get_json()
    routes = [r for r in db_app.url_map.iter_rules() if r.rule.startswith("/api/v1")]
    assert len(routes) >= 12
    for rule in routes:
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        assert path in doc["paths"], path
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            operation = doc["paths"][path].get(method.lower())
            assert operation, (method, path)
            needs_token = path.startswith(("/api/v1/sessions", "/api/v1/leagues",
                                           "/api/v1/debts", "/api/v1/events",
                                           "/api/v1/nights"))
            assert (operation.get("security") == [{"bearer": []}]) == needs_token, path
            if needs_token:
                assert {"401", "404"} <= set(operation["responses"])
            for param in re.findall(r"{(\w+)}", path):
                assert param in [p["name"] for p in operation["parameters"]], (path, param)
    refs = set(re.findall(r'"#/components/schemas/(\w+)"', json.dumps(doc)))
    assert refs <= set(doc["components"]["schemas"])


def test_a_hands_payments_and_settle_up_payments_are_two_schemas(db_app):
    """A hand's result pays by a rule; a payment at settle-up has an id, a time and who made
    it. Both were once "Payment", the second replacing the first under every result."""
    schemas = db_app.test_client().get("/api/v1/openapi.json").get_json()["components"][
        "schemas"]
    by_rule = schemas["Result"]["properties"]["payments"]["items"]["$ref"].rsplit("/", 1)[1]
    made = schemas["Ledger"]["properties"]["payments"]["items"]["$ref"].rsplit("/", 1)[1]
    assert "rule" in schemas[by_rule]["properties"] and "id" not in schemas[by_rule]["properties"]
    assert {"id", "at", "by", "undone"} <= set(schemas[made]["properties"])


# -- yen: whole amounts in, whole amounts out ----------------------------------------------

def test_a_yen_table_answers_whole_yen(api):
    sid = api.start(stake="5", currency="JPY")
    base = f"/sessions/{sid}"
    recorded = api.ok("POST", base + "/hands", {"end": {"kind": "tonk_out", "player": "Ann"}},
                      201)
    assert recorded["result"]["net"] == {"Ann": "30", "Bob": "-10", "Cy": "-10", "Dee": "-10"}
    assert {p["amount"] for p in recorded["result"]["payments"]} == {"10"}
    assert "10.00" not in " ".join(recorded["result"]["explanation"])
    assert api.ok("GET", base)["stake"] == "5"
    ledger = api.ok("GET", base + "/ledger")
    assert ledger["totals"]["Ann"] == "30" and ledger["open"][0]["amount"] == "10"
    api.ok("POST", base + "/payments", {"from": "Bob", "to": "Ann", "amount": "4"})
    ledger = api.ok("GET", base + "/ledger")
    assert ledger["paid"][0]["amount"] == "4" and ledger["balances"]["Bob"] == "-6"
    assert api.ok("GET", base + "/hands/1/history")[0]["result"]["net"]["Ann"] == "30"
    share = api.ok("GET", base)["share_url"].rsplit("/", 1)[1]
    assert api.client.get(f"/api/v1/share/{share}").get_json()["totals"]["Ann"] == "30"
    usd = api.start(stake="0.25")  # two places stay two places
    assert api.ok("POST", f"/sessions/{usd}/hands", {"end": {"kind": "tonk_out",
                                                             "player": "Ann"}}, 201)[
        "result"]["net"]["Ann"] == "1.50"


def test_a_hands_multiplier_is_quoted_back_as_sent_not_as_python(api):
    sid = api.start()
    raw = json.dumps(DROP_CAUGHT)[:-1] + ', "multiplier": 1e9}'
    resp = api("POST", f"/sessions/{sid}/hands", raw)
    api_error(resp, 422, "multiplier", "not 1000000000")
    assert "Decimal(" not in resp.get_json()["error"]
    assert api.ok("GET", f"/sessions/{sid}")["hands"] == 0


def test_rules_sent_unchanged_store_no_change(api, db_app):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", DROP_CAUGHT, 201)
    before = api.ok("GET", f"/sessions/{sid}")
    assert api.ok("PUT", f"/sessions/{sid}/rules", {"rules": "pagat", "stake": "0.25"}) == before
    assert api.ok("PUT", f"/sessions/{sid}/rules", {"rules": "pagat"}) == before
    with db_app.app_context():
        assert not db.session.scalars(select(RulesChange)).all()
