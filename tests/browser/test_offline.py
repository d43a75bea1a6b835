"""Keeping score with no signal, in Chromium at 390x844, each test checking what the server
stored through the JSON API: pages served from the phone, hands recorded offline and sent
once each when the signal is back (in order, with their dealers), a reply cut after the
server stored the hand, two phones on one session, and a hand whose session was closed
meanwhile ("needs you", with the reason)."""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from tests.browser.helpers import (
    api,
    kept_on_phone,
    night,
    phone_page,
    settled,
    shown_once_sent,
    sign_up,
)

PLAYERS = ["Ann", "Bob", "Cy"]
THREE: list[dict[str, Any]] = [  # a drop with counts, a tonk out, a dead hand
    {"kind": "drop", "player": "Cy", "counts": {"Ann": 20, "Bob": 15, "Cy": 3}},
    {"kind": "tonk_out", "player": "Bob"},
    {"kind": "dead"},
]


def fill_hand(page, spec: dict[str, Any]) -> None:
    page.locator(f"label[for='kind-{spec['kind']}']").click()
    if "player" in spec:
        page.locator(f"label[for='player-{PLAYERS.index(spec['player'])}']").click()
    for name, count in spec.get("counts", {}).items():
        box = page.locator(f"#count-{PLAYERS.index(name)}")
        if box.is_visible():
            box.fill(str(count))


def record_offline(page, session: str, spec: dict[str, Any], save: str = "Save hand",
                   twice: bool = False) -> None:
    """Record ``spec`` on the record form (``twice``: Save tapped twice at once, sent twice
    before the page goes: a double click's second click may land on the next page)."""
    page.goto(session + "/hands/new")
    fill_hand(page, spec)
    button = page.get_by_role("button", name=save)
    if twice:
        button.evaluate("b => { b.form.requestSubmit(b); b.form.requestSubmit(b); }")
    else:
        button.click()
    page.wait_for_url(session)
    page.wait_for_selector("#outbox:not([hidden])")


def stored(base: str, token: str, session_id: int) -> list[dict[str, Any]]:
    count = api(base, token, f"/sessions/{session_id}")
    n = count["hands"] + count["voided_hands"]
    return [api(base, token, f"/sessions/{session_id}/hands/{i}") for i in range(1, n + 1)]


def wait_stored(page, base: str, token: str, session_id: int, n: int, seconds: float = 10):
    """The server's hands once it has ``n`` of them, asked every 0.25 s for ``seconds``."""
    for _ in range(int(seconds * 4)):
        hands = stored(base, token, session_id)
        if len(hands) >= n:
            return hands
        page.wait_for_timeout(250)
    return stored(base, token, session_id)


def wait_reloaded(page, seconds: float = 10) -> None:
    """Wait until the page marked ``window.beforeSending`` has been loaded again."""
    for _ in range(int(seconds * 4)):
        try:
            if page.evaluate("() => !window.beforeSending && document.readyState === 'complete'"):
                return
        except Exception:  # playwright's Error: the context went with the reload
            pass
        page.wait_for_timeout(250)
    raise AssertionError(f"{page.url} was not loaded again in {seconds:g} s")


def totals_equal_hands(base: str, token: str, session_id: int, hands: list[dict[str, Any]]) -> None:
    ledger = api(base, token, f"/sessions/{session_id}/ledger")
    summed = dict.fromkeys(PLAYERS, Decimal(0))
    for hand in hands:
        for name, value in hand["result"]["net"].items():
            summed[name] += Decimal(value)
    assert {k: Decimal(v) for k, v in ledger["totals"].items()} == summed


def test_three_hands_recorded_offline_are_sent_once_in_order(live_server, page, shot):
    session, session_id, token = night(page, live_server, "cellar@example.com")
    kept_on_phone(page, session)
    page.context.set_offline(True)
    page.reload()
    assert page.locator("#offline-mark").is_visible()
    assert re.search(r"Offline: .* as of \d?\d:\d\d", page.locator("#offline-mark").inner_text())
    assert page.locator("h1").inner_text() == "Basement"
    shot("01-session-offline")
    page.goto(session + "/hands/new")  # the record form, from the phone
    assert page.locator("#offline-mark").is_visible()
    shot("02-record-form-offline")
    for i, spec in enumerate(THREE):  # the first Save double-tapped: kept once
        record_offline(page, session, spec, twice=i == 0)
    assert page.locator("#outbox .outbox-count").inner_text() == "3 hands not sent"
    waiting = page.locator("#outbox li.not-sent")
    assert waiting.count() == 3
    assert "not sent yet" in waiting.first.inner_text()
    assert "Dead hand" in waiting.first.inner_text() or "dead" in waiting.first.inner_text().lower()
    assert "Ann 20, Bob 15, Cy 3" in waiting.last.inner_text()
    assert page.get_by_role("button", name="Send now").is_visible()
    shot("03-three-not-sent")
    assert stored(live_server, token, session_id) == []  # nothing reached the server yet
    page.goto(live_server + "/")  # the home page, from the phone, points to them too
    assert page.locator("#outbox-elsewhere a").inner_text() == "3 hands not sent"
    page.locator("#outbox-elsewhere a").click()
    page.wait_for_url(session)
    page.wait_for_selector("#outbox li.not-sent")

    page.context.set_offline(False)
    hands = wait_stored(page, live_server, token, session_id, 3)
    assert [h["number"] for h in hands] == [1, 2, 3]
    assert [h["hand"]["end"]["kind"] for h in hands] == ["drop", "tonk_out", "dead"]
    assert [h["hand"]["dealer"] for h in hands] == ["Ann", "Bob", "Cy"]
    assert hands[0]["hand"]["counts"] == {"Ann": 20, "Bob": 15, "Cy": 3}
    totals_equal_hands(live_server, token, session_id, hands)
    shown_once_sent(page, 3)
    assert not page.locator("#offline-mark").is_visible()
    assert "As of hand 3." in page.locator(".as-of").inner_text()
    shot("04-sent-and-settled")
    page.reload()
    assert len(stored(live_server, token, session_id)) == 3  # a page shown again sends nothing


def test_a_reply_cut_after_the_hand_was_stored_is_sent_again_and_stored_once(
        live_server, page, shot):
    session, session_id, token = night(page, live_server, "cut@example.com")
    kept_on_phone(page, session)
    page.context.set_offline(True)
    record_offline(page, session, THREE[1])
    sends: list[int] = []
    cutting = [True]

    def cut(route):  # the server stores the hand; its answer never reaches the phone
        answer = route.fetch()
        sends.append(answer.status)
        if cutting[0]:
            route.abort()
        else:
            route.fulfill(response=answer)
    page.route("**/hands/sent", cut)
    page.context.set_offline(False)
    page.wait_for_function("() => navigator.onLine")
    page.get_by_role("button", name="Send now").click()
    for _ in range(40):
        if sends:
            break
        page.wait_for_timeout(250)
    assert sends[0] == 201
    assert len(stored(live_server, token, session_id)) == 1
    page.wait_for_selector("#send-now:not([disabled])")
    assert page.locator("#outbox li.not-sent").count() == 1  # the phone does not know yet
    shot("01-reply-lost-still-waiting")

    cutting[0] = False
    page.get_by_role("button", name="Send now").click()
    page.wait_for_selector("#outbox", state="hidden")
    assert len(sends) >= 2 and set(sends[1:]) == {200}  # the first answer again, replayed
    hands = stored(live_server, token, session_id)
    assert [(h["number"], h["hand"]["end"]["kind"]) for h in hands] == [(1, "tonk_out")]
    page.wait_for_function("() => document.querySelectorAll('ol.hands li.hand').length === 1")
    shot("02-sent-once")


def test_two_phones_offline_on_one_session_each_hand_once_in_each_phones_order(
        live_server, browser, page, shot):
    session, session_id, token = night(page, live_server, "two@example.com")
    other_phone = phone_page(browser)
    other = next(other_phone)
    other.goto(live_server + "/signin")
    other.fill("#email", "two@example.com")
    other.fill("#password", "a long enough password")
    other.get_by_role("button", name="Sign in").click()
    other.wait_for_url(live_server + "/")
    for phone in (page, other):
        kept_on_phone(phone, session)
        phone.context.set_offline(True)
    first: list[dict[str, Any]] = [
        {"kind": "drop", "player": "Ann", "counts": {"Ann": 4, "Bob": 20, "Cy": 18}},
        {"kind": "tonk_out", "player": "Cy"}]
    second: list[dict[str, Any]] = [
        {"kind": "dead"}, {"kind": "tonk_out", "player": "Ann"},
        {"kind": "drop", "player": "Bob", "counts": {"Ann": 25, "Bob": 2, "Cy": 11}}]
    for spec in first:
        record_offline(page, session, spec)
    for spec in second:
        record_offline(other, session, spec)
    assert other.locator("#outbox .outbox-count").inner_text() == "3 hands not sent"
    shot("01-second-phone-three-waiting", other)

    page.context.set_offline(False)
    hands = wait_stored(page, live_server, token, session_id, 2)
    assert [h["hand"]["end"]["kind"] for h in hands] == ["drop", "tonk_out"]
    other.context.set_offline(False)
    hands = wait_stored(other, live_server, token, session_id, 5)
    assert [h["number"] for h in hands] == [1, 2, 3, 4, 5]
    assert [(h["hand"]["end"]["kind"], h["hand"]["end"].get("player")) for h in hands] == [
        ("drop", "Ann"), ("tonk_out", "Cy"), ("dead", None), ("tonk_out", "Ann"),
        ("drop", "Bob")]
    # each phone's dealers as recorded: both started from Ann, the seat after on each phone
    assert [h["hand"]["dealer"] for h in hands] == ["Ann", "Bob", "Ann", "Bob", "Cy"]
    totals_equal_hands(live_server, token, session_id, hands)
    for phone in (page, other):
        phone.wait_for_function(
            "() => document.querySelectorAll('ol.hands li.hand').length === 5", timeout=15_000)
        assert phone.locator("#outbox").is_hidden()
    shot("02-both-phones-sent")
    other.wait_for_timeout(2000)  # a page shown again, the worker: nothing sent twice
    assert len(stored(live_server, token, session_id)) == 5
    next(other_phone, None)


def test_a_waiting_hand_whose_session_was_closed_needs_you_and_blocks_nothing(
        live_server, page, shot):
    closed, closed_id, token = night(page, live_server, "closed@example.com")
    page.goto(live_server + "/sessions/new")
    page.fill("#name", "Upstairs")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player-{i}", name)
    page.fill("#stake", "0.25")
    page.get_by_role("button", name="Start the session").click()
    page.wait_for_url(re.compile(r"/sessions/\d+$"))
    upstairs, upstairs_id = page.url, int(page.url.rsplit("/", 1)[1])
    kept_on_phone(page, closed)
    kept_on_phone(page, upstairs)
    page.context.set_offline(True)
    record_offline(page, closed, THREE[1])  # recorded first, refused: must not block …
    record_offline(page, upstairs, THREE[0])  # … the one recorded after it
    api(live_server, token, f"/sessions/{closed_id}/close", "POST", {})  # meanwhile, elsewhere

    page.evaluate("() => { window.beforeSending = true; }")
    page.context.set_offline(False)
    hands = wait_stored(page, live_server, token, upstairs_id, 1)
    assert [(h["number"], h["hand"]["end"]["kind"]) for h in hands] == [(1, "drop")]
    # the phone reloads the page whose hand went (offline.js) once it has marked the hand
    # sent: let it. Left before that, the hand is still waiting on the phone and the next
    # page sends it again (the server answers it once; the page reloads, under axe)
    wait_reloaded(page)
    page.goto(closed)
    needs = page.locator("#outbox li.needs-you")
    needs.wait_for()
    assert "needs you" in needs.inner_text()
    assert "This session is closed" in needs.inner_text()
    assert "Tonk out · Bob" in needs.inner_text()
    assert page.locator("#outbox .outbox-count").inner_text() == "1 hand needs you"
    assert stored(live_server, token, closed_id) == []
    assert api(live_server, token, f"/sessions/{closed_id}")["closed"] is True
    shot("01-needs-you")
    page.reload()  # still there, still not sent: a refusal is never retried by itself
    page.locator("#outbox li.needs-you").wait_for()
    page.wait_for_timeout(500)
    assert stored(live_server, token, closed_id) == []


def test_a_share_view_once_opened_works_offline_and_catches_up(live_server, browser, page,
                                                                 shot):
    session, session_id, token = night(page, live_server, "share@example.com")
    share = live_server + api(live_server, token, f"/sessions/{session_id}")["share_url"]
    player_phone = phone_page(browser)
    player = next(player_phone)
    player.goto(share)
    player.wait_for_function("() => !!navigator.serviceWorker.controller")
    player.goto(share)  # kept on the player's phone
    player.context.set_offline(True)
    player.reload()
    assert player.locator("#offline-mark").is_visible()
    assert "Nobody owes anybody anything." in player.inner_text("#live")
    shot("01-share-view-offline", player)
    player.goto(live_server + "/leagues")  # never opened here: a page that says so
    assert player.locator("h1").inner_text() == "No signal"
    assert "never opened on this phone" in player.inner_text("main")
    shot("02-never-opened-offline", player)
    player.go_back()
    api(live_server, token, f"/sessions/{session_id}/hands", "POST",
        {"end": {"kind": "tonk_out", "player": "Bob"}})  # the table plays on
    player.context.set_offline(False)
    player.wait_for_function(
        "() => document.querySelectorAll('ol.hands li.hand').length === 1", timeout=15_000)
    assert player.locator("#offline-mark").is_hidden()
    shot("03-share-view-caught-up", player)
    # A weak signal: the stream still tells of a hand, but its fetch gets the copy the phone
    # kept. The view stayed on that copy once the signal was back, saying it was up to date.
    hands = "() => document.querySelectorAll('ol.hands li.hand').length === {}"
    api(live_server, token, f"/sessions/{session_id}/hands", "POST",
        {"end": {"kind": "tonk_out", "player": "Cy"}})
    player.wait_for_function(hands.format(2), timeout=15_000)  # (its live part kept: 2)
    player.context.set_offline(True)
    api(live_server, token, f"/sessions/{session_id}/hands", "POST",
        {"end": {"kind": "tonk_out", "player": "Ann"}})
    player.wait_for_timeout(1500)  # (the stream's news met the kept copy)
    player.context.set_offline(False)
    player.wait_for_function(hands.format(3), timeout=15_000)
    next(player_phone, None)


def test_signing_out_with_hands_not_sent_warns_first(live_server, page, shot):
    session, session_id, token = night(page, live_server, "leave@example.com")
    kept_on_phone(page, session)
    page.context.set_offline(True)
    record_offline(page, session, THREE[2])
    said: list[str] = []

    def answer(dialog):
        said.append(dialog.message)
        dialog.dismiss()
    page.once("dialog", answer)
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_timeout(300)
    assert said and "Hands on this phone not sent yet: 1." in said[0]
    assert page.url == session  # still signed in, the hand still waiting
    assert page.locator("#outbox li.not-sent").count() == 1
    assert page.get_by_role("button", name="Sign out").is_enabled()
    page.context.set_offline(False)
    wait_stored(page, live_server, token, session_id, 1)
    shown_once_sent(page, 1)
    page.get_by_role("button", name="Sign out").click()  # nothing waiting: no question
    page.wait_for_url(live_server + "/")
    kept = settled(page, """() => caches.open("tonk-pages").then(c => c.keys())
        .then(ks => ks.map(r => new URL(r.url).pathname))""")
    assert not [p for p in kept if p.startswith("/sessions")]  # cleared on sign-out


def test_a_save_that_fails_for_want_of_network_is_kept_though_the_phone_thinks_it_is_online(
        live_server, page, shot):
    """The phone says it is online (a dead Wi-Fi, a captive portal) but the form's POST
    fails: the service worker keeps the hand in the outbox; nothing typed is lost."""
    session, session_id, token = night(page, live_server, "liar@example.com")
    page.add_init_script(
        "Object.defineProperty(Navigator.prototype, 'onLine', {get: () => true});")
    kept_on_phone(page, session)
    page.goto(session + "/hands/new")
    page.context.set_offline(True)
    fill_hand(page, THREE[0])
    page.get_by_role("button", name="Save hand").click()
    page.wait_for_url(session)
    page.wait_for_selector("#outbox li.not-sent")
    assert "Drop · Cy · Ann 20, Bob 15, Cy 3" in page.inner_text("#outbox")
    assert page.locator("#offline-mark").is_visible()
    shot("01-kept-by-the-worker")
    assert stored(live_server, token, session_id) == []
    page.context.set_offline(False)  # sent by itself (the page catches up and sends)
    hands = wait_stored(page, live_server, token, session_id, 1)
    assert [(h["number"], h["hand"]["counts"]) for h in hands] == [
        (1, {"Ann": 20, "Bob": 15, "Cy": 3})]
    shown_once_sent(page, 1)


def test_the_phone_says_it_in_japanese_too(live_server, page, shot):
    session, session_id, token = night(page, live_server, "ja@example.com")
    page.goto(session)
    with page.expect_navigation():  # the switcher at the foot of the page, back to it
        page.click('footer.langs button[value="ja"]')
    kept_on_phone(page, session)
    page.context.set_offline(True)
    page.reload()
    assert "オフライン" in page.inner_text("#offline-mark")
    record_offline(page, session, THREE[1], "ハンドを保存")
    assert page.locator("#outbox .outbox-count").inner_text() == "未送信のハンド：1"
    assert "未送信" in page.inner_text("#outbox li.not-sent")
    assert page.get_by_role("button", name="今すぐ送信").is_visible()
    shot("01-not-sent-ja")
    page.context.set_offline(False)
    wait_stored(page, live_server, token, session_id, 1)
    shown_once_sent(page, 1)


def test_the_seats_page_and_a_rule_card_once_opened_open_with_no_signal(live_server, page):
    """Pages reached from a kept page are kept too: the seats page and the house-rule card,
    once opened with a signal, open with none (not the No signal page, which would say they
    were never opened on this phone); one never opened still says so."""
    session, _session_id, _token = night(page, live_server, "seats@example.com")
    kept_on_phone(page, session)
    for path in (session + "/seats", live_server + "/rules/chicago"):
        page.goto(path)
    page.context.set_offline(True)
    page.goto(session + "/seats")
    assert page.locator("h1").inner_text() != "No signal"
    assert page.locator("form").filter(has_text="Bob").count() >= 1
    page.goto(live_server + "/rules/chicago")
    assert "Chicago" in page.locator("h1").inner_text()
    page.goto(live_server + "/rules/texas")  # never opened
    assert page.locator("h1").inner_text() == "No signal"
    page.context.set_offline(False)


def test_a_record_form_never_opened_is_there_when_the_signal_goes(live_server, page, shot):
    """The scorekeeper opens the session page (the phone's first page since the worker came:
    the home page seen at sign-up may have come before it) and the signal goes before they
    ever opened the record form: the phone kept it with the page, so the hand is saved on
    the phone and sent once when the signal is back."""
    session, session_id, token = night(page, live_server, "ahead@example.com")
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    page.goto(session)  # shown, then kept with its record form, never opened
    settled(page, """async () => {
        for (;;) {
            const cache = await caches.open("tonk-pages");
            if (await cache.match(location.pathname + "/hands/new") &&
                await cache.match(location.pathname)) return true;
            await new Promise((r) => setTimeout(r, 100));
        }
    }""", seconds=10)
    page.context.set_offline(True)
    page.get_by_role("link", name="Record hand").first.click()
    page.wait_for_url(session + "/hands/new")
    assert page.locator("#hand-form").is_visible()
    fill_hand(page, THREE[1])
    page.get_by_role("button", name="Save hand").click()
    page.wait_for_url(session)
    page.wait_for_selector("#outbox:not([hidden])")
    shot("01-saved-on-a-form-never-opened")
    page.context.set_offline(False)
    hands = wait_stored(page, live_server, token, session_id, 1)
    assert [h["hand"]["end"]["kind"] for h in hands] == ["tonk_out"]


#: The night's page as the phone keeps it, once it is in ``lang``.
_NIGHT_KEPT_IN = """async (lang) => {
    for (;;) {
        const hit = await (await caches.open("tonk-pages")).match("/phone/nights/-");
        if (hit && (await hit.text()).includes(`<html lang="${lang}"`)) return true;
        await new Promise((r) => setTimeout(r, 250));
    }
}"""


def test_a_night_started_with_no_signal_is_in_the_readers_language(live_server, page, shot):
    """A newcomer who chose Deutsch and then lost the signal started a night in English: the
    pages it needs had been kept once, in the language of the first page. They are kept again
    in the language chosen; with no signal, the language buttons say they need a connection
    (they led to the offline page)."""
    base = live_server
    sign_up(page, base, "sprache@example.com")
    page.goto(base + "/")
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    page.goto(base + "/")
    settled(page, _NIGHT_KEPT_IN, "en")
    page.get_by_role("button", name="Deutsch").click()
    page.wait_for_selector("html[lang='de']")
    settled(page, _NIGHT_KEPT_IN, "de")
    page.context.set_offline(True)
    page.goto(base + "/phone/nights/" + "0" * 32)
    assert page.locator("html").get_attribute("lang") == "de"
    assert page.title().startswith("Ein Spielabend auf diesem Handy")
    languages = page.locator("footer form")
    assert languages.locator("button[value='en']").is_disabled()
    assert languages.locator(".needs-net").is_visible()
    shot("night-page-kept-in-german")

