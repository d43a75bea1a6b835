"""Settle-up that holds: the plan is made when the totals change, not when money
moves; a payment along a planned transfer shrinks it alone; one outside the plan re-plans
what remains; a payment is undone with a reason and stays in the history; a session closes
with its open transfers carried over as debts until marked paid. Also the one hand count,
deleting an empty session and archiving any."""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from app.db.models import GameSession, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.services import accounts
from app.services.sessions import ledger
from app.services.sessions.debts import open_debts_of
from tests.clients import Api, api_error, errors_of, sign_up, start
from tests.expect import fetched

#: Ann +0.50, Bob −0.25, Cy −1.25, Dee +1.00 under pagat at 0.25 (the issue's night).
NIGHT: list[dict[str, Any]] = [
    {"end": {"kind": "tonk_out", "player": "Ann"}},
    {"end": {"kind": "drop", "player": "Ann"}, "counts": {"Ann": 5, "Bob": 3, "Cy": 20, "Dee": 20}},
    {"end": {"kind": "drop", "player": "Bob"}, "counts": {"Ann": 20, "Bob": 5, "Cy": 20, "Dee": 3}},
    {"end": {"kind": "run_out", "player": "Dee"}},
]
PLAN = [{"from": "Bob", "to": "Ann", "amount": "0.25"},
        {"from": "Cy", "to": "Ann", "amount": "0.25"},
        {"from": "Cy", "to": "Dee", "amount": "1.00"}]


def night(api: Api) -> int:
    sid = api.start()
    for hand in NIGHT:
        api.ok("POST", f"/sessions/{sid}/hands", hand, 201)
    return sid


def without_pay(transfers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Open transfers without their pay links (tests/test_pay.py has those)."""
    return [{k: v for k, v in t.items() if k != "pay"} for t in transfers]


def pay(api: Api, sid: int, payer: str, payee: str, amount: str) -> dict[str, Any]:
    return api.ok("POST", f"/sessions/{sid}/payments",
                  {"from": payer, "to": payee, "amount": amount})


def planned(book: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [(t["from"], t["to"], t["amount"], t["open"]) for t in book["plan"]]


def test_the_issues_night_a_partial_payment_changes_no_other_transfer(api):
    sid = night(api)
    book = api.ok("GET", f"/sessions/{sid}/ledger")
    assert book["totals"] == {"Ann": "0.50", "Bob": "-0.25", "Cy": "-1.25", "Dee": "1.00"}
    assert without_pay(book["open"]) == PLAN == book["transfers"]
    after = pay(api, sid, "Cy", "Dee", "0.50")
    assert without_pay(after["open"]) == [PLAN[0], PLAN[1],
                                          {"from": "Cy", "to": "Dee", "amount": "0.50"}]
    assert planned(after) == [("Bob", "Ann", "0.25", "0.25"), ("Cy", "Ann", "0.25", "0.25"),
                              ("Cy", "Dee", "1.00", "0.50")]
    [paid] = after["paid"]
    assert (paid["from"], paid["to"], paid["amount"], paid["planned"]) == ("Cy", "Dee", "0.50",
                                                                           True)
    assert isinstance(paid["id"], int) and paid["by"] == "Ann" and not paid["undone"]
    assert after["totals"] == book["totals"]


def test_overpaying_a_planned_transfer_names_its_own_limit(api):
    sid = night(api)
    api_error(api("POST", f"/sessions/{sid}/payments",
                  {"from": "Bob", "to": "Ann", "amount": "0.30"}), 422, "amount", "at most $0.25")
    pay(api, sid, "Cy", "Dee", "0.40")
    api_error(api("POST", f"/sessions/{sid}/payments",
                  {"from": "Cy", "to": "Dee", "amount": "0.61"}), 422, "amount", "at most $0.60")


def test_a_payment_outside_the_plan_is_allowed_and_replans_what_remains(api):
    sid = night(api)
    after = pay(api, sid, "Bob", "Dee", "0.25")  # cash goes where it goes
    assert after["paid"][0]["planned"] is False
    assert after["balances"] == {"Ann": "0.50", "Bob": "0.00", "Cy": "-1.25", "Dee": "0.75"}
    assert without_pay(after["open"]) == [{"from": "Cy", "to": "Ann", "amount": "0.50"},
                                          {"from": "Cy", "to": "Dee", "amount": "0.75"}]
    # outside the plan, the limit is what both still have open
    api_error(api("POST", f"/sessions/{sid}/payments",
                  {"from": "Ann", "to": "Dee", "amount": "0.25"}), 422, "from", "owes nothing")
    api_error(api("POST", f"/sessions/{sid}/payments",
                  {"from": "Cy", "to": "Bob", "amount": "0.25"}), 422, "to", "owed nothing")


def test_the_plan_is_made_again_when_the_totals_change(api):
    sid = night(api)
    pay(api, sid, "Cy", "Dee", "0.50")
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "run_out", "player": "Bob"}}, 201)
    book = api.ok("GET", f"/sessions/{sid}/ledger")
    assert book["balances"] == {"Ann": "0.25", "Bob": "0.50", "Cy": "-1.00", "Dee": "0.25"}
    assert sum(Decimal(t["amount"]) for t in book["open"]) == Decimal("1.00")
    assert all(t["paid"] == "0.00" for t in book["plan"])  # a new plan, from what remains
    assert [p["amount"] for p in book["paid"]] == ["0.50"]  # the payment still counts


def test_undo_a_payment_with_a_reason_it_stays_in_the_history(api):
    sid = night(api)
    paid = pay(api, sid, "Cy", "Dee", "1.00")["paid"][0]
    path = f"/sessions/{sid}/payments/{paid['id']}"
    api_error(api("DELETE", path, {}), 422, "reason", "say why")
    api_error(api("DELETE", path, {"reason": "x", "note": 1}), 422, "note", "no field")
    api_error(api("DELETE", f"/sessions/{sid}/payments/99999", {"reason": "x"}), 404, None,
              "no payment")
    book = api.ok("DELETE", path, {"reason": "mis-tap: it was Cy to Ann"})
    assert without_pay(book["open"]) == PLAN and book["paid"] == []
    [undone] = book["payments"]
    assert undone["undone"] and undone["undone_by"] == "Ann" and undone["undone_at"]
    assert undone["undo_reason"] == "mis-tap: it was Cy to Ann"
    api_error(api("DELETE", path, {"reason": "again"}), 422, "payment", "already undone")


def test_undoing_a_payment_outside_the_plan_replans(api):
    sid = night(api)
    paid = pay(api, sid, "Bob", "Dee", "0.25")["paid"][0]
    book = api.ok("DELETE", f"/sessions/{sid}/payments/{paid['id']}", {"reason": "no"})
    assert without_pay(book["open"]) == PLAN and book["balances"]["Bob"] == "-0.25"


def test_close_needs_a_choice_then_carries_the_debts_over(api, other):
    sid = night(api)
    pay(api, sid, "Cy", "Dee", "0.50")
    api_error(api("POST", f"/sessions/{sid}/close"), 422, "carry_over", "carry the debts over")
    api_error(api("POST", f"/sessions/{sid}/close", {"carry_over": "yes"}), 422, "carry_over",
              "true or false")
    closed = api.ok("POST", f"/sessions/{sid}/close", {"carry_over": True})
    assert closed["closed"]
    book = api.ok("GET", f"/sessions/{sid}/ledger")
    carried = [(d["from"], d["to"], d["amount"], d["paid"]) for d in book["carried_over"]]
    assert carried == [("Bob", "Ann", "0.25", False), ("Cy", "Ann", "0.25", False),
                       ("Cy", "Dee", "0.50", False)]
    debts = api.ok("GET", "/debts")
    assert [d["id"] for d in debts] == [d["id"] for d in book["carried_over"]]
    assert other.ok("GET", "/debts") == []
    api_error(other("POST", f"/debts/{debts[0]['id']}/paid"), 404, None, "no debt")
    marked = api.ok("POST", f"/debts/{debts[0]['id']}/paid")
    assert marked["paid"] and marked["paid_by"] == "Ann" and marked["paid_at"]
    api_error(api("POST", f"/debts/{debts[0]['id']}/paid"), 422, "debt", "already")
    assert [d["id"] for d in api.ok("GET", "/debts")] == [d["id"] for d in debts[1:]]
    # the debt paid is paid on every screen: the session's open transfers and balances too
    book = api.ok("GET", f"/sessions/{sid}/ledger")
    assert without_pay(book["open"]) == [{"from": "Cy", "to": "Ann", "amount": "0.25"},
                                         {"from": "Cy", "to": "Dee", "amount": "0.50"}]
    assert book["balances"]["Bob"] == "0.00" and book["balances"]["Ann"] == "0.25"
    assert [(d["from"], d["paid"]) for d in book["carried_over"]] == [
        ("Bob", True), ("Cy", False), ("Cy", False)]
    share = api.ok("GET", f"/sessions/{sid}")["share_url"].rsplit("/", 1)[1]
    shared = api.client.get(f"/api/v1/share/{share}").get_json()
    assert [(t["from"], t["to"]) for t in shared["transfers"]] == [("Cy", "Ann"), ("Cy", "Dee")]
    # a closed session takes no payment and no undo
    assert api("POST", f"/sessions/{sid}/payments",
               {"from": "Cy", "to": "Dee", "amount": "0.10"}).status_code == 409


def test_closing_with_everything_paid_needs_no_carry_over(api):
    sid = night(api)
    for t in PLAN:
        pay(api, sid, t["from"], t["to"], t["amount"])
    assert api.ok("POST", f"/sessions/{sid}/close")["closed"]
    assert api.ok("GET", "/debts") == []


def test_one_hand_count_voids_shown_as_such(api, db_app):
    sid = night(api)
    api.ok("DELETE", f"/sessions/{sid}/hands/2", {"reason": "misdeal"})
    session = api.ok("GET", f"/sessions/{sid}")
    assert (session["hands"], session["voided_hands"]) == (3, 1)
    assert api.ok("GET", f"/sessions/{sid}/ledger")["hands"] == 3
    [summary] = api.ok("GET", "/sessions")
    assert (summary["hands"], summary["voided_hands"]) == (3, 1)
    share = db_app.test_client().get(session["share_url"].replace("/s/", "/api/v1/share/"))
    assert share.get_json()["hands"] == 3
    api.ok("PUT", f"/sessions/{sid}/hands/2", {**NIGHT[1], "reason": "it was played"})
    assert api.ok("GET", f"/sessions/{sid}")["voided_hands"] == 0


def test_an_empty_session_can_be_deleted_any_can_be_archived(api, other):
    empty = api.start(name="By mistake")
    api_error(other("DELETE", f"/sessions/{empty}"), 404, None, "no session")
    assert api.ok("DELETE", f"/sessions/{empty}") == {"deleted": empty}
    assert api("GET", f"/sessions/{empty}").status_code == 404
    sid = night(api)
    api_error(api("DELETE", f"/sessions/{sid}"), 409, "session", "archived")
    archived = api.ok("POST", f"/sessions/{sid}/archive", {"archived": True})
    assert archived["archived"] and archived["archived_at"] and archived["hands"] == 4
    api_error(api("POST", f"/sessions/{sid}/archive", {"archived": "no"}), 422, "archived",
              "true or false")
    assert not api.ok("POST", f"/sessions/{sid}/archive", {"archived": False})["archived"]


# -- the pages ------------------------------------------------------------------------------

def test_the_settle_page_pays_in_part_undoes_and_closes_carrying_over(client, app):
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy", "Dee"))
    with app.app_context(), unit_of_work():
        gs = fetched(GameSession, sid)
        user = fetched(User, gs.owner_id)
        owner = user.id
        for hand in NIGHT:
            ledger.record_hand(gs, user, hand)
    page = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    assert page.count("Paid in full") == 3 and "Close, keep the debts" in page
    confirm = page[page.index('<details class="confirm">'):]
    assert confirm.index("Close, keep the debts</summary>") < confirm.index(
        "Yes, close and keep the debts</button>")  # one tap opens, a second closes
    resp = client.post(f"/sessions/{sid}/payments",
                       data={"payer": "Bob", "payee": "Ann", "amount": "0.30"})
    assert resp.status_code == 422 and any("at most $0.25" in e for e in errors_of(resp))
    client.post("/language", data={"code": "de", "next": "/"})  # (it said "höchstens 0.25")
    german = client.post(f"/sessions/{sid}/payments",
                         data={"payer": "Bob", "payee": "Ann", "amount": "0,30"})
    assert any("höchstens 0,25\xa0$" in e for e in errors_of(german)), errors_of(german)
    client.post("/language", data={"code": "en", "next": "/"})
    shown = resp.get_data(as_text=True)  # at the top too, leading to its field far below
    summary = shown[shown.index('id="error-summary"'):shown.index("</div>", shown.index(
        'id="error-summary"'))]
    assert "One thing to fix" in summary and 'href="#part-1"' in summary
    assert 'id="part-1"' in shown and 'aria-describedby="err-part-1"' in shown
    assert client.post(f"/sessions/{sid}/payments", data={
        "payer": "Cy", "payee": "Dee", "amount": "0.50"}).status_code == 302
    page = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    assert "(of $1.00; $0.50 paid)" in page and page.count("Paid in full") == 3
    with app.app_context():
        state = ledger.ledger_of(fetched(GameSession, sid))
        pid = state.payments[0].id
    resp = client.post(f"/sessions/{sid}/payments/{pid}/undo", data={"reason": ""})
    assert resp.status_code == 422 and "say why" in resp.get_data(as_text=True)
    # on the settle page, in its undo box (open), beside the reason field
    shown = resp.get_data(as_text=True)
    box = shown[shown.index('<details class="undo" open>'):]
    box = box[:box.index("</details>")]
    assert f'aria-describedby="err-undo-{pid}"' in box and f'id="err-undo-{pid}"' in box
    assert box.index('name="reason"') < box.index("say why") < box.index(">Undo</button>")
    assert shown.count('<details class="undo">') == len(state.payments) - 1  # the rest folded
    assert client.post(f"/sessions/{sid}/payments/{pid}/undo",
                       data={"reason": "mis-tap"}).status_code == 302
    page = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    assert "Undone by Sam" in page and "mis-tap" in page and "<del>" in page
    resp = client.post(f"/sessions/{sid}/payments", data={   # outside the plan
        "outside": "1", "payer": "Bob", "payee": "Dee", "amount": "0.25"})
    assert resp.status_code == 302
    assert "outside the plan" in client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    assert client.post(f"/sessions/{sid}/close", data={"carry_over": "1"}).status_code == 302
    home = client.get("/").get_data(as_text=True)
    assert "Debts carried over" in home and home.count("Mark paid") == 2
    with app.app_context():
        debt = open_debts_of(fetched(User, owner))[0]
    assert client.post(f"/debts/{debt.id}/paid").status_code == 302
    assert client.get("/").get_data(as_text=True).count("Mark paid") == 1


def test_the_home_card_and_header_read_one_hand_count(client):
    sign_up(client)
    sid = start(client)
    for _ in range(3):
        assert client.post(f"/sessions/{sid}/hands/new",
                           data={"kind": "run_out", "player": "Ann"}).status_code == 302
    assert client.post(f"/sessions/{sid}/hands/2/void",
                       data={"reason": "misdeal"}).status_code == 302
    home = client.get("/").get_data(as_text=True)
    assert "3 hands, 1 of them void" in home  # hands 1 to 3, as the session page numbers them
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert "3 hands, 1 of them void" in page and "As of hand 3." in page


def test_archive_and_delete_from_the_pages(client):
    sign_up(client)
    empty = start(client)
    assert "Delete this session" in client.get(f"/sessions/{empty}").get_data(as_text=True)
    assert client.post(f"/sessions/{empty}/delete").status_code == 302
    assert client.get(f"/sessions/{empty}").status_code == 404
    sid = start(client)
    assert client.post(f"/sessions/{sid}/hands/new",
                       data={"kind": "run_out", "player": "Ann"}).status_code == 302
    assert "Delete this session" not in client.get(f"/sessions/{sid}").get_data(as_text=True)
    resp = client.post(f"/sessions/{sid}/delete")
    assert resp.status_code == 302 and client.get(f"/sessions/{sid}").status_code == 200
    assert client.post(f"/sessions/{sid}/archive", data={"archived": "1"}).status_code == 302
    assert f"/sessions/{sid}\"" not in client.get("/").get_data(as_text=True)
    assert f"/sessions/{sid}\"" in client.get("/sessions/archived").get_data(as_text=True)
    assert client.post(f"/sessions/{sid}/archive", data={"archived": "0"}).status_code == 302
    assert f"/sessions/{sid}\"" in client.get("/").get_data(as_text=True)


# -- push-ups take no stake -----------------------------------------------------------------

def test_push_ups_take_no_stake_anywhere(api, client):
    sid = api.start(rules="push_ups", stake="0.25")
    session = api.ok("GET", f"/sessions/{sid}")
    assert session["stake"] is None and session["scoring"] == "push_ups"
    api.ok("POST", f"/sessions/{sid}/hands", {"end": {"kind": "run_out", "player": "Ann"},
                                              "counts": {"Bob": 5, "Cy": 7, "Dee": 9}}, 201)
    book = api.ok("GET", f"/sessions/{sid}/ledger")
    assert book["open"] == [] and book["plan"] == []
    api_error(api("POST", f"/sessions/{sid}/payments",
                  {"from": "Bob", "to": "Ann", "amount": "1"}), 422, "amount", "push-ups")
    assert api.ok("POST", f"/sessions/{sid}/close")["closed"]
    sign_up(client)
    sid = start(client, preset="push_ups", stake="0.25")
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    assert "stake" not in page.split('class="meta"')[1].split("</p>")[0]
    settle = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    words = re.sub(r"<script.*?</script>", "", settle.split("<h1>")[1], flags=re.S)
    assert "money" not in words.lower()  # (the phone's state, a script's data, names no one)
    form = client.get("/sessions/new").get_data(as_text=True)
    assert 'data-scoring="push_ups"' in form and "data-stake" in form


def test_a_push_ups_league_with_a_stake_starts_a_session(client):
    sign_up(client)
    resp = client.post("/leagues/new", data={"name": "Push", "preset": "push_ups",
                                             "stake": "0.25", "currency": "USD"})
    league = resp.location.rsplit("/", 1)[1]
    page = client.get(f"/sessions/new?league={league}").get_data(as_text=True)
    assert 'data-stake hidden' in page
    resp = client.post("/sessions/new", data={
        "name": "Night", "first_dealer": "0", "stake": "0", "currency": "USD",
        "preset": "push_ups", "league": league, "player-0": "Ann", "player-1": "Bob"})
    assert resp.status_code == 302, errors_of(resp)
    assert "stake" not in client.get(f"/leagues/{league}").get_data(as_text=True).split(
        'class="meta"')[1].split("</p>")[0]


def test_carried_debts_show_on_the_league_and_player_pages(client, app):
    sign_up(client)
    league = client.post("/leagues/new", data={"name": "Thursday", "preset": "pagat",
                                               "stake": "0.25", "currency": "USD"}
                         ).location.rsplit("/", 1)[1]
    resp = client.post("/sessions/new", data={
        "name": "Night", "first_dealer": "0", "stake": "0.25", "currency": "USD",
        "preset": "pagat", "league": league,
        **{f"player-{i}": p for i, p in enumerate(("Ann", "Bob", "Cy", "Dee"))}})
    sid = int(resp.location.rsplit("/", 1)[1])
    with app.app_context(), unit_of_work():
        gs = fetched(GameSession, sid)
        user = fetched(User, gs.owner_id)
        for hand in NIGHT:
            ledger.record_hand(gs, user, hand)
        cy = next(s.player_id for s in gs.seats if s.name == "Cy")
    assert client.post(f"/sessions/{sid}/close", data={"carry_over": "1"}).status_code == 302
    page = client.get(f"/leagues/{league}").get_data(as_text=True)
    assert "Debts carried over" in page and page.count("Mark paid") == 3
    mine = client.get(f"/leagues/{league}/players/{cy}").get_data(as_text=True)
    assert "Debts carried over" in mine and mine.count("Mark paid") == 2
    settle = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    assert settle.count("Mark paid") == 3


# -- the property: settling what remains always squares everyone --------------------------

PAYS = st.lists(st.tuples(st.sampled_from(["along", "along", "part", "outside", "undo",
                                           "hand"]),
                          st.integers(0, 10_000), st.integers(1, 100)),
                min_size=1, max_size=12)
PROPERTY = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
MORE = [{"end": {"kind": "run_out", "player": p}} for p in ("Ann", "Bob", "Cy", "Dee")]


def _open(gs) -> dict[tuple[str, str], Decimal]:
    return {(t.payer, t.payee): t.amount for t in ledger.ledger_of(gs).transfers}


@PROPERTY
@given(steps=PAYS)
def test_any_payments_then_settling_what_remains_squares_everyone(db_app, steps):
    """After any sequence of payments (along the plan, in part, outside it, undone) and
    hands, paying what is open leaves everyone at zero; a payment along a planned transfer
    changes no other transfer."""
    with db_app.app_context():
        user = db.session.scalar(select(User)) or accounts.create_user(
            "prop@example.com", "Prop", "correct horse battery")
        gs = ledger.create_session(user, name="Prop", players=["Ann", "Bob", "Cy", "Dee"],
                                   stake="0.25")
        for hand in NIGHT:
            ledger.record_hand(gs, user, hand)
        for action, pick, cents in steps:
            state = ledger.ledger_of(gs)
            before = _open(gs)
            if action in ("along", "part") and state.transfers:
                t = state.transfers[pick % len(state.transfers)]
                amount = t.amount if action == "along" else min(
                    t.amount, Decimal(cents) / 100)
                ledger.record_payment(gs, user, t.payer, t.payee, str(amount))
                after = _open(gs)
                left = before[(t.payer, t.payee)] - amount
                assert after.get((t.payer, t.payee), Decimal(0)) == left
                assert {k: v for k, v in after.items() if k != (t.payer, t.payee)} == {
                    k: v for k, v in before.items() if k != (t.payer, t.payee)}
            elif action == "outside":
                owing = [n for n, v in state.open.items() if v < 0]
                owed = [n for n, v in state.open.items() if v > 0]
                if owing and owed:
                    payer, payee = owing[pick % len(owing)], owed[(pick // 7) % len(owed)]
                    if (payer, payee) not in before:
                        limit = min(-state.open[payer], state.open[payee])
                        ledger.record_payment(gs, user, payer, payee,
                                              str(min(limit, Decimal(cents) / 100)))
            elif action == "undo":
                live = [p for p in state.payments if not p.undone]
                if live:
                    ledger.undo_payment(gs, user, live[pick % len(live)].id, "mis-tap")
            elif action == "hand":
                ledger.record_hand(gs, user, MORE[pick % len(MORE)])
            state = ledger.ledger_of(gs)
            moved = dict.fromkeys(state.open, Decimal(0))
            for t in state.transfers:
                moved[t.payer] -= t.amount
                moved[t.payee] += t.amount
            assert moved == state.open  # the open transfers settle exactly what remains
        for t in ledger.ledger_of(gs).transfers:
            ledger.record_payment(gs, user, t.payer, t.payee, str(t.amount))
        final = ledger.ledger_of(gs)
        assert final.all_paid and final.transfers == ()
        assert set(final.open.values()) == {Decimal(0)}
        ledger.close_session(gs)


HOOK = re.compile(r'data-from="([^"]*)" data-to="([^"]*)" data-amount="([^"]*)"')


def test_a_closed_sessions_settle_page_hooks_each_debt_still_open(client, app):
    """API.md (fourth round): /sessions/{id}/settle carries [data-from][data-to][data-amount]
    once per open transfer; closed with debts carried over, those debts are what is open."""
    sign_up(client)
    sid = start(client, players=("Ann", "Bob", "Cy", "Dee"))
    with app.app_context(), unit_of_work():
        gs = fetched(GameSession, sid)
        user = fetched(User, gs.owner_id)
        for hand in NIGHT:
            ledger.record_hand(gs, user, hand)
        owner = user.id
    before = HOOK.findall(client.get(f"/sessions/{sid}/settle").get_data(as_text=True))
    assert sorted(before) == sorted((t["from"], t["to"], t["amount"]) for t in PLAN)
    assert client.post(f"/sessions/{sid}/close", data={"carry_over": "1"}).status_code == 302
    page = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    assert "Debts carried over" in page and sorted(HOOK.findall(page)) == sorted(before)
    with app.app_context():
        debt = next(d for d in open_debts_of(fetched(User, owner)) if d.payee == "Dee")
    assert client.post(f"/debts/{debt.id}/paid").status_code == 302
    page = client.get(f"/sessions/{sid}/settle").get_data(as_text=True)
    assert sorted(HOOK.findall(page)) == sorted(h for h in before if h[1] != "Dee")
    home = client.get("/").get_data(as_text=True)
    assert "Debts carried over" in home and "data-from" not in home  # the settle page's hook
