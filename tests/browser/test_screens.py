"""Screens a table reads, measured in Chromium rather than looked at:

- Nothing jumps: on every kind of page, signed in and out, the cumulative layout shift
  (PerformanceObserver, type ``layout-shift``, buffered) a second after load is below 0.1,
  on a phone whose network is slow and whose browser answers ``storage.persist()`` late and
  with a no, as Lighthouse's fresh mobile profile does (the note that answer brings used to
  push every signed-in page down by a third of the screen: 0.25-0.34 here).
- Nothing is wider than the phone: at 390 px no element's right edge is past 390, inside a
  scroller or not (a column cut off at the edge is as unread as one off the page); only what
  an ancestor clips on purpose within the screen (a name's ellipsis, a screen reader's
  hidden heads) is let off.
- The TV board at 1280x720, 1920x1080 and 3840x2160 shows every place and every prize
  inside the screen; with more players than fit, each place is shown on one of the pages it
  turns through by itself, the page number with it.

Screenshots in test-artifacts/screenshots (each page checked with axe-core first).
"""
from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from app.db.models import GameSession, User
from app.extensions import db
from app.services import events
from app.services.sessions import ledger
from tests.browser.helpers import PHONE, PLAYERS, league_night, phone_page, sign_up
from tests.expect import fetched

#: Lighthouse's mobile profile, near enough: a fresh browser is not granted persistent
#: storage, and says so after the page is drawn.
LATE_NO = """(() => {
    if (navigator.storage) navigator.storage.persist = () =>
        new Promise(done => setTimeout(() => done(false), 400));
})()"""

#: The layout shift of the page since it began (every entry: the test does not touch the
#: page while it loads, and Chromium marks a navigation Playwright starts as recent input),
#: and every element whose right edge is past ``width``.
MEASURE = """async (width) => {
    const shifts = [];
    const total = await new Promise(done => {
        let sum = 0;
        new PerformanceObserver(list => {
            for (const e of list.getEntries()) {
                sum += e.value;
                shifts.push(e.value.toFixed(3) + ": " + (e.sources || []).map(s =>
                    name(s.node) + " " + Math.round(s.previousRect.y) + "→" +
                    Math.round(s.currentRect.y)).join(", "));
            }
        }).observe({type: "layout-shift", buffered: true});
        setTimeout(() => done(sum), 1000);
    });
    function name(n) {
        if (!n || n.nodeType !== 1) return "text";
        const cls = typeof n.className === "string" && n.className
            ? "." + n.className.trim().split(/\\s+/).join(".") : "";
        return n.tagName.toLowerCase() + (n.id ? "#" + n.id : "") + cls;
    }
    function clippedInside(el) {  // an ancestor clips it on purpose, within the screen
        for (let up = el.parentElement; up; up = up.parentElement) {
            const style = getComputedStyle(up);
            if ((style.overflowX === "hidden" || style.overflowX === "clip") &&
                up.getBoundingClientRect().right <= width + 0.5) return true;
        }
        return false;
    }
    const wide = [];
    for (const el of document.querySelectorAll("body *")) {
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height || getComputedStyle(el).visibility === "hidden") continue;
        if (r.right > width + 0.5 && !clippedInside(el)) {
            wide.push(name(el) + " to " + Math.round(r.right) + " px: " +
                      (el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 40));
        }
    }
    return {cls: total, shifts, scrollWidth: document.documentElement.scrollWidth, wide};
}"""

#: Each of ``words`` in the page's text that a line break cuts in two (勝|利).
SPLIT_WORDS = """(words) => {
    const cut = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const word of words) {
            for (let at = node.data.indexOf(word); at >= 0; at = node.data.indexOf(word, at + 1)) {
                const tops = [...word].map((_, i) => {
                    const r = document.createRange();
                    r.setStart(node, at + i);
                    r.setEnd(node, at + i + 1);
                    const box = r.getClientRects()[0];
                    return box ? Math.round(box.top) : null;
                });
                if (tops[0] !== null && tops.some(t => t !== tops[0])) {
                    cut.push(word + " in " + node.data.trim().slice(0, 40));
                }
            }
        }
    }
    return cut;
}"""

CHECKED_HAND = {"rules": {"preset": "pagat"}, "stake": "0.25",
                "players": ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"], "dealer": "Dee",
                "end": {"kind": "drop", "player": "Bob"},
                "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30, "Eve": 21, "Fay": 40}}

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kit", "Lou"]


def permalink(hand: dict[str, Any]) -> str:
    """/check's link to a hand and its ruling (base64url of its JSON, no padding)."""
    raw = json.dumps(hand, separators=(",", ":")).encode()
    return "/check?hand=" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def slow_phone(page) -> None:
    """The phone of the measurement: storage.persist() answers no, late; 150 ms a round trip
    and about 1.6 Mbit/s down."""
    page.add_init_script(LATE_NO)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": 150, "downloadThroughput": 200_000,
        "uploadThroughput": 90_000})


def measured(page, url: str, width: int = PHONE["width"]) -> dict[str, Any]:
    page.goto(url)
    page.wait_for_load_state("load")
    return dict(page.evaluate(MEASURE, width))


def tournament(app, owner_email: str, names: list[str], rounds: int) -> dict[str, str]:
    """A finished tournament of ``names`` (fees paid, five prizes), one hand a round, each
    table won by a different seat each round: its board, director's page and a player's
    view (through the services: the pages that run one are tested in test_tournament)."""
    with app.app_context():
        owner = db.session.scalars(select(User).where(User.email == owner_email)).one()
        event = events.create_event(owner, name="Malone Open", rounds=rounds,
                                    hands_per_round=1, entry_fee="20",
                                    prizes=["0.4", "0.25", "0.15", "0.12", "0.08"])
        for name in names:
            events.check_in(event, name, True)
            db.session.commit()
        for number in range(1, rounds + 1):
            events.draw_next_round(event, owner, number)
            db.session.commit()
            for i, table in enumerate(events.get_round(event, number).tables):
                seated = [s.name for s in table.session.seats]
                ledger.record_hand(table.session, events.keeper_author(table), {
                    "end": {"kind": "tonk_out", "player": seated[(i + number) % len(seated)]}})
                db.session.commit()
            events.close_round(event, number)
            db.session.commit()
        urls = {"board": f"/board/{event.board_token}", "director": f"/events/{event.id}",
                "board-player": f"/board/{event.board_token}/players/{names[0]}"}
        db.session.remove()
    return urls


def tournament_in_play(app, owner_email: str, names: list[str]) -> dict[str, str]:
    """A tournament of ``names`` in its first round, one hand played at each table: its
    board shows the tables now (their cards turn by themselves)."""
    with app.app_context():
        owner = db.session.scalars(select(User).where(User.email == owner_email)).one()
        event = events.create_event(owner, name="Friday Cup", rounds=2, hands_per_round=4)
        for name in names:
            events.check_in(event, name, True)
        events.draw_next_round(event, owner, 7)
        db.session.commit()
        for table in events.get_round(event, 1).tables:
            seated = [s.name for s in table.session.seats]
            ledger.record_hand(table.session, events.keeper_author(table), {
                "end": {"kind": "tonk_out", "player": seated[0]}})
            db.session.commit()
        url = f"/board/{event.board_token}"
        db.session.remove()
    return {"board-playing": url}


@pytest.fixture(scope="module")
def _stored(_site, _chromium) -> Iterator[tuple[dict[str, Any], dict[str, str]]]:
    """What the module's tests look at, stored once for them all (ten seconds and more to
    make): an account with a league, a 6-hand session in it, a session with both side bets,
    a finished 12-player tournament of four rounds and one in play; the phone's signed-in
    state (cookies and storage) and the addresses of their pages."""
    live_app, served = _site
    live_server = served.base
    pages = phone_page(_chromium.browser())
    page = next(pages)
    slow_phone(page)
    league, session = league_night(page, live_server, "screens@example.com")
    with live_app.app_context():
        keeper = db.session.scalars(select(User).where(User.email == "screens@example.com")).one()
        gs = fetched(GameSession, int(session.rsplit("/", 1)[1]))
        for n in range(6):
            end = {"kind": "run_out" if n % 3 else "drop", "player": PLAYERS[n % 4]}
            ledger.record_hand(gs, keeper, {"end": end} if n % 3 else {
                "end": end, "counts": {p: 3 + 5 * ((n + i) % 5)
                                       for i, p in enumerate(PLAYERS)}})
        sided = ledger.create_session(keeper, name="Side bets", players=PLAYERS, stake="0.25",
                                      side_bets={"naturals": {"stake": "0.10"},
                                                 "high_card": {"stake": "0.25"}})
        db.session.commit()
        token = gs.share_token
        sided_record = f"/sessions/{sided.id}/hands/new"
        db.session.remove()
    urls = {"home": "/", "session": session, "record": session + "/hands/new",
            "record-side-bets": sided_record,
            "hand": session + "/hands/1", "settle": session + "/settle",
            "check": permalink(CHECKED_HAND), "league": league, "events": "/events",
            **tournament(live_app, "screens@example.com", NAMES, 4),
            **tournament_in_play(live_app, "screens@example.com", NAMES[:10])}
    page.goto(league)
    urls["league-player"] = page.locator("td.name a").first.get_attribute("href") or ""
    urls["league-hands"] = league + "/hands"
    urls = {k: v if v.startswith("http") else live_server + v for k, v in urls.items()}
    urls["shared"] = f"{live_server}/s/{token}"
    state = page.context.storage_state()
    for _ in pages:
        pass
    yield state, urls


@pytest.fixture
def night(_stored, live_server, browser):
    """A signed-in phone (slow, as measured) in the state the one that stored the night
    left (a context of each test's own), and the addresses of the night's pages."""
    state, urls = _stored
    pages = phone_page(browser, storage_state=state)
    page = next(pages)
    slow_phone(page)
    yield page, urls
    for _ in pages:
        pass


def faults(page, urls: dict[str, str], shot=None) -> list[str]:
    """What is wrong on each page: a layout shift of 0.1 or more, anything wider than the
    phone."""
    found = []
    for name, url in urls.items():
        m = measured(page, url)
        if m["cls"] >= 0.1:
            found.append(f"{name}: layout shift {m['cls']:.3f} ({'; '.join(m['shifts'])})")
        if m["scrollWidth"] > PHONE["width"] or m["wide"]:
            found.append(f"{name}: {m['scrollWidth']} px wide; " + "; ".join(m["wide"][:6]))
        if shot is not None:
            shot(name, page)
    return found


def test_no_page_jumps_or_is_wider_than_a_phone(night, browser, shot):
    page, urls = night
    signed_in = {k: v for k, v in urls.items() if k != "shared"}
    found = faults(page, signed_in, shot)
    assert page.locator(".storage-note").count() == 1  # the note came, at the foot

    phone_out = phone_page(browser)
    out = next(phone_out)
    slow_phone(out)
    base = urls["home"].rstrip("/")
    signed_out = {"welcome": base + "/", "sign-in": base + "/signin",
                  "check-empty": base + "/check", "check-out": urls["check"],
                  "shared": urls["shared"], "shared-hand": urls["shared"] + "/hands/1",
                  "card": base + "/rules/pagat", "board-out": urls["board"],
                  "board-player-out": urls["board-player"]}
    found += faults(out, signed_out)
    for _ in phone_out:
        pass
    assert found == []


@pytest.mark.parametrize("locale", ["ja-JP", "de-DE"])
def test_the_pages_in_japanese_and_german_fit_too(night, browser, shot, locale):
    _page, urls = night
    pages = phone_page(browser, locale=locale, extra_http_headers={
        "Accept-Language": f"{locale},{locale[:2]};q=0.9"})
    page = next(pages)
    slow_phone(page)
    page.goto(urls["home"] + "signin")
    page.fill("#email", "screens@example.com")
    page.fill("#password", "a long enough password")
    page.locator("main form button").first.click()
    page.wait_for_url(urls["home"])
    lang = locale[:2]
    assert page.locator("html").get_attribute("lang") == lang
    chosen = {k: urls[k] for k in ("session", "record", "hand", "check", "league", "board",
                                   "director")}
    found = faults(page, chosen, lambda name, p: shot(f"{lang}-{name}", p))
    page.goto(urls["session"])
    page.locator("details.share summary").click()
    fonts = page.evaluate("""() => [getComputedStyle(document.body).fontFamily,
        getComputedStyle(document.getElementById('share-url')).fontFamily]""")
    assert fonts[0] == fonts[1]  # the share link in the page's type, not a terminal's
    page.goto(urls["hand"])
    split = page.evaluate(SPLIT_WORDS, ["勝ち", "勝利", "ドロップ", "ハンド"])
    for _ in pages:
        pass
    assert found == []
    assert split == []


def test_the_chart_has_its_size_before_it_loads(night):
    page, urls = night
    page.goto(urls["session"])
    chart = page.locator("img.chart")
    chart.evaluate("img => img.decode()")
    given = chart.evaluate("img => [+img.getAttribute('width'), +img.getAttribute('height')]")
    natural = chart.evaluate("img => [img.naturalWidth, img.naturalHeight]")
    assert given == natural  # its box is the picture's from the first paint


def test_a_hand_form_is_drawn_as_its_script_keeps_it(night, browser):
    """The record form (with side bets, whose boxes sit below the hand's fields) and /check
    are drawn at the first paint as tonk.js keeps them: with no script run yet (JavaScript
    off), the Save button is where it is once the script has run. (The script hides the
    fields the end chosen does not ask for; drawn first and hidden after, they moved the
    form up by 770 px under Lighthouse: a layout shift of 0.17-0.38.)"""
    page, urls = night
    pages = phone_page(browser, java_script_enabled=False,
                       storage_state=page.context.storage_state())
    bare = next(pages)
    forms = {"record": urls["record"], "record-side-bets": urls["record-side-bets"],
             "check-empty": urls["home"].rstrip("/") + "/check"}
    for name, url in forms.items():
        where = []
        for shown in (bare, page):
            shown.goto(url)
            shown.wait_for_load_state("load")
            box = shown.locator("#hand-form button.primary").last.bounding_box()
            assert box is not None, name
            where.append(round(box["y"]))
        assert where[0] == where[1], \
            f"{name}: Save at {where[0]} px before the script, {where[1]} after"
    for _ in pages:
        pass


#: What the TV board uses of the screen: the header's type, how far down its content
#: reaches, and each card's width against what its scores use.
BOARD_USE = """() => {
    const top = parseFloat(getComputedStyle(document.querySelector('body > .top')).fontSize);
    const parts = [...document.querySelectorAll('.board-page *')].filter(
        e => e.getClientRects().length && !e.closest('[hidden]'));
    const bottom = Math.max(...parts.map(e => e.getBoundingClientRect().bottom));
    const cards = [...document.querySelectorAll('.board-table:not([hidden])')].map(c => {
        const style = getComputedStyle(c);
        const inner = c.clientWidth - parseFloat(style.paddingLeft)
            - parseFloat(style.paddingRight);
        return {inner, scores: c.querySelector('.totals').getBoundingClientRect().width};
    });
    return {header: top, bottom, cards};
}"""


@pytest.mark.parametrize("size", [(1920, 1080), (3840, 2160)])
def test_the_tv_board_fills_the_screen_at_1080p_and_4k(night, browser, shot, size):
    """At 3840x2160 the header stayed 17 px, a table's card drew its scores in 832 of its
    1,421 px and the lower third of the screen was empty. Now the board scales with the
    screen: the header with its height, the cards' scores across their width, the
    standings and the tables' card down to the foot of the screen."""
    _page, urls = night
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    tv = context.new_page()
    for name in ("board-playing", "board"):
        tv.goto(urls[name])
        tv.wait_for_timeout(1200)  # the board's own turn (tonk.js) has run
        used = tv.evaluate(BOARD_USE)
        assert used["header"] >= height * 0.015, (name, used)  # its type, px
        assert used["bottom"] >= height * 0.9, (name, used)  # the screen used to its foot
        assert tv.evaluate("document.documentElement.scrollHeight") <= height
        if name == "board-playing":
            assert used["cards"], "the tables now are shown"
            for card in used["cards"]:
                assert card["scores"] >= card["inner"] * 0.95, (name, used)
        shot(f"{name}-{width}", tv)
    context.close()


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (3840, 2160)])
def test_the_tv_board_shows_every_place_and_prize(night, browser, shot, size):
    _page, urls = night
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    tv = context.new_page()
    tv.goto(urls["board"])
    tv.wait_for_timeout(1200)  # the board's own turn (tonk.js) has run
    out = tv.evaluate("""() => [...document.querySelectorAll(
            '#standings tbody tr, .prize-lines li, #prizes h2, #standings thead')].map(e => {
        const r = e.getBoundingClientRect();
        return {text: e.innerText.split("\\n")[0], hidden: e.hidden, top: r.top,
                bottom: r.bottom, right: r.right};
    })""")
    assert [e for e in out if not e["text"] or e["hidden"]] == []
    assert len(out) > len(NAMES) + 2  # every place, the heads, the prize lines
    outside = [e for e in out if e["top"] < 0 or e["bottom"] > height or e["right"] > width]
    assert outside == []
    assert tv.evaluate("document.documentElement.scrollHeight") <= height
    assert tv.locator(".board-pager:visible").count() == 0  # one page: nothing turns
    shot(f"tv-{width}", tv)
    context.close()


def test_a_long_board_turns_its_pages(live_app, live_server, browser, shot):
    """40 players at 1280x720: the standings turn pages every 10 s, each saying which it is,
    and between them they show every place; the prize list stays in view throughout."""
    pages = phone_page(browser)
    phone = next(pages)
    sign_up(phone, live_server, "long@example.com")
    many = [f"Player {n:02}" for n in range(1, 41)]
    urls = tournament(live_app, "long@example.com", many, 1)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tv = context.new_page()
    tv.clock.install()
    tv.goto(live_server + urls["board"])
    tv.clock.run_for(1500)
    seen: dict[str, str] = {}
    pagers = []
    for turn in range(8):
        shown = tv.evaluate("""() => [...document.querySelectorAll('#standings tbody tr')]
            .filter(r => !r.hidden).map(r => {
                const box = r.getBoundingClientRect();
                return [r.querySelector('th').innerText, box.bottom <= innerHeight];
            })""")
        assert all(inside for _name, inside in shown), shown
        for name, _inside in shown:
            seen.setdefault(name, tv.locator(".board-pager").first.inner_text())
        pagers.append(tv.locator(".board-pager").first.inner_text())
        prizes = tv.evaluate("""() => [...document.querySelectorAll('.prize-lines li')]
            .every(li => !li.hidden && li.getBoundingClientRect().bottom <= innerHeight)""")
        assert prizes
        if turn == 0:
            shot("long-board-page-1", tv)
        tv.clock.run_for(10_000)
    assert sorted(seen) == many
    turned = [tuple(map(int, re.fullmatch(r"Page (\d+) of (\d+)", p).groups()))  # type: ignore[union-attr]
              for p in pagers]
    count = turned[0][1]
    assert 2 <= count <= 4 and {m for _n, m in turned} == {count}, pagers
    # each turn shows another page (the page comes from the clock, which also runs on in
    # real time: on a busy machine a turn may skip one, so "the next" is not asked)
    assert all(b[0] != a[0] for a, b in zip(turned, turned[1:], strict=False)), pagers
    context.close()
    for _ in pages:
        pass


def test_a_refused_close_says_one_sentence_twice_alike(night, live_app, shot):
    """The round's refusal at the top of the director's page and beside its button: the same
    sentence, both beginning with a capital (it read as a sentence and its lower-case echo)."""
    page, urls = night
    with live_app.app_context():
        owner = db.session.scalars(select(User).where(User.email == "screens@example.com")).one()
        event = events.create_event(owner, name="Short Cup", rounds=1, hands_per_round=2)
        for name in NAMES[:7]:
            events.check_in(event, name)
        events.draw_next_round(event, owner, 1)
        db.session.commit()
        director = f"/events/{event.id}"
        db.session.remove()
    page.goto(urls["home"].rstrip("/") + director)
    page.locator("#close-button").click()
    page.wait_for_load_state()
    said = ("ables 1 and 2 have not played all their hands (2 a round): let them finish, or "
            "close the round anyway")
    beside = page.locator("#err-close").inner_text()
    on_top = page.locator("#error-summary li").inner_text()
    assert beside.endswith("T" + said) and on_top == "T" + said, (beside, on_top)
    shot("refused-close", page)
