"""Tournament day through the JSON API (docs/api.md, its tournaments): an event, check-in,
the draw, tables as sessions, closing rounds, withdrawals, standings and the prize list;
errors in the API's shape, and Idempotency-Key as for sessions. On SQLite and PostgreSQL;
``tonk check`` runs after each test."""
from __future__ import annotations

from decimal import Decimal

import pytest

from tests.clients import api_error

TEN = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"]
EVENT = {"name": "Malone Open", "rules": "pagat", "currency": "USD", "table_size": 4,
         "rounds": 3, "hands_per_round": 2, "entry_fee": "20", "prizes": ["0.5", "0.3", "0.2"]}


def tonk(player):
    return {"end": {"kind": "tonk_out", "player": player}}


def new_event(api, **extra):
    return api.ok("POST", "/events", {**EVENT, **extra}, 201)


def check_in_all(api, eid, names=TEN):
    for name in names:
        event = api.ok("POST", f"/events/{eid}/players", {"name": name, "paid": True})
    return event


def play(api, table, winners):
    """Record a tonk-out for each winner at the table's session."""
    for winner in winners:
        api.ok("POST", f"/sessions/{table['session']}/hands", tonk(winner), 201)


def test_an_event_of_three_rounds(api):
    event = new_event(api)
    eid = event["id"]
    assert event["scoring"] == "points" and event["state"] == "checking_in"
    event = check_in_all(api, eid)
    assert [p["name"] for p in event["players"]] == TEN
    assert all(p["paid"] and not p["withdrawn"] for p in event["players"])
    api_error(api("POST", f"/events/{eid}/players", {"name": "ann"}), 409, "name",
              "already checked in")

    first = api.ok("POST", f"/events/{eid}/rounds", {"seed": 7}, 201)
    assert first["round"] == 1 and first["seed"] == 7
    assert [len(t["players"]) for t in first["tables"]] == [4, 3, 3]
    seated = [p for t in first["tables"] for p in t["players"]]
    assert sorted(seated) == sorted(TEN)
    api_error(api("POST", f"/events/{eid}/rounds", {}), 409, "round", "still being played")

    # A table is an ordinary session that names its event and round, in points.
    table = first["tables"][0]
    session = api.ok("GET", f"/sessions/{table['session']}")
    assert (session["event"], session["round"], session["scoring"]) == (eid, 1, "points")
    assert session["dealer"] == table["dealer"] and table["link"].startswith("/t/")

    api_error(api("POST", f"/events/{eid}/rounds/1/close", {}), 409, "force",
              "have not played all their hands (2 a round)")
    for t in first["tables"]:
        play(api, t, [t["players"][0], t["players"][0]])
    closed = api.ok("POST", f"/events/{eid}/rounds/1/close", {})
    assert closed["closed"] and not closed["forced"]
    api_error(api("POST", f"/sessions/{table['session']}/hands", tonk(table["players"][0])),
              409, "session", "closed")

    standings = api.ok("GET", f"/events/{eid}/standings")["standings"]
    # A tonk-out takes 2 from each: the winner at the table of four 12, at the others 8.
    assert [(s["place"], s["total"]) for s in standings][:3] == [(1, "12"), (2, "8"), (2, "8")]
    assert {s["player"] for s in standings[:3]} == {t["players"][0] for t in first["tables"]}
    assert all(len(s["rounds"]) == 1 for s in standings)

    second = api.ok("POST", f"/events/{eid}/rounds", {"seed": 8}, 201)
    # The three leaders meet at table 1.
    assert set(second["tables"][0]["players"][:3]) == {s["player"] for s in standings[:3]}
    for t in second["tables"]:
        play(api, t, [t["players"][-1]])
    api.ok("POST", f"/events/{eid}/rounds/2/close", {"force": True})

    # A withdrawal before round 3: nine players at tables of 3, 3, 3.
    gone = api.ok("DELETE", f"/events/{eid}/players/{first['tables'][1]['players'][1]}")
    assert sum(p["withdrawn"] for p in gone["players"]) == 1
    third = api.ok("POST", f"/events/{eid}/rounds", {}, 201)
    assert [len(t["players"]) for t in third["tables"]] == [3, 3, 3]
    assert isinstance(third["seed"], int)
    for t in third["tables"]:
        play(api, t, [t["players"][1], t["players"][1]])
    api.ok("POST", f"/events/{eid}/rounds/3/close", {})
    api_error(api("POST", f"/events/{eid}/rounds", {}), 409, "round", "all 3 rounds")
    assert api.ok("GET", f"/events/{eid}")["state"] == "finished"
    # final: what the results are made from no longer changes (a newcomer's director halved
    # the prizes and took a fee back after the last round); the name and date still do
    before = api.ok("GET", f"/events/{eid}/prizes")
    for change, field in (({"house_share": "0.5"}, "house_share"), ({"prizes": ["1"]}, "prizes"),
                          ({"entry_fee": "20.01"}, "entry_fee"), ({"rounds": 4}, "rounds"),
                          ({"tie_breaks": ["best_round"]}, "tie_breaks")):
        api_error(api("PUT", f"/events/{eid}/settings", change), 409, field, "results are final")
    api_error(api("PUT", f"/events/{eid}/players/Ann", {"paid": False}), 409, "paid",
              "results are final")
    api_error(api("DELETE", f"/events/{eid}/players/Bob"), 409, "name", "results are final")
    same = {"prizes": ["0.50", "0.3", "0.2"], "entry_fee": "20.00", "house_share": "0.0"}
    assert api.ok("PUT", f"/events/{eid}/settings",
                  {**same, "name": "Malone Open 2026"})["name"] == "Malone Open 2026"
    assert api.ok("GET", f"/events/{eid}/prizes") == before

    standings = api.ok("GET", f"/events/{eid}/standings")["standings"]
    assert len(standings) == 10 and all(len(s["rounds"]) == 3 for s in standings)
    assert sum(Decimal(s["total"]) for s in standings) == 0  # points move, none made
    prizes = api.ok("GET", f"/events/{eid}/prizes")
    assert prizes["pool"] == "200.00"
    assert sum(Decimal(p["amount"]) * len(p["players"]) for p in prizes["prizes"]) \
        == Decimal("200.00")


def test_a_two_way_tie_for_second_shares_the_second_and_third_prizes(api):
    eid = new_event(api, rounds=1, hands_per_round=2, house_share="0.1",
                    tie_breaks=["fewest_caught"])["id"]
    check_in_all(api, eid, ["Ann", "Bob", "Cy", "Dee"])
    api.ok("POST", f"/events/{eid}/players", {"name": "Eve", "paid": False})
    table = api.ok("POST", f"/events/{eid}/rounds", {"seed": 1, "unpaid": "draw"},
                   201)["tables"]
    assert [len(t["players"]) for t in table] == [3, 2]
    # Table 1: its first player wins twice; table 2: nobody wins (two dead hands).
    play(api, table[0], [table[0]["players"][0]] * 2)
    for _ in range(2):
        api.ok("POST", f"/sessions/{table[1]['session']}/hands", {"end": {"kind": "dead"}}, 201)
    api.ok("POST", f"/events/{eid}/rounds/1/close", {})
    standings = api.ok("GET", f"/events/{eid}/standings")
    assert standings["tie_breaks"] == ["fewest hands caught"]
    places = [s["place"] for s in standings["standings"]]
    assert places == [1, 2, 2, 4, 4]
    prizes = api.ok("GET", f"/events/{eid}/prizes")
    # 4 fees of 20 = 80, house 8, pool 72: 36 first; 21.60 + 14.40 = 36 shared: 18 each.
    assert (prizes["fees"], prizes["house"], prizes["pool"]) == ("80.00", "8.00", "72.00")
    assert [(p["place"], len(p["players"]), p["amount"]) for p in prizes["prizes"]] == [
        (1, 1, "36.00"), (2, 2, "18.00")]


@pytest.mark.parametrize(("body", "field", "words"), [
    ({**EVENT, "table_size": 5}, "table_size", "2 to 4"),
    ({**EVENT, "prizes": ["0.5", "0.3"]}, "prizes", "add up to 1"),
    ({**EVENT, "entry_fee": "twenty"}, "entry_fee", "not an amount"),
    ({**EVENT, "entry_fee": "-20"}, "entry_fee",
     'the entry fee is an amount from 0 to 1000000, not "-20"'),
    ({**EVENT, "prizes": {"fixed": ["100", "-1"]}}, "prizes.fixed.1",
     'a prize is an amount from 0 to 1000000, not "-1"'),
    ({**EVENT, "hands_per_round": 0}, "hands_per_round",
     "the hands a round are a whole number from 1 to"),
    ({**EVENT, "currency": "JPY", "entry_fee": "20.5"}, "entry_fee", "decimal places"),
    ({**EVENT, "scoring": "push_ups"}, "scoring", "points or money"),
    ({**EVENT, "rounds": 0}, "rounds", "whole number"),
    ({**EVENT, "house_share": "1"}, "house_share", "from 0 up to 1"),
    ({**EVENT, "tie_breaks": ["luck"]}, "tie_breaks", "one of"),
    ({**EVENT, "league": 99}, "league", "no league"),
    ({**EVENT, "colour": "red"}, "colour", "colour"),
    ({**EVENT, "name": ""}, "name", "cannot be empty"),
])
def test_bad_events_are_refused_beside_their_field(api, body, field, words):
    api_error(api("POST", "/events", body), 422 if field != "league" else 404, field, words)
    assert api.ok("GET", "/events") == []


def test_draw_errors_and_other_accounts(api, other):
    eid = new_event(api)["id"]
    api.ok("POST", f"/events/{eid}/players", {"name": "Ann"})
    api_error(api("POST", f"/events/{eid}/rounds", {"unpaid": "draw"}), 422, "players",
              "at least 2")
    api_error(api("POST", f"/events/{eid}/rounds", {"seed": "x"}), 422, "seed", "seed")
    api_error(api("POST", f"/events/{eid}/rounds", {"unpaid": "maybe"}), 422, "unpaid",
              "draw or leave_out")
    api_error(api("POST", f"/events/{eid}/players", {"name": "Bob", "paid": "yes"}), 422,
              "paid", "true or false")
    api_error(api("DELETE", f"/events/{eid}/players/Zed"), 404, "name", "not checked in")
    api_error(api("POST", f"/events/{eid}/rounds/1/close", {}), 404, "round", "no round 1")
    api_error(other("GET", f"/events/{eid}"), 404, None, "no event")
    api_error(other("POST", f"/events/{eid}/players", {"name": "Eve"}), 404, None, "no event")


def test_a_draw_with_fees_not_paid_names_them_and_asks(api):
    """Jo's fee is not marked paid: the draw is refused naming Jo (nobody is seated unpaid
    without the director knowing) and leaves Jo out of the round when told; the next draw
    asks again, and once Jo has paid there is nothing to ask."""
    eid = new_event(api, rounds=2)["id"]
    check_in_all(api, eid, ["Ann", "Bob", "Cy", "Dee"])
    api.ok("POST", f"/events/{eid}/players", {"name": "Jo", "paid": False})
    api_error(api("POST", f"/events/{eid}/rounds", {"seed": 3}), 409, "unpaid", "for Jo:")
    assert api.ok("GET", f"/events/{eid}")["rounds_played"] == []
    left_out = api.ok("POST", f"/events/{eid}/rounds", {"seed": 3, "unpaid": "leave_out"}, 201)
    seated = [p for t in left_out["tables"] for p in t["players"]]
    assert sorted(seated) == ["Ann", "Bob", "Cy", "Dee"]
    for table in left_out["tables"]:
        play(api, table, [table["players"][0]] * 2)
    api.ok("POST", f"/events/{eid}/rounds/1/close", {})
    api_error(api("POST", f"/events/{eid}/rounds", {}), 409, "unpaid", "for Jo:")
    api.ok("PUT", f"/events/{eid}/players/Jo", {"paid": True})  # Jo pays: nothing to ask
    drawn = api.ok("POST", f"/events/{eid}/rounds", {}, 201)
    assert "Jo" in [p for t in drawn["tables"] for p in t["players"]]


def test_idempotency_key_replays_a_check_in_and_a_draw(api):
    eid = new_event(api)["id"]
    key = {"Idempotency-Key": "check-in-ann-1"}
    first = api("POST", f"/events/{eid}/players", {"name": "Ann"}, headers=key)
    again = api("POST", f"/events/{eid}/players", {"name": "Ann"}, headers=key)
    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    api_error(api("POST", f"/events/{eid}/players", {"name": "Bob"}, headers=key), 422,
              "Idempotency-Key", "already used")
    api.ok("POST", f"/events/{eid}/players", {"name": "Bob"})
    draw = {"Idempotency-Key": "draw-1"}
    one = api("POST", f"/events/{eid}/rounds", {"unpaid": "draw"}, headers=draw)
    two = api("POST", f"/events/{eid}/rounds", {"unpaid": "draw"}, headers=draw)
    assert one.status_code == two.status_code == 201 and one.get_json() == two.get_json()
    assert len(api.ok("GET", f"/events/{eid}")["rounds_played"]) == 1


def test_tonk_event_export(db_app, api, tmp_path):
    import json

    from app.cli.commands import cli

    eid = new_event(api, rounds=1, hands_per_round=1)["id"]
    check_in_all(api, eid, ["Ann", "Bob", "Cy"])
    table = api.ok("POST", f"/events/{eid}/rounds", {"seed": 2}, 201)["tables"][0]
    play(api, table, [table["players"][0]])
    api.ok("POST", f"/events/{eid}/rounds/1/close", {})
    runner = db_app.test_cli_runner()
    path = tmp_path / "event.json"
    out = runner.invoke(cli, ["event", "export", str(eid), "-o", str(path)])
    assert out.exit_code == 0, out.output
    document = json.loads(path.read_text())
    assert document["format"] == "tonk-tally-event" and document["rounds"][0]["seed"] == 2
    hands = document["rounds"][0]["tables"][0]["hands"]
    assert [h["result"]["outcome"] for h in hands] == ["tonk_out"]
    assert document["prizes"]["pool"] == "60.00"
    assert document["standings"][0]["player"] == table["players"][0]
    out = runner.invoke(cli, ["event", "export", str(eid), "--format", "standings-csv"])
    assert out.exit_code == 0 and out.output.splitlines()[0].startswith("place,player,total")
    assert f"1,{table['players'][0]},4," in out.output  # 2 from each of two, and 30.00
    out = runner.invoke(cli, ["event", "export", "999"])
    assert out.exit_code == 1 and "there is no event 999" in out.output


def test_a_league_event_counts_in_the_league_and_late_arrivals_sit_next_round(api):
    lid = api.ok("POST", "/leagues", {"name": "Fridays"}, 201)["id"]
    api.ok("POST", f"/leagues/{lid}/members", {"name": "Ann"}, 201)
    eid = new_event(api, league=lid, rounds=2, hands_per_round=1, table_size=3)["id"]
    check_in_all(api, eid, ["ann", "Bob", "Cy"])  # Ann as the league knows her
    first = api.ok("POST", f"/events/{eid}/rounds", {"seed": 5}, 201)["tables"]
    assert "Ann" in first[0]["players"]
    api.ok("POST", f"/events/{eid}/players", {"name": "Dee", "paid": True})  # late
    assert "Dee" not in [p for t in first for p in t["players"]]
    play(api, first[0], ["Ann"])
    api.ok("POST", f"/events/{eid}/rounds/1/close", {})
    second = api.ok("POST", f"/events/{eid}/rounds", {}, 201)["tables"]
    assert sorted(p for t in second for p in t["players"]) == ["Ann", "Bob", "Cy", "Dee"]
    assert [len(t["players"]) for t in second] == [2, 2]
    assert api.ok("GET", f"/sessions/{second[0]['session']}")["league"] == lid
    table = api.ok("GET", f"/leagues/{lid}/standings?scoring=points")
    rows = {r["player"]["name"]: r for r in table["rows"]}
    assert rows["Ann"]["net"] == "4" and rows["Ann"]["sessions"] == 1
    ratings = api.ok("GET", f"/leagues/{lid}/ratings")
    assert {r["player"]["name"] for r in ratings} >= {"Ann", "Bob", "Cy"}
    standings = api.ok("GET", f"/events/{eid}/standings")["standings"]
    assert standings[0]["player"] == "Ann"  # checked in as the league names her
    # Dee did not sit in round 1: none, not a round broken even
    dee = next(s for s in standings if s["player"] == "Dee")
    assert dee["sat_in"] == [False, True] and dee["rounds"][0] == "0"
    assert all(s["sat_in"] == [True, True] for s in standings if s["player"] != "Dee")


def test_a_player_withdrawn_is_checked_in_again(api):
    """Withdrawn by mistake (or back after all): checked in again by name, the player sits
    from the next draw on, paid as before; their hands so far still count. A newcomer's
    director was told "Fay is already checked in" and had no way back."""
    eid = new_event(api, rounds=3, hands_per_round=1, table_size=3)["id"]
    check_in_all(api, eid, ["Ann", "Bob", "Cy", "Fay"])
    first = api.ok("POST", f"/events/{eid}/rounds", {"seed": 2}, 201)["tables"]
    for table in first:
        play(api, table, [table["players"][0]])
    api.ok("POST", f"/events/{eid}/rounds/1/close", {})
    api.ok("DELETE", f"/events/{eid}/players/Fay")
    second = api.ok("POST", f"/events/{eid}/rounds", {"seed": 2}, 201)["tables"]
    assert "Fay" not in [p for t in second for p in t["players"]]
    for table in second:
        play(api, table, [table["players"][0]])
    api.ok("POST", f"/events/{eid}/rounds/2/close", {})
    back = api.ok("POST", f"/events/{eid}/players", {"name": "fay"})
    fay = next(p for p in back["players"] if p["name"] == "Fay")
    assert fay == {"name": "Fay", "paid": True, "withdrawn": False}
    assert [p["name"] for p in back["players"]].count("Fay") == 1
    api_error(api("POST", f"/events/{eid}/players", {"name": "Fay"}), 409, "name",
              "already checked in")
    third = api.ok("POST", f"/events/{eid}/rounds", {"seed": 2}, 201)["tables"]
    assert "Fay" in [p for t in third for p in t["players"]]


def test_nobody_is_checked_in_once_every_round_is_drawn(api):
    """A player checked in during the last round, or after it, would play no hand and yet
    stand in the standings on 0, above the players who lost, and take their prize (a
    newcomer's one-round event: Zed, checked in while it was played, was second with
    20.00). Refused, saying why; the event is as it was."""
    eid = new_event(api, rounds=1, hands_per_round=1, prizes=["0.6", "0.4"])["id"]
    check_in_all(api, eid, ["Ann", "Bob", "Cy", "Dee"])
    table = api.ok("POST", f"/events/{eid}/rounds", {"seed": 3}, 201)["tables"][0]
    before = api.ok("GET", f"/events/{eid}")
    api_error(api("POST", f"/events/{eid}/players", {"name": "Zed", "paid": True}), 409,
              "name", "every round")
    play(api, table, [table["players"][0]])
    api.ok("POST", f"/events/{eid}/rounds/1/close", {})
    api_error(api("POST", f"/events/{eid}/players", {"name": "Zed", "paid": True}), 409,
              "name", "every round")
    after = api.ok("GET", f"/events/{eid}")
    assert after["players"] == before["players"]
    prizes = api.ok("GET", f"/events/{eid}/prizes")
    assert "Zed" not in [n for p in prizes["prizes"] for n in p["players"]]


def test_an_event_played_for_money_keeps_open_transfers_as_debts(api):
    eid = new_event(api, scoring="money", stake="0.25", rounds=1, hands_per_round=1)["id"]
    check_in_all(api, eid, ["Ann", "Bob"])
    table = api.ok("POST", f"/events/{eid}/rounds", {"seed": 1}, 201)["tables"][0]
    assert api.ok("GET", f"/sessions/{table['session']}")["scoring"] == "money"
    play(api, table, ["Ann"])
    api.ok("POST", f"/events/{eid}/rounds/1/close", {})
    ledger = api.ok("GET", f"/sessions/{table['session']}/ledger")
    assert ledger["totals"]["Ann"] == "0.50"
    assert [(d["from"], d["to"], d["amount"]) for d in ledger["carried_over"]] == [
        ("Bob", "Ann", "0.50")]
    assert api.ok("GET", f"/events/{eid}/standings")["standings"][0]["total"] == "0.50"


def test_a_draw_that_fails_half_way_leaves_no_round_and_no_table(db_app, api, monkeypatch):
    """A round and all its tables are one commit: a failure while starting the second
    table (a crash, a lost connection) leaves neither the round nor the first table."""
    from sqlalchemy import func, select

    from app.db.models import EventRound, GameSession
    from app.extensions import db
    from app.services.events import rounds
    from app.services.sessions import start_session

    eid = api.ok("POST", "/events", {"name": "Cup", "table_size": 3, "rounds": 2,
                                     "hands_per_round": 1, "entry_fee": "5"}, 201)["id"]
    for name in ("Ann", "Bob", "Cy", "Dee", "Eve"):
        api.ok("POST", f"/events/{eid}/players", {"name": name, "paid": True})
    started: list[GameSession] = []
    real = start_session  # what rounds calls

    def failing(*args, **kwargs):
        if started:
            raise RuntimeError("the connection went away")
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(rounds, "start_session", failing)
    with pytest.raises(RuntimeError):
        api("POST", f"/events/{eid}/rounds", {"seed": 3})
    with db_app.app_context():
        db.session.rollback()
        assert db.session.scalar(select(func.count()).select_from(EventRound)) == 0
        assert db.session.scalar(select(func.count()).select_from(GameSession)) == 0
    monkeypatch.setattr(rounds, "start_session", real)
    assert len(api.ok("POST", f"/events/{eid}/rounds", {"seed": 3}, 201)["tables"]) == 2


def test_a_table_records_no_more_hands_than_its_round_allows(api):
    """After 3 of 3 hands a 4th was taken and counted. Now it is refused (409,
    nothing stored); corrections and voids within the round still work, a void hand leaves
    room for one more, and a void hand cannot be corrected back past the limit."""
    eid = new_event(api, table_size=3, rounds=1, hands_per_round=3)["id"]
    check_in_all(api, eid, ["Ann", "Bob", "Cy"])
    table = api.ok("POST", f"/events/{eid}/rounds", {"seed": 1}, 201)["tables"][0]
    hands = f"/sessions/{table['session']}/hands"
    play(api, table, ["Ann", "Bob", "Cy"])
    assert api.ok("GET", f"/events/{eid}")["rounds_played"][0]["tables"][0]["done"]
    api_error(api("POST", hands, tonk("Ann")), 409, "round",
              "this table has played every hand of its round (hands per round: 3)")
    api_error(api("POST", hands, {"end": {"kind": "dead"}}), 409, "round", "every hand")
    session = api.ok("GET", f"/sessions/{table['session']}")
    assert (session["hands"], session["voided_hands"]) == (3, 0)

    # Within the round: a correction, then a void, which leaves room for one more hand.
    api.ok("PUT", f"{hands}/3", {**tonk("Ann"), "reason": "it was Ann"})
    api.ok("DELETE", f"{hands}/2", {"reason": "misdeal"})
    assert api.ok("POST", hands, tonk("Ann"), 201)["number"] == 4
    api_error(api("POST", hands, tonk("Ann")), 409, "round", "every hand")
    # Hand 2 corrected would count again: a 4th.
    api_error(api("PUT", f"{hands}/2", {**tonk("Bob"), "reason": "not a misdeal"}), 409,
              "round", "hand 2 is void")
    assert api.ok("GET", f"{hands}/2")["voided"]
    api.ok("DELETE", f"{hands}/4", {"reason": "wrong table"})
    api.ok("PUT", f"{hands}/2", {**tonk("Bob"), "reason": "not a misdeal"})

    standings = api.ok("GET", f"/events/{eid}/standings")["standings"]
    assert [s["hands"] for s in standings] == [3, 3, 3]
    # Ann won hands 1 and 3, Bob hand 2: +4 +4 -2 for Ann.
    assert {s["player"]: s["total"] for s in standings} == {"Ann": "6", "Bob": "0",
                                                             "Cy": "-6"}
    api.ok("POST", f"/events/{eid}/rounds/1/close", {})


def test_tonk_check_finds_a_table_past_its_rounds_hands(db_app, api, monkeypatch):
    """A table that counts more hands than its round allows (stored before the ledger
    refused them, or by a path that forgot to ask) is a problem `tonk check` names."""
    from app.services.sessions import ledger
    from tests.apps import stored_problems

    eid = new_event(api, table_size=3, rounds=1, hands_per_round=1)["id"]
    check_in_all(api, eid, ["Ann", "Bob", "Cy"])
    table = api.ok("POST", f"/events/{eid}/rounds", {"seed": 1}, 201)["tables"][0]
    play(api, table, ["Ann"])
    monkeypatch.setattr(ledger, "hand_limits", [])  # as before the limit was kept
    play(api, table, ["Bob"])
    assert stored_problems(db_app) == [
        f"event {eid} (Malone Open): table 1 of round 1 counts 2 hands, more than the "
        "round's 1"]
    api.ok("DELETE", f"/sessions/{table['session']}/hands/2", {"reason": "one too many"})
    assert stored_problems(db_app) == []



def test_an_events_settings_change_until_its_tables_play_under_them(api):
    """``PUT /events/{id}/settings``: any of a new event's settings, the others as they are,
    each checked as a new event's; once a round is drawn what the tables play under is 409
    by its field, and so are fewer rounds than drawn; the fee, prizes and rounds still
    change (the prize list is made from them), and players marked paid are paid at the new
    fee."""
    eid = new_event(api, table_size=2, rounds=1, hands_per_round=1, entry_fee="100",
                    rules={"preset": "pagat", "hand_size": 7})["id"]
    url = f"/events/{eid}/settings"
    check_in_all(api, eid, ["Ann", "Bob"])
    api_error(api("PUT", url, {"entry_fee": "-5", "rounds": 99}), 422, "rounds", "1 to 20")
    api_error(api("PUT", url, {"colour": "red"}), 422, "colour", "has no field")
    event = api.ok("PUT", url, {"entry_fee": "10", "table_size": 3})
    assert (event["entry_fee"], event["table_size"], event["name"]) == ("10.00", 3,
                                                                        "Malone Open")
    assert event["rules"] == {"preset": "pagat", "hand_size": 7, "scoring": "points"}
    assert api.ok("PUT", url, {})["entry_fee"] == "10.00"
    api.ok("POST", f"/events/{eid}/rounds", {"seed": 1}, 201)
    for body, field in (({"table_size": 4}, "table_size"), ({"scoring": "money"}, "scoring"),
                        ({"rules": "washington"}, "rules"), ({"stake": "2"}, "stake"),
                        ({"currency": "EUR"}, "currency"), ({"hands_per_round": 2},
                                                            "hands_per_round")):
        api_error(api("PUT", url, body), 409, field, "the first round is drawn")
    api_error(api("PUT", url, {"rounds": 0}), 422, "rounds", "not 0")
    # the tables' settings sent as they are change nothing, and are no conflict
    api.ok("PUT", url, {"table_size": 3, "rules": {"preset": "pagat", "hand_size": 7}})
    event = api.ok("PUT", url, {"rounds": 2, "entry_fee": "12", "name": "Open"})
    assert (event["rounds"], event["name"], event["state"]) == (2, "Open", "playing")
    assert api.ok("GET", f"/events/{eid}/prizes")["fees"] == "24.00"
    # an event played for money stays so when another setting changes (its rules keep no
    # scoring of their own when it is their preset's)
    money = new_event(api, scoring="money")["id"]
    assert api.ok("PUT", f"/events/{money}/settings", {"name": "Cash"})["scoring"] == "money"
    api.ok("POST", f"/events/{money}/players", {"name": "Ann"})
    api.ok("POST", f"/events/{money}/players", {"name": "Bob"})
    api.ok("POST", f"/events/{money}/rounds", {"seed": 1, "unpaid": "draw"}, 201)
    assert api.ok("PUT", f"/events/{money}/settings", {"name": "Cash 2"})["scoring"] == "money"
    api.ok("POST", f"/events/{eid}/rounds/1/close", {"force": True})
    api.ok("POST", f"/events/{eid}/rounds", {"seed": 2}, 201)
    api_error(api("PUT", url, {"rounds": 1}), 409, "rounds", "2 rounds are drawn already")
    assert api.ok("PUT", url, {"rounds": 2})["state"] == "playing"


def test_an_event_set_up_by_mistake_is_deleted_until_its_first_draw(api, other):
    """A director who set up an event by mistake (or twice) deletes it, with its check-in;
    once a round is drawn its tables are sessions with hands of their own: 409."""
    eid = new_event(api)["id"]
    check_in_all(api, eid, TEN[:4])
    api_error(other("DELETE", f"/events/{eid}"), 404, None, "no event")
    assert api.ok("DELETE", f"/events/{eid}") == {"deleted": eid}
    api_error(api("GET", f"/events/{eid}"), 404, None, "no event")
    assert [e["id"] for e in api.ok("GET", "/events")] == []
    kept = new_event(api)["id"]
    check_in_all(api, kept, TEN[:4])
    api.ok("POST", f"/events/{kept}/rounds", {"seed": 1}, 201)
    api_error(api("DELETE", f"/events/{kept}"), 409, "event", "can no longer be deleted")
    assert api.ok("GET", f"/events/{kept}")["players"]


def test_fixed_prizes_over_the_pool_are_the_events_state_said_in_money(api):
    """Fixed prizes of 160.50 over a pool of 40: a plain read of the prize list answered 422
    (as if the read were wrong), saying "add up to 160.5, more than the pool of 40.00". The
    event's state: 409, the amounts as money."""
    made = new_event(api, prizes={"fixed": ["100", "60.5"]}, scoring="money", stake="0.25")
    assert made["stake"] == "0.25"  # (the event's answer had no stake)
    eid = made["id"]
    check_in_all(api, eid, ["Ann", "Bob"])
    api_error(api("GET", f"/events/{eid}/prizes"), 409, "prizes",
              "the fixed prizes add up to $160.50, more than the pool of $40.00")
    api.ok("PUT", f"/events/{eid}/settings", {"prizes": {"fixed": ["30", "10"]}})
    assert api.ok("GET", f"/events/{eid}/prizes")["pool"] == "40.00"
