"""A night that starts with no signal (issue 41), in Chromium at 390x844 on ``tonk serve``:
the phone opened the app online once, signed in; then, with no signal, "+ New session" opens
the new-session form the phone kept, Start makes a night on the phone (its own page,
<html data-night="phone">, the status saying it is on this phone only with
[data-waiting]), four hands of different ends are recorded, one voided, a latecomer seated,
a player gone home and a payment marked at settle-up (undone and marked again), counted by
the core in Pyodide exactly as the core's fold counts the same events here; the night
survives a reload with no signal and the home page lists it. Back online two tabs send the
night at once, one answer lost on the way: nothing is stored twice, and both lead to the
server's session, whose ledger is the phone's to the cent."""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select

from app.core.night import fold
from app.db.models import Hand, NightEvent
from app.extensions import db
from tests.browser.helpers import (
    COLD_START,
    api,
    fill_phone_hand,
    kept_night,
    made_token,
    opened_once,
    shown_totals,
    sign_up,
)

#: The phone starts its core as a new phone does (conftest's ``page``).
CORE = True

#: The hands recorded on the phone, in order (the record form's fields as a scorekeeper
#: fills them in); Dee joins after the second.
HANDS: list[dict[str, Any]] = [
    {"kind": "tonk_out", "player": "Ann"},
    {"kind": "drop", "player": "Cy", "counts": {"Ann": 20, "Bob": 15, "Cy": 3}},
    {"kind": "run_out", "player": "Bob"},
    {"kind": "stock_out", "counts": {"Ann": 7, "Bob": 12, "Cy": 30, "Dee": 3}},
]


def test_a_night_started_with_no_signal_is_kept_counted_and_sent_once(
        live_server, live_app, page, shot):
    base = live_server
    sign_up(page, base, "phone-night@example.com")
    token = made_token(page, base)

    opened_once(page, base)

    # No signal: a new session from the kept form becomes a night on the phone.
    page.context.set_offline(True)
    page.goto(base + "/")
    page.get_by_role("link", name="+ New session").click()
    page.wait_for_url(base + "/sessions/new")
    page.fill("#name", "Basement")
    for i, name in enumerate(["Ann", "Bob", "Cy"]):
        page.fill(f"#player-{i}", name)
    page.select_option("#first_dealer", "1")  # Bob deals first
    page.fill("#stake", "lots")  # read on the phone as the server reads it: refused
    page.fill("#currency", "USD")
    page.get_by_role("button", name="Start the session").click()
    page.wait_for_selector("#err-stake", timeout=COLD_START)
    assert page.url == base + "/sessions/new"
    page.fill("#stake", "0.25")
    page.get_by_role("button", name="Start the session").click()
    page.wait_for_url(re.compile(r".*/phone/nights/[0-9a-f]{32}$"), timeout=COLD_START)
    night_url = page.url
    uid = night_url.rsplit("/", 1)[1]
    page.wait_for_selector("html[data-night='phone']", timeout=COLD_START)
    assert page.get_attribute("#night-status", "data-waiting") == "1"
    assert "on this phone only until it is sent: 1 change waits" in page.inner_text(
        "#night-status")
    # The share view's QR, offline, before the server has the night: its own token's link.
    page.wait_for_selector("#night-share[data-share-token] #night-share-qr svg[role='img']",
                           state="attached")
    share_token = page.get_attribute("#night-share", "data-share-token")
    assert share_token and re.fullmatch(r"[0-9A-Za-z_-]{22}", share_token)
    assert page.input_value("#share-url") == f"{base}/s/{share_token}"
    page.locator("#night-share summary").click()
    assert page.locator("#night-share-qr svg").bounding_box()["width"] >= 100

    for i, spec in enumerate(HANDS):
        if i == 2:
            page.fill("#join-name", "Dee")
            page.get_by_role("button", name="Seat them").click()
            page.wait_for_selector("#night-totals [data-player='Dee']")
        fill_phone_hand(page, spec)
        save = page.get_by_role("button", name="Save hand")
        save.dblclick() if i == 0 else save.click()  # a double tap: one hand
        page.wait_for_selector(f"#night-hands [data-hand='{i + 1}']")
    # Hand 2 was a misdeal after all: void, with the reason the server asks for.
    voiding = page.locator("#night-hands [data-hand='2']")
    voiding.locator("summary").click()
    voiding.get_by_role("button", name="Void the hand").click()
    voiding.locator("p.err").wait_for()  # no reason: asked for, nothing kept
    voiding.get_by_label("Why void it? (required)").fill("misdeal")
    voiding.get_by_role("button", name="Void the hand").click()
    page.wait_for_selector("#night-hands [data-hand='2'][data-voided]")
    # Bob goes home: his total stays in the night (and in who pays whom), off the table.
    page.select_option("#leave-name", "Bob")
    page.locator("#night-leave summary", has_text="Leave the table").click()
    page.get_by_role("button", name="Yes, they leave").click()
    page.wait_for_selector("#night-status[data-waiting='8']")
    assert page.locator("#leave-name option[value='Bob']").count() == 0
    events = kept_night(page)["events"]
    assert [e["kind"] for e in events] == [
        "started", "hand", "hand", "joined", "hand", "hand", "voided", "left"]
    assert [e["seq"] for e in events] == list(range(1, 9))
    assert len({e["id"] for e in events}) == 8
    assert [e["hand"]["end"]["kind"] for e in events if e["kind"] == "hand"] == [
        h["kind"] for h in HANDS]
    # each hand dealt by the turn of the deal (Bob first), as the server deals
    assert [e["hand"]["dealer"] for e in events if e["kind"] == "hand"][:2] == ["Bob", "Cy"]
    phone = shown_totals(page, "#night-totals")  # (those at the table)
    folded = {n: m.total for n, m in fold(events).money().items()}
    assert phone == {n: v for n, v in folded.items() if n != "Bob"} and any(phone.values())
    assert sum(folded.values()) == 0
    owed = dict(folded)
    for li in page.locator("#night-transfers li[data-from]").all():
        amount = Decimal(li.get_attribute("data-amount") or "x")
        owed[li.get_attribute("data-from") or ""] += amount
        owed[li.get_attribute("data-to") or ""] -= amount
    assert set(owed.values()) == {0}, owed  # the transfers settle the phone's totals
    # A payment marked on the phone: what is left open is the rest.
    first = page.locator("#night-transfers li[data-from]").first
    payer, payee = first.get_attribute("data-from"), first.get_attribute("data-to")
    paid = Decimal(first.get_attribute("data-amount") or "x")
    first.get_by_role("button", name="Paid in full").dblclick()  # a double tap: one payment
    page.wait_for_selector("#night-status[data-waiting='9']")
    page.wait_for_timeout(300)
    assert [e["kind"] for e in kept_night(page)["events"]].count("paid") == 1
    # ...undone (it was the wrong pair), then marked again
    undo = page.locator("#night-payments li[data-paid]")
    undo.locator("summary").click()
    undo.get_by_label("Why undo this payment").fill("tapped too soon")
    undo.get_by_role("button", name="Undo", exact=True).click()
    page.wait_for_selector("#night-status[data-waiting='10']")
    assert page.locator("#night-payments li[data-paid]").count() == 0
    page.locator(f"#night-transfers li[data-from='{payer}'][data-to='{payee}']").get_by_role(
        "button", name="Paid in full").click()
    page.wait_for_selector("#night-status[data-waiting='11']")
    assert page.locator("#night-payments li[data-paid]").count() == 1
    left = {(li.get_attribute("data-from"), li.get_attribute("data-to")): Decimal(
        li.get_attribute("data-amount") or "x")
        for li in page.locator("#night-transfers li[data-from]").all()}
    assert (payer, payee) not in left
    events = kept_night(page)["events"]
    assert [e["kind"] for e in events[-3:]] == ["paid", "undone", "paid"]
    assert events[-2]["payment"] == events[-3]["id"] and Decimal(events[-1]["amount"]) == paid
    balances = fold(events).open()
    assert sum(a for a in balances.values() if a > 0) == sum(left.values())
    shot("01-the-night-on-the-phone")

    # Still no signal: the night survives a reload, and the home page lists it.
    page.reload()
    page.wait_for_selector("#night-status[data-waiting='11']", timeout=COLD_START)
    page.wait_for_selector("#night-totals [data-player='Dee']")
    assert shown_totals(page, "#night-totals") == phone
    page.goto(base + "/")
    listed = page.locator(f"#phone-nights [data-phone-night='{uid}']")
    listed.wait_for()
    assert listed.get_attribute("data-waiting") == "11"
    page.goto(night_url)
    page.wait_for_selector("#night-status[data-waiting='11']", timeout=COLD_START)

    # The signal back, with the night open in two tabs: both send it at once; the first
    # tab's send reaches the server but its answer is lost. Each event is stored once, and
    # both tabs lead to the server's session.
    other = page.context.new_page()
    other.goto(night_url)
    other.wait_for_selector("#night-status[data-waiting='11']", timeout=COLD_START)
    sends: list[int] = []

    def lose_the_answer(route) -> None:
        sends.append(1)
        if len(sends) == 1:
            route.fetch()  # the server takes the night...
            route.abort("internetdisconnected")  # ...and this tab never hears back
        else:
            route.continue_()

    page.route(re.compile(r".*/phone/nights/[0-9a-f]+/events$"), lose_the_answer)
    page.context.set_offline(False)
    other.wait_for_url(re.compile(r".*/sessions/\d+$"), timeout=30_000)
    # the tab that sent it says so on the session's page (it went there at once)
    assert other.locator("p.flash").inner_text() == "Sent: the server holds the night."
    for _ in range(300):
        if sends:
            break
        page.wait_for_timeout(100)
    assert sends and page.url == night_url
    page.wait_for_function("() => !/Sending/.test("
                           "document.getElementById('night-status').textContent)")
    with page.expect_navigation(url=re.compile(r".*/sessions/\d+$"), timeout=30_000):
        page.reload()  # (the other tab heard back: what the phone keeps says so)
    assert other.url == page.url
    other.close()
    sid = int(page.url.rsplit("/", 1)[1])
    assert page.locator("html[data-night]").count() == 0
    assert shown_totals(page) == phone  # the server's session page: the phone's totals
    ledger = api(base, token, f"/sessions/{sid}/ledger")
    assert {n: Decimal(v) for n, v in ledger["totals"].items()} == folded, ledger
    assert [(p["from"], p["to"], Decimal(p["amount"])) for p in ledger["paid"]] == [
        (payer, payee, paid)]
    assert [p["undone"] for p in ledger["payments"]] == [True, False]
    assert {(t["from"], t["to"]): Decimal(t["amount"]) for t in ledger["transfers"]} == left
    assert api(base, token, f"/sessions/{sid}")["hands"] == len(HANDS) - 1  # one void
    assert api(base, token, f"/sessions/{sid}")["share_url"] == f"/s/{share_token}"
    assert page.request.get(f"{base}/s/{share_token}").status == 200  # the QR leads there
    with live_app.app_context():
        assert db.session.scalar(select(func.count()).select_from(NightEvent).where(
            NightEvent.session_id == sid)) == 11
        assert db.session.scalar(select(func.count()).select_from(Hand).where(
            Hand.session_id == sid)) == 4
        db.session.remove()
    # The night's page, asked again (another tab, a bookmark), leads to the session too.
    page.unroute(re.compile(r".*/phone/nights/[0-9a-f]+/events$"))
    with page.expect_navigation(url=f"{base}/sessions/{sid}"):
        page.goto(night_url)
