"""Browser tests: the app served by ``tonk serve`` on a free local port, driven by
Playwright in Debian's headless Chromium at a phone-sized viewport (390x844). Screenshots
are kept in ``test-artifacts/screenshots`` for people to look at.

Skipped, saying why, when Chromium or Playwright is missing (scripts/test.sh installs both).
"""
from __future__ import annotations

import os
import pathlib
import shutil
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from app.extensions import db
from tests.apps import stored_problems
from tests.browser.helpers import (
    ARTIFACTS,
    PHONE_CONTEXT,
    assert_accessible,
    closed,
    phone_page,
    site_served,
)
from tests.live import Served

BROWSER_DIR = pathlib.Path(__file__).parent
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")


@pytest.fixture(scope="session")
def _site(tmp_path_factory, sqlite_schema) -> Iterator[tuple[Flask, Served]]:
    """One ``tonk serve`` for this process's browser tests (each xdist worker's own), on an
    SQLite database of its own, and the app on that database: started by the first browser
    test, stopped at the end (a server a module cost 2-3 s to start and about 1 s to stop,
    twenty modules a run). No browser test stops or restarts it; each test's accounts and
    data are its own (an e-mail address no other test uses, and what it counts is its
    own), so no test depends on an empty database. A module that must see the server alone
    (what its log gains) has one of its own: ``site_served`` in its own ``_site``."""
    with site_served(tmp_path_factory, sqlite_schema) as site:
        yield site


@pytest.fixture
def live_app(_site):
    """The app ``live_server`` serves, on the server's SQLite database: for a test to store
    through the services what it needs but does not test through the pages."""
    return _site[0]


@pytest.fixture
def live_served(_site):
    """The browser tests' ``tonk serve``; after each test, what its log gained must hold no error
    and ``tonk check`` must find nothing wrong with what is stored."""
    app, served = _site
    before = len(served.errors())
    yield served
    logged = served.errors()[before:]
    found = stored_problems(app)
    with app.app_context():
        db.engine.dispose()
    assert logged == [], "the server's log after this test"
    assert found == [], "tonk check after this test: " + "; ".join(found)


@pytest.fixture
def live_server(live_served):
    """``live_served``'s base URL."""
    return live_served.base


#: How every browser test starts Chromium.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-gpu-compositing"]


class _Chromium:
    """One Chromium per process (per xdist worker), started by the first browser test and
    stopped after the last one this process runs (``pytest_runtest_teardown`` below), not at
    the end of the run: Playwright's threads would otherwise stay for the tests after it,
    and a process with other threads spawns the import's checking processes (a second of CPU
    each, importing the app again) where one with none forks them
    (``app.services.exchange.parallel``)."""

    def __init__(self) -> None:
        self._playwright: Any = None
        self._browser: Any = None
        self._threads: set[threading.Thread] = set()

    def browser(self) -> Any:
        if self._browser is not None and not self._browser.is_connected():
            self._browser = None  # killed under a close that hung (helpers.closed)
        if self._playwright is None:
            if not os.path.exists(CHROMIUM):
                pytest.skip(f"browser tests need Chromium at {CHROMIUM} "
                            "(apt-get install chromium)")
            try:
                from playwright.sync_api import sync_playwright
            except ImportError:
                pytest.skip("browser tests need playwright (pip install -e '.[test]')")
            self._threads = set(threading.enumerate())
            self._playwright = sync_playwright().start()
        if self._browser is None:
            self._browser = self._playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        return self._browser

    def persistent(self, profile: pathlib.Path, **options: Any) -> Any:
        """A Chromium of its own on the profile folder ``profile`` (what it keeps, its
        storage and service workers, stays there when it is closed and is there when it is
        launched again on the folder): its one context, with ``options``."""
        self.browser()  # Playwright started (or the test skipped, saying why)
        return self._playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            **options)

    def stop(self) -> None:
        if self._browser is not None:
            self._browser.close()
            self._browser = None
        if self._playwright is not None:
            self._playwright.stop()
            self._playwright = None
            # its event loop's executor threads end just after (they are not waited for)
            for thread in set(threading.enumerate()) - self._threads:
                thread.join(timeout=5)


_CHROMIUM = _Chromium()


@pytest.fixture(scope="session")
def _chromium() -> Iterator[_Chromium]:
    yield _CHROMIUM
    _CHROMIUM.stop()


@pytest.fixture
def browser(_chromium):
    return _chromium.browser()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """After this process's last browser test before others (xdist hands each worker its
    next test before it runs one), Chromium and Playwright go, once the test's pages have."""
    yield
    if nextitem is None or BROWSER_DIR not in pathlib.Path(nextitem.path).parents:
        _CHROMIUM.stop()


@pytest.fixture
def launch_phone(_chromium, tmp_path):
    """``launch_phone(**options)`` → a phone's page in a Chromium launched on the test's one
    persistent profile (a phone whose browser is closed and opened again keeps what it kept);
    an uncaught script error on any of its pages fails the test. Close it with
    ``helpers.closed(page.context)``; what is still open at the end is closed then."""
    profile, contexts, errors = tmp_path / "profile", [], []

    def launch(**options: Any) -> Any:
        context = _chromium.persistent(profile, **{**PHONE_CONTEXT, **options})
        contexts.append(context)
        context.on("page", lambda p: p.on("pageerror", lambda exc: errors.append(str(exc))))
        page = context.pages[0] if context.pages else context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.set_default_timeout(10_000)
        return page
    yield launch
    for context in contexts:
        if context.pages:
            closed(context)
    assert errors == [], f"uncaught script errors: {errors}"


@pytest.fixture
def page(browser, request):
    """A phone's page; a module about the phone's core says ``CORE = True`` (its phone starts
    the core on its first visit, as a new phone does)."""
    yield from phone_page(browser, core=getattr(request.module, "CORE", False))


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
