"""When the phone's core starts, in Chromium at 390x844 on ``tonk serve``: a night walked
through the pages as a scorekeeper walks it. The phone's first online visit (signed in)
starts the core once to prove it (``data-counting="phone"`` from then on, on every page);
online with nothing waiting no page starts it again (``data-core-starts="0"``); with no
signal hands are recorded, counted on the phone (the waiting hands' payments and the
totals), settle-up and /check answer from the phone, and the whole walk starts Python at
most once in the tab (a shared worker kept across the pages). Back online the hands arrive
once each and the server's totals are the phone's. The next start restores Pyodide's
memory as the first one kept it, and counts as the server does."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from tests.browser.helpers import PLAYERS, api, fill_hand, made_token, shown_once_sent, sign_up

#: The phone starts its core as a new phone does (conftest's ``page``).
CORE = True
#: How long a page may take to start the core (Pyodide) on a busy machine, in ms.
COLD_START = 120_000
ONLINE: list[dict[str, Any]] = [
    {"kind": "drop", "player": "Cy", "counts": {"Ann": 20, "Bob": 15, "Cy": 3, "Dee": 9}},
    {"kind": "tonk_out", "player": "Bob"},
    {"kind": "run_out", "player": "Dee"},
]
OFFLINE: list[dict[str, Any]] = [
    {"kind": "stock_out", "counts": {"Ann": 7, "Bob": 12, "Cy": 30, "Dee": 3}},
    {"kind": "tonk_out", "player": "Ann"},
    {"kind": "drop", "player": "Dee", "counts": {"Ann": 20, "Bob": 15, "Cy": 30, "Dee": 9}},
]


def starts(page) -> int:
    """The core's starts on this page so far, once it has loaded and the phone is idle (a
    start asked for then has begun)."""
    page.wait_for_load_state("load")
    page.evaluate("() => new Promise((r) => requestIdleCallback(() => setTimeout(r, 300)))")
    return int(page.get_attribute("html", "data-core-starts"))


def shown_totals(page) -> dict[str, Decimal]:
    return {el.get_attribute("data-player"): Decimal(el.get_attribute("data-total"))
            for el in page.locator("#live [data-player][data-total]").all()}


def test_a_night_walked_starts_the_core_once_and_counts_with_no_signal(live_server, page):
    base = live_server
    sign_up(page, base, "walker@example.com")
    # The first online visit, signed in: the core fetched and started once, to prove it.
    page.wait_for_selector("html[data-counting='phone']", timeout=COLD_START)
    assert page.get_attribute("html", "data-core-starts") == "1"
    assert page.evaluate("() => window.TonkCount.shared")  # (Chromium has shared workers)

    token = made_token(page, base)
    sid = api(base, token, "/sessions", "POST", {
        "name": "Walked", "players": PLAYERS, "rules": "pagat", "stake": "0.25",
        "currency": "USD", "first_dealer": "Dee"})["id"]
    session = f"{base}/sessions/{sid}"

    # Online, nothing waiting: no page starts the core, and each says the phone can count.
    walked = 0
    for spec in ONLINE:
        page.goto(session + "/hands/new")
        assert page.get_attribute("html", "data-counting") == "phone"
        walked += starts(page)
        fill_hand(page, spec)
        with page.expect_navigation(url=session):
            page.get_by_role("button", name="Save hand").click()
        walked += starts(page)
        page.goto(session + "/settle")
        walked += starts(page)
        page.goto(session)
    page.goto(base + "/check")
    walked += starts(page)
    assert walked == 0
    assert page.get_attribute("html", "data-counting") == "phone"
    online = shown_after(page, session)

    # No signal: hands saved and counted on the phone, settle-up and /check from the phone.
    page.context.set_offline(True)
    walked = 0
    for i, spec in enumerate(OFFLINE, start=1):
        page.goto(session + "/hands/new")
        walked += starts(page)
        fill_hand(page, spec)
        page.get_by_role("button", name="Save hand").click()
        page.wait_for_url(session)
        page.wait_for_function(f"() => document.querySelectorAll('#outbox li .phone-result')"
                               f".length === {i}", timeout=COLD_START)
        walked += starts(page)
    phone = shown_totals(page)
    assert sum(phone.values()) == 0 and phone != online
    assert page.locator("#live [data-provisional]").count() == 1
    assert page.locator("#outbox li .phone-result .payments li").count() >= len(OFFLINE)

    page.goto(session + "/settle")
    page.wait_for_selector("#phone-note", timeout=COLD_START)
    walked += starts(page)
    owed = dict(phone)
    for li in page.locator("ul.transfers li[data-from]").all():
        amount = Decimal(li.get_attribute("data-amount"))
        owed[li.get_attribute("data-from")] += amount
        owed[li.get_attribute("data-to")] -= amount
    assert set(owed.values()) == {0}, owed  # the transfers settle the phone's totals

    page.goto(base + "/check")
    page.fill("#players", "Ann, Bob, Cy")
    page.get_by_role("button", name="Next: the hand").click()
    page.wait_for_selector("#count-2", state="attached", timeout=COLD_START)
    page.locator("label[for='kind-tonk_out']").click()
    page.locator("label[for='player-1']").click()
    page.get_by_role("button", name="Check the ruling").click()
    page.wait_for_selector("#ruling [data-player][data-net]", timeout=COLD_START)
    walked += starts(page)
    # Python started at most once in the tab over the walk: the worker says how often.
    assert walked <= 1
    assert page.evaluate("() => window.TonkCount.workerStarts") == 1

    # The signal back: each hand arrives once, and the server counts what the phone did.
    page.goto(session)
    page.context.set_offline(False)
    for _ in range(120):
        ledger = api(base, token, f"/sessions/{sid}/ledger")
        if ledger["hands"] >= len(ONLINE) + len(OFFLINE):
            break
        page.wait_for_timeout(250)
    assert ledger["hands"] == len(ONLINE) + len(OFFLINE)
    assert {k: Decimal(v) for k, v in ledger["balances"].items()} == phone
    shown_once_sent(page, len(ONLINE) + len(OFFLINE))  # the page offline.js reloads

    # The next start (the tab's core ended) restores the memory the first start kept, and
    # the phone counts with it: a hand waiting, counted as the server then counts it.
    page.goto("about:blank")
    cdp = page.context.browser.new_browser_cdp_session()
    for target in cdp.send("Target.getTargets")["targetInfos"]:
        if target["type"] == "shared_worker":
            cdp.send("Target.closeTarget", {"targetId": target["targetId"]})
    page.context.set_offline(True)
    page.goto(session + "/hands/new")
    fill_hand(page, ONLINE[0])
    page.get_by_role("button", name="Save hand").click()
    page.wait_for_url(session)
    page.wait_for_selector("#outbox li .phone-result", timeout=COLD_START)
    assert page.evaluate("() => window.TonkCount.steps.snapshot") == "restored"
    counted = shown_totals(page)
    page.context.set_offline(False)
    for _ in range(120):
        ledger = api(base, token, f"/sessions/{sid}/ledger")
        if ledger["hands"] > len(ONLINE) + len(OFFLINE):
            break
        page.wait_for_timeout(250)
    assert {k: Decimal(v) for k, v in ledger["balances"].items()} == counted != phone


def shown_after(page, session: str) -> dict[str, Decimal]:
    page.goto(session)
    return shown_totals(page)
