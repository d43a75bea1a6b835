"""Settle-up that holds, in a real browser at a phone's 390x844: a league night
of four hands (Bob→Ann 0.25, Cy→Ann 0.25, Cy→Dee 1.00), a partial payment that changes no
other transfer, an undo with a reason, a close that carries the open debts over, the debt
on the player's page, and marked paid there.
"""
from __future__ import annotations

from typing import Any

from tests.browser.helpers import fill_hand, league_night, sign_up, submit, transfers

NIGHT: list[dict[str, Any]] = [
    {"kind": "tonk_out", "player": "Ann"},
    {"kind": "drop", "player": "Ann", "counts": {"Ann": 5, "Bob": 3, "Cy": 20, "Dee": 20}},
    {"kind": "drop", "player": "Bob", "counts": {"Ann": 20, "Bob": 5, "Cy": 20, "Dee": 3}},
    {"kind": "run_out", "player": "Dee"},
]


def test_partial_payment_undo_and_carry_over_on_a_phone(live_server, page, shot):
    league_url, session_url = league_night(page, live_server, "keeper-settle@example.com")
    for spec in NIGHT:
        page.get_by_role("link", name="+ Record hand").click()
        fill_hand(page, spec)
        page.get_by_role("button", name="Save hand").click()
        assert page.url.startswith(session_url), page.url

    page.goto(session_url + "/settle")
    assert transfers(page) == ["Bob → Ann $0.25", "Cy → Ann $0.25", "Cy → Dee $1.00"]
    shot("01-the-plan")

    cy_dee = page.locator("ul.transfers > li").filter(has_text="Cy → Dee")
    cy_dee.locator("form.part input[name=amount]").fill("0.50")
    submit(page, cy_dee.get_by_role("button", name="Paid in part"))
    assert transfers(page)[:2] == ["Bob → Ann $0.25", "Cy → Ann $0.25"]  # unchanged
    assert transfers(page)[2].startswith("Cy → Dee $0.50 (of $1.00; $0.50 paid)")
    shot("02-partial-payment")

    bob_ann = page.locator("ul.transfers > li").filter(has_text="Bob → Ann")
    bob_ann.locator("form.part input[name=amount]").fill("0.30")
    submit(page, bob_ann.get_by_role("button", name="Paid in part"))
    assert "at most $0.25" in page.locator("ul.transfers").inner_text()
    assert page.url == session_url + "/settle"  # not /payments: a reload sends nothing again
    # said at the top too, and the field far below it has the focus (a phone's screen)
    assert "at most $0.25" in page.locator("#error-summary").inner_text()
    assert page.evaluate("document.activeElement.id") == "part-1"
    shot("03-overpaid-says-its-own-limit")

    undo = page.locator("ul.paid > li").first
    undo.locator("summary").click()  # each undo box starts folded
    undo.locator("input[name=reason]").fill("Cy paid Ann, not Dee")
    submit(page, undo.get_by_role("button", name="Undo"))
    assert "Undone by Keeper" in page.locator("ul.paid").inner_text()
    assert transfers(page)[2] == "Cy → Dee $1.00"
    shot("04-undone-with-a-reason")

    submit(page, page.locator("ul.transfers > li").filter(has_text="Bob → Ann").get_by_role(
        "button", name="Paid in full"))
    page.locator("details.confirm summary", has_text="Close, keep the debts").click()
    submit(page, page.get_by_role("button", name="Yes, close and keep the debts"))
    assert "closed" in page.locator("p.meta").inner_text()
    page.goto(session_url + "/settle")
    assert page.locator("ul.debts > li").count() == 2
    shot("05-closed-debts-carried-over")

    page.goto(league_url)
    assert page.locator("#debts ul.debts > li").count() == 2
    submit(page, page.locator("#standings").get_by_role("link", name="Cy", exact=True).first)
    debts = page.locator("#debts ul.debts > li")
    assert debts.count() == 2
    shot("06-debt-on-the-players-page")
    submit(page, debts.filter(has_text="Cy → Dee").get_by_role("button", name="Mark paid"))
    assert "the debt is settled" in page.content()
    assert page.locator("#debts ul.debts > li").count() == 1
    shot("07-marked-paid")

    page.goto(live_server + "/")
    assert page.locator("ul.debts > li").count() == 1
    shot("08-home-debts")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width


def test_the_stake_field_hides_under_push_ups(live_server, page, shot):
    sign_up(page, live_server, "keeper-push@example.com")
    page.goto(live_server + "/sessions/new")
    assert page.locator("#stake").is_visible()
    page.select_option("#preset", "push_ups")
    assert not page.locator("#stake").is_visible()
    shot("09-new-push-ups-session-no-stake")
    page.select_option("#preset", "pagat")
    assert page.locator("#stake").is_visible()
    page.fill("#stake", "")  # cleared, then push-ups chosen: the hidden field is not read
    page.select_option("#preset", "push_ups")
    page.fill("#name", "Push night")
    page.fill("#player-0", "Ann")
    page.fill("#player-1", "Bob")
    submit(page, page.get_by_role("button", name="Start the session"))
    meta = page.locator("p.meta").inner_text()
    assert "stake" not in meta and "0 hands" in meta
    page.goto(live_server + "/sessions/new")
    page.fill("#stake", "lots")  # refused by the server: its words under the stake, not
    submit(page, page.get_by_role("button", name="Start the session"))  # beside currency
    assert page.locator("[data-stake] #err-stake").count() == 1
    stake, said = (page.locator(s).bounding_box() for s in ("#stake", "#err-stake"))
    assert stake and said and said["y"] > stake["y"] and abs(said["x"] - stake["x"]) < 30
