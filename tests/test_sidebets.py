"""Side bets (docs/rules.md §9) stored in a session: enabled per session or league, played at
each deal, carried in their pots, re-settled when a hand is corrected or voided (later hands
too), and given back at settle-up; through the API and the pages, on SQLite and PostgreSQL.
``tonk check`` (totals + pots = 0, pots = a replay) runs after each test."""
from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from app.db.models import GameSession, Hand
from app.extensions import db
from app.services.sessions import running_totals
from tests.apps import statements_sent
from tests.clients import Api, account, api_error, record, shown_beside, sign_up, start
from tests.expect import fetched

DEAD = {"end": {"kind": "dead"}}
BOTH = {"high_card": {"stake": "0.25", "unclaimed": "return"}, "naturals": {"stake": "0.10"}}


def naturals(winner=None, players=None):
    play = {"bet": "naturals", "winner": winner}
    if players is not None:
        play["players"] = players
    return play


def deal(api, sid, *plays, hand=DEAD):
    return api.ok("POST", f"/sessions/{sid}/hands", {**hand, "side_bets": list(plays)}, 201)


def ledger(api, sid):
    """The ledger, checked: each total is its parts' sum, the totals sum to zero (what is in
    the pots goes back: pot_returns, the parts' pots_back), and ``played``, each player's
    hands and side bets (what the hands' expected values below are), sums to less the pots."""
    state = api.ok("GET", f"/sessions/{sid}/ledger")
    money = {n: {k: Decimal(v) for k, v in m.items()} for n, m in state["money"].items()}
    assert {n: Decimal(v) for n, v in state["totals"].items()} == {
        n: m["hands"] + m["side_bets"] + m["pots_back"] for n, m in money.items()}
    assert {n: m["total"] for n, m in money.items()} == {
        n: Decimal(v) for n, v in state["totals"].items()}
    assert sum(map(Decimal, state["totals"].values())) == 0
    assert {n: Decimal(v) for n, v in state["pot_returns"].items()} == {
        n: m["pots_back"] for n, m in money.items() if m["pots_back"]}
    return {**state, "played": {n: f"{m['hands'] + m['side_bets']:.2f}"
                                for n, m in money.items()}}


def zero_sum(state):
    assert sum(map(Decimal, state["played"].values())) + \
        sum(map(Decimal, state["pots"].values())) == 0


def test_a_naturals_pot_carries_over_three_deals_then_is_won(api):
    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    assert api.ok("GET", f"/sessions/{sid}")["side_bets"] == {"naturals": {"stake": "0.10"}}
    for n in range(1, 4):
        hand = deal(api, sid, naturals())
        (line,) = hand["result"]["side_bets"]
        assert line["rule"] == "side_bet.carried" and line["pot"] == f"{Decimal('0.40') * n}"
        assert hand["result"]["net"] == dict.fromkeys(["Ann", "Bob", "Cy", "Dee"], "0.00")
        state = ledger(api, sid)
        assert state["pots"] == {"naturals": f"{Decimal('0.40') * n}"}
        zero_sum(state)
    hand = deal(api, sid, naturals("Bob"))
    (line,) = hand["result"]["side_bets"]
    assert line["rule"] == "side_bet.won" and line["net"]["Bob"] == "1.50"
    assert "1.20 of it carried over" in line["explanation"][-1]
    state = ledger(api, sid)
    assert state["pots"] == {"naturals": "0.00"}
    assert state["played"] == {"Ann": "-0.40", "Bob": "1.20", "Cy": "-0.40", "Dee": "-0.40"}
    zero_sum(state)


def test_a_high_card_deal_nobody_wins_under_return_moves_nothing(api):
    sid = api.start(side_bets={"high_card": {"unclaimed": "return"}})
    hand = deal(api, sid, {"bet": "high_card", "suit": "H", "winner": None})
    assert hand["result"]["side_bets"][0]["rule"] == "side_bet.returned"
    state = ledger(api, sid)
    assert state["pots"] == {"high_card": "0.00"}
    assert set(state["played"].values()) == {"0.00"}
    hand = deal(api, sid, {"bet": "high_card", "suit": "S", "winner": "Cy",
                           "players": ["Ann", "Cy"]})
    assert ledger(api, sid)["played"] == {"Ann": "-0.25", "Bob": "0.00", "Cy": "0.25",
                                          "Dee": "0.00"}


def test_side_bet_money_moves_totals_apart_from_the_hands_result(api):
    sid = api.start(side_bets=BOTH)
    hand = deal(api, sid, naturals("Ann"), hand={"end": {"kind": "tonk_out", "player": "Bob"}})
    assert hand["result"]["net"]["Ann"] == "-0.50"  # the hand's own, without the side bet
    assert hand["hand"]["side_bets"] == [
        {"bet": "naturals", "players": ["Ann", "Bob", "Cy", "Dee"], "winner": "Ann"}]
    assert ledger(api, sid)["played"]["Ann"] == "-0.20"  # and the pot of 0.40, less 0.10


def test_correcting_an_earlier_hand_resettles_the_pot_later_hands_used(api):
    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    deal(api, sid, naturals())                # 0.40 in the pot
    deal(api, sid, naturals())                # 0.80
    deal(api, sid, naturals("Cy"))            # Cy takes 1.20
    assert ledger(api, sid)["played"]["Cy"] == "0.90"
    corrected = api.ok("PUT", f"/sessions/{sid}/hands/1",
                       {**DEAD, "side_bets": [naturals("Dee")], "reason": "Dee had three 7s"})
    assert corrected["result"]["side_bets"][0]["net"]["Dee"] == "0.30"
    state = ledger(api, sid)  # Dee took 0.40; Cy then took only what hands 2 and 3 put in
    assert state["played"] == {"Ann": "-0.30", "Bob": "-0.30", "Cy": "0.50", "Dee": "0.10"}
    later = api.ok("GET", f"/sessions/{sid}/hands/3")["result"]["side_bets"][0]
    assert later["net"]["Cy"] == "0.70"
    zero_sum(state)
    api.ok("DELETE", f"/sessions/{sid}/hands/3", {"reason": "not played"})
    state = ledger(api, sid)  # the pot keeps hand 2's stakes
    assert state["pots"] == {"naturals": "0.40"}
    assert state["played"] == {"Ann": "-0.20", "Bob": "-0.20", "Cy": "-0.20", "Dee": "0.20"}
    zero_sum(state)
    history = api.ok("GET", f"/sessions/{sid}/hands/1/history")
    assert history[0]["hand"].get("side_bets") == [
        {"bet": "naturals", "players": ["Ann", "Bob", "Cy", "Dee"], "winner": None}]


def test_a_correction_that_names_no_side_bets_keeps_the_hands_own(api):
    """A newcomer corrected a hand's end through the API (``PUT …/hands/2`` with its end
    and a reason, no ``side_bets``): Ann's naturals win of that deal went with no word, the
    pots and her total moved; the correction form carries them over. Left out, they stay as
    recorded; ``[]`` plays none."""
    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    deal(api, sid, naturals())
    deal(api, sid, naturals("Ann"))
    before = ledger(api, sid)
    corrected = api.ok("PUT", f"/sessions/{sid}/hands/2",
                       {"end": {"kind": "run_out", "player": "Dee"}, "reason": "Dee ran out"})
    assert corrected["hand"]["side_bets"] == [
        {"bet": "naturals", "players": ["Ann", "Bob", "Cy", "Dee"], "winner": "Ann"}]
    after = ledger(api, sid)
    assert after["pots"] == before["pots"] and after["money"]["Ann"]["side_bets"] == \
        before["money"]["Ann"]["side_bets"] == "0.60"
    none = api.ok("PUT", f"/sessions/{sid}/hands/2", {"end": {"kind": "dead"},
                                                      "side_bets": [], "reason": "no bets"})
    assert "side_bets" not in none["hand"]
    assert ledger(api, sid)["pots"] == {"naturals": "0.40"}
    zero_sum(ledger(api, sid))


def test_a_hand_recorded_last_settles_its_own_deal_alone_however_long_the_night(db_app, api):
    """A hand recorded after all the others settles its side bets from the pots as stored
    (what the others left): the 30th costs the statements the 8th did and reads none of the
    hands before it, where it used to settle every deal of the night again (``tonk check``
    compares the pots and each hand's side-bet money with a whole replay after the test)."""
    sid = api.start(side_bets=BOTH)
    sent = {}
    for n in range(1, 31):
        plays = [naturals(), {"bet": "high_card", "suit": "S",
                              "winner": "Bob" if n % 7 == 0 else None}]
        sent[n] = statements_sent(db_app, lambda plays=plays: deal(api, sid, *plays))
    assert len(sent[30]) == len(sent[8]), (sent[8], sent[30])
    assert not [s for s in sent[30] if "FROM hands" in s and "hands.session_id =" in s]
    state = ledger(api, sid)  # naturals carried 30 deals: 30 x 4 x 0.10; high_card returned
    assert state["pots"] == {"naturals": "12.00", "high_card": "0.00"}  # or won by Bob
    # each put 30 x 0.10 in naturals; Bob took high card 4 times, 0.25 from each of the rest
    assert state["played"] == {"Ann": "-4.00", "Bob": "0.00", "Cy": "-4.00", "Dee": "-4.00"}
    zero_sum(state)


def test_settle_up_gives_back_what_is_left_in_a_pot(api):
    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    deal(api, sid, naturals(players=["Ann", "Bob"]))
    deal(api, sid, naturals(players=["Ann", "Bob", "Cy"]),
         hand={"end": {"kind": "tonk_out", "player": "Dee"}})
    state = ledger(api, sid)
    assert state["pots"] == {"naturals": "0.50"}
    assert state["pot_returns"] == {"Ann": "0.20", "Bob": "0.20", "Cy": "0.10"}
    assert state["played"] == {"Ann": "-0.70", "Bob": "-0.70", "Cy": "-0.60", "Dee": "1.50"}
    assert state["balances"] == {"Ann": "-0.50", "Bob": "-0.50", "Cy": "-0.50", "Dee": "1.50"}
    for t in state["transfers"]:
        api.ok("POST", f"/sessions/{sid}/payments",
               {"from": t["from"], "to": t["to"], "amount": t["amount"]})
    assert ledger(api, sid)["all_paid"]
    api.ok("POST", f"/sessions/{sid}/close")


@pytest.mark.parametrize("spec, play, field, words", [
    ({"naturals": {}}, {"bet": "high_card", "suit": "S"}, "side_bets[0].bet", "no high-card"),
    ({"naturals": {}}, {"bet": "naturals", "winner": "Eve"}, "side_bets[0].winner", "Eve"),
    ({"high_card": {}}, {"bet": "high_card", "suit": "H", "players": ["Ann", "Bob"],
                         "winner": "Cy"}, "side_bets[0].winner", '"Cy", did not bet'),
    ({"high_card": {}}, {"bet": "high_card", "suit": "H", "players": [], "winner": "Cy"},
     "side_bets[0].winner", '"Cy", did not bet'),
    ({"high_card": {"suit": "S"}}, {"bet": "high_card", "suit": "H"}, "side_bets[0].suit",
     "always S"),
    ({"high_card": {"suit": "S"}}, {"bet": "high_card", "suit": "S"}, "side_bets[0].suit",
     "always S: give no suit"),  # even the table's own (docs/rules.md §9): it was taken
    ({"naturals": {}}, {"bet": "naturals", "players": ["Ann", "Zed"]},
     "side_bets[0].players", "players at the table"),
    (None, {"bet": "naturals"}, "side_bets[0].bet", "no naturals"),
])
def test_bad_side_bets_of_a_hand_name_their_field(api, spec, play, field, words):
    sid = api.start(**({"side_bets": spec} if spec else {}))
    api_error(api("POST", f"/sessions/{sid}/hands", {**DEAD, "side_bets": [play]}), 422,
              field, words)
    assert api.ok("GET", f"/sessions/{sid}")["hands"] == 0


def test_a_hand_of_a_fixed_suit_table_is_answered_as_it_may_be_sent_back(db_app, api):
    """A hand stores the suit the table fixes with its high-card bet, but may not send it
    (docs/rules.md §9): the API answers the hand without it, so that it can be sent back
    corrected, and the stored night still folds (``tonk check`` after the test)."""
    sid = api.start(side_bets={"high_card": {"suit": "S"}})
    deal(api, sid, {"bet": "high_card", "winner": None})
    hand = deal(api, sid, {"bet": "high_card", "winner": "Bob"})
    assert hand["hand"]["side_bets"] == [{"bet": "high_card", "players": Api.PLAYERS,
                                          "winner": "Bob"}]
    assert "spades" in hand["result"]["side_bets"][0]["explanation"][0]
    with db_app.app_context():  # (stored as it always was: with the table's suit)
        stored = db.session.scalar(select(Hand).where(Hand.number == 2))
        assert stored is not None and stored.data["side_bets"][0]["suit"] == "S"
    fixed = api.ok("PUT", f"/sessions/{sid}/hands/2", {
        **hand["hand"], "side_bets": [{**hand["hand"]["side_bets"][0], "winner": "Cy"}],
        "reason": "Cy held the ace"})
    assert fixed["result"]["side_bets"][0]["net"]["Cy"] == "1.75"  # (hand 1's pot too)
    history = api.ok("GET", f"/sessions/{sid}/hands/2/history")
    assert ["suit" in v["hand"]["side_bets"][0] for v in history] == [False, False]
    kept = api.ok("PUT", f"/sessions/{sid}/hands/2", {  # no side_bets: the hand's own stay
        "end": {"kind": "tonk_out", "player": "Ann"}, "reason": "Ann tonked out"})
    assert kept["hand"]["side_bets"] == fixed["hand"]["side_bets"]
    assert kept["result"]["side_bets"][0]["net"]["Cy"] == "1.75"
    api.ok("PUT", f"/sessions/{sid}/hands/1", {**history[0]["hand"], "reason": "as it was"})
    with db_app.app_context():  # the chart folds the stored night, as tonk check does
        assert len(running_totals(fetched(GameSession, sid))) == 3


def test_a_leaver_cannot_bet_and_takes_their_stakes_back_as_they_leave(api):
    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    deal(api, sid, naturals())
    api.ok("POST", f"/sessions/{sid}/seats", {"leave": "Bob"})
    api_error(api("POST", f"/sessions/{sid}/hands", {**DEAD, "side_bets": [naturals("Bob")]}),
              422, "side_bets[0].winner", "Bob")
    hand = deal(api, sid, naturals())
    assert hand["result"]["side_bets"][0]["players"] == ["Ann", "Cy", "Dee"]
    state = ledger(api, sid)
    assert state["pot_returns"] == {"Ann": "0.20", "Cy": "0.20", "Dee": "0.20"}
    assert state["played"]["Bob"] == "0.00" and state["pots"] == {"naturals": "0.60"}
    assert all(Decimal(v) == 0 for v in state["balances"].values())
    first = api.ok("GET", f"/sessions/{sid}/hands/1")["result"]["side_bets"]
    assert [(s["rule"], s["players"], s["net"], s["pot"]) for s in first] == [
        ("side_bet.carried", ["Ann", "Bob", "Cy", "Dee"],
         dict.fromkeys(["Ann", "Bob", "Cy", "Dee"], "-0.10"), "0.40"),
        ("side_bet.left", ["Bob"], {"Bob": "0.10"}, "0.30")]
    assert first[1]["explanation"] == [
        "Bob left the table after this deal and takes back the 0.10 they had in the pot."]


# -- a leaver's money is final ------------------------------------------------------

HIGH_CARD = {"bet": "high_card", "suit": "S"}


def _dee_leaves_after_two_deals_nobody_wins(api, spec):
    """The leaver's night: four players; Bob tonks out (Ann, Cy and Dee pay him 0.50), then a
    dead hand; every side bet the table plays, nobody wins it. Dee leaves, and pays what her
    settle-up asks. Returns the ledger once she has."""
    sid = api.start(side_bets=spec)
    plays = [{**HIGH_CARD, "winner": None} if bet == "high_card" else naturals()
             for bet in spec]
    deal(api, sid, *plays, hand={"end": {"kind": "tonk_out", "player": "Bob"}})
    deal(api, sid, *plays)
    api.ok("POST", f"/sessions/{sid}/seats", {"leave": "Dee"})
    state = ledger(api, sid)
    assert "Dee" not in state["pot_returns"]  # she took hers out as she left
    for t in state["open"]:
        if "Dee" in (t["from"], t["to"]):
            api.ok("POST", f"/sessions/{sid}/payments",
                   {"from": t["from"], "to": t["to"], "amount": t["amount"]})
    state = ledger(api, sid)
    assert state["balances"]["Dee"] == "0.00"
    return sid, state


@pytest.mark.parametrize("spec, dee, pots", [
    # two deals nobody wins: 2.00 in the pot, Dee's 0.50 of it back to her as she leaves
    ({"high_card": {"stake": "0.25"}}, "-0.50", {"high_card": "1.50"}),
    ({"naturals": {"stake": "0.25"}}, "-0.50", {"naturals": "1.50"}),
    # a high-card deal nobody wins under return keeps nothing; the naturals pot carries
    ({"high_card": {"stake": "0.25", "unclaimed": "return"}, "naturals": {"stake": "0.25"}},
     "-0.50", {"high_card": "0.00", "naturals": "1.50"}),
])
def test_a_leaver_who_settled_up_owes_nothing_whatever_is_dealt_after(api, spec, dee, pots):
    sid, paid = _dee_leaves_after_two_deals_nobody_wins(api, spec)
    assert paid["played"]["Dee"] == dee and paid["pots"] == pots  # hand −0.50, side 0
    dee_pays = [(p["from"], p["to"], p["amount"]) for p in paid["paid"]]
    assert dee_pays == [("Dee", "Bob", "0.50")]
    # the next deal: Ann wins every pot, Dee's money no longer in any of them
    won = [{**HIGH_CARD, "winner": "Ann"} if bet == "high_card" else naturals("Ann")
           for bet in spec]
    hand = deal(api, sid, *won)
    assert {s["rule"] for s in hand["result"]["side_bets"]} == {"side_bet.won"}
    state = ledger(api, sid)
    assert state["played"]["Dee"] == dee and state["balances"]["Dee"] == "0.00"
    assert not [t for t in state["open"] if "Dee" in (t["from"], t["to"])]
    assert [(p["from"], p["to"], p["amount"]) for p in state["paid"]] == dee_pays
    zero_sum(state)
    assert set(state["pots"].values()) == {"0.00"} and state["pot_returns"] == {}
    # another deal nobody wins: the pot is the stakes of those still at the table
    deal(api, sid, *[{**HIGH_CARD, "winner": None} if bet == "high_card" else naturals()
                     for bet in spec])
    state = ledger(api, sid)
    assert state["played"]["Dee"] == dee and state["balances"]["Dee"] == "0.00"
    assert sum(map(Decimal, state["pots"].values())) == \
        sum(map(Decimal, state["pot_returns"].values()))
    assert "Dee" not in state["pot_returns"]
    zero_sum(state)


def test_a_change_of_a_hand_the_leaver_played_moves_their_total_one_after_does_not(api):
    """Corrections and voids replay the night with the leave at its place: a hand after Dee
    left never moves her total; a hand she played in may (it changes what she won or paid,
    and what she had in the pot when she left): that is the correction, not a later deal."""
    sid, _ = _dee_leaves_after_two_deals_nobody_wins(api, {"high_card": {"stake": "0.25"}})
    deal(api, sid, {**HIGH_CARD, "winner": "Ann"})  # hand 3: Ann takes 1.50 + 0.75
    assert ledger(api, sid)["played"] == {"Ann": "1.00", "Bob": "0.75", "Cy": "-1.25",
                                          "Dee": "-0.50"}
    # hand 3 (after she left), corrected: Bob won it instead; then voided: Dee stays
    api.ok("PUT", f"/sessions/{sid}/hands/3", {**DEAD, "side_bets": [
        {**HIGH_CARD, "winner": "Bob"}], "reason": "Bob held the ace"})
    state = ledger(api, sid)
    assert state["played"] == {"Ann": "-1.25", "Bob": "3.00", "Cy": "-1.25", "Dee": "-0.50"}
    api.ok("DELETE", f"/sessions/{sid}/hands/3", {"reason": "misdeal"})
    state = ledger(api, sid)
    assert state["played"]["Dee"] == "-0.50" and state["pots"] == {"high_card": "1.50"}
    assert state["balances"]["Dee"] == "0.00"
    zero_sum(state)
    # hand 2 (she played it), corrected: she held the ace and took the 2.00: her total moves
    api.ok("PUT", f"/sessions/{sid}/hands/2", {**DEAD, "side_bets": [
        {**HIGH_CARD, "winner": "Dee"}], "reason": "Dee held the ace"})
    state = ledger(api, sid)
    assert state["played"] == {"Ann": "-1.00", "Bob": "1.00", "Cy": "-1.00", "Dee": "1.00"}
    assert state["pots"] == {"high_card": "0.00"} and state["balances"]["Dee"] == "1.50"
    zero_sum(state)
    # hand 1 (she played it) voided: her stake of hand 1 and Bob's tonk out are gone
    api.ok("DELETE", f"/sessions/{sid}/hands/1", {"reason": "misdeal"})
    state = ledger(api, sid)
    assert state["played"] == {"Ann": "-0.25", "Bob": "-0.25", "Cy": "-0.25", "Dee": "0.75"}
    zero_sum(state)
    # and a deal after all that still leaves her alone
    deal(api, sid, {**HIGH_CARD, "winner": None})
    deal(api, sid, {**HIGH_CARD, "winner": "Cy"})
    state = ledger(api, sid)
    assert state["played"]["Dee"] == "0.75"
    zero_sum(state)


def test_a_player_back_before_the_next_deal_keeps_their_stake_in_the_pot(api):
    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    deal(api, sid, naturals())
    api.ok("POST", f"/sessions/{sid}/seats", {"leave": "Dee"})
    assert ledger(api, sid)["played"]["Dee"] == "0.00"
    api.ok("POST", f"/sessions/{sid}/seats", {"join": "Dee"})
    state = ledger(api, sid)  # as if she had never gone: her 0.10 rides in the pot again
    assert state["played"]["Dee"] == "-0.10" and state["pots"] == {"naturals": "0.40"}
    deal(api, sid, naturals("Dee"))
    assert ledger(api, sid)["played"] == {"Ann": "-0.20", "Bob": "-0.20", "Cy": "-0.20",
                                          "Dee": "0.60"}


@pytest.mark.parametrize("body, field", [
    ({"rules": "push_ups", "stake": "1", "side_bets": {"naturals": {}}}, "side_bets"),
    ({"side_bets": {"spades": {}}}, "side_bets.spades"),
    ({"side_bets": {"naturals": {"stake": "-1"}}}, "side_bets.naturals.stake"),
    # at most the table's own most (a newcomer's 999999999999 made a night no payment
    # could settle: a payment is at most 1,000,000,000,000)
    ({"side_bets": {"naturals": {"stake": "999999999999"}}}, "side_bets.naturals.stake"),
    ({"side_bets": {"high_card": {"stake": "1000000.01"}}}, "side_bets.high_card.stake"),
    ({"side_bets": ["naturals"]}, "side_bets"),
])
def test_bad_side_bets_of_a_session_name_their_field(api, body, field):
    resp = api("POST", "/sessions", {"name": "x", "players": ["Ann", "Bob"], **body})
    assert resp.status_code == 422 and resp.get_json()["field"] == field, resp.get_json()


def test_a_session_with_side_bets_cannot_turn_to_push_ups(api):
    sid = api.start(side_bets={"naturals": {}})
    api_error(api("PUT", f"/sessions/{sid}/rules", {"rules": "push_ups", "stake": "1"}), 422,
              "side_bets", "push")


def test_a_league_sessions_inherit_its_side_bets(api):
    league = api.ok("POST", "/leagues", {"name": "Tuesdays", "stake": "0.50",
                                         "side_bets": {"naturals": {}}}, 201)
    assert league["side_bets"] == {"naturals": {"stake": "0.50"}}
    session = api.ok("POST", "/sessions", {"name": "Week 1", "players": ["Ann", "Bob"],
                                           "league": league["id"]}, 201)
    assert session["side_bets"] == {"naturals": {"stake": "0.50"}}
    assert session["pots"] == {"naturals": "0.00"}
    own = api.ok("POST", "/sessions", {"name": "Week 2", "players": ["Ann", "Bob"],
                                       "league": league["id"], "side_bets": {}}, 201)
    assert own["side_bets"] == {}


def test_the_share_view_shows_the_pots(api):
    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    deal(api, sid, naturals())
    token = api.ok("GET", f"/sessions/{sid}")["share_url"].rsplit("/", 1)[1]
    assert api.client.get(f"/api/v1/share/{token}").get_json()["pots"] == {"naturals": "0.40"}
    page = api.client.get(f"/s/{token}").get_data(as_text=True)
    assert "Side-bet pots" in page and "0.40" in page


# -- the pages -------------------------------------------------------------------------------

def test_the_hand_form_has_a_line_per_side_bet_and_the_session_page_the_pots(db_app):
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"), **{
        "sb-high_card": "1", "sb-high_card-stake": "0.25", "sb-high_card-unclaimed": "return",
        "sb-naturals": "1", "sb-naturals-stake": "0.10"})
    form = client.get(f"/sessions/{sid}/hands/new").get_data(as_text=True)
    assert 'name="sb-naturals-in"' in form and 'name="sb-high_card-suit"' in form
    everyone = ["Ann", "Bob", "Cy"]
    resp = record(client, sid, kind="dead", **{
        "sb-naturals-shown": "1", "sb-naturals-in": everyone, "sb-naturals-winner": "",
        "sb-high_card-shown": "1", "sb-high_card-in": ["Ann", "Bob"],
        "sb-high_card-winner": "Bob", "sb-high_card-suit": "H"})
    assert resp.status_code == 302
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert "Side-bet pots" in page and "0.30" in page
    assert "Bob wins the pot: $0.50." in page  # the side-bet lines, apart from the hand's
    # capitalised, with the table's currency and the suit called
    assert "High-card side bet in hearts: Ann and Bob each put $0.25 in the pot." in page
    resp = record(client, sid, kind="dead", **{
        "sb-naturals-shown": "1", "sb-naturals-in": ["Ann"], "sb-naturals-winner": "Bob"})
    assert resp.status_code == 422
    assert 'id="err-sb-naturals-winner"' in resp.get_data(as_text=True)
    # the list tags a hand that played side bets; voided, it plays none (its page shows
    # none, the pots give its stakes back): no tag (a newcomer saw "void + side bets")
    assert page.count('class="badge side-bets"') == 1
    assert client.post(f"/sessions/{sid}/hands/1/void",
                       data={"reason": "misdeal", "version": "1"}).status_code == 302
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert 'class="badge side-bets"' not in page and ">void<" in page


def test_a_dead_hand_with_a_high_card_winner_nobody_ticked_is_refused_not_dropped(db_app):
    """A dead hand leaves everyone out of the high-card bet; a winner chosen for it anyway is
    an error beside the bet's winner (docs/rules.md §9), not a bet silently left out while
    the winner's pot stays where it is."""
    client = db_app.test_client()
    sign_up(client)
    players = ["Ann", "Bob", "Cy", "Dee"]
    sid = start(client, players=players, **{
        "sb-high_card": "1", "sb-high_card-stake": "0.25", "sb-naturals": "1",
        "sb-naturals-stake": "0.10"})
    naturals_in = {"sb-naturals-shown": "1", "sb-naturals-in": players}
    resp = record(client, sid, kind="dead", **naturals_in, **{
        "sb-high_card-shown": "1", "sb-high_card-suit": "H", "sb-high_card-winner": "Cy"})
    shown_beside(resp, "sb-high_card-winner",
                 "the high-card side bet's winner, \"Cy\", did not bet")
    assert 'value="Cy" checked' in resp.get_data(as_text=True)  # the choice is kept, to mend
    with db_app.app_context():
        assert fetched(GameSession, sid).hand_count == 0  # nothing stored
    resp = record(client, sid, kind="dead", **naturals_in, **{
        "sb-high_card-shown": "1", "sb-high_card-suit": "H", "sb-high_card-in": ["Ann", "Bob"],
        "sb-high_card-winner": "Cy"})
    shown_beside(resp, "sb-high_card-winner",
                 "the high-card side bet's winner, \"Cy\", did not bet")
    with db_app.app_context():
        assert fetched(GameSession, sid).hand_count == 0


def test_push_ups_sessions_refuse_side_bets_on_the_form(db_app):
    client = db_app.test_client()
    sign_up(client)
    resp = client.post("/sessions/new", data={
        "name": "x", "first_dealer": "0", "preset": "push_ups", "stake": "1",
        "player-0": "Ann", "player-1": "Bob", "sb-naturals": "1", "sb-naturals-stake": ""})
    assert resp.status_code == 422 and 'id="err-side_bets"' in resp.get_data(as_text=True)


# -- the property ----------------------------------------------------------------------------

NAMES = ["Ann", "Bob", "Cy", "Dee", "Fay", "Gus"]
steps = st.lists(st.one_of(
    st.tuples(st.just("deal"), st.lists(st.integers(0, 5), max_size=6, unique=True),
              st.one_of(st.none(), st.integers(0, 5)), st.booleans(),
              st.one_of(st.none(), st.integers(0, 5))),
    st.tuples(st.just("join"), st.integers(0, 5)),
    st.tuples(st.just("leave"), st.integers(0, 5)),
    st.tuples(st.just("correct"), st.integers(1, 12), st.one_of(st.none(), st.integers(0, 5))),
    st.tuples(st.just("void"), st.integers(1, 12))), max_size=14)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps)
def test_totals_and_pots_always_sum_to_zero_and_no_hand_after_a_leave_moves_the_leaver(
        db_app, sequence):
    api = Api(db_app.test_client(), _token(db_app))
    sid = api.start(side_bets={"naturals": {"stake": "0.10"},
                               "high_card": {"stake": "0.25", "suit": "S",
                                             "unclaimed": "carry"}})
    left_after: dict[str, int] = {}  # who is away: the last hand numbered when they left
    for step in sequence:
        seated = api.ok("GET", f"/sessions/{sid}")["players"]
        before = ledger(api, sid)
        if step[0] == "deal":
            _, who, pick, tonk, big = step
            players = [seated[i % len(seated)] for i in who] or None
            hand = {"end": {"kind": "tonk_out", "player": seated[big % len(seated)]}} \
                if tonk and big is not None else dict(DEAD)
            plays = []
            if players:
                plays.append({"bet": "naturals", "players": sorted(set(players)),
                              "winner": None if pick is None else
                              sorted(set(players))[pick % len(set(players))]})
            plays.append({"bet": "high_card", "winner": None})
            api.ok("POST", f"/sessions/{sid}/hands", {**hand, "side_bets": plays}, 201)
        elif step[0] == "join":
            api("POST", f"/sessions/{sid}/seats", {"join": NAMES[step[1]]})
        elif step[0] == "leave":
            api("POST", f"/sessions/{sid}/seats", {"leave": NAMES[step[1]]})
        elif step[0] == "correct":
            got = api("GET", f"/sessions/{sid}/hands/{step[1]}")
            if got.status_code == 200:
                old = got.get_json()
                plays = [{**p, "winner": p["players"][step[2] % len(p["players"])]
                          if step[2] is not None else None}
                         for p in old["hand"].get("side_bets", [])]
                api.ok("PUT", f"/sessions/{sid}/hands/{step[1]}",
                       {**old["hand"], "side_bets": plays, "reason": "fix"})
        else:
            api("DELETE", f"/sessions/{sid}/hands/{step[1]}", {"reason": "void"})
        state = ledger(api, sid)
        zero_sum(state)
        now = api.ok("GET", f"/sessions/{sid}")
        for name, at in left_after.items():  # no hand after they left moves their money
            if name not in now["players"] and not (
                    step[0] in ("correct", "void") and step[1] <= at):
                assert state["played"][name] == before["played"][name], (name, at, step)
                assert state["totals"][name] == before["totals"][name], (name, at, step)
                assert state["balances"][name] == before["balances"][name], (name, at, step)
                assert name not in state["pot_returns"]
        for name in now["left"]:
            if name in seated:  # left at this step
                left_after[name] = now["hands"] + now["voided_hands"]
        for name in now["players"]:
            left_after.pop(name, None)
    state = ledger(api, sid)
    returns = sum(map(Decimal, state["pot_returns"].values()))
    assert returns == sum(map(Decimal, state["pots"].values()))
    assert sum(map(Decimal, state["balances"].values())) == 0


_TOKENS: dict[int, str] = {}


def _token(db_app):
    if id(db_app) not in _TOKENS:
        _TOKENS[id(db_app)] = account(db_app, "prop@example.com", "Prop")
    return _TOKENS[id(db_app)]


def test_a_league_chooses_its_side_bets_on_its_settings_page(db_app):
    client = db_app.test_client()
    sign_up(client)
    resp = client.post("/leagues/new", data={"name": "Tuesdays", "stake": "0.50",
                                             "currency": "USD", "preset": "pagat",
                                             "sb-naturals": "1", "sb-naturals-stake": ""})
    assert resp.status_code == 302, resp.get_data(as_text=True)[:2000]
    league_id = int(resp.location.rstrip("/").split("/")[2])
    page = client.get(f"/leagues/{league_id}/settings").get_data(as_text=True)
    assert 'id="sb-naturals" value="1" checked' in page
    form = client.get(f"/sessions/new?league={league_id}").get_data(as_text=True)
    assert 'id="sb-naturals" value="1" checked' in form
    resp = client.post(f"/leagues/{league_id}/settings", data={
        "name": "Tuesdays", "stake": "0.50", "currency": "USD", "preset": "pagat",
        "sb-naturals": "1", "sb-naturals-stake": "x"})
    assert resp.status_code == 422 and 'id="err-sb-naturals-stake"' in resp.get_data(
        as_text=True)


def test_a_night_with_two_joins_a_leave_and_both_side_bets_exact_at_every_step(api):
    sid = api.start(side_bets={"naturals": {"stake": "0.10"},
                               "high_card": {"stake": "0.20", "unclaimed": "return"}})
    nobody_holds = {"bet": "high_card", "suit": "H", "winner": None}

    def step(totals, naturals_pot, high_card_pot="0.00"):
        state = ledger(api, sid)
        assert state["played"] == dict(zip(["Ann", "Bob", "Cy", "Dee", "Fay", "Gus"],
                                           totals.split(), strict=False)), state["played"]
        assert state["pots"] == {"high_card": high_card_pot, "naturals": naturals_pot}
        zero_sum(state)

    assert api.ok("POST", f"/sessions/{sid}/seats", {"join": "Fay"})["players"] == [
        "Ann", "Bob", "Cy", "Fay", "Dee"]
    deal(api, sid, naturals(), nobody_holds)
    step("-0.10 -0.10 -0.10 -0.10 -0.10", "0.50")
    assert api.ok("POST", f"/sessions/{sid}/seats", {"join": "Gus", "after": "Bob"})[
        "players"] == ["Ann", "Bob", "Gus", "Cy", "Fay", "Dee"]
    deal(api, sid, naturals(), {"bet": "high_card", "suit": "S", "players": ["Ann", "Bob"],
                                "winner": "Bob"})
    step("-0.40 0.00 -0.20 -0.20 -0.20 -0.10", "1.10")
    api.ok("POST", f"/sessions/{sid}/seats", {"leave": "Cy"})
    step("-0.40 0.00 0.00 -0.20 -0.20 -0.10", "0.90")  # Cy takes his 0.20 out as he goes
    deal(api, sid, naturals())
    step("-0.50 -0.10 0.00 -0.30 -0.30 -0.20", "1.40")  # carried over three deals
    deal(api, sid, naturals("Gus"))
    step("-0.60 -0.20 0.00 -0.40 -0.40 1.60", "0.00")  # then won, Cy's money not in it
    api.ok("DELETE", f"/sessions/{sid}/hands/2", {"reason": "misdeal"})
    step("-0.30 -0.30 0.00 -0.30 -0.30 1.20", "0.00")  # Cy took back hand 1's stake alone
    api.ok("PUT", f"/sessions/{sid}/hands/1", {**DEAD, "side_bets": [naturals("Cy")],
                                               "reason": "Cy spread three kings"})
    step("-0.30 -0.30 0.40 -0.30 -0.30 0.80", "0.00")
    deal(api, sid, naturals())
    step("-0.40 -0.40 0.40 -0.40 -0.40 0.70", "0.50")
    state = ledger(api, sid)
    assert state["balances"] == {"Ann": "-0.30", "Bob": "-0.30", "Cy": "0.40", "Dee": "-0.30",
                             "Fay": "-0.30", "Gus": "0.80"}


def test_side_bet_stakes_must_still_fit_new_rules(api):
    sid = api.start(side_bets={"naturals": {"stake": "0.10"}})
    points = {"rules": {"preset": "pagat", "scoring": "points"}, "stake": "1"}
    api_error(api("PUT", f"/sessions/{sid}/rules", points), 422, "side_bets.naturals.stake",
              "stake")
    api.ok("PUT", f"/sessions/{sid}/rules", {"rules": "chicago"})


def test_the_correction_form_shows_the_hands_own_side_bets(db_app):
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"), **{"sb-naturals": "1",
                                                          "sb-naturals-stake": "0.10"})
    assert record(client, sid, kind="dead", **{
        "sb-naturals-shown": "1", "sb-naturals-in": ["Ann", "Cy"],
        "sb-naturals-winner": "Cy"}).status_code == 302
    page = client.get(f"/sessions/{sid}/hands/1/correct").get_data(as_text=True)
    assert 'id="sb-naturals-in-1" value="Bob">' in page  # Bob was not in
    assert 'id="sb-naturals-won-2" value="Cy" checked' in page
    resp = client.post(f"/sessions/{sid}/hands/1/correct", data={
        "kind": "dead", "reason": "Ann won it", "version": "1", "sb-naturals-shown": "1",
        "sb-naturals-in": ["Ann", "Cy"], "sb-naturals-winner": "Ann"})
    assert resp.status_code == 302
    page = client.get(f"/sessions/{sid}/hands/1").get_data(as_text=True)
    assert "Ann wins the pot: $0.20." in page
    assert record(client, sid, kind="dead", **{
        "sb-naturals-shown": "1", "sb-naturals-in": ["Ann", "Cy"]}).status_code == 302
    first = client.get(f"/sessions/{sid}/hands/1").get_data(as_text=True)
    assert "pot after this hand $0.00" in first  # what hand 1 left, not the pot today ($0.20)


def test_totals_add_up_with_the_side_bets_and_what_the_pots_give_back(db_app):
    """Per player: hands + side bets + what the pots give back = the total settled, on the
    settle page, the session page and the share view; once closed, the pot that was given
    back is no longer shown as waiting."""
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy"), **{
        "sb-naturals": "1", "sb-naturals-stake": "0.10"})
    assert record(client, sid, kind="tonk_out", player="Bob", dealer="Ann", **{
        "sb-naturals-shown": "1", "sb-naturals-in": ["Ann", "Bob"],
        "sb-naturals-winner": ""}).status_code == 302
    settle = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    table = settle[settle.index('class="totals-sum"'):settle.index("</table>")]
    assert ">Hands<" in table and ">Side bets<" in table and ">Pots back<" in table
    # a tonk out pays double: Ann hands −0.50, side bets −0.10, back +0.10 → −0.50
    rows = {m[0]: re.findall(r'class="amt[^"]*">([^<]*)<', m[1])
            for m in re.findall(r'<span class="who">(\w+)</span></th>(.*?)</tr>', table)}
    assert rows == {"Ann": ["\u22120.50", "\u22120.10", "+0.10", "\u22120.50"],
                    "Bob": ["+1.00", "\u22120.10", "+0.10", "+1.00"],
                    "Cy": ["\u22120.50", "0.00", "0.00", "\u22120.50"]}
    assert "Ann</strong> → <strong>Bob</strong>" in settle  # who pays whom squares it
    before = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert 'class="totals-sum"' in before and "Side-bet pots" in before
    resp = client.post(f"/sessions/{sid}/close", data={"carry_over": "1"})
    assert resp.status_code == 302
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert "Side-bet pots" not in page  # given back at close
    assert 'class="totals-sum"' in page and ">Pots back<" in page


def test_the_leavers_settle_up_the_card_and_the_leave_form_say_the_stake_goes_back(db_app):
    """The house's reading, said where the table reads it: the leaver's settle-up (what they
    took back, and that no later hand changes it), the house-rule card and the leave form."""
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy", "Dee"), **{
        "sb-naturals": "1", "sb-naturals-stake": "0.25"})
    for _ in range(2):
        assert record(client, sid, kind="dead", **{
            "sb-naturals-shown": "1", "sb-naturals-in": ["Ann", "Bob", "Cy", "Dee"],
            "sb-naturals-winner": ""}).status_code == 302
    form = client.get(f"/sessions/{sid}/seats").get_data(as_text=True)
    assert "their stake still in a side-bet pot goes back to them now" in form
    assert client.post(f"/sessions/{sid}/seats", data={"leave": "Dee"}).status_code == 302
    page = client.get(f"/sessions/{sid}/settle?player=Dee").get_data(as_text=True)
    assert "Dee took back their stake still in the side-bet pots, $0.50, on leaving" in page
    assert "No hand dealt after Dee left can change what they settle here" in page
    hand = client.get(f"/sessions/{sid}/hands/2").get_data(as_text=True)
    assert "Dee left the table after this deal and takes back the $0.50 they had in the " \
           "pot." in hand
    page = client.get(f"/sessions/{sid}/settle?player=Ann").get_data(as_text=True)
    assert "No hand dealt after" not in page  # Ann is at the table: nothing to say
    card = client.get("/rules/pagat").get_data(as_text=True)
    assert "a player who leaves the table takes back their stake still in a pot" in card
    push_ups = client.get("/rules/push_ups").get_data(as_text=True)
    assert "Side bets" not in re.sub(r'<template id="offline-words".*?</template>', "",
                                     push_ups, flags=re.S)  # (the phone's words, not shown)
