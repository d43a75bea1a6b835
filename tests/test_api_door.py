"""The API's one door (app/api/door.py): every route of the API is declared through it, so
that the OpenAPI document names each one, and a body's declaration is what checks it and what
the document says of it."""
from __future__ import annotations

import json

from app.api.answers import LedgerJson, SessionJson
from app.api.door import ENDPOINTS
from app.core.hand import HAND_FIELDS
from app.services.pay import SERVICES


def test_every_api_route_is_declared_once_and_in_the_document(open_client):
    app = open_client.application
    routes = {(rule.rule, method.lower()) for rule in app.url_map.iter_rules()
              if rule.endpoint.startswith("api.")
              for method in rule.methods or () if method not in ("HEAD", "OPTIONS")}
    declared = [(e.path, e.method) for e in ENDPOINTS]
    assert len(declared) == len(set(declared))
    as_flask = {(path.replace("{", "<").replace("}", ">"), method) for path, method in declared}
    plain = {(r.replace("<int:", "<"), m) for r, m in routes}
    assert plain == as_flask
    doc = open_client.get("/api/v1/openapi.json").get_json()
    assert {(p, m) for p, ops in doc["paths"].items() for m in ops} == set(declared)


def test_a_body_is_checked_and_documented_by_one_declaration(open_client):
    doc = open_client.get("/api/v1/openapi.json").get_json()
    balances = doc["components"]["schemas"]["Balances"]
    assert balances["required"] == ["balances"]
    body = next(e.body for e in ENDPOINTS if e.path == "/api/v1/transfers")
    assert body is not None and list(balances["properties"]) == body.keys()
    # a hand's keys are the core's to check: the document says the same keys
    hand = doc["components"]["schemas"]["Hand"]
    assert hand["additionalProperties"] is False and hand["required"] == ["players", "end"]
    assert set(hand["properties"]) == HAND_FIELDS
    table = doc["components"]["schemas"]["TableHand"]["properties"]
    assert set(table) == HAND_FIELDS - {"players", "rules", "stake"} | {"side_bets"}
    answer = open_client.post("/api/v1/compare", data=json.dumps({"players": ["Ann", "Bob"],
                                                                  "end": {"kind": "deal"},
                                                                  "stakes": 1}),
                              content_type="application/json")
    assert answer.status_code == 422 and answer.get_json()["field"] == "stakes"


def test_an_answer_is_documented_by_its_type(open_client):
    """An answer's TypedDict is its schema: its keys (required unless NotRequired), a key's
    docstring as its description, the registries' names as enums; nothing written apart."""
    schemas = open_client.get("/api/v1/openapi.json").get_json()["components"]["schemas"]
    session = schemas["Session"]
    assert set(session["properties"]) == set(SessionJson.__annotations__) | {
        "event", "round", "table"}
    assert set(session["required"]) == set(session["properties"]) - {"table"}  # (NotRequired:
    # only a tournament's table has it)
    assert session["properties"]["players"]["description"] == "At the table now, in seat order."
    assert schemas["PayLink"]["properties"]["service"]["enum"] == list(SERVICES)
    # a key taken on from another answer's type keeps its description
    assert schemas["HandVersion"]["properties"]["stake"]["description"] == \
        "The stake it was settled under."
    transfer = schemas["Transfer"]
    assert transfer["required"] == ["from", "to", "amount"]
    assert "pay links" in transfer["properties"]["pay"]["description"]
    ledger = next(e for e in ENDPOINTS if e.path.endswith("/ledger") and e.method == "get")
    assert ledger.answers["200"][1] is LedgerJson  # type: ignore[index]


def test_a_body_is_read_after_what_it_names_is_found(api):
    """A session that is not there answers 404 whatever the body says, as when each view
    read its own body; a body with a key it does not take answers 422 naming it, with the
    keys it takes."""
    assert api("POST", "/sessions/999/seats", {"sit": "Fay"}).status_code == 404
    assert api("PUT", "/sessions/999/rules", "not json").status_code == 404
    sid = api.start()
    answer = api("POST", f"/sessions/{sid}/payments", {"payer": "Ann"})
    assert answer.status_code == 422
    assert answer.get_json() == {"error": 'a payment has no field "payer" (it takes amount, '
                                          "from, to)", "field": "payer"}


def test_every_change_refuses_a_key_it_does_not_take_in_its_document(open_client):
    """Every POST, PUT and DELETE has a body in the document that takes no key but its own
    (one that takes none: :class:`app.api.door.Empty`, which may be left out)."""
    doc = open_client.get("/api/v1/openapi.json").get_json()
    schemas = doc["components"]["schemas"]
    for path, operations in doc["paths"].items():
        for method, operation in operations.items():
            if method == "get":
                continue
            body = operation.get("requestBody")
            assert body is not None, (method, path)
            ref = body["content"]["application/json"]["schema"]["$ref"]
            assert schemas[ref.rsplit("/", 1)[1]]["additionalProperties"] is False, ref
    assert schemas["Empty"]["properties"] == {} and "required" not in schemas["Empty"]


def test_a_change_that_takes_no_body_refuses_a_key_and_changes_nothing(api):
    """``POST /sessions/{id}/share`` with ``{"x": 1}`` made a new share link (so did a body
    that is not JSON): a change that takes no body refuses a key, as every other does."""
    sid = api.start()
    link = api.ok("GET", f"/sessions/{sid}")["share_url"]
    for body, status, field in (({"x": 1}, 422, "x"), ("[1", 400, "body"),
                                ([], 400, "body")):
        answer = api("POST", f"/sessions/{sid}/share", body)
        assert (answer.status_code, answer.get_json()["field"]) == (status, field)
        assert api.ok("GET", f"/sessions/{sid}")["share_url"] == link  # nothing changed
    assert api("POST", f"/sessions/{sid}/share", {"x": 1}).get_json()["error"] == \
        'this request has no field "x" (it takes none: send {} or no body)'
    first = api.ok("POST", f"/sessions/{sid}/share", {})["share_url"]  # {} or none: as before
    assert first != link and api.ok("POST", f"/sessions/{sid}/share")["share_url"] != first
    assert api("DELETE", f"/sessions/{sid}", {"keep": True}).status_code == 422
    assert api.ok("GET", f"/sessions/{sid}")["id"] == sid  # still there
    assert api.ok("DELETE", f"/sessions/{sid}") == {"deleted": sid}


def test_transfers_refuse_a_key_they_do_not_take(open_client):
    """``POST /transfers`` read ``balances`` and let any other key by."""
    answer = open_client.post("/api/v1/transfers", data=json.dumps(
        {"balances": {"Ann": "1", "Bob": "-1"}, "round": 2}), content_type="application/json")
    assert answer.status_code == 422
    assert answer.get_json() == {"error": 'working out transfers has no field "round" (it '
                                          'takes balances)', "field": "round"}
