"""A page seen again costs the phone one request: its files are kept on the phone. In a
module of its own, with a server of its own: it reads what its server's log gained while it
looked, which only its own server's log says of it alone (the other browser tests share
theirs, and a page left behind by the test before may still ask it for something)."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from tests.browser.helpers import kept_on_phone, night, site_served


@pytest.fixture(scope="module")
def _site(tmp_path_factory, sqlite_schema):
    """This module's own server (not the one the other browser tests share)."""
    with site_served(tmp_path_factory, sqlite_schema) as site:
        yield site


def test_a_page_seen_again_asks_the_server_for_itself_alone(live_served, page):
    """Its files are on the phone: kept a year at the addresses named by what is in them,
    and by the service worker, so that a page costs one request however poor the signal
    (the worker used to ask again behind each page for each of its five to seven files)."""
    session, _session_id, _token = night(page, live_served.base, "again@example.com")
    kept_on_phone(page, session)
    page.wait_for_timeout(500)  # the server has written its log of what was asked so far
    seen = len(live_served.log.read_bytes())
    page.goto(session + "/hands/new")
    page.goto(session)
    page.wait_for_timeout(1000)  # what the worker would ask for behind the pages, logged
    asked = re.findall(r'"GET (\S+) HTTP', live_served.log.read_bytes()[seen:].decode())
    assert [path for path in asked if "/static/" in path] == []
    assert urlsplit(session).path in asked  # the page itself, from the server
