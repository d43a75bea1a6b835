"""The scorekeeper's pages, through Flask's test client: every page renders, sessions start,
every end of a hand is recorded through the form, bad input is shown beside its field and
changes nothing, other accounts see nothing, the share link is read-only, settle-up and
closing work, and pages stay light."""
from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from markupsafe import escape
from sqlalchemy import select

from app.core import TonkError
from app.core.series import MAX_POINTS, downsample
from app.db.models import GameSession, Hand, RulesChange
from app.db.unit import unit_of_work
from app.extensions import db
from app.services.sessions import ledger
from app.web.shared.chart import chart_svg
from tests.apps import make_app
from tests.clients import errors_of, record, share_token, shown_beside, sign_up, start
from tests.expect import unphrased

EVIL = "<script>alert(1)</script>"


# -- helpers ---------------------------------------------------------------------------------

def ledger_says(app, sid, call) -> str:
    """The message of the domain error that ``call(session, owner)`` raises: what the page
    must show (the wording is the domain's, tested with the domain)."""
    with app.app_context():
        gs = db.session.get(GameSession, sid)
        assert gs is not None
        with pytest.raises(TonkError) as caught:
            call(gs, gs.owner)
        db.session.rollback()
    return caught.value.message


def state(app, sid):
    """(hands recorded, each player's total in minor units, versions of each hand)."""
    with app.app_context():
        gs = db.session.get(GameSession, sid)
        assert gs is not None
        hands = db.session.scalars(db.select(Hand).where(Hand.session_id == sid)
                                   .order_by(Hand.number)).all()
        return (gs.hand_count, {s.name: s.total_minor for s in gs.seats},
                [len(h.versions) for h in hands])


def stored_hand(app, sid, number=1):
    with app.app_context():
        gs = db.session.get(GameSession, sid)
        assert gs is not None
        from app.services.sessions.ledger import get_hand

        hand = get_hand(gs, number)
        return hand.data, hand.result, hand.voided


@pytest.fixture
def scorer(db_app):
    """A signed-in client with a session of Ann, Bob and Cy at 0.25 (pagat)."""
    client = db_app.test_client()
    sign_up(client)
    return client, start(client)


# -- pages -----------------------------------------------------------------------------------

def test_every_page_renders(db_app, scorer):
    client, sid = scorer
    assert record(client, sid, kind="tonk_out", player="Ann").status_code == 302
    token = share_token(db_app, sid)
    pages = ["/", "/sessions/new", f"/sessions/{sid}", f"/sessions/{sid}/hands/new",
             f"/sessions/{sid}/hands/1", f"/sessions/{sid}/hands/1/correct",
             f"/sessions/{sid}/settle", f"/sessions/{sid}/rules", "/account",
             f"/s/{token}", f"/s/{token}/hands/1"]
    for path in pages:
        resp = client.get(path)
        assert resp.status_code == 200, path
        assert resp.content_type.startswith("text/html")
        assert "Content-Security-Policy" in resp.headers
    for path in (f"/sessions/{sid}/chart.svg", f"/s/{token}/chart.svg"):
        resp = client.get(path)
        assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
        assert resp.get_data(as_text=True).startswith("<svg")
    for path in ("/static/tonk.css", "/static/tonk.js"):
        resp = client.get(path)
        assert resp.status_code == 200
        resp.close()
    signed_out = db_app.test_client()
    assert b"Sign up" in signed_out.get("/").data


def test_home_lists_my_sessions_open_first_with_totals(db_app, scorer):
    client, first = scorer
    record(client, first, kind="run_out", player="Bob")
    second = start(client, players=("Dee", "Eve"))
    assert client.post(f"/sessions/{second}/close").status_code == 302
    third = start(client, players=("Fay", "Gus"))
    page = client.get("/").get_data(as_text=True)
    assert page.index(f"/sessions/{third}") < page.index(f"/sessions/{first}") \
        < page.index(f"/sessions/{second}")
    assert "+0.50" in page and "\u22120.25" in page  # Bob won a run out from Ann and Cy
    assert 'href="/sessions/new"' in page


def test_start_a_session_with_house_rules(db_app):
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "", "Bob", "Cy"), preset="newark", stake="0.50",
                first_dealer="2", **{"opt-catch": "alt3", "opt-first_turn_spread_pays": "0",
                                     "opt-deal_wins": "50 = 2; <=13 = 3; face = 2"})
    with db_app.app_context():
        from app.services.sessions.ledger import player_names, session_rules, session_stake

        gs = db.session.get(GameSession, sid)
        assert gs is not None
        rules = session_rules(gs)
        assert player_names(gs) == ("Ann", "Bob", "Cy")
        assert gs.next_dealer == 1  # seat 3 of the form: Bob
        assert session_stake(gs) == Decimal("0.50")
        assert (rules.preset, rules.catch, rules.first_turn_spread_pays) == ("newark", "alt3",
                                                                             None)
        assert [w.to_json() for w in rules.deal_wins] == [
            {"totals": [50], "pays": 2}, {"at_most": 13, "pays": 3},
            {"five_face_cards": True, "pays": 2}]
    page = client.get(f"/sessions/{sid}/rules").get_data(as_text=True)
    assert 'value="50 = 2; &lt;=13 = 3; face = 2"' in page  # shown again as typed
    assert "<details class=\"options\" open>" in page


@pytest.mark.parametrize("form, args, field", [
    ({"player-1": ""}, {"players": ["Ann"]}, "players"),
    ({"player-1": "ann"}, {"players": ["Ann", "ann"]}, "player-1"),
    ({"player-0": "", "player-3": "ann", "player-5": "Ann"}, {"players": ["Bob", "ann", "Ann"]},
     "player-5"),
    ({"stake": "lots"}, {"stake": "lots"}, "stake"),
    ({"stake": "0.001"}, {"stake": "0.001"}, "stake"),
    ({"name": " "}, {"name": " "}, "name"),
    ({"currency": "DOUBLOONS"}, {"currency": "DOUBLOONS"}, "currency"),
    ({"opt-catch": "nope"}, {"rules": {"catch": "nope"}}, "opt-catch"),
    ({"opt-hand_size": "40"}, {"rules": {"hand_size": 40}}, "opt-hand_size"),
    ({"opt-deal_wins": "52 = 2"}, {"rules": {"deal_wins": [{"totals": [52], "pays": 2}]}},
     "opt-deal_wins"),
    ({"preset": "vegas"}, {"rules": {"preset": "vegas"}}, "preset"),
])
def test_new_session_errors_show_beside_the_field(app, form, args, field):
    client = app.test_client()
    sign_up(client)
    data = {"name": "Friday", "player-0": "Ann", "player-1": "Bob", "first_dealer": "0",
            "stake": "0.25", "currency": "USD", "preset": "pagat", **form}
    if field == "player-5":
        data["first_dealer"] = "1"
    resp = client.post("/sessions/new", data=data)
    assert resp.status_code == 422
    with app.app_context():
        from app.db.models import User

        user = db.session.scalar(db.select(User))
        assert user is not None
        call = {"name": "Friday", "players": ["Ann", "Bob"], "stake": "0.25", **args}
        with pytest.raises(TonkError) as caught:
            ledger.create_session(user, **call)
        db.session.rollback()
    shown_beside(resp, field, caught.value.message)
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(GameSession)) == 0


@pytest.mark.parametrize("form, field, message", [
    ({"opt-catch_factor": "x"}, "opt-catch_factor", "Catch factor: enter a whole number."),
    ({"opt-deal_wins": "whatever"}, "opt-deal_wins",
     "Write the instant wins like 49 50 = 2; <=13 = 2; face = 2, or - for none; "
     "50 = 2 left gives a rule its own tie."),
])
def test_what_the_page_itself_cannot_read(app, form, field, message):
    client = app.test_client()
    sign_up(client)
    data = {"name": "Friday", "player-0": "Ann", "player-1": "Bob", "first_dealer": "0",
            "stake": "0.25", "preset": "pagat", **form}
    resp = client.post("/sessions/new", data=data)
    assert resp.status_code == 422
    shown_beside(resp, field, message)


def test_the_new_session_form_says_every_problem_at_once_in_the_core_s_words(app):
    """Every problem of the form, as the phone's night says them too: the core's refusals of
    the whole form (:func:`app.core.tableform.session_refusals`), each beside its field and
    counted at the top; a name too long is refused and shown again as typed (the seat's
    field no longer cuts it at 40 as it is typed), the first dealer an empty seat in the
    core's words."""
    from app.core.handform import Fields
    from app.core.tableform import session_of_form, session_refusals

    client = app.test_client()
    sign_up(client)
    long = "Bartholomew Fitzgerald-Montgomery the Third"
    assert len(long) > 40
    data = {"name": " ", "player-0": "Ann", "player-1": long, "player-2": "Cy", "player-3": long,
            "first_dealer": "5", "stake": "lots", "currency": "USD", "preset": "pagat",
            "opt-hand_size": "six"}
    form = client.get("/sessions/new").get_data(as_text=True)
    seat = re.search(r'<input name="player-1"[^>]*>', form)
    assert seat is not None and "maxlength" not in seat.group(0)
    resp = client.post("/sessions/new", data=data)
    page = resp.get_data(as_text=True)
    assert "6 things to fix" in page, errors_of(resp)
    with app.test_request_context():
        read = session_of_form(Fields(data.items()))
        core = {f: e.message for f, e in session_refusals(read).items()}
    assert sorted(core) == ["first_dealer", "name", "player-1", "player-3", "stake"], core
    for field, message in core.items():
        shown_beside(resp, field, message)
    shown_beside(resp, "opt-hand_size", "Cards dealt: enter a whole number.")
    assert "40" in core["player-1"] and "player 4" in core["player-3"], core
    assert f'value="{long}"' in page
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(GameSession)) == 0


# -- recording hands -------------------------------------------------------------------------

END_CASES = {
    "deal": ({"count-0": "50"}, "deal_win", {"Ann": 100, "Bob": -50, "Cy": -50}),
    "tonk_out": ({"player": "Ann", "count-1": "30"}, "tonk_out",
                 {"Ann": 100, "Bob": -50, "Cy": -50}),
    "run_out": ({"player": "Bob"}, "run_out", {"Ann": -25, "Bob": 50, "Cy": -25}),
    "drop": ({"player": "Bob", "count-0": "12", "count-1": "9", "count-2": "9"}, "caught",
             {"Ann": -25, "Bob": -50, "Cy": 75}),
    "stock_out": ({"count-0": "5", "count-1": "9", "count-2": "12"}, "stock_out",
                  {"Ann": 50, "Bob": -25, "Cy": -25}),
    "dead": ({"count-0": "5"}, "dead", {"Ann": 0, "Bob": 0, "Cy": 0}),
}


@pytest.mark.parametrize("kind", END_CASES)
def test_record_every_kind_of_end(db_app, scorer, kind):
    client, sid = scorer
    form, outcome, totals = END_CASES[kind]
    resp = record(client, sid, kind=kind, dealer="Cy", **form)
    assert resp.status_code == 302 and resp.location.endswith(f"/sessions/{sid}")
    data, result, _ = stored_hand(db_app, sid)
    assert result["outcome"] == outcome
    assert state(db_app, sid)[1] == totals
    if kind in ("tonk_out", "run_out", "dead"):
        assert set(data.get("counts", {})) <= {form.get("player")}  # unused counts not sent
    page = client.get(resp.location).get_data(as_text=True)
    assert 'class="recorded"' in page  # the hand's payments, flashed once
    for payment in result["payments"]:
        assert str(escape(payment["rule"])) in page
    assert 'class="recorded"' not in client.get(resp.location).get_data(as_text=True)


def test_record_flashes_payments_and_new_totals(db_app, scorer):
    client, sid = scorer
    page = client.post(f"/sessions/{sid}/hands/new", follow_redirects=True,
                       data={"kind": "tonk_out", "player": "Ann"}).get_data(as_text=True)
    box = page[page.index('class="recorded"'):page.index("</section>")]
    assert "Bob</span> → <span class=\"who\">Ann" in box and "0.50" in box
    assert "tonk out pays double" in box
    totals = page[page.index('class="totals"'):]
    assert "+1.00" in totals and "\u22120.50" in totals


def test_the_big_one_and_the_dealer(db_app, scorer):
    client, sid = scorer
    assert 'value="Ann" selected' in client.get(f"/sessions/{sid}/hands/new").get_data(
        as_text=True)  # the first dealer deals first
    record(client, sid, kind="run_out", player="Cy", dealer="Bob", big_one="2")
    data, result, _ = stored_hand(db_app, sid)
    assert data["multiplier"] == 2 and data["dealer"] == "Bob"
    assert result["net"]["Cy"] == "1.00"
    assert 'value="Cy" selected' in client.get(f"/sessions/{sid}/hands/new").get_data(
        as_text=True)  # then the next seat


def test_cards_from_the_card_picker(db_app, scorer):
    client, sid = scorer
    resp = record(client, sid, kind="deal", **{"cards-0": "KS QH jd 10C 10S"})
    assert resp.status_code == 302, errors_of(resp)
    data, result, _ = stored_hand(db_app, sid)
    assert data["counts"]["Ann"] == 50 and data["cards"]["Ann"] == ["KS", "QH", "JD", "10C",
                                                                     "10S"]
    assert result["winners"] == ["Ann"]
    drop = {"kind": "drop", "player": "Ann"}
    resp = record(client, sid, **drop,
                  **{"count-0": "4", "cards-0": "AS 2S", "count-1": "9", "count-2": "20"})
    assert resp.status_code == 422
    shown_beside(resp, "count-0", ledger_says(db_app, sid, lambda gs, user: ledger.record_hand(
        gs, user, {"end": drop, "counts": {"Ann": 4, "Bob": 9, "Cy": 20},
                   "cards": {"Ann": ["AS", "2S"]}})))
    resp = record(client, sid, **drop, **{"cards-0": "AS 2S", "cards-1": "as", "count-2": "20"})
    assert resp.status_code == 422  # beside the cards that hold the copy the deck has not
    shown_beside(resp, "cards-1", ledger_says(db_app, sid, lambda gs, user: ledger.record_hand(
        gs, user, {"end": drop, "counts": {"Cy": 20},
                   "cards": {"Ann": ["AS", "2S"], "Bob": ["as"]}})))
    assert state(db_app, sid)[0] == 1


def test_card_picker_knows_the_deck(db_app):
    client = db_app.test_client()
    sign_up(client)

    def config(preset):
        sid = start(client, preset=preset)
        page = client.get(f"/sessions/{sid}/hands/new").get_data(as_text=True)
        found = re.search(r'<script type="application/json" id="hand-config">(.*?)</script>',
                          page, re.S)
        assert found is not None
        raw = found.group(1)
        return page, json.loads(raw)

    page, cfg = config("baton_rouge")
    cards = [c for c, _ in cfg["deck"]]
    assert len(cards) == 40 and "10H" not in cards and "8S" not in cards
    assert cfg["maxCount"] == 50  # (the script checks it: a text field keeps what was typed)
    page, cfg = config("wikipedia")
    assert [c for c, _ in cfg["deck"]].count("JOKER") == 2
    assert cfg["maxCount"] == 50 and 51 not in cfg["playCounts"]
    page, cfg = config("pagat")
    assert cfg["modes"] == {"deal": "claimants", "tonk_out": "none", "run_out": "none",
                            "drop": "all", "stock_out": "all", "dead": "none"}
    assert 6 in cfg["dealTotals"] and 5 not in cfg["dealTotals"]


@pytest.mark.parametrize("preset, extra, asked, not_asked", [
    ("pagat", {}, [], ["method", "first_turn", "double_double", "five_face"]),
    ("pagat", {"opt-tonk_out_by_hits_pays": "1"}, ["method"], ["first_turn"]),
    ("pagat", {"opt-tonk_out_by_hits_pays": "2"}, [], ["method"]),  # same pay: not asked
    ("chicago", {}, ["first_turn"], ["method", "double_double", "five_face"]),
    ("wikipedia", {}, ["double_double"], ["method", "first_turn", "five_face"]),
    ("rushville", {}, ["five_face"], ["method", "first_turn", "double_double"]),
])
def test_the_form_asks_only_what_the_rules_use(app, preset, extra, asked, not_asked):
    client = app.test_client()
    sign_up(client)
    sid = start(client, preset=preset, **extra)
    page = client.get(f"/sessions/{sid}/hands/new").get_data(as_text=True)
    for name in asked:
        assert f'name="{name}"' in page, name
    for name in not_asked:
        assert f'name="{name}"' not in page, name


def test_special_tonk_outs_and_five_face_cards(db_app):
    client = db_app.test_client()
    sign_up(client)
    chicago = start(client, preset="chicago")
    record(client, chicago, kind="tonk_out", player="Ann", first_turn="1")
    assert stored_hand(db_app, chicago)[1]["net"]["Ann"] == "1.00"  # first turn pays 2
    hits = start(client, **{"opt-tonk_out_by_hits_pays": "1"})
    record(client, hits, kind="tonk_out", player="Ann", method="hits")
    assert stored_hand(db_app, hits)[1]["net"]["Ann"] == "0.50"
    encyclopedia = start(client, preset="wikipedia")
    record(client, encyclopedia, kind="tonk_out", player="Bob", double_double="1")
    assert stored_hand(db_app, encyclopedia)[1]["net"]["Bob"] == "2.00"
    rushville = start(client, preset="rushville")
    resp = record(client, rushville, kind="deal", five_face="Cy")
    assert resp.status_code == 302, errors_of(resp)
    assert stored_hand(db_app, rushville)[1]["winners"] == ["Cy"]


def test_a_tables_jokers_and_a_tonk_out_with_a_hit_through_the_forms(db_app):
    """A table with three jokers records a hand holding the third; the form asks a
    tonk out's last cards the way the rules tell them apart (any hit, or all in new spreads
    of one's own) and pays a hit single; a number of jokers without their deck is refused
    beside its field with the core's words."""
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, preset="wikipedia",
                **{"opt-jokers": "3", "opt-tonk_out_by_hits_pays": "1"})
    page = client.get(f"/sessions/{sid}/hands/new").get_data(as_text=True)
    assert "How did their last cards go down?" in page
    assert "All in new spreads of their own" in page
    assert "At least one hit onto a spread on the table" in page
    found = re.search(r'id="hand-config">(.*?)</script>', page, re.S)
    assert found is not None
    assert [c for c, _ in json.loads(found.group(1))["deck"]].count("JOKER") == 3
    resp = record(client, sid, kind="tonk_out", player="Ann", method="hits")
    assert resp.status_code == 302, errors_of(resp)
    assert stored_hand(db_app, sid)[1]["net"]["Ann"] == "0.50"  # single: 2 × 0.25
    resp = record(client, sid, kind="drop", player="Ann", **{
        "cards-0": "JOKER JOKER 3H", "cards-1": "joker 5S", "count-2": "20"})
    assert resp.status_code == 302, errors_of(resp)
    assert stored_hand(db_app, sid, 2)[1]["winners"] == ["Ann"]
    rules_page = client.get(f"/sessions/{sid}/rules").get_data(as_text=True)
    assert 'name="opt-jokers"' in rules_page and "Jokers in the deck" in rules_page
    resp = client.post(f"/sessions/{sid}/rules", data={"preset": "pagat", "opt-jokers": "3"})
    assert resp.status_code == 422
    shown_beside(resp, "opt-jokers", ledger_says(db_app, sid, lambda gs, user: ledger.change_rules(
        gs, user, rules={"preset": "pagat", "jokers": 3})))


def test_push_ups_need_every_losers_count(db_app):
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, preset="push_ups")
    resp = record(client, sid, kind="tonk_out", player="Ann", **{"count-1": "7"})
    assert resp.status_code == 422
    shown_beside(resp, "count-2", ledger_says(db_app, sid, lambda gs, user: ledger.record_hand(
        gs, user, {"end": {"kind": "tonk_out", "player": "Ann"}, "counts": {"Bob": 7}})))
    resp = record(client, sid, kind="tonk_out", player="Ann",
                  **{"count-0": "99", "count-1": "7", "count-2": "3"})  # Ann's own: ignored
    assert resp.status_code == 302, errors_of(resp)
    assert stored_hand(db_app, sid)[1]["pushed"] == {"Ann": 0, "Bob": 14, "Cy": 6}


def test_the_hand_form_says_every_counts_problem_at_once_and_keeps_what_was_typed(db_app):
    """A newcomer typed -3, abc and 99: the summary said "One thing to fix" (abc) while the
    page's script marked the others, -3 with "Enter a whole number.", and abc was cleared
    (a number field drops what is no number). Every count's problem is now the server's,
    in the core's words (-3: it cannot be negative), counted in the summary, and each field
    shows again what was typed."""
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy", "Dee"))
    resp = record(client, sid, kind="stock_out",
                  **{"count-0": "-3", "count-1": "abc", "count-2": "99", "count-3": "7"})
    page = resp.get_data(as_text=True)
    assert "3 things to fix" in page, errors_of(resp)
    shown_beside(resp, "count-0", ledger_says(db_app, sid, lambda gs, user: ledger.record_hand(
        gs, user, {"end": {"kind": "stock_out"},
                   "counts": {"Ann": -3, "Bob": 7, "Cy": 7, "Dee": 7}})))
    assert "cannot be negative" in page
    shown_beside(resp, "count-1", "Enter a whole number of points for Bob.")
    shown_beside(resp, "count-2", ledger_says(db_app, sid, lambda gs, user: ledger.record_hand(
        gs, user, {"end": {"kind": "stock_out"},
                   "counts": {"Ann": 7, "Bob": 7, "Cy": 99, "Dee": 7}})))
    for seat, typed in enumerate(("-3", "abc", "99", "7")):
        field = re.search(rf'<input [^>]*id="count-{seat}"[^>]*>', page)
        assert field is not None
        assert f'value="{typed}"' in field.group(0) and 'type="text"' in field.group(0)
    config = re.search(r'id="hand-config">(.*?)</script>', page, re.S)
    assert config is not None  # the page's script says so in the core's words too
    assert json.loads(config.group(1))["msg"]["negative"] == \
        "{player}'s count cannot be negative ({n})"


DROP = {"kind": "drop", "player": "Bob"}
BAD_HANDS = {  # form → (the same hand for the ledger, the field its error is shown beside)
    "unknown player": ({"kind": "tonk_out", "player": "Zed"},
                       {"end": {"kind": "tonk_out", "player": "Zed"}}, "player"),
    "count out of range": ({**DROP, "count-0": "51", "count-1": "9", "count-2": "9"},
                           {"end": DROP, "counts": {"Ann": 51, "Bob": 9, "Cy": 9}}, "count-0"),
    "count the deck cannot make": (
        {**DROP, "count-0": "4", "count-1": "9", "count-2": "-2"},
        {"end": DROP, "counts": {"Ann": 4, "Bob": 9, "Cy": -2}}, "count-2"),
    "missing count": ({**DROP, "count-0": "4", "count-1": "9"},
                      {"end": DROP, "counts": {"Ann": 4, "Bob": 9}}, "count-2"),
    "no player": ({"kind": "run_out"}, {"end": {"kind": "run_out", "player": None}}, "player"),
    "no deal win": ({"kind": "deal", "count-0": "30"},
                    {"end": {"kind": "deal"}, "counts": {"Ann": 30}}, "counts"),
    "deal total too low": ({"kind": "deal", "count-0": "3"},
                           {"end": {"kind": "deal"}, "counts": {"Ann": 3}}, "count-0"),
    "unknown dealer": ({"kind": "dead", "dealer": "Zed"},
                       {"end": {"kind": "dead"}, "dealer": "Zed"}, "dealer"),
    "not a card": ({**DROP, "cards-0": "1H", "count-1": "9", "count-2": "9"},
                   {"end": DROP, "counts": {"Bob": 9, "Cy": 9}, "cards": {"Ann": ["1H"]}},
                   "cards-0"),
}


@pytest.mark.parametrize("case", BAD_HANDS)
def test_bad_hands_show_the_message_and_change_nothing(db_app, scorer, case):
    client, sid = scorer
    form, data, field = BAD_HANDS[case]
    resp = record(client, sid, **form)
    assert resp.status_code == 422
    shown_beside(resp, field, ledger_says(
        db_app, sid, lambda gs, user: ledger.record_hand(gs, user, data)))
    assert state(db_app, sid) == (0, {"Ann": 0, "Bob": 0, "Cy": 0}, [])


@pytest.mark.parametrize("form, field, message", [
    ({**DROP, "count-0": "ten", "count-1": "9", "count-2": "9"}, "count-0",
     "Enter a whole number of points for Ann."),
    ({"player": "Ann"}, "kind", "Choose how the hand ended."),
    ({"kind": "dead", "big_one": "lots"}, "big_one",
     "The Big One doubles the stakes: tick it or leave it."),
])
def test_what_the_hand_form_itself_cannot_read(db_app, scorer, form, field, message):
    client, sid = scorer
    resp = record(client, sid, **form)
    assert resp.status_code == 422
    shown_beside(resp, field, message)
    assert state(db_app, sid)[0] == 0


def test_error_is_shown_beside_the_right_field(db_app, scorer):
    client, sid = scorer
    page = record(client, sid, kind="drop", player="Bob",
                  **{"count-0": "4", "count-1": "51", "count-2": "9"}).get_data(as_text=True)
    row = page[page.index('id="count-1"'):]
    row = row[:row.index("</div>")]
    assert "at most 50" in row
    assert 'value="51"' in row  # what was typed stays
    assert 'id="kind-drop" value="drop" checked' in page


# -- correcting and voiding ------------------------------------------------------------------

def test_correct_a_hand_keeps_the_old_version(db_app, scorer):
    client, sid = scorer
    record(client, sid, kind="run_out", player="Bob")
    form = client.get(f"/sessions/{sid}/hands/1/correct").get_data(as_text=True)
    assert 'id="kind-run_out" value="run_out" checked' in form
    assert 'value="Bob" checked' in form and 'name="reason"' in form
    resp = client.post(f"/sessions/{sid}/hands/1/correct",
                       data={"kind": "tonk_out", "player": "Ann", "dealer": "Ann"})
    assert resp.status_code == 422
    shown_beside(resp, "reason", ledger_says(db_app, sid, lambda gs, user: ledger.correct_hand(
        gs, user, 1, {"end": {"kind": "tonk_out", "player": "Ann"}}, "")))
    assert state(db_app, sid)[1:] == ({"Ann": -25, "Bob": 50, "Cy": -25}, [1])
    resp = client.post(f"/sessions/{sid}/hands/1/correct",
                       data={"kind": "tonk_out", "player": "Ann", "dealer": "Ann",
                             "reason": "It was Ann, by a tonk"})
    assert resp.status_code == 302
    assert state(db_app, sid)[1:] == ({"Ann": 100, "Bob": -50, "Cy": -50}, [2])
    page = client.get(f"/sessions/{sid}/hands/1").get_data(as_text=True)
    history = page[page.index('class="history"'):]
    assert "Recorded" in history and "Corrected" in history
    assert "It was Ann, by a tonk" in history and "Run out · Bob 0 → Bob ran out" in history


def test_void_a_hand_needs_a_reason_and_strikes_it_through(db_app, scorer):
    client, sid = scorer
    record(client, sid, kind="run_out", player="Bob")
    resp = client.post(f"/sessions/{sid}/hands/1/void", data={"reason": "  "})
    assert resp.status_code == 422
    shown_beside(resp, "reason", ledger_says(
        db_app, sid, lambda gs, user: ledger.void_hand(gs, user, 1, "  ")))
    assert stored_hand(db_app, sid)[2] is False
    resp = client.post(f"/sessions/{sid}/hands/1/void", data={"reason": "misdeal"})
    assert resp.status_code == 302
    assert stored_hand(db_app, sid)[2] is True
    assert state(db_app, sid)[1] == {"Ann": 0, "Bob": 0, "Cy": 0}
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert 'class="hand void"' in page
    detail = client.get(f"/sessions/{sid}/hands/1").get_data(as_text=True)
    assert "misdeal" in detail and "Void this hand" not in detail
    resp = client.post(f"/sessions/{sid}/hands/1/correct",
                       data={"kind": "run_out", "player": "Bob", "reason": "not a misdeal"})
    assert resp.status_code == 302
    assert state(db_app, sid)[1] == {"Ann": -25, "Bob": 50, "Cy": -25}


def test_a_hand_recorded_meanwhile_is_shown_before_a_second_is_saved(db_app, scorer):
    """Two tabs (or two phones) opened the record form; both saved the same hand: it was
    counted twice, the second with the first's dealer (a newcomer's organiser). A form
    that saw the session before another hand was recorded shows that hand and saves only
    when sent again (as another hand); a form that says nothing of it (the phone's outbox
    posts elsewhere) records as before."""
    client, sid = scorer
    other = db_app.test_client()
    other.post("/signin", data={"email": "sam@example.com", "password": "secret-table-9"})
    form = client.get(f"/sessions/{sid}/hands/new").get_data(as_text=True)
    assert '<input type="hidden" name="after" value="0">' in form
    assert record(other, sid, kind="run_out", player="Bob").status_code == 302
    again = record(client, sid, kind="run_out", player="Bob", after="0")
    assert again.status_code == 409
    page = again.get_data(as_text=True)
    assert "Hand 1 was recorded meanwhile" in page and "If yours is another hand" in page
    assert '<input type="hidden" name="after" value="1">' in page
    assert 'value="run_out" checked' in page  # what was typed, kept
    assert state(db_app, sid)[0] == 1
    assert record(client, sid, kind="run_out", player="Bob", after="1").status_code == 302
    assert state(db_app, sid)[0] == 2
    assert record(client, sid, kind="dead").status_code == 302  # no "after": as before
    for odd in ("²", "x", "-1"):  # not a number the page wrote: as no "after", never a 500
        assert record(client, sid, kind="dead", after=odd).status_code == 302, odd


# -- who may see and change what -------------------------------------------------------------

def test_a_closed_session_refuses_changes(db_app, scorer):
    client, sid = scorer
    record(client, sid, kind="dead")
    assert client.post(f"/sessions/{sid}/close").status_code == 302
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert f"/sessions/{sid}/hands/new" not in page and "closed" in page
    # a night that is over is not "so far", and its payments are no longer "now"
    assert "Who pays whom now" not in page and '<h2 id="open-title">Who pays whom</h2>' in page
    assert "The night so far" not in page and "The night, hand by hand" in page
    assert "Correct this hand" not in client.get(f"/sessions/{sid}/hands/1").get_data(
        as_text=True)
    for path, form in [(f"/sessions/{sid}/hands/new", {"kind": "run_out", "player": "Ann"}),
                       (f"/sessions/{sid}/hands/1/correct", {"kind": "dead", "reason": "x"}),
                       (f"/sessions/{sid}/hands/1/void", {"reason": "x"}),
                       (f"/sessions/{sid}/rules", {"preset": "chicago"}),
                       (f"/sessions/{sid}/payments", {"payer": "Ann", "payee": "Bob",
                                                      "amount": "1"})]:
        resp = client.post(path, data=form)
        assert resp.status_code == 302 and resp.location.endswith(f"/sessions/{sid}"), path
        page = client.get(resp.location).get_data(as_text=True)
        assert "This session is closed: nothing in it can change any more." in page
    assert client.get(f"/sessions/{sid}/hands/new").status_code == 302
    assert state(db_app, sid) == (1, {"Ann": 0, "Bob": 0, "Cy": 0}, [1])


def test_another_account_gets_404(db_app, scorer):
    owner, sid = scorer
    record(owner, sid, kind="run_out", player="Bob")
    other = db_app.test_client()
    sign_up(other, email="eve@example.com", name="Eve")
    for path in (f"/sessions/{sid}", f"/sessions/{sid}/hands/new", f"/sessions/{sid}/hands/1",
                 f"/sessions/{sid}/hands/1/correct", f"/sessions/{sid}/settle",
                 f"/sessions/{sid}/rules", f"/sessions/{sid}/chart.svg", "/sessions/999"):
        assert other.get(path).status_code == 404, path
    for path, form in [(f"/sessions/{sid}/hands/new", {"kind": "dead"}),
                       (f"/sessions/{sid}/hands/1/correct", {"kind": "dead", "reason": "x"}),
                       (f"/sessions/{sid}/hands/1/void", {"reason": "x"}),
                       (f"/sessions/{sid}/payments", {"payer": "Ann", "payee": "Bob",
                                                      "amount": "0.25"}),
                       (f"/sessions/{sid}/close", {}),
                       (f"/sessions/{sid}/rules", {"preset": "chicago"})]:
        assert other.post(path, data=form).status_code == 404, path
    assert owner.get(f"/sessions/{sid}/hands/7").status_code == 404
    assert state(db_app, sid) == (1, {"Ann": -25, "Bob": 50, "Cy": -25}, [1])
    assert "Friday" not in other.get("/").get_data(as_text=True)


def test_signed_out_visitors_are_sent_to_sign_in(db_app, scorer):
    _client, sid = scorer
    visitor = db_app.test_client()
    resp = visitor.post(f"/sessions/{sid}/hands/new", data={"kind": "dead"})
    assert resp.status_code == 302 and "/signin?next=" in resp.location
    assert visitor.get(f"/sessions/{sid}").status_code == 302
    assert state(db_app, sid)[0] == 0


def csrf_token(page: str) -> str:
    found = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    assert found is not None
    return found.group(1)


def test_a_post_without_the_csrf_token_is_refused(tmp_path):
    app = make_app(f"sqlite:///{tmp_path / 'csrf.sqlite'}", WTF_CSRF_ENABLED=True)
    with app.app_context():
        db.create_all()
    client = app.test_client()
    token = csrf_token(client.get("/signup").get_data(as_text=True))
    assert client.post("/signup", data={"name": "Sam", "email": "sam@example.com",
                                        "password": "secret-table-9"}).status_code == 400
    resp = client.post("/signup", data={"name": "Sam", "email": "sam@example.com",
                                        "password": "secret-table-9", "csrf_token": token})
    assert resp.status_code == 302
    token = csrf_token(client.get("/sessions/new").get_data(as_text=True))
    session = {"name": "Friday", "player-0": "Ann", "player-1": "Bob", "first_dealer": "0",
               "stake": "1", "preset": "pagat"}
    assert client.post("/sessions/new", data=session).status_code == 400
    resp = client.post("/sessions/new", data={**session, "csrf_token": token})
    assert resp.status_code == 302
    sid = int(resp.location.rsplit("/", 1)[1])
    hand = {"kind": "run_out", "player": "Ann"}
    assert client.post(f"/sessions/{sid}/hands/new", data=hand).status_code == 400
    assert client.post(f"/sessions/{sid}/close").status_code == 400
    assert client.post("/signout").status_code == 400
    with app.app_context():
        gs = db.session.get(GameSession, sid)
        assert gs is not None
        assert gs.hand_count == 0 and not gs.is_closed
        assert db.session.scalar(db.select(db.func.count()).select_from(GameSession)) == 1
    resp = client.post(f"/sessions/{sid}/hands/new", data={**hand, "csrf_token": token})
    assert resp.status_code == 302
    with app.app_context():
        db.engine.dispose()


def test_names_are_escaped_everywhere(db_app):
    client = db_app.test_client()
    sign_up(client, name=EVIL)
    sid = start(client, players=("Ann", EVIL))
    record(client, sid, kind="run_out", player=EVIL)
    token = share_token(db_app, sid)
    for path in ("/", f"/sessions/{sid}", f"/sessions/{sid}/hands/1",
                 f"/sessions/{sid}/hands/new", f"/sessions/{sid}/settle", "/account",
                 f"/s/{token}", f"/s/{token}/hands/1", f"/sessions/{sid}/chart.svg"):
        body = client.get(path).get_data(as_text=True)
        assert EVIL not in body, path
        assert "&lt;script&gt;" in body, path


def test_the_share_link_is_read_only(db_app, scorer):
    client, sid = scorer
    record(client, sid, kind="run_out", player="Bob")
    token = share_token(db_app, sid)
    visitor = db_app.test_client()
    page = visitor.get(f"/s/{token}").get_data(as_text=True)
    assert "Bob" in page and "+0.50" in page and f"/s/{token}/chart.svg" in page
    switcher = ['<form method="post" action="/language" class="inline">']
    # the language switcher is the one form that posts: nothing there changes the session
    assert re.findall(r'<form\b[^>]*method="post"[^>]*>', page) == switcher
    assert "/sessions/" not in page  # no way to the scorekeeper's pages
    detail = visitor.get(f"/s/{token}/hands/1").get_data(as_text=True)
    assert "Bob ran out" in detail
    assert re.findall(r'<form\b[^>]*method="post"[^>]*>', detail) == switcher
    assert "/sessions/" not in detail
    assert visitor.get(f"/s/{token}/chart.svg").status_code == 200
    assert visitor.get("/s/not-a-token").status_code == 404
    assert visitor.get(f"/s/{token}/hands/2").status_code == 404
    assert visitor.post(f"/s/{token}", data={"kind": "dead"}).status_code == 405


# -- settle up -------------------------------------------------------------------------------

def test_settle_up_in_full_and_in_part_then_close(db_app, scorer):
    client, sid = scorer
    record(client, sid, kind="tonk_out", player="Ann")  # Bob and Cy owe Ann 0.50 each
    page = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    assert page.count("Paid in full") == 2 and "Close the session" not in page
    resp = client.post(f"/sessions/{sid}/payments",
                       data={"payer": "Bob", "payee": "Ann", "amount": "0.20"})
    assert resp.status_code == 302
    page = client.get(resp.location).get_data(as_text=True)
    assert "Bob paid Ann $0.20." in page and 'class="paid"' in page
    for payer, amount in (("Bob", "0.40"), ("Cy", "-1"), ("Cy", "0.505")):
        resp = client.post(f"/sessions/{sid}/payments",
                           data={"payer": payer, "payee": "Ann", "amount": amount})
        assert resp.status_code == 422
        assert ledger_says(db_app, sid, lambda gs, user, payer=payer, amount=amount:
                           ledger.record_payment(gs, user, payer, "Ann", amount)) \
            in errors_of(resp)
    assert 'value="0.505"' in resp.get_data(as_text=True)  # what was typed stays
    # shown with the settle page's own address (tonk.js puts it in the address bar), so
    # that a reload reads the page rather than sending the payment again
    assert f'<html lang="en" data-address="/sessions/{sid}/settle">' in \
        resp.get_data(as_text=True)
    resp = client.post(f"/sessions/{sid}/payments",
                       data={"payer": "Cy", "payee": "Ann", "amount": "1,000"})
    assert resp.status_code == 422  # a thousand, far more than Cy owes (never read as 1.000)
    assert "more than" in " ".join(errors_of(resp)), errors_of(resp)
    not_yet = ledger_says(db_app, sid, lambda gs, user: ledger.close_session(gs))
    resp = client.post(f"/sessions/{sid}/close")  # no carry-over asked: the page says why
    assert resp.status_code == 422 and str(escape(not_yet)) in resp.get_data(as_text=True)
    for payer, amount in (("Bob", "0,30"), ("Cy", "0.50")):  # a decimal comma reads too
        assert client.post(f"/sessions/{sid}/payments", data={
            "payer": payer, "payee": "Ann", "amount": amount}).status_code == 302
    page = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    assert "Everything is paid." in page and "Close the session" in page
    resp = client.post(f"/sessions/{sid}/close", follow_redirects=True)
    assert "The session is closed. Good game!" in resp.get_data(as_text=True)
    with db_app.app_context():
        closed = db.session.get(GameSession, sid)
        assert closed is not None and closed.is_closed


def test_push_ups_settle_up_shows_standings_and_closes(db_app):
    client = db_app.test_client()
    sign_up(client)
    sid = start(client, preset="push_ups", stake="1")
    record(client, sid, kind="tonk_out", player="Bob", **{"count-0": "9", "count-2": "3"})
    page = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    standings = page[page.index('class="totals standings"'):]
    assert standings.index("Bob") < standings.index("Cy") < standings.index("Ann")
    assert "Paid in full" not in page and "Close the session" in page
    assert client.post(f"/sessions/{sid}/close").status_code == 302
    with db_app.app_context():
        closed = db.session.get(GameSession, sid)
        assert closed is not None and closed.is_closed


# -- house rules -----------------------------------------------------------------------------

def test_change_rules_applies_to_later_hands(db_app, scorer):
    client, sid = scorer
    record(client, sid, kind="tonk_out", player="Ann")
    resp = client.post(f"/sessions/{sid}/rules", data={"preset": "chicago", "stake": "-1"})
    assert resp.status_code == 422
    shown_beside(resp, "stake", ledger_says(db_app, sid, lambda gs, user: ledger.change_rules(
        gs, user, rules="chicago", stake="-1")))
    resp = client.post(f"/sessions/{sid}/rules", data={"preset": "chicago", "stake": "0.50"})
    assert resp.status_code == 302
    record(client, sid, kind="tonk_out", player="Ann")  # chicago: a tonk out pays single
    assert stored_hand(db_app, sid, 2)[1]["net"]["Ann"] == "1.00"
    assert stored_hand(db_app, sid, 1)[1]["net"]["Ann"] == "1.00"  # 2 × 0.25 × 2, as it was
    first = client.get(f"/sessions/{sid}/hands/1").get_data(as_text=True)
    assert "Standard (pagat.com)" in first
    second = client.get(f"/sessions/{sid}/hands/2").get_data(as_text=True)
    assert "Chicago" in second



@pytest.mark.parametrize("lang, message", [
    ("en", '"Tonk out pays" must be from 1 to 100, not -5'),
    ("de", "„Tonk zahlt“ muss zwischen 1 und 100 liegen, nicht -5"),
    ("ja", "「トンクアウトの支払い」は1～100にしてください（-5ではなく）"),
])
def test_a_rule_out_of_range_is_named_by_its_label_on_the_form(db_app, scorer, lang, message):
    """The house-rules form said "tonk_out_pays must be from 1 to 100" under the label
    "Tonk out pays": the option is named as the form shows it, in the reader's language."""
    client, sid = scorer
    resp = client.post(f"/sessions/{sid}/rules", headers={"Accept-Language": lang},
                       data={"preset": "pagat", "stake": "0.25", "opt-tonk_out_pays": "-5"})
    page = resp.get_data(as_text=True).replace("<wbr>", "")  # Japanese phrases: unbroken
    assert resp.status_code == 422 and f'id="err-opt-tonk_out_pays">{escape(message)}<' in page
    assert "tonk_out_pays" not in " ".join(errors_of(resp))
    with db_app.app_context():
        assert not db.session.scalars(select(RulesChange)).all()  # nothing stored



@pytest.mark.parametrize("stake", ["", "0.25"])
def test_the_rules_form_sent_unchanged_stores_nothing_and_says_so(db_app, scorer, stake):
    """The form sent back as shown (or its stake emptied: an empty stake keeps the
    session's, as the API and the phone read it) flashed "New house rules from hand 2 on."
    and stored a change: it says nothing changed and stores nothing."""
    client, sid = scorer
    record(client, sid, kind="tonk_out", player="Ann")
    resp = client.post(f"/sessions/{sid}/rules", data={"preset": "pagat", "stake": stake})
    assert resp.status_code == 302
    page = client.get(resp.headers["Location"]).get_data(as_text=True)
    assert "Nothing changed" in page and "New house rules" not in page
    with db_app.app_context():
        assert not db.session.scalars(select(RulesChange)).all()
        gs = db.session.get(GameSession, sid)
        assert gs is not None and gs.stake_minor == 25
    resp = client.post(f"/sessions/{sid}/rules", data={"preset": "chicago", "stake": ""})
    assert resp.status_code == 302  # a real change is still one
    with db_app.app_context():
        assert len(db.session.scalars(select(RulesChange)).all()) == 1


# -- weight ----------------------------------------------------------------------------------

def test_pages_stay_light_with_many_hands(db_app, scorer):
    client, sid = scorer
    with db_app.app_context(), unit_of_work():
        from app.db.models import User
        from app.services.sessions.ledger import record_hand

        gs = db.session.get(GameSession, sid)
        assert gs is not None
        user = db.session.get(User, gs.owner_id)
        assert user is not None
        for i in range(30):
            record_hand(gs, user, {"end": {"kind": "drop", "player": "Bob"},
                                   "counts": {"Ann": 12, "Bob": i % 10, "Cy": 9}})
    static = 0
    for name in ("tonk.css", "tonk.js"):
        with client.get(f"/static/{name}") as resp:  # closed: it holds the file open
            static += len(resp.data)
    chart = len(client.get(f"/sessions/{sid}/chart.svg").data)
    for path in (f"/sessions/{sid}", f"/sessions/{sid}/hands/new", f"/sessions/{sid}/hands/30",
                 f"/sessions/{sid}/settle", f"/sessions/{sid}/rules", "/sessions/new", "/",
                 f"/s/{share_token(db_app, sid)}"):
        size = len(client.get(path).data)
        assert size < 60_000, (path, size)
        assert size + static + chart < 150_000, path
    first = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert first.count('<li class="hand') == 25 and "#30<" in first and "#5<" not in first
    second = client.get(f"/sessions/{sid}?page=2").get_data(as_text=True)
    assert second.count('<li class="hand') == 5 and "#5<" in second
    for page in ("0", "-3", "x", "9" * 30):
        assert client.get(f"/sessions/{sid}?page={page}").status_code == 200, page


# -- the chart -------------------------------------------------------------------------------

def test_downsample_keeps_ends_and_extremes():
    points = [(x, (x * 37) % 101 - 50) for x in range(5000)]
    points[2500] = (2500, 10_000)
    kept = downsample(points)
    assert len(kept) <= MAX_POINTS
    assert kept[0] == points[0] and kept[-1] == points[-1]
    assert (2500, 10_000) in kept and min(p[1] for p in kept) == -50
    assert [p[0] for p in kept] == sorted(p[0] for p in kept)
    assert downsample(points[:10]) == points[:10]


def test_chart_draws_every_player_within_the_limit():
    names = [f"P{i}" for i in range(7)] + [EVIL]
    series = [(n, [n * (s - 3) * 25 for s in range(8)]) for n in range(2000)]
    svg = chart_svg(names, series, label=str, title="Friday")
    lines = re.findall(r'points="([^"]*)"', svg)
    assert len(lines) == 8
    assert all(len(line.split()) <= MAX_POINTS for line in lines)
    assert EVIL not in svg and "&lt;script&gt;" in svg
    assert len(svg) < 40_000


def test_amounts_and_dates_follow_the_readers_locale(db_app, scorer):
    client, sid = scorer
    record(client, sid, kind="tonk_out", player="Ann")
    german = client.get(f"/sessions/{sid}", headers={"Accept-Language": "de"})
    assert "+1,00" in german.get_data(as_text=True)
    for lang in ("de", "ja"):
        for path in (f"/sessions/{sid}/hands/1", "/", f"/sessions/{sid}/settle"):
            assert client.get(path, headers={"Accept-Language": lang}).status_code == 200


# -- who did what, on every hand line ---------------------------------------------------------

def test_every_hand_line_says_who_did_what(db_app, scorer):
    """The dropper and the catcher both named, in roles that do not depend on their place
    in the line; a deal win with its count, a stock out with the low count; no raw code
    and no hyphen for a minus, on the hand list, the share view, the hand page and its
    history."""
    client, sid = scorer
    for form in ({"kind": "drop", "player": "Cy", "count-0": "20", "count-1": "9",
                  "count-2": "12"},
                 {"kind": "deal", "count-1": "49"},
                 {"kind": "stock_out", "count-0": "7", "count-1": "15", "count-2": "3"},
                 {"kind": "drop", "player": "Ann", "count-0": "2", "count-1": "9",
                  "count-2": "12"}):
        assert record(client, sid, dealer="Ann", **form).status_code == 302
    token = share_token(db_app, sid)
    lines = ("Cy dropped, caught by Bob", "Bob won on the deal with 49",
             "Stock ran out: Cy low with 3", "Ann dropped and won")
    for path in (f"/sessions/{sid}", f"/s/{token}"):
        page = client.get(path).get_data(as_text=True)
        for line in lines:
            assert line in page, (path, line)
        assert "Caught drop" not in page and "Drop won" not in page
    hand = client.get(f"/sessions/{sid}/hands/1").get_data(as_text=True)
    assert "Hand 1: Cy dropped, caught by Bob</h1>" in hand
    assert "<dt>How it ended</dt><dd>Drop</dd>" in hand  # a word, not the code "drop"
    assert "Drop · Ann 20, Bob 9, Cy 12 → Cy dropped, caught by Bob" in hand  # history
    assert "Net: Ann \u22120.25, Bob +0.75, and Cy \u22120.50." in hand
    assert " -0." not in hand and " -1." not in hand
    shared = client.get(f"/s/{token}/hands/3").get_data(as_text=True)
    assert "Hand 3: Stock ran out: Cy low with 3</h1>" in shared


def test_the_hand_lines_read_whole_in_german_and_japanese(db_app, scorer):
    client, sid = scorer
    assert record(client, sid, dealer="Ann", kind="drop", player="Cy", **{
        "count-0": "20", "count-1": "9", "count-2": "12"}).status_code == 302
    de = client.get(f"/sessions/{sid}", headers={"Accept-Language": "de"}).get_data(
        as_text=True)
    assert "Cy hat hingelegt, gefangen von Bob" in de and "Hereingelegt" not in de
    ja = unphrased(client.get(f"/sessions/{sid}/hands/1",
                              headers={"Accept-Language": "ja"}).get_data(as_text=True))
    assert "CyがドロップBobが捕まえた" not in ja and "Cyがドロップ、Bobが捕まえた" in ja


# -- the share view, and taps that cannot be taken back ---------------------------------------

def test_the_share_view_shows_the_totals_before_the_sharing_tools(db_app, scorer):
    client, sid = scorer
    assert record(client, sid, kind="tonk_out", player="Ann").status_code == 302
    page = client.get(f"/s/{share_token(db_app, sid)}").get_data(as_text=True)
    assert page.index('id="totals-title"') < page.index('id="open-title"') \
        < page.index('<details class="share">')  # folded, below the score
    assert '<details class="share" open>' not in page
    own = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert '<details class="share">' in own  # the owner's too, once hands are played


def test_leaving_asks_first_and_starts_with_no_one_chosen(db_app, scorer):
    client, sid = scorer
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    select = page[page.index('<select id="leave"'):]
    select = select[:select.index("</select>")]
    assert '<option value="" selected>' in select  # nobody until the scorekeeper picks
    confirm = page[page.index('<summary class="btn">Leave the table</summary>'):]
    assert confirm.index("</summary>") < confirm.index("Yes, they leave</button>")
    resp = client.post(f"/sessions/{sid}/seats", data={"leave": ""})
    shown_beside(resp, "leave", "Choose who leaves.")
    assert "Ann" in client.get(f"/sessions/{sid}/seats").get_data(as_text=True)


def test_the_stylesheet_draws_a_hands_fields_for_every_end():
    """tonk.css hides, from the first paint, the parts of a hand's form that the end chosen
    does not ask for, one rule an end: an end added to the core without its rule would be
    drawn with every part and then jump as tonk.js hides them."""
    from pathlib import Path

    import app as package
    from app.core.hand import END_KINDS

    css = (Path(package.__file__).parent / "static" / "tonk.css").read_text(encoding="utf-8")
    for kind in END_KINDS:
        assert (f"input[name=kind][value={kind}]:checked) [data-kinds]"
                f":not([data-kinds~={kind}])") in css, kind


def test_no_paragraph_holds_a_fields_error_paragraph():
    """A field's error is a paragraph (macros.error: ``<p class="err">``); inside a
    ``<p class="field">`` it is invalid HTML, which a parser mends by ending the field there
    (the stake row's error stood beside the currency so). Every field holding one is a
    div."""
    root = Path(__file__).resolve().parents[1] / "app" / "web"  # every area's templates
    templates = sorted(root.rglob("templates/**/*.html"))
    assert len(templates) > 50, root
    found = []
    for path in templates:
        text = path.read_text(encoding="utf-8")
        for opened in re.finditer(r"<p\b[^>]*>", text):
            inside = text[opened.end():text.find("</p>", opened.end())]
            if "error(" in inside:
                line = text.count("\n", 0, opened.start()) + 1
                found.append(f"{path.relative_to(root)}:{line}")
    assert found == []


@pytest.mark.parametrize("address", ["/nope", "/rules/nonexistent", "/static/nope.js"])
def test_an_address_with_no_page_is_the_sites_not_found_page(open_client, address):
    """Werkzeug's own 404 was bare English with no way home; the site's page says it in the
    reader's language. The API's stays JSON."""
    resp = open_client.get(address, headers={"Accept-Language": "de"})
    assert resp.status_code == 404 and resp.mimetype == "text/html"
    page = resp.get_data(as_text=True)
    assert '<html lang="de">' in page and "Nicht gefunden" in page
    assert "Unter dieser Adresse gibt es keine Seite" in page and 'href="/"' in page
    api = open_client.get("/api/v1/nope")
    assert api.status_code == 404 and set(api.get_json()) == {"error"}
