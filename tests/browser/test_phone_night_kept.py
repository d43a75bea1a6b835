"""Issue 41's "Done when", in Chromium on a 390 px phone whose browser keeps a profile (it is
closed and launched again on the same folder, as a phone's browser is): the app opened
online once and signed in; then with no signal a new session of four started from the
form, five hands of different ends recorded, one corrected, a player joined and one gone
home, the settle-up plan shown and a payment marked; the browser closed and opened again,
still with no signal: all of it there, counted as before. Then the signal back, and the
first send cut halfway (the server takes half the night, the phone never hears back): the
night is sent again from a second tab and from the first, and a retry after the server has
answered. The server holds each event once, every hand once, and its ledger is the phone's
to the cent; the phone's pages lead to the server's session."""
from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from app.core.night import fold
from app.db.models import GameSession, Hand, NightEvent, User
from app.extensions import db
from tests.browser.helpers import (
    ARTIFACTS,
    COLD_START,
    api,
    assert_accessible,
    closed,
    fill_phone_hand,
    kept_night,
    made_token,
    opened_once,
    settled,
    shown_totals,
    sign_up,
)

#: The hands recorded on the phone, in order (the record form's fields as a scorekeeper
#: fills them in): Eve joins after the third, Bob goes home after the fourth.
HANDS: list[dict[str, Any]] = [
    {"kind": "tonk_out", "player": "Ann"},
    {"kind": "drop", "player": "Cy", "counts": {"Ann": 20, "Bob": 15, "Cy": 3, "Dee": 9}},
    {"kind": "run_out", "player": "Bob"},
    {"kind": "stock_out", "counts": {"Ann": 7, "Bob": 12, "Cy": 30, "Dee": 3, "Eve": 11}},
    {"kind": "deal", "counts": {"Ann": 49}},
]
#: The night's changes the phone keeps: started, five hands, a correction, a join, a leave,
#: a payment.
CHANGES = 10


def snap(page, name: str) -> None:
    """A screenshot for people to look at (after axe finds nothing serious on the page)."""
    assert_accessible(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"phone-night-kept-{name}.png"), full_page=True,
                    scale="css")


def held(live_app, email: str = "kept@example.com") -> tuple[int, int]:
    """How many of the night's events and hands the server holds (the account's: the
    server is shared with other tests)."""
    with live_app.app_context():
        mine = select(GameSession.id).join(User, User.id == GameSession.owner_id).where(
            User.email == email)
        counts = (db.session.scalar(select(func.count()).select_from(NightEvent).where(
                      NightEvent.session_id.in_(mine))),
                  db.session.scalar(select(func.count()).select_from(Hand).where(
                      Hand.session_id.in_(mine))))
        db.session.remove()
    return counts  # type: ignore[return-value]


def test_a_night_started_offline_survives_the_browser_closed_and_is_sent_once(
        live_server, live_app, launch_phone):
    base = live_server
    page = launch_phone()
    sign_up(page, base, "kept@example.com")
    token = made_token(page, base)
    opened_once(page, base)

    # No signal: four players from the new-session form.
    page.context.set_offline(True)
    page.goto(base + "/")
    page.get_by_role("link", name="+ New session").click()
    page.wait_for_url(base + "/sessions/new")
    page.fill("#name", "Cellar")
    for i, name in enumerate(["Ann", "Bob", "Cy", "Dee"]):
        page.fill(f"#player-{i}", name)
    page.select_option("#first_dealer", "3")  # Dee deals first
    page.fill("#stake", "0.50")
    page.fill("#currency", "EUR")
    page.get_by_role("button", name="Start the session").click()
    page.wait_for_url(re.compile(r".*/phone/nights/[0-9a-f]{32}$"), timeout=COLD_START)
    night_url = page.url
    uid = night_url.rsplit("/", 1)[1]
    page.wait_for_selector("html[data-night='phone']", timeout=COLD_START)

    for i, spec in enumerate(HANDS):
        if i == 3:
            page.fill("#join-name", "Eve")
            page.get_by_role("button", name="Seat them").click()
            page.wait_for_selector("#night-totals [data-player='Eve']")
        if i == 4:
            page.select_option("#leave-name", "Bob")
            page.locator("#night-leave summary", has_text="Leave the table").click()
            page.get_by_role("button", name="Yes, they leave").click()
            page.wait_for_selector("#leave-name:not(:has(option[value='Bob']))")
        fill_phone_hand(page, spec)
        page.get_by_role("button", name="Save hand").click()
        page.wait_for_selector(f"#night-hands [data-hand='{i + 1}']")

    # Hand 2 was wrong: Bob held 2, not 15, and caught Cy's drop. The correct form holds the
    # hand as it was, for its own four players (not Eve), and asks why.
    before = shown_totals(page, "#night-totals")
    page.locator("#night-hands [data-hand='2'] button[data-correct]").click()
    page.wait_for_selector("#hand-form[data-correcting='2']")
    assert page.inner_text("#record-title") == "Correct hand 2"
    step = page.locator("#hand-step")
    assert step.locator(".count-row").count() == 4
    assert step.locator(".count-row[data-name='Bob'] input.count").input_value() == "15"
    assert step.locator("input[name='kind'][value='drop']").is_checked()
    step.locator(".count-row[data-name='Bob'] input.count").fill("2")
    page.get_by_role("button", name="Save the correction").click()
    page.wait_for_selector("#err-reason")  # no reason: asked for, nothing kept
    summary = page.locator("#hand-form #error-summary")  # as the server's page says it
    assert summary.locator("h2").inner_text() == "One thing to fix"
    assert summary.locator("a[data-field]").get_attribute("data-field") == "reason"
    page.fill("#reason", "Bob had 2")
    page.get_by_role("button", name="Save the correction").click()
    page.wait_for_selector("#night-hands [data-hand='2'][data-corrected='2']")
    assert page.locator("#hand-form[data-correcting]").count() == 0
    assert page.inner_text("#night-hands [data-hand='2'] .badge.corrected") == "corrected"
    after = shown_totals(page, "#night-totals")
    assert after != before

    # Settle-up: the plan shown, a payment marked.
    first = page.locator("#night-transfers li[data-from]").first
    payer, payee = first.get_attribute("data-from"), first.get_attribute("data-to")
    paid = Decimal(first.get_attribute("data-amount") or "x")
    first.get_by_role("button", name="Paid in full").click()
    page.wait_for_selector(f"#night-status[data-waiting='{CHANGES}']")
    assert page.locator("#night-payments li[data-paid]").count() == 1
    kept = kept_night(page)
    events = kept["events"]
    assert [e["kind"] for e in events] == [
        "started", "hand", "hand", "hand", "joined", "hand", "left", "hand", "corrected",
        "paid"]
    assert [e["hand"]["end"]["kind"] for e in events if e["kind"] == "hand"] == [
        h["kind"] for h in HANDS]
    folded = fold(events)
    phone = shown_totals(page, "#night-totals")  # (those at the table)
    totals = {n: m.total for n, m in folded.money().items()}
    assert phone == {n: v for n, v in totals.items() if n != "Bob"}
    left = {(li.get_attribute("data-from"), li.get_attribute("data-to")): Decimal(
        li.get_attribute("data-amount") or "x")
        for li in page.locator("#night-transfers li[data-from]").all()}
    assert sum(a for a in folded.open().values() if a > 0) == sum(left.values())
    snap(page, "1-before-the-browser-closes")

    # The browser closed, and launched again on the same profile, still with no signal.
    closed(page.context)
    page = launch_phone(offline=True)
    page.goto(base + "/")
    listed = page.locator(f"#phone-nights [data-phone-night='{uid}']")
    listed.wait_for(timeout=COLD_START)
    assert listed.get_attribute("data-waiting") == str(CHANGES)
    page.goto(night_url)
    page.wait_for_selector(f"#night-status[data-waiting='{CHANGES}']", timeout=COLD_START)
    page.wait_for_selector("#night-hands [data-hand='2'][data-corrected='2']",
                           timeout=COLD_START)
    assert shown_totals(page, "#night-totals") == phone
    assert page.locator("#night-hands li[data-hand]").count() == len(HANDS)
    assert page.locator("#night-payments li[data-paid]").count() == 1
    assert kept_night(page)["events"] == events
    snap(page, "2-after-the-browser-opened-again")

    # The signal back. The first send is cut halfway: the server takes the first half of
    # the night, and the phone never hears back.
    half = CHANGES // 2
    sends: list[int] = []

    def cut(route) -> None:
        sends.append(1)
        if len(sends) > 1:
            route.continue_()
            return
        body = json.loads(route.request.post_data or "{}")
        route.fetch(post_data=json.dumps({"events": body["events"][:half]}))
        route.abort("internetdisconnected")

    page.route(re.compile(r".*/phone/nights/[0-9a-f]+/events$"), cut)
    page.context.set_offline(False)
    for _ in range(300):
        if sends:
            break
        page.wait_for_timeout(100)
    page.wait_for_function("() => !/Sending/.test("
                           "document.getElementById('night-status').textContent)")
    assert page.url == night_url and held(live_app) == (half, 3)
    assert page.get_attribute("#night-status", "data-waiting") == str(CHANGES)

    # Sent again from the home page in a second tab (the same sending as the night's page):
    # the server takes the rest, and the home page's list leads to the session.
    other = page.context.new_page()
    other.goto(base + "/")
    listed = other.locator(f"#phone-nights [data-phone-night='{uid}'][data-session]")
    listed.wait_for(timeout=30_000)
    assert listed.get_attribute("data-waiting") == "0"
    assert "Sent" in listed.inner_text()
    sid = int(listed.get_attribute("data-session") or "0")
    card = f"[data-session-card='{sid}']"  # the page's sessions, as the server has them now
    other.wait_for_selector(f"{card} [data-player='Eve'][data-total='{phone['Eve']:.2f}']")
    assert {n: v for n, v in shown_totals(other, card).items() if n in phone} == phone
    snap(other, "3-the-home-page-sent-it")
    with other.expect_navigation(url=f"{base}/sessions/{sid}"):
        listed.locator("a").click()
    other.close()
    assert held(live_app) == (CHANGES, len(HANDS))
    # ...and from the first: what the phone keeps says the server holds it all.
    with page.expect_navigation(url=f"{base}/sessions/{sid}", timeout=30_000):
        page.reload()
    assert page.locator("html[data-night]").count() == 0
    assert shown_totals(page) == phone  # the server's session page: the phone's totals
    snap(page, "4-the-server-s-session")

    # A retry after the server answered: the whole night sent again changes nothing.
    again = settled(page, """async (events) => {
        const token = await (await fetch("/outbox/token", {cache: "no-store"})).json();
        const answer = await fetch("/phone/nights/" + events.uid + "/events", {
            method: "POST", headers: {"Content-Type": "application/json",
                                      "X-CSRFToken": token.csrf},
            body: JSON.stringify({events: events.events})});
        return {status: answer.status, said: await answer.json()};
    }""", {"uid": uid, "events": events})
    assert again["status"] == 200 and again["said"]["taken"] == []
    assert len(again["said"]["already"]) == CHANGES
    assert held(live_app) == (CHANGES, len(HANDS))

    ledger = api(base, token, f"/sessions/{sid}/ledger")
    assert {n: Decimal(v) for n, v in ledger["totals"].items()} == totals, ledger
    assert [(p["from"], p["to"], Decimal(p["amount"])) for p in ledger["paid"]] == [
        (payer, payee, paid)]
    assert {(t["from"], t["to"]): Decimal(t["amount"]) for t in ledger["transfers"]} == left
    assert api(base, token, f"/sessions/{sid}")["hands"] == len(HANDS)
    page.unroute(re.compile(r".*/phone/nights/[0-9a-f]+/events$"))
    with page.expect_navigation(url=f"{base}/sessions/{sid}"):
        page.goto(night_url)  # the night's page, asked again, leads to the session too


def test_a_night_on_the_phone_plays_a_side_bet_changes_its_stake_closes_and_is_sent_whole(
        live_server, live_app, launch_phone):
    """A night started offline with a side bet (naturals, won on the first hand); the house
    rules and the stake changed on the phone from the next hand on (a wrong option refused
    beside its field), and the night closed with what is open kept as debts: counted by the
    core as the server counts the same events, sent whole; the server's session is closed,
    its hands keep the stakes they were played at and the side bet its winner."""
    base = live_server
    page = launch_phone()
    sign_up(page, base, "closing@example.com")
    token = made_token(page, base)
    opened_once(page, base)
    page.context.set_offline(True)
    page.goto(base + "/sessions/new")
    for i, name in enumerate(["Ann", "Bob", "Cy"]):
        page.fill(f"#player-{i}", name)
    page.fill("#stake", "0.25")
    page.get_by_role("button", name="Start the session").click()
    page.wait_for_selector("#err-name", timeout=COLD_START)  # no name: as the server says
    page.fill("#name", "Last orders")
    page.locator("details.side-bets > summary").click()  # naturals at 0.10, as online
    page.check("#sb-naturals")
    page.fill("#sb-naturals-stake", "0.10")
    page.get_by_role("button", name="Start the session").click()
    page.wait_for_url(re.compile(r".*/phone/nights/[0-9a-f]{32}$"), timeout=COLD_START)
    night_url = page.url
    page.wait_for_selector("html[data-night='phone']", timeout=COLD_START)
    line = page.locator("#hand-step fieldset#sb-naturals")
    assert "0.10" in line.locator("legend").inner_text()
    assert page.locator("#hand-step fieldset#sb-high_card").count() == 0  # not played
    assert line.locator("input[name='sb-naturals-in']:checked").count() == 3  # all in
    fill_phone_hand(page, {"kind": "tonk_out", "player": "Ann"})
    line.locator("label:text-is('Cy')").last.click()  # Cy spread three of a kind first
    snap(page, "5-a-side-bet-on-the-phone")
    page.get_by_role("button", name="Save hand").click()
    page.wait_for_selector("#night-hands [data-hand='1']")
    played = kept_night(page)["events"][1]["hand"]["side_bets"]
    assert played == [{"bet": "naturals", "players": ["Ann", "Bob", "Cy"], "winner": "Cy"}]
    # Its correct form holds the side bet as played; left as it is, the record form is back.
    page.locator("#night-hands [data-hand='1'] button[data-correct]").click()
    page.wait_for_selector("#hand-form[data-correcting='1']")
    assert page.locator("#hand-step input[name='sb-naturals-winner'][value='Cy']").is_checked()
    page.get_by_role("button", name="Keep the hand as it is").click()
    page.wait_for_selector("#hand-form:not([data-correcting])")
    assert page.locator("#hand-step input[name='sb-naturals-winner'][value='']").is_checked()

    page.locator("#night-rules-part > summary").click()
    assert page.input_value("#stake") == "0.25" and page.input_value("#preset") == "pagat"
    page.fill("#stake", "1")
    page.get_by_text("Change single rules").click()  # (folded away)
    page.fill("#opt-hand_size", "six")
    page.fill("#opt-tonk_out_pays", "many")
    page.get_by_role("button", name="Play by these rules").click()
    page.wait_for_selector("#err-opt-hand_size")  # refused beside its field, nothing kept
    summary = page.locator("#night-rules #error-summary")  # each, counted, as the server's
    assert summary.locator("h2").inner_text() == "2 things to fix"
    assert summary.locator("a[data-field]").evaluate_all(
        "links => links.map((a) => a.dataset.field)") == ["opt-hand_size", "opt-tonk_out_pays"]
    assert summary.locator("a").all_inner_texts() == [  # which rule, as the server says it
        "Cards dealt: enter a whole number.", "Tonk out pays: enter a whole number."]
    assert page.locator("#err-opt-tonk_out_pays").is_visible()
    page.locator("#error-summary").scroll_into_view_if_needed()
    snap(page, "rules-two-things-to-fix")
    page.fill("#opt-tonk_out_pays", "")
    page.fill("#opt-hand_size", "")
    page.select_option("#preset", "texas")
    page.get_by_role("button", name="Play by these rules").click()
    page.wait_for_selector("#night-status[data-waiting='3']")
    fill_phone_hand(page, {"kind": "tonk_out", "player": "Bob"})
    page.get_by_role("button", name="Save hand").click()
    page.wait_for_selector("#night-hands [data-hand='2']")
    events = kept_night(page)["events"]
    assert events[2]["kind"] == "rules" and events[2]["stake"] == "1"
    assert events[2]["rules"] == {"preset": "texas"}
    # As the session page shows a night with side bets: each total by part (the parts
    # summing to it), the side bet's lines under each hand, and the pot nobody won yet.
    assert page.locator("#night-totals").is_hidden()
    rows = page.locator("#night-parts tr[data-player]")
    assert rows.count() == 3
    for row in rows.all():
        parts = [Decimal(c.get_attribute("data-amount")) for c in row.locator("[data-part]").all()]
        assert len(parts) == 3 and sum(parts) == Decimal(row.get_attribute("data-total"))
    first = page.locator("#night-hands [data-hand='1'] .side-bet-lines[data-bet='naturals']")
    assert "Naturals" in first.inner_text() and "Cy" in first.locator(".explain").inner_text()
    assert page.locator("#night-hands [data-hand='2'] .side-bet-lines").count() == 1
    pot = page.locator("#night-pots li[data-bet='naturals']")
    assert pot.is_visible() and "0.30" in pot.inner_text()  # (three in at 0.10, nobody won)
    snap(page, "side-bets-by-part-on-the-phone")
    assert page.locator("#close-paid").is_hidden()  # not all paid: closing keeps debts
    page.locator("#close-debts summary").click()
    page.get_by_role("button", name="Yes, close and keep the debts").click()
    page.wait_for_selector("#phone-night[data-closed='carried']")
    assert page.locator("#record-part").is_hidden() and page.locator("#night-closed").is_visible()
    events = kept_night(page)["events"]
    assert events[-1] == {**events[-1], "kind": "closed", "carry_over": True}
    folded = fold(events)
    assert folded.closed and folded.carried
    phone = shown_totals(page, "#night-parts")
    assert phone == {n: m.total for n, m in folded.money().items()} and any(phone.values())
    assert page.locator("#night-pots").is_hidden()  # (closed: what was in it went back)
    snap(page, "6-closed-on-the-phone")

    page.context.set_offline(False)
    page.wait_for_url(re.compile(r".*/sessions/\d+$"), timeout=30_000)
    sid = int(page.url.rsplit("/", 1)[1])
    assert shown_totals(page) == phone
    about = api(base, token, f"/sessions/{sid}")
    assert about["hands"] == 2 and about["closed"] is True, about
    ledger = api(base, token, f"/sessions/{sid}/ledger")
    assert any(Decimal(v) for v in ledger["pot_returns"].values())  # (the pot left)
    assert {n: Decimal(v) for n, v in ledger["totals"].items()} == phone, ledger
    with live_app.app_context():
        stored = [h.data for h in db.session.scalars(
            select(Hand).where(Hand.session_id == sid).order_by(Hand.number))]
        db.session.remove()
    assert stored[0]["side_bets"][0]["winner"] == "Cy"
    assert [(Decimal(h["stake"]), h["rules"]) for h in stored] == [
        (Decimal("0.25"), {"preset": "pagat"}), (Decimal(1), {"preset": "texas"})]
    with page.expect_navigation(url=f"{base}/sessions/{sid}"):
        page.goto(night_url)
