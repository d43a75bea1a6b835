"""Count with no signal, in Chromium at 390x844 on ``tonk serve``: a session of four with a
high-card side bet opened online (the first visit proves the core; Save shows the phone's
answer at once when the core runs, and the server's page agrees), then the signal cut and
four hands of different kinds recorded: the session page's totals count them on the phone,
settle-up lists transfers that settle those totals, and back online the hands arrive once
each and the server's totals are the phone's."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from tests.browser.helpers import (
    COLD_START,
    PLAYERS,
    api,
    cached_core,
    fill_hand,
    made_token,
    settled,
    shown_totals,
    sign_up,
)

#: (the hand as the form is filled, who won the high-card pot: None for nobody)
OFFLINE: list[tuple[dict[str, Any], str | None]] = [
    ({"kind": "drop", "player": "Cy", "counts": {"Ann": 20, "Bob": 15, "Cy": 3, "Dee": 9}},
     None),
    ({"kind": "tonk_out", "player": "Bob", "big_one": True}, "Dee"),
    ({"kind": "stock_out", "counts": {"Ann": 7, "Bob": 12, "Cy": 30, "Dee": 3}}, None),
    ({"kind": "dead"}, None),
]

#: The phone starts its core as a new phone does (conftest's ``page``).
CORE = True
def record(page, session: str, spec: dict[str, Any], winner: str | None) -> None:
    page.goto(session + "/hands/new")
    fill_hand(page, spec)
    if winner:
        page.locator(f"label[for='sb-high_card-won-{PLAYERS.index(winner)}']").click()
    page.get_by_role("button", name="Save hand").click()



def basement(base: str, token: str) -> int:
    """A pagat session at stake 0.25 with the high-card side bet (its pot carried), Dee
    dealing first, and its first hand (Ann tonked out, nobody won the pot): its id."""
    sid = api(base, token, "/sessions", "POST", {
        "name": "Basement", "players": PLAYERS, "rules": "pagat", "stake": "0.25",
        "currency": "USD", "first_dealer": "Dee",
        "side_bets": {"high_card": {"unclaimed": "carry", "suit": "S"}}})["id"]
    api(base, token, f"/sessions/{sid}/hands", "POST", {
        "end": {"kind": "tonk_out", "player": "Ann"},
        "side_bets": [{"bet": "high_card", "winner": None}]})
    return int(sid)

def test_a_session_counted_on_the_phone_with_no_signal(live_server, page, shot):
    base = live_server
    sign_up(page, base, "basement@example.com")
    token = made_token(page, base)
    sid = basement(base, token)
    session = f"{base}/sessions/{sid}"

    # Online: the page keeps what the phone needs; Save shows the phone's answer at once.
    page.goto(session)
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    page.goto(session)  # (now in the worker's charge: the core is fetched through it)
    assert cached_core(page) > 10
    page.goto(session + "/hands/new")
    page.wait_for_selector("html[data-counting='phone']", timeout=COLD_START)  # (sign-up's)
    # Online nothing starts the core; once it runs (here: asked to), Save asks it.
    assert page.get_attribute("html", "data-core-starts") == "0"
    settled(page, "() => window.TonkCount.start()", seconds=COLD_START / 1000)
    # The Save held on the phone until the phone has answered (a slow signal; the POST goes
    # through the service worker, where the test's routes do not reach), then let go.
    page.evaluate("""() => {
        const form = document.getElementById("hand-form");
        form.addEventListener("submit", (e) => {
            if (!form.dataset.held) { form.dataset.held = "1"; e.preventDefault(); }
        });
    }""")
    fill_hand(page, {"kind": "run_out", "player": "Cy"})
    page.get_by_role("button", name="Save hand").click()
    page.wait_for_selector("#phone-answer:not([hidden])")
    said = shown_totals(page, "#phone-answer")
    shot("01-save-shows-the-phones-answer")
    with page.expect_navigation(url=session):
        page.evaluate("() => document.getElementById('hand-form').requestSubmit()")
    assert shown_totals(page) == said  # the server's page: the same totals
    assert page.locator("html[data-phone-differs]").count() == 0
    page.goto(session + "/hands/new")
    page.goto(base + "/")
    page.goto(session)

    # No signal: four hands of different kinds, counted on the phone.
    page.context.set_offline(True)
    for spec, winner in OFFLINE:
        record(page, session, spec, winner)
        page.wait_for_url(session)
        page.wait_for_selector("#phone-note", timeout=COLD_START)
    page.wait_for_function(f"() => document.querySelectorAll('#outbox li .phone-result')"
                           f".length === {len(OFFLINE)}")
    phone = shown_totals(page)
    assert sum(phone.values()) == 0 and phone != said
    assert page.locator("#live [data-player].unconfirmed").count() == len(PLAYERS)
    # Each row's parts add up to its total, and "as of hand N" names the last hand counted,
    # the waiting ones marked (issue 40, defect 2).
    for row in page.locator("#live tr[data-player]").all():
        parts = [Decimal(c.get_attribute("data-amount") or "x")
                 for c in row.locator("[data-part]").all()]
        assert len(parts) == 3 and sum(parts) == Decimal(row.get_attribute("data-total") or "x")
    as_of = page.locator("#live .as-of")
    assert as_of.get_attribute("data-waiting-from") == "3"
    assert f"hand {2 + len(OFFLINE)} " in as_of.inner_text()
    shot("02-offline-totals-counted-on-the-phone")

    page.goto(session + "/settle")
    page.wait_for_selector("#phone-note", timeout=COLD_START)
    owed = dict(phone)
    for li in page.locator("ul.transfers li[data-from]").all():
        amount = Decimal(li.get_attribute("data-amount"))
        owed[li.get_attribute("data-from")] += amount
        owed[li.get_attribute("data-to")] -= amount
    assert set(owed.values()) == {0}, owed  # the transfers settle the phone's totals
    shot("03-offline-settle-up")

    # The signal back: each hand arrives once, and the server counts what the phone did.
    page.goto(session)
    page.context.set_offline(False)  # (the page's "online" event sends the outbox)
    for _ in range(120):  # (the page hides its outbox while it reloads: ask the server)
        ledger = api(base, token, f"/sessions/{sid}/ledger")
        if ledger["hands"] >= 2 + len(OFFLINE):
            break
        page.wait_for_timeout(250)
    assert ledger["hands"] == 2 + len(OFFLINE)
    page.wait_for_function("() => !document.querySelector('#outbox li')"
                           " && !document.querySelector('[data-provisional]')"
                           " && document.readyState === 'complete'", timeout=30_000)
    assert {k: Decimal(v) for k, v in ledger["balances"].items()} == phone
    assert shown_totals(page) == phone


def test_hands_sent_in_the_background_stay_counted_until_the_page_has_them(
        live_server, page, shot):
    """Issue 40, defect 3: four hands waiting offline, two of them sent in the background
    (as the service worker's Background Sync sends, with no page of the session open) before
    the signal went again, the session page then opened from the phone (its copy as of
    hand 1): the phone counts the two sent with the two waiting, each once, and its totals
    and settle-up are the server's."""
    base = live_server
    sign_up(page, base, "race@example.com")
    token = made_token(page, base)
    sid = basement(base, token)
    session = f"{base}/sessions/{sid}"
    page.goto(session)
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    page.goto(session + "/hands/new")
    page.wait_for_selector("html[data-counting='phone']", timeout=COLD_START)
    assert cached_core(page) > 10
    page.goto(session + "/settle")
    page.goto(session)

    page.context.set_offline(True)
    for spec, winner in OFFLINE:
        record(page, session, spec, winner)
        page.wait_for_url(session)
    # The signal back for a moment with no page of the site open (about:blank): the service
    # worker's Background Sync sends the outbox; two hands go, then the signal is gone again.
    page.goto("about:blank")
    sends: list[int] = []

    def signal_goes(route):
        if len(sends) < 2:
            answer = route.fetch()
            sends.append(answer.status)
            route.fulfill(response=answer)
            return
        sends.append(0)
        page.context.set_offline(True)
        try:
            route.abort()
        except Exception:  # going offline had failed the request already ("already handled")
            pass
    page.context.route("**/hands/sent", signal_goes)
    page.context.set_offline(False)
    for _ in range(120):
        if len(sends) > 2:
            break
        page.wait_for_timeout(250)
    assert sends == [201, 201, 0]
    assert api(base, token, f"/sessions/{sid}/ledger")["hands"] == 3
    page.context.unroute("**/hands/sent")

    # The session page from the phone (its copy as of hand 1) and settle-up: every hand once.
    page.goto(session)
    page.wait_for_selector("#phone-note", timeout=COLD_START)
    page.wait_for_function("() => document.querySelectorAll('#outbox li .phone-result')"
                           f".length === {len(OFFLINE) - 2}")
    phone = shown_totals(page)
    as_of = page.locator("#live .as-of")
    assert as_of.get_attribute("data-waiting-from") == "2"
    assert f"hand {1 + len(OFFLINE)} " in as_of.inner_text()
    shot("01-sent-in-the-background-counted-once")
    page.goto(session + "/settle")
    page.wait_for_selector("#phone-note", timeout=COLD_START)
    assert shown_totals(page, "#main") == phone
    owed = dict(phone)
    for li in page.locator("ul.transfers li[data-from]").all():
        amount = Decimal(li.get_attribute("data-amount"))
        owed[li.get_attribute("data-from")] += amount
        owed[li.get_attribute("data-to")] -= amount
    assert set(owed.values()) == {0}, owed

    # The signal back: the two still waiting go; the phone's totals were the server's.
    page.goto(session)
    page.context.set_offline(False)
    for _ in range(120):
        ledger = api(base, token, f"/sessions/{sid}/ledger")
        if ledger["hands"] >= 1 + len(OFFLINE):
            break
        page.wait_for_timeout(250)
    assert ledger["hands"] == 1 + len(OFFLINE)
    assert {k: Decimal(v) for k, v in ledger["balances"].items()} == phone
    page.wait_for_function("() => !document.querySelector('#outbox li')"
                           " && !document.querySelector('[data-provisional]')"
                           " && document.readyState === 'complete'", timeout=30_000)
    assert shown_totals(page) == phone
    # The sent hands the page now has are dropped from the phone: nothing counted twice.
    # (Once the page that has them is read: under load the send may end after this page
    # was read, and nothing else changes the session to make it read again.)
    page.reload()
    assert shown_totals(page) == phone
    assert settled(page, """async () => {
        for (;;) {
            if (!(await TonkOutbox.all()).length) return 0;
            await new Promise((r) => setTimeout(r, 250));
        }
    }""") == 0
