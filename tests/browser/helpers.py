"""What the browser tests share, imported by name (``from tests.browser.helpers import …``):
the phone's and the desktop's viewports, signing up through the page, a page in Chromium,
axe-core's check, and reading what a page shows. Fixtures live in ``conftest.py``; no test
module imports another.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import pathlib
import re
import signal
import threading
import urllib.request
import warnings
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

#: axe-core from the npm registry (tests/browser/vendor/README.md), run in every page shot.
AXE = pathlib.Path(__file__).with_name("vendor") / "axe.min.js"


#: Japanese words broken across lines: in a heading, a table's head, a label, a button or a
#: tile, a line that breaks inside a run of text (Japanese is phrased: the page puts a
#: <wbr> between phrases, so a run of text is one phrase) but after a space or a mark such
#: as 、 or ：. Before pages
#: were phrased: 「ディールでの即時勝／利」, 「サイドベッ／ト」.
BROKEN_WORDS = """() => {
  const japanese = /[\u3040-\u30ff\u3400-\u9fff]/;
  const out = [];
  for (const el of document.querySelectorAll(
      "h1, h2, h3, h4, th, legend, label, summary, button, .btn, .kind")) {
    if (!el.getClientRects().length) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.data;
      if (!japanese.test(text)) continue;
      const range = document.createRange();
      let top = null;
      for (let i = 0; i < text.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (!box || !box.width) continue;
        if (top !== null && box.top > top + 2 && !/[\\s、。，：；！？）」』]/.test(text[i - 1])) {
          out.push(`${el.tagName}: ${text.slice(0, i).trim()}／${text.slice(i).trim()}`);
          break;
        }
        top = box.top;
      }
    }
  }
  return out.slice(0, 10);
}"""


DESKTOP = {"width": 1280, "height": 900}


ARTIFACTS = pathlib.Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


PHONE = {"width": 390, "height": 844}


#: A phone's browser context: its screen, touch and mobile layout. One device pixel a CSS
#: pixel: the screenshots are taken at CSS scale anyway, no page looks at the pixel ratio,
#: and drawing every page at twice the pixels cost Chromium an eighth of its CPU in a run.
PHONE_CONTEXT: dict[str, Any] = {"viewport": PHONE, "device_scale_factor": 1,
                                 "is_mobile": True, "has_touch": True}


#: The browser tests share a server, as the phones of several people at one table share
#: their café's address: each test signs up accounts of its own, so more sign-ups and tokens
#: come from 127.0.0.1 in an hour than the defaults let one address make (the limits
#: themselves are tests/test_accounts.py's and tests/test_signin_load.py's).
SHARED_LIMITS = {"TONK_LIMIT_SIGNUP_IP": "200 per hour", "TONK_LIMIT_TOKEN_IP": "200 per hour",
                 "TONK_LIMIT_SIGNIN_IP": "200 per minute"}


@contextlib.contextmanager
def site_served(tmp_path_factory, sqlite_schema) -> Iterator[tuple[Any, Any]]:
    """``tonk serve`` (the server the README starts, one worker) on an SQLite database of
    its own, and the app on that database (conftest's ``_site``)."""
    from flask_migrate import stamp

    from app.extensions import db
    from tests.apps import make_app, sqlite_copy
    from tests.live import tonk_serve

    folder = tmp_path_factory.mktemp("browser")
    app = make_app(sqlite_copy(sqlite_schema, folder, "browser.sqlite"), WTF_CSRF_ENABLED=True)
    with app.app_context():
        stamp()  # the test's schema is made whole without Alembic: nothing to migrate
        db.engine.dispose()
    # Its stop is not what the tests test (its log is read before): killed 3 s after being
    # asked.
    with tonk_serve(app.config["SQLALCHEMY_DATABASE_URI"], workers=1,
                    env={"SECRET_KEY": "test", **SHARED_LIMITS},
                    log=folder / "serve.log", grace=3) as served:
        yield app, served


def api(base: str, token: str, path: str, method: str = "GET", body: Any = None) -> Any:
    """The JSON API of the server under test, with a personal token: the answer's JSON."""
    request = urllib.request.Request(
        base + "/api/v1" + path, method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 - our own server
        return json.loads(answer.read())


def sign_up(page, base: str, email: str) -> None:
    """Sign up as "Keeper" through the page (which signs the phone in and goes home)."""
    page.goto(base + "/signup")
    page.fill("#name", "Keeper")
    page.fill("#email", email)
    page.fill("#password", "a long enough password")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(base + "/")


#: A phone that proved its core on an earlier visit and keeps it (tonk.js's localStorage
#: and sessionStorage keys): its pages start no core unless the page needs one and can.
PROVEN_BEFORE = """try {
    if (!localStorage.getItem("tonk-core"))
        localStorage.setItem("tonk-core", '{"version": "before"}');
    sessionStorage.setItem("tonk-core-kept", "1");
} catch (e) { /* about:blank */ }"""


def phone_page(browser, viewport=PHONE, core=False, **options):
    """A phone's page in a context of its own (``options``: more of the context's, e.g. its
    locale); an uncaught script error on it fails the test. Unless ``core`` (the tests about
    the phone's core), the phone proved its core before (PROVEN_BEFORE): the first visit's
    proof, seconds of Python's start, is left to the tests about it."""
    context = browser.new_context(**{**PHONE_CONTEXT, "viewport": viewport, **options})
    if not core:
        context.add_init_script(PROVEN_BEFORE)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    closed(context)
    assert errors == [], f"uncaught script errors: {errors}"


#: How long closing a context may take before this process's Chromium is taken to have hung.
CLOSE_SECONDS = 8


def closed(context, seconds: float = CLOSE_SECONDS) -> None:
    """``context.close()``, bounded. Chromium has hung disposing of a phone's context after an
    offline test (a CI run, 2026-11-25: the page went on polling the server for the test's
    whole 300 s timeout; Target.disposeBrowserContext hanging with a service worker is known
    upstream, e.g. puppeteer#11627). Past ``seconds`` this process's Chromium is killed: the
    close returns, the next browser test starts another (``conftest._Chromium``), and the run
    goes on with a warning rather than failing a test whose checks have all passed. Each page
    leaves for about:blank first, which stops what it runs (the phone core's dedicated
    worker: a page closed while its worker was starting held the close past the guard under
    load, 15 s a test in five tests of a CI run)."""
    for page in context.pages:  # leaving the page stops its core's worker (pagehide)
        try:
            page.goto("about:blank", timeout=5_000)
        except Exception:  # a page already closed, or one that would not leave: close anyway
            pass
    hung = threading.Event()

    def kill() -> None:
        hung.set()
        kill_chromium()
    timer = threading.Timer(seconds, kill)
    timer.start()
    try:
        context.close()
    except Exception:  # playwright's Error: the browser was killed under the close
        if not hung.is_set():
            raise
    finally:
        timer.cancel()
    if hung.is_set():
        warnings.warn(f"Chromium did not close a context in {seconds:g} s: killed it; the "
                      "next browser test starts another", stacklevel=2)


def kill_chromium() -> None:
    """SIGKILL the Chromium this process started (through Playwright's driver): each browser
    process among its descendants (its renderers and helpers go with it)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = pathlib.Path(entry.path, "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        name, rest = stat[stat.index("(") + 1:].rsplit(")", 1)
        pid = int(entry.name)
        parents[pid], names[pid] = int(rest.split()[1]), name
    mine, more = {os.getpid()}, {os.getpid()}
    while more:
        more = {pid for pid, parent in parents.items() if parent in more}
        mine |= more
    for pid in mine:
        if names[pid] == "chromium" and names.get(parents[pid]) != "chromium":
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def settled(page, function: str, arg: Any = None, seconds: float = 30) -> Any:
    """``page.evaluate`` of a function that returns a promise (``function``: its source, e.g.
    ``"async (arg) => …"``), raced against ``seconds``: Playwright's evaluate has no timeout
    of its own, and a promise that never settles would hold the run, idle, for ever."""
    return page.evaluate(f"""async (arg) => {{
        const late = new Promise((_, no) => setTimeout(
            () => no(new Error("no answer in {seconds:g} s")), {seconds * 1000:.0f}));
        return await Promise.race([({function})(arg), late]);
    }}""", arg)


@functools.cache
def _axe_source() -> str:
    return AXE.read_text() + "\n;0"


def axe_violations(page) -> list[dict[str, Any]]:
    """The serious and critical axe-core violations of the page as it is now (axe is put
    into the page through the browser's debugging protocol, so the page's own strict CSP
    stays on). A page a tap has just led to is waited for first: the tap returns once the
    new page is on its way, with no document to check yet."""
    page.wait_for_load_state()
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_axe_source())
    found = settled(page, """async () => {
        const result = await axe.run(document, {resultTypes: ["violations"]});
        return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 4).map(n => n.target.join(" ") + ": " +
                                           (n.failureSummary || "").slice(0, 160))}));
    }""", seconds=60)
    return [v for v in found if v["impact"] in ("serious", "critical")]


def assert_accessible(page) -> None:
    """axe-core finds no serious or critical violation on the page."""
    found = axe_violations(page)
    assert found == [], f"axe on {page.url}: " + "; ".join(
        f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in found)


PLAYERS = ["Ann", "Bob", "Cy", "Dee"]


def fill_hand(page, spec: dict[str, Any]) -> None:
    page.locator(f"label[for='kind-{spec['kind']}']").click()
    if "player" in spec:
        page.locator(f"label[for='player-{PLAYERS.index(spec['player'])}']").click()
    for name, count in spec.get("counts", {}).items():
        box = page.locator(f"#count-{PLAYERS.index(name)}")
        if box.is_visible():
            box.fill(str(count))
    for name, text in spec.get("cards", {}).items():
        page.locator(f"#cards-{PLAYERS.index(name)}").fill(text)
    for name, cards in spec.get("picker", {}).items():
        row = page.locator(f".count-row[data-name='{name}']")
        row.locator("button.pick").click()
        for card in cards:
            row.locator(f".picker button[data-card='{card}']").click()
        row.locator(".picker .done").click()
    if spec.get("big_one"):
        page.locator("label[for='big_one']").click()


def league_night(page, base: str, email: str) -> tuple[str, str]:
    """Sign up, start the league "Thursday Tonk" (stake 0.25) and its session "Thursday
    night" of PLAYERS; returns the league's and the session's addresses."""
    sign_up(page, base, email)
    page.goto(base + "/leagues/new")
    page.fill("#name", "Thursday Tonk")
    page.fill("#stake", "0.25")
    page.get_by_role("button", name="Start the league").click()
    league_url = page.url
    page.get_by_role("link", name="+ New session in this league").click()
    page.fill("#name", "Thursday night")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player-{i}", name)
    page.get_by_role("button", name="Start the session").click()
    return league_url, page.url


def amounts(page, selector: str) -> dict[str, Decimal]:
    out = {}
    for item in page.locator(selector).all():
        name = item.locator(".who").inner_text().strip()
        text = item.locator(".amt").inner_text()
        number = re.sub(r"[^\d.\-−+]", "", text).replace("−", "-").replace("+", "")
        out[name] = Decimal(number)
    return out


def submit(page, button) -> None:
    """Tap a form's button and wait for the page it leads to."""
    with page.expect_navigation():
        button.click()


def transfers(page) -> list[str]:
    """The open transfers as the page lists them, one line each."""
    return [" ".join(li.locator("p").first.inner_text().split())
            for li in page.locator("ul.transfers > li").all()]


def seat_totals(page) -> dict[str, Decimal]:
    """Each player's running total (hands + side bets) as the session or settle page shows
    it; with side bets, each line of the table must add up: hands + side bets + what the
    pots give back = the total shown."""
    rows = page.locator("table.totals-sum tbody tr")
    if not rows.count():
        return amounts(page, "ul.totals li")
    out = {}
    for row in rows.all():
        name = row.locator(".who").inner_text().strip()
        cells = [Decimal(re.sub(r"[^\d.\-−+]", "", t).replace("−", "-").replace("+", ""))
                 for t in row.locator("td .amt").all_inner_texts()]
        *parts, total = cells
        assert sum(parts) == total, (name, cells)
        out[name] = parts[0] + parts[1]
    return out


def leave(page, name: str) -> None:
    """Choose who leaves, then confirm (one tap does not take a player away), and wait for
    the page the leave leads to."""
    page.select_option("#leave", name)
    page.locator("details.confirm summary", has_text="Leave the table").click()
    submit(page, page.get_by_role("button", name="Yes, they leave"))


def shown_once_sent(page, hands: int) -> None:
    """Wait for the page offline.js reloads once the phone's hands went: it shows ``hands``
    hands and nothing waiting. A test that ends while that reload is under way leaves
    Chromium closing a context mid-navigation with a service worker, which has hung, and a
    page.goto meanwhile is interrupted by it."""
    page.wait_for_selector("#outbox", state="hidden")
    page.wait_for_function(
        f"() => document.querySelectorAll('ol.hands li.hand').length === {hands}")
    page.wait_for_load_state()


def made_token(page, base: str) -> str:
    """An API token the signed-in account makes on its account page."""
    page.goto(base + "/account")
    page.fill("#label", "test")
    page.get_by_role("button", name="Make a token").click()
    return page.get_by_label("New token").input_value()


#: How long a page may take to start the core (Pyodide) on a busy machine, in ms.
COLD_START = 120_000


def shown_totals(page, scope: str = "#live") -> dict[str, Decimal]:
    return {el.get_attribute("data-player"): Decimal(el.get_attribute("data-total"))
            for el in page.locator(f"{scope} [data-player][data-total]").all()}


def cached_core(page, seconds: float = 120) -> int:
    """How many of the core's files the service worker keeps, once it keeps them all."""
    return settled(page, """async () => {
        const bundle = await (await fetch("/phone/core.json")).json();
        const want = bundle.cache.length + Object.keys(bundle.files).length;
        for (;;) {
            const cache = await caches.open("tonk-core-v1");
            const kept = (await cache.keys()).filter(
                (r) => /\\/phone\\/(pyodide|core)\\//.test(r.url));
            if (kept.length >= want) return kept.length;
            await new Promise((r) => setTimeout(r, 250));
        }
    }""", seconds=seconds)


def night(page, base: str, email: str) -> tuple[str, int, str]:
    """Sign up, make an API token, start a pagat session of Ann, Bob and Cy at 0.25 (Ann
    deals first); returns the session's URL, its id and the token."""
    sign_up(page, base, email)
    token = made_token(page, base)
    page.goto(base + "/sessions/new")
    page.fill("#name", "Basement")
    for i, name in enumerate(["Ann", "Bob", "Cy"]):
        page.fill(f"#player-{i}", name)
    page.fill("#stake", "0.25")
    page.get_by_role("button", name="Start the session").click()
    page.wait_for_url(re.compile(r"/sessions/\d+$"))
    return page.url, int(page.url.rsplit("/", 1)[1]), token


def kept_on_phone(page, session: str) -> None:
    """Open the session page, the record form and the home page with the service worker in
    charge, so the phone keeps them (the home page seen at sign-up may have come before the
    worker took charge: on a busy machine it did, and offline the phone had no home page)."""
    page.goto(session)
    page.wait_for_function("() => !!navigator.serviceWorker.controller")  # bounded wait
    page.goto(session + "/hands/new")
    page.goto(session.split("/sessions/")[0] + "/")
    page.goto(session)


def opened_once(page, base: str) -> None:
    """Online once: the worker keeps the app, the core, the new-session form and the night's
    page."""
    page.goto(base + "/")
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    page.goto(base + "/")
    page.wait_for_selector("html[data-counting='phone']", timeout=COLD_START)
    assert cached_core(page) > 10
    settled(page, """async () => {
        for (;;) {
            const cache = await caches.open("tonk-pages");
            if (await cache.match("/sessions/new") && await cache.match("/phone/nights/-"))
                return true;
            await new Promise((r) => setTimeout(r, 250));
        }
    }""")


def fill_phone_hand(page, spec: dict[str, Any]) -> None:
    """The hand fields of a night started on the phone (night.js), by the players' names (a
    newcomer moves seats)."""
    step = page.locator("#hand-step")
    step.locator(f"label[for='kind-{spec['kind']}']").click()
    if "player" in spec:
        radio = step.locator(f"input[name='player'][value='{spec['player']}']")
        step.locator(f"label[for='{radio.get_attribute('id')}']").click()
    for name, count in spec.get("counts", {}).items():
        box = step.locator(f".count-row[data-name='{name}'] input.count")
        if box.is_visible():
            box.fill(str(count))


def kept_night(page) -> dict[str, Any]:
    """The night as the phone keeps it (IndexedDB)."""
    return settled(page, """() => new Promise((resolve, reject) => {
        const req = indexedDB.open("tonk-nights", 1);
        req.onsuccess = () => {
            const get = req.result.transaction("nights").objectStore("nights").getAll();
            get.onsuccess = () => resolve(get.result[0]);
            get.onerror = () => reject(get.error);
        };
        req.onerror = () => reject(req.error);
    })""")
