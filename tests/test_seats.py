"""Seats that change during a session (docs/api.md): a player joins at the
dealer's right (dealing last in the rotation) or after a named player, leaves, and comes
back; each hand keeps the players it was played with (a correction of an earlier hand uses
its own); a leaver's total stays in the ledger and in settle-up. Through the API and the
pages, on SQLite and PostgreSQL; ``tonk check`` runs after each test."""
from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from app.db.models import League, Player
from app.db.unit import unit_of_work
from app.extensions import db
from app.services.leagues import rename_member
from tests.clients import api_error, errors_of, record, sign_up, start
from tests.expect import fetched

DEAD = {"end": {"kind": "dead"}}


def seats(api, sid, body, status=200):
    return api.ok("POST", f"/sessions/{sid}/seats", body, status)


def tonk(player):
    return {"end": {"kind": "tonk_out", "player": player}}


def test_a_joiner_sits_at_the_dealers_right_and_deals_last(api):
    sid = api.start()  # Ann, Bob, Cy, Dee; Dee deals first
    session = seats(api, sid, {"join": "Fay"})
    assert session["players"] == ["Ann", "Bob", "Cy", "Fay", "Dee"]
    assert session["dealer"] == "Dee"
    dealers = [api.ok("POST", f"/sessions/{sid}/hands", DEAD, 201)["hand"]["dealer"]
               for _ in range(6)]
    assert dealers == ["Dee", "Ann", "Bob", "Cy", "Fay", "Dee"]


def test_join_after_a_named_player_and_the_hand_takes_only_who_is_seated(api):
    sid = api.start()
    assert seats(api, sid, {"join": "Fay", "after": "Ann"})["players"] == [
        "Ann", "Fay", "Bob", "Cy", "Dee"]
    hand = api.ok("POST", f"/sessions/{sid}/hands", tonk("Fay"), 201)
    assert hand["result"]["winners"] == ["Fay"]
    assert set(hand["result"]["net"]) == {"Ann", "Fay", "Bob", "Cy", "Dee"}
    session = seats(api, sid, {"leave": "Bob"})
    assert session["players"] == ["Ann", "Fay", "Cy", "Dee"] and session["left"] == ["Bob"]
    api_error(api("POST", f"/sessions/{sid}/hands", tonk("Bob")), 422, "end.player", "Bob")
    hand = api.ok("POST", f"/sessions/{sid}/hands", tonk("Cy"), 201)
    assert "Bob" not in hand["result"]["net"]


def test_a_leaver_keeps_their_total_in_the_ledger_and_settle_up_and_may_rejoin(api):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", tonk("Bob"), 201)
    before = api.ok("GET", f"/sessions/{sid}/ledger")
    seats(api, sid, {"leave": "Bob"})
    after = api.ok("GET", f"/sessions/{sid}/ledger")
    assert after["totals"] == before["totals"] and after["transfers"] == before["transfers"]
    assert any(t["to"] == "Bob" for t in after["transfers"])
    api.ok("POST", f"/sessions/{sid}/hands", tonk("Ann"), 201)
    assert api.ok("GET", f"/sessions/{sid}/ledger")["totals"]["Bob"] == \
        before["totals"]["Bob"]
    session = seats(api, sid, {"join": "bob"})  # the same person, however typed
    assert "Bob" in session["players"] and session["left"] == []
    hand = api.ok("POST", f"/sessions/{sid}/hands", tonk("Bob"), 201)
    assert "Bob" in hand["result"]["net"]
    totals = api.ok("GET", f"/sessions/{sid}/ledger")["totals"]
    assert list(totals) == ["Ann", "Bob", "Cy", "Dee"]  # one row for Bob, still


def test_a_correction_of_an_earlier_hand_uses_that_hands_seats(api):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", tonk("Dee"), 201)
    seats(api, sid, {"leave": "Dee"})
    seats(api, sid, {"join": "Fay"})
    corrected = api.ok("PUT", f"/sessions/{sid}/hands/1",
                       {**tonk("Dee"), "multiplier": 2, "reason": "it was the Big One"})
    assert set(corrected["result"]["net"]) == {"Ann", "Bob", "Cy", "Dee"}
    api_error(api("PUT", f"/sessions/{sid}/hands/1", {**tonk("Fay"), "reason": "no"}),
              422, "end.player", "Fay")
    totals = api.ok("GET", f"/sessions/{sid}/ledger")["totals"]
    assert totals["Fay"] == "0.00" and totals["Dee"] == corrected["result"]["net"]["Dee"]
    api.ok("DELETE", f"/sessions/{sid}/hands/1", {"reason": "never played"})
    assert set(api.ok("GET", f"/sessions/{sid}/ledger")["totals"].values()) == {"0.00"}


def test_when_the_next_dealer_leaves_the_deal_passes_on(api):
    sid = api.start()  # Dee deals first
    session = seats(api, sid, {"leave": "Dee"})
    assert session["dealer"] == "Ann"


def test_a_next_dealer_who_leaves_and_sits_down_again_before_a_hand_is_stored_so(db_app, api):
    """Dee deals hand 1, Ann (due next) leaves and sits down again at once (at the dealer's
    right: her old seat): the deal has passed to Bob. The stored night holds the leave and
    the join, so its fold says Bob too, and ``tonk check`` finds nothing (it had Ann)."""
    from app.db.models import GameSession
    from app.services.sessions import stored_night
    from app.services.upkeep.integrity import problems

    sid = api.start()  # Ann, Bob, Cy, Dee; Dee deals first
    api.ok("POST", f"/sessions/{sid}/hands", DEAD, 201)
    seats(api, sid, {"leave": "Ann"})
    assert seats(api, sid, {"join": "Ann"})["dealer"] == "Bob"
    with db_app.app_context():
        night, _hands = stored_night(fetched(GameSession, sid))
        assert (night.dealer, list(night.seated)) == ("Bob", ["Bob", "Cy", "Dee", "Ann"])
        assert problems() == []
    assert api.ok("POST", f"/sessions/{sid}/hands", DEAD, 201)["hand"]["dealer"] == "Bob"


@pytest.mark.parametrize("hands", [0, 1, 2])
def test_the_stored_night_seats_its_players_as_the_table_did(db_app, api, hands):
    """Comings and goings before the first hand, between hands and after the last (a
    leave and a return, a newcomer who sits and goes without a hand): the fold of the
    stored night has the kept seating, next dealer and seats."""
    from app.db.models import GameSession
    from app.services.sessions import kept_night, stored_night

    sid = api.start()  # Ann, Bob, Cy, Dee; Dee deals first
    changes = [{"join": "Fay"}, {"leave": "Dee"}, {"join": "Dee"}, {"leave": "Ann"}]
    for number in range(hands + 1):
        for change in changes:
            seats(api, sid, change)
        seats(api, sid, {"join": "Ann", "after": "Dee"})
        seats(api, sid, {"leave": "Fay"})
        if number < hands:
            api.ok("POST", f"/sessions/{sid}/hands", DEAD, 201)
    with db_app.app_context():
        gs = fetched(GameSession, sid)
        kept, (stored, _hands) = kept_night(gs), stored_night(gs)
    assert (stored.seated, stored.dealer, set(stored.seats)) == (
        kept.seated, kept.dealer, set(kept.seats))


@pytest.mark.parametrize("body, field, words", [
    ({"join": "Ann"}, "join", "already at the table"),
    ({"leave": "Zed"}, "leave", "not at the table"),
    ({"join": "Fay", "after": "Zed"}, "after", "not at the table"),
    ({}, "join", "one change"),
    ({"join": "Fay", "leave": "Bob"}, "leave", "one change"),
    ({"after": "Bob"}, "join", "one change"),
    ({"join": "  "}, "join", "the name of who joins or leaves cannot be empty"),
    ({"join": 7}, "join", "the name of who joins or leaves must be text, not 7"),
    ({"leave": ["Bob"]}, "leave", 'must be text, not ["Bob"]'),
    ({"join": "Fay", "after": True}, "after", "must be text, not true"),
    ({"sit": "Fay"}, "sit", "no field"),
])
def test_bad_changes_of_seats_name_their_field(api, body, field, words):
    sid = api.start()
    api_error(api("POST", f"/sessions/{sid}/seats", body), 422, field, words)


def test_a_member_renamed_while_seated_cannot_join_again_under_the_new_name(db_app, api):
    """A newcomer's organiser renamed Cy to Cyrus during an open night, then had Cyrus join:
    a 500 (the member found by the new name was the seat already at the table). Refused,
    naming the seat."""

    league = api.ok("POST", "/leagues", {"name": "Thursday", "stake": "0.25"}, 201)["id"]
    for name in ("Ann", "Bob", "Cy"):
        api.ok("POST", f"/leagues/{league}/members", {"name": name}, 201)
    sid = api.start(players=["Ann", "Bob", "Cy"], league=league, first_dealer="Ann")
    with db_app.app_context(), unit_of_work():
        row = fetched(League, league)
        cy = db.session.scalar(select(Player).where(Player.league_id == league,
                                                    Player.name == "Cy"))
        assert cy is not None
        rename_member(row, cy.id, "Cyrus")
        assert fetched(Player, cy.id).name == "Cyrus"
    api_error(api("POST", f"/sessions/{sid}/seats", {"join": "Cyrus"}), 422, "join",
              "Cyrus is already at the table, as Cy")
    assert api.ok("GET", f"/sessions/{sid}")["players"] == ["Ann", "Bob", "Cy"]


def test_a_table_keeps_two_players_at_least_and_eight_at_most(api):
    sid = api.ok("POST", "/sessions", {"name": "Two", "players": ["Ann", "Bob"]}, 201)["id"]
    api_error(api("POST", f"/sessions/{sid}/seats", {"leave": "Bob"}), 422, "leave",
              "at least 2")
    for name in ("C", "D", "E", "F", "G", "H"):
        seats(api, sid, {"join": name})
    api_error(api("POST", f"/sessions/{sid}/seats", {"join": "I"}), 422, "join", "at most 8")


def test_a_closed_session_takes_no_change_of_seats(api):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/close")
    assert api("POST", f"/sessions/{sid}/seats", {"join": "Fay"}).status_code == 409


def test_the_share_view_shows_who_is_seated_and_who_left(api):
    sid = api.start()
    api.ok("POST", f"/sessions/{sid}/hands", tonk("Bob"), 201)
    seats(api, sid, {"leave": "Bob"})
    token = api.ok("GET", f"/sessions/{sid}")["share_url"].rsplit("/", 1)[1]
    body = api.client.get(f"/api/v1/share/{token}").get_json()
    assert body["players"] == ["Ann", "Cy", "Dee"]
    assert [(s["name"], s["seated"]) for s in body["seats"]] == [
        ("Ann", True), ("Bob", False), ("Cy", True), ("Dee", True)]
    assert body["totals"]["Bob"] != "0.00"


# -- the pages -------------------------------------------------------------------------------

def test_join_and_leave_from_the_session_page(db_app):
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"))
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert 'name="join"' in page and 'name="leave"' in page
    resp = client.post(f"/sessions/{sid}/seats", data={"join": "Fay", "after": ""})
    assert resp.status_code == 302
    form = client.get(f"/sessions/{sid}/hands/new").get_data(as_text=True)
    assert 'value="Fay"' in form
    assert record(client, sid, kind="tonk_out", player="Fay").status_code == 302
    resp = client.post(f"/sessions/{sid}/seats", data={"leave": "Fay"})
    assert resp.status_code == 302
    page = client.get(resp.location).get_data(as_text=True)
    assert "Fay" in page and "left the table" in page
    assert f"/sessions/{sid}/settle?player=Fay" in page  # settle up on the way out
    form = client.get(f"/sessions/{sid}/hands/new").get_data(as_text=True)
    assert 'id="player-3"' not in form  # only the three seated now
    resp = client.post(f"/sessions/{sid}/seats", data={"leave": "Zed"})
    assert resp.status_code == 422 and any("Zed" in e for e in errors_of(resp))


@pytest.mark.parametrize("preset", ["pagat", "push_ups"])
def test_settle_up_marks_who_left_the_table(db_app, preset):
    """The session page marks who left; settle-up, where they are most looked for, did
    not."""
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"), preset=preset)
    kind = "stock_out" if preset == "push_ups" else "tonk_out"
    counts = {"count-0": "5", "count-1": "7", "count-2": "9"} if preset == "push_ups" else {}
    assert record(client, sid, kind=kind, player="Bob", **counts).status_code == 302
    assert client.post(f"/sessions/{sid}/seats", data={"leave": "Bob"}).status_code == 302
    page = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    rows = re.findall(r'<(?:li|tr)[^>]*>.*?</(?:li|tr)>', page[page.index("<h1>"):], re.S)
    marked = set()
    for row in rows:
        who = re.search(r'<span class="who">(\w+)', row)
        if who is not None and '<small class="left">left the table' in row:
            marked.add(who.group(1))
    assert marked == {"Bob"}, rows


def test_a_join_name_too_long_is_said_so_not_cut_by_the_field(db_app):
    """The join field cut a name past 40 characters as it was typed (maxlength), and the
    table got a name nobody typed: the field takes it, the page says what is wrong and
    shows it again."""
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"))
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    field = re.search(r'<input id="join"[^>]*>', page)
    assert field is not None and "maxlength" not in field.group(0)
    long = "Bartholomew Fitzgerald-Montgomery the Third"
    assert len(long) > 40
    resp = client.post(f"/sessions/{sid}/seats", data={"join": long, "after": ""})
    assert resp.status_code == 422
    assert any("40" in e for e in errors_of(resp)), errors_of(resp)
    assert f'value="{long}"' in resp.get_data(as_text=True)


def test_tonk_check_finds_a_next_dealer_who_left_and_pots_that_do_not_add_up(db_app, api):
    from app.db.models import GameSession, SessionPlayer
    from app.extensions import db
    from app.services.upkeep.integrity import problems

    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    api.ok("POST", f"/sessions/{sid}/hands", {**DEAD, "side_bets": [{"bet": "naturals"}]},
           201)
    with db_app.app_context():
        gs = fetched(GameSession, sid)
        dealer = db.session.scalar(select(SessionPlayer).where(
            SessionPlayer.session_id == sid, SessionPlayer.seat == gs.next_dealer))
        assert dealer is not None
        dealer.left_at, kept = datetime.now(UTC), gs.pots_json
        gs.pots_json = '{"naturals": [[0, 10]]}'
        db.session.commit()
        found = " ".join(problems())
        assert "has left the table" in found and "do not sum to zero" in found
        assert "hands' side bets leave" in found
        dealer.left_at, gs.pots_json = None, kept
        db.session.commit()


def test_a_joiners_chart_line_starts_where_they_sat_down(db_app):
    """The running totals have no point for a player before they joined (the chart drew
    them at 0 from the start of the night): their line starts at 0 where they sat down."""
    from app.db.models import GameSession
    from app.services.sessions import ledger

    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"))
    for _ in range(2):
        assert record(client, sid, kind="tonk_out", player="Ann").status_code == 302
    assert client.post(f"/sessions/{sid}/seats", data={"join": "Fay"}).status_code == 302
    assert record(client, sid, kind="tonk_out", player="Fay").status_code == 302
    with db_app.app_context():
        series = ledger.running_totals(fetched(GameSession, sid))
    assert [totals[3] for _n, totals in series] == [None, None, 0, 150]
    assert [totals[0] for _n, totals in series] == [0, 100, 200, 150]
    svg = client.get(f"/sessions/{sid}/chart.svg").get_data(as_text=True)
    assert svg.count("<polyline") == 4


def test_a_player_who_sat_and_left_without_a_hand_has_no_line_until_they_play(db_app):
    """Eve joins and leaves before a hand, Fay joins and plays, then Eve comes back and
    plays: Eve's line starts where she first played (the chart once took a seat to have sat
    down at any hand whose stored money reached her seat, so her line began at Fay's)."""
    from app.db.models import GameSession
    from app.services.sessions import running_totals

    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"))
    for seats in ({"join": "Eve"}, {"leave": "Eve"}, {"join": "Fay"}):
        assert client.post(f"/sessions/{sid}/seats", data=seats).status_code == 302
    assert record(client, sid, kind="tonk_out", player="Fay").status_code == 302
    assert client.post(f"/sessions/{sid}/seats", data={"join": "Eve"}).status_code == 302
    assert record(client, sid, kind="tonk_out", player="Eve").status_code == 302
    with db_app.app_context():
        series = running_totals(fetched(GameSession, sid))
    assert [totals[3] for _n, totals in series] == [None, 0, 200]  # Eve
    assert [totals[4] for _n, totals in series] == [0, 150, 100]  # Fay


def test_tonk_check_knows_a_leaver_takes_their_money_out_of_the_pots(db_app, api):
    """A session stored with a leaver's money still in a pot (as before a leaver's money was
    made final) is not what a replay leaves: ``tonk check`` says so. The next hand recorded
    then settles every deal again, not its own alone, and puts it right: the leaver's stake
    goes back to them after the last deal they played."""
    from app.db.models import GameSession, Hand, SessionPlayer
    from app.extensions import db
    from app.services.upkeep.integrity import problems

    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    api.ok("POST", f"/sessions/{sid}/hands", {**DEAD, "side_bets": [{"bet": "naturals"}]},
           201)
    api.ok("POST", f"/sessions/{sid}/seats", {"leave": "Dee"})
    with db_app.app_context():
        gs = fetched(GameSession, sid)
        assert gs.pots_json == '{"naturals": [[0, 10], [1, 10], [2, 10]]}'
        hand = db.session.scalar(select(Hand).where(Hand.session_id == sid))
        dee = db.session.scalar(select(SessionPlayer).where(
            SessionPlayer.session_id == sid, SessionPlayer.name == "Dee"))
        assert hand is not None and dee is not None
        assert hand.side_nets == [-10, -10, -10] and dee.total_minor == 0
        # as it was stored before: Dee's 0.10 left in the pot
        gs.pots_json = '{"naturals": [[0, 10], [1, 10], [2, 10], [3, 10]]}'
        hand.side_nets_json, dee.total_minor = "[-10, -10, -10, -10]", -10
        db.session.commit()
        found = " ".join(problems())
        assert "hands' side bets leave" in found and "a replay of the side bets says" in found
        assert "Dee has left the table but still has 0.10 in the side-bet pots" in found
    api.ok("POST", f"/sessions/{sid}/hands", {**DEAD, "side_bets": [
        {"bet": "naturals", "winner": "Ann"}]}, 201)
    state = api.ok("GET", f"/sessions/{sid}/ledger")
    assert state["totals"] == {"Ann": "0.40", "Bob": "-0.20", "Cy": "-0.20", "Dee": "0.00"}
    with db_app.app_context():
        assert problems() == []


def test_tonk_check_holds_the_kept_totals_against_the_fold_of_the_stored_night(db_app, api):
    """``tonk check`` folds a session's stored hands and seats with the core
    (:func:`app.core.night.fold`) and holds what is kept against it: a night whose totals,
    nets, entries and records all moved together (as a settlement rule wrong in one copy of
    the night would have left them) agrees with itself, not with its hands' facts."""
    from app.db.models import GameSession, Hand, HandEntry, PlayerSessionStat, SessionPlayer
    from app.extensions import db
    from app.services.upkeep.integrity import problems

    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "tonk_out", "player": "Ann"},
                                              "side_bets": [{"bet": "naturals"}]}, 201)
    with db_app.app_context():
        gs = fetched(GameSession, sid)
        hand = db.session.scalar(select(Hand).where(Hand.session_id == sid))
        assert hand is not None
        def move(sign: int) -> None:
            nets = json.loads(hand.nets_json)
            for name, amount in (("Ann", 25 * sign), ("Bob", -25 * sign)):
                seat = db.session.scalar(select(SessionPlayer).where(
                    SessionPlayer.session_id == sid, SessionPlayer.name == name))
                assert seat is not None
                seat.total_minor += amount
                nets[seat.seat] += amount
                for row in db.session.scalars(select(HandEntry).where(
                        HandEntry.hand_id == hand.id, HandEntry.player_id == seat.player_id)):
                    row.amount_minor += amount
                for row in db.session.scalars(select(PlayerSessionStat).where(
                        PlayerSessionStat.session_id == gs.id,
                        PlayerSessionStat.player_id == seat.player_id)):
                    row.net_minor += amount
            hand.nets_json = json.dumps(nets)
            db.session.commit()

        move(1)
        try:
            found = " ".join(problems())
            assert "Ann's total is 1.65 but the night's hands fold to 1.40" in found
            assert "Bob's total is -0.85 but the night's hands fold to -0.60" in found
        finally:
            move(-1)  # (put back for the suite's own check)
        assert problems() == []
