"""Browser tests: the app served on a free local port, driven by Playwright in Debian's
headless Chromium at a phone-sized viewport (390x844). Screenshots are kept in
``test-artifacts/screenshots`` for people to look at.

Skipped, saying why, when Chromium or Playwright is missing (scripts/test.sh installs both).
"""
from __future__ import annotations

import os
import pathlib
import shutil
import socket
import threading

import pytest
from werkzeug.serving import make_server

from app.extensions import db
from tests.conftest import make_app, sqlite_copy, stored_problems

CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
#: axe-core from the npm registry (tests/browser/vendor/README.md), run in every page shot.
AXE = pathlib.Path(__file__).with_name("vendor") / "axe.min.js"
DESKTOP = {"width": 1280, "height": 900}
ARTIFACTS = pathlib.Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def live_server(tmp_path, sqlite_schema):
    """The app on an empty SQLite database, served over HTTP; yields its base URL. Afterwards
    ``tonk check`` must find nothing wrong with what the test stored."""
    app = make_app(sqlite_copy(sqlite_schema, tmp_path, "browser.sqlite"),
                   WTF_CSRF_ENABLED=True)
    port = _free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
    found = stored_problems(app)
    with app.app_context():
        db.engine.dispose()
    assert found == [], "tonk check after this test: " + "; ".join(found)


def sign_up(page, base: str, email: str) -> None:
    """Sign up as "Keeper" through the page (which signs the phone in and goes home)."""
    page.goto(base + "/signup")
    page.fill("#name", "Keeper")
    page.fill("#email", email)
    page.fill("#password", "a long enough password")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(base + "/")


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests need playwright (pip install -e '.[test]')")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync"])
        yield browser
        browser.close()


def phone_page(browser, viewport=PHONE, **options):
    """A phone's page in a context of its own (``options``: more of the context's, e.g. its
    locale); an uncaught script error on it fails the test."""
    context = browser.new_context(viewport=viewport, device_scale_factor=2, is_mobile=True,
                                  has_touch=True, **options)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == [], f"uncaught script errors: {errors}"


@pytest.fixture
def page(browser):
    yield from phone_page(browser)


def axe_violations(page) -> list[dict]:
    """The serious and critical axe-core violations of the page as it is now (axe is put
    into the page through the browser's debugging protocol, so the page's own strict CSP
    stays on)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text() + "\n;0")
    found = page.evaluate("""async () => {
        const result = await axe.run(document, {resultTypes: ["violations"]});
        return result.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 4).map(n => n.target.join(" ") + ": " +
                                           (n.failureSummary || "").slice(0, 160))}));
    }""")
    return [v for v in found if v["impact"] in ("serious", "critical")]


def assert_accessible(page) -> None:
    """axe-core finds no serious or critical violation on the page."""
    found = axe_violations(page)
    assert found == [], f"axe on {page.url}: " + "; ".join(
        f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in found)


@pytest.fixture
def shot(page, request):
    """shot("name") saves a full-page screenshot as test-artifacts/screenshots/<test>-name.png,
    after checking the page with axe-core (no serious or critical violation)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    prefix = request.node.name.replace("[", "-").replace("]", "")

    def take(name: str, target=None) -> pathlib.Path:
        target = target or page
        assert_accessible(target)
        path = ARTIFACTS / f"{prefix}-{name}.png"
        target.screenshot(path=str(path), full_page=True, scale="css")
        return path
    return take
