"""The league endpoints of the JSON API on SQLite and PostgreSQL: a league made, filled and
played through the API (members, admins, seasons, a session in the league started with
the league's defaults), its standings, a player's record and ratings with money as decimal
strings; another account and a missing token find nothing; every bad input is a 4xx with
a message and the field; and the OpenAPI document describes the league endpoints."""
from __future__ import annotations

from decimal import Decimal

import pytest

from tests.clients import Api, account, api_error

PLAYERS = ["Ann", "Bob", "Cy"]



def play_a_night(api: Api, lid: int) -> int:
    """A night in the league under its defaults (chicago at 0.50 EUR): Ann tonks out, Bob
    is caught dropping; settled and closed."""
    night = api.ok("POST", "/sessions", {"name": "Night", "players": PLAYERS,
                                         "league": lid}, 201)
    assert (night["league"], night["stake"], night["currency"]) == (lid, "0.50", "EUR")
    assert night["rules"] == {"preset": "chicago"}
    sid = night["id"]
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "tonk_out", "player": "Ann"}},
           201)
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "drop", "player": "Bob"},
                                              "counts": {"Ann": 12, "Bob": 9, "Cy": 9}}, 201)
    for t in api.ok("GET", f"/sessions/{sid}/ledger")["transfers"]:
        api.ok("POST", f"/sessions/{sid}/payments", t)
    api.ok("POST", f"/sessions/{sid}/close")
    return sid


def test_a_league_through_the_api(db_app, api):
    league = api.ok("POST", "/leagues", {"name": "Thursday", "rules": "chicago",
                                         "stake": "0.50", "currency": "EUR"}, 201)
    lid = league["id"]
    assert (league["scoring"], league["stake"], league["members"]) == ("money", "0.50", [])
    assert league["admins"] == [{"email": "ann@example.com", "name": "Ann", "owner": True}]
    assert api.ok("GET", "/leagues") == [{"id": lid, "name": "Thursday", "scoring": "money",
                                          "currency": "EUR",
                                          "created_at": league["created_at"]}]
    member = api.ok("POST", f"/leagues/{lid}/members", {"name": "Dee"}, 201)
    account(db_app, "pat@example.com", "Pat")
    admin = api.ok("POST", f"/leagues/{lid}/admins", {"email": "pat@example.com"}, 201)
    assert admin == {"email": "pat@example.com", "name": "Pat", "owner": False}
    season = api.ok("POST", f"/leagues/{lid}/seasons", {
        "name": "All of it", "starts_on": "2000-01-01", "ends_on": "2100-12-31"}, 201)
    # two seasons alike made the season picker ambiguous (a newcomer's organiser)
    api_error(api("POST", f"/leagues/{lid}/seasons", {
        "name": "all of IT", "starts_on": "2001-01-01", "ends_on": "2001-12-31"}), 422, "name",
        "the league has a season called All of it already")
    play_a_night(api, lid)
    league = api.ok("GET", f"/leagues/{lid}")
    assert [m["name"] for m in league["members"]] == ["Ann", "Bob", "Cy", "Dee"]
    assert league["seasons"] == [season] and len(league["admins"]) == 2

    table = api.ok("GET", f"/leagues/{lid}/standings")
    assert (table["season"], table["scoring"], table["sort"], table["dir"]) == (
        None, "money", "net", "desc")
    ann = table["rows"][0]
    # chicago: a tonk out pays single (0.50 from each), then Bob's caught drop
    assert ann == {"place": 1, "player": {"id": ann["player"]["id"], "name": "Ann"},
                   "net": ann["net"], "sessions": 1, "hands": 2, "hands_won": 1,
                   "tonks_out": 1, "drops_won": 0, "times_caught": 0, "win_rate": "0.5000",
                   "average": ann["average"]}
    assert sum(Decimal(r["net"]) for r in table["rows"]) == 0
    assert [r["player"]["name"] for r in table["rows"]][-1] == "Bob"
    by_caught = api.ok("GET", f"/leagues/{lid}/standings?sort=times_caught&dir=desc"
                              f"&season={season['id']}")
    assert by_caught["rows"][0]["player"]["name"] == "Bob"
    assert by_caught["season"] == season

    record = api.ok("GET", f"/leagues/{lid}/players/{ann['player']['id']}")
    ann.pop("place")
    assert record["all_time"] == ann
    assert record["seasons"] == [{"season": season, "record": ann}]
    assert record["running"] == [{"session": 0, "total": "0.00"},
                                 {"session": 1, "total": ann["net"]}]
    assert [b["net"] for b in record["best"]] == [ann["net"]] and record["worst"] == []
    assert {h["player"]["name"] for h in record["head_to_head"]} == {"Bob", "Cy"}
    dee = api.ok("GET", f"/leagues/{lid}/players/{member['id']}")
    assert (dee["all_time"], dee["sessions"], dee["head_to_head"]) == (None, 0, [])

    ratings = api.ok("GET", f"/leagues/{lid}/ratings")
    assert [r["player"]["name"] for r in ratings][0] == "Ann"
    assert all(r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"]) for r in ratings)
    by_name = api.ok("GET", f"/leagues/{lid}/ratings?sort=player")
    assert [r["player"]["name"] for r in by_name] == ["Ann", "Bob", "Cy"]


def test_points_and_push_ups_travel_as_whole_numbers(api):
    lid = api.ok("POST", "/leagues", {"name": "Push", "rules": "push_ups"}, 201)["id"]
    sid = api.ok("POST", "/sessions", {"name": "N", "players": ["Ann", "Bob"],
                                       "league": lid}, 201)["id"]
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "tonk_out", "player": "Ann"},
                                              "counts": {"Bob": 17}}, 201)
    table = api.ok("GET", f"/leagues/{lid}/standings?scoring=push_ups")
    assert [(r["player"]["name"], r["net"], r["place"]) for r in table["rows"]] == [
        ("Ann", "0", 1), ("Bob", "34", 2)]  # a tonk out pushes double
    assert table["dir"] == "asc" and table["rows"][1]["average"] == "34.00"


def test_another_account_and_no_token_find_nothing(db_app, api):
    lid = api.ok("POST", "/leagues", {"name": "Mine"}, 201)["id"]
    pid = api.ok("POST", f"/leagues/{lid}/members", {"name": "Ann"}, 201)["id"]
    other = Api(api.client, account(db_app, "eve@example.com", "Eve"))
    calls = [("GET", f"/leagues/{lid}", None), ("GET", f"/leagues/{lid}/standings", None),
             ("GET", f"/leagues/{lid}/players/{pid}", None),
             ("GET", f"/leagues/{lid}/ratings", None),
             ("POST", f"/leagues/{lid}/members", {"name": "Zed"}),
             ("POST", f"/leagues/{lid}/admins", {"email": "eve@example.com"}),
             ("POST", f"/leagues/{lid}/seasons", {"name": "S", "starts_on": "2025-01-01",
                                                   "ends_on": "2025-02-01"})]
    for method, path, body in calls:
        api_error(other(method, path, body), 404, "league", f"no league {lid}")
        assert Api(api.client, None)(method, path, body).status_code == 401
    assert other.ok("GET", "/leagues") == []
    api_error(other("POST", "/sessions", {"name": "x", "players": ["A", "B"], "league": lid}),
          404, "league", "no league")
    api_error(api("GET", f"/leagues/{lid}/players/999999"), 404, "player", "no member 999999")
    api_error(api("GET", "/leagues/999999"), 404, "league", "no league 999999")


@pytest.mark.parametrize("method, path, body, status, field, words", [
    ("POST", "/leagues", {"name": ""}, 422, "name", "cannot be empty"),
    ("POST", "/leagues", {"name": "L", "colour": "red"}, 422, "colour", "no field"),
    ("POST", "/leagues", {"name": "L", "rules": "nope"}, 422, "rules.preset", "no house rules"),
    ("POST", "/leagues", {"name": "L", "stake": 0.001}, 422, "stake", "two decimal places"),
    ("POST", "/leagues", [], 400, "body", "JSON object"),
    ("POST", "{lid}/members", {"name": "ann"}, 422, "name", "already a member"),
    ("POST", "{lid}/members", {}, 422, "name", "cannot be empty"),
    ("POST", "{lid}/admins", {"email": "zed@example.com"}, 422, "email", "no account"),
    ("POST", "{lid}/admins", {"email": 7}, 422, "email", "email address"),
    ("POST", "{lid}/seasons", {"name": "S", "starts_on": "2025-02-01",
                               "ends_on": "2025-01-01"}, 422, "ends_on", "cannot end"),
    ("POST", "{lid}/seasons", {"name": "S", "starts_on": 20250101,
                               "ends_on": "2025-01-01"}, 422, "starts_on", "a date like"),
    ("GET", "{lid}/standings?sort=luck", None, 422, "sort", "sort by one of"),
    ("GET", "{lid}/standings?dir=up", None, 422, "dir", "asc or desc"),
    ("GET", "{lid}/standings?scoring=chips", None, 422, "scoring", "the scoring is one of"),
    ("GET", "{lid}/standings?season=999999", None, 404, "season", "no season"),
    ("GET", "{lid}/standings?season=x", None, 404, "season", "no season"),
    ("GET", "{lid}/ratings?sort=luck", None, 422, "sort", "sort by one of"),
    ("GET", "{lid}/players/{pid}?scoring=chips", None, 422, "scoring", "the scoring is"),
])
def test_bad_input_is_a_4xx_with_its_field(api, method, path, body, status, field, words):
    lid = api.ok("POST", "/leagues", {"name": "L"}, 201)["id"]
    pid = api.ok("POST", f"/leagues/{lid}/members", {"name": "Ann"}, 201)["id"]
    path = path.replace("{lid}", f"/leagues/{lid}").replace("{pid}", str(pid))
    resp = api(method, path, body)
    assert resp.status_code == status, resp.get_json()
    body = resp.get_json()
    assert body.get("field") == field
    if words:
        assert words in body["error"], body


def test_the_openapi_document_describes_the_league_endpoints(db_app):
    doc = db_app.test_client().get("/api/v1/openapi.json").get_json()
    rules = [r for r in db_app.url_map.iter_rules() if r.rule.startswith("/api/v1/leagues")]
    assert {"api.list_leagues", "api.create_league", "api.get_league", "api.add_member",
            "api.add_admin", "api.add_season", "api.get_standings", "api.get_player",
            "api.get_ratings"} <= {r.endpoint for r in rules}
    for rule in rules:
        path = rule.rule.replace("<int:", "{").replace(">", "}")
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            operation = doc["paths"][path][method.lower()]
            assert operation["security"] == [{"bearer": []}]
            assert {"401", "404"} <= set(operation["responses"])
    assert "league" in doc["components"]["schemas"]["NewSession"]["properties"]
    assert doc["components"]["schemas"]["Record"]["properties"]["net"]["type"] == "string"


# -- an empty query value is not one of an enum's ------------------------------------------

def test_empty_enum_query_values_are_refused_naming_them(api):
    lid = api.ok("POST", "/leagues", {"name": "Thursday", "rules": "pagat", "stake": "0.50"},
                 201)["id"]
    player = api.ok("POST", f"/leagues/{lid}/members", {"name": "Dee"}, 201)["id"]
    document = api.client.get("/api/v1/openapi.json").get_json()
    standings = document["paths"]["/api/v1/leagues/{league_id}/standings"]["get"]
    enums = {p["name"]: p["schema"].get("enum") for p in standings["parameters"]
             if p["in"] == "query"}
    assert "" not in enums["scoring"] and "" not in enums["sort"]
    for path, name in ((f"/leagues/{lid}/standings?scoring=&sort=", "scoring"),
                       (f"/leagues/{lid}/standings?sort=", "sort"),
                       (f"/leagues/{lid}/standings?dir=%20", "dir"),
                       (f"/leagues/{lid}/players/{player}?scoring=", "scoring"),
                       (f"/leagues/{lid}/ratings?sort=", "sort")):
        api_error(api("GET", path), 422, name, "is empty")  # as ?sort=bogus
    assert api.ok("GET", f"/leagues/{lid}/standings?sort=net")["sort"] == "net"


# -- an empty ?season= is all time, as the OpenAPI document allows it ----------------------

def test_an_empty_season_is_all_time(api):
    lid = api.ok("POST", "/leagues", {"name": "Thursday", "rules": "pagat", "stake": "0.50"},
                 201)["id"]
    api.ok("POST", f"/leagues/{lid}/seasons",
           {"name": "Spring", "starts_on": "2026-03-01", "ends_on": "2026-05-31"}, 201)
    document = api.client.get("/api/v1/openapi.json").get_json()
    standings = document["paths"]["/api/v1/leagues/{league_id}/standings"]["get"]
    season = next(p for p in standings["parameters"] if p["name"] == "season")
    assert season["allowEmptyValue"] and "empty" in season["description"]
    all_time = api.ok("GET", f"/leagues/{lid}/standings")
    assert all_time["season"] is None
    for empty in ("", "%20"):
        assert api.ok("GET", f"/leagues/{lid}/standings?season={empty}") == all_time
    assert api.ok("GET", f"/leagues/{lid}/standings?season=all") == all_time
    api_error(api("GET", f"/leagues/{lid}/standings?season=999"), 404, "season", "")
