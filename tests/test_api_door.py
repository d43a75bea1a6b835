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
