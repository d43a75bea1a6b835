"""Tournament pages in German and Japanese on a phone: the director's page, a table's
scorekeeping link, the link once its round is over and the TV board speak the reader's
language (screenshots, axe-core); in Japanese no heading, label or button breaks inside a
word."""
from __future__ import annotations

import re

import pytest

from tests.browser.helpers import BROKEN_WORDS, PHONE, phone_page


def whole(page) -> None:
    """No word broken across lines (in Japanese: app/web/phrases.py)."""
    assert page.evaluate(BROKEN_WORDS) == [], (page.url, page.evaluate(BROKEN_WORDS))


@pytest.mark.parametrize(("locale", "words"), [
    ("de-DE", {"director": "Runde 1 läuft", "keeper": "Tisch 1, Runde 1",
               "over": "Runde 1 ist vorbei", "board": "Runde 1 von 2"}),
    ("ja-JP", {"director": "ラウンド1を進行中", "keeper": "ラウンド1・卓1",
               "over": "ラウンド1は終了しました", "board": "ラウンド1／2"}),
])
def test_tournament_pages_in_the_readers_language(live_server, browser, shot, locale, words):
    pages = phone_page(browser, PHONE, locale=locale)
    page = next(pages)
    page.goto(live_server + "/signup")
    page.fill("#name", "Director")
    page.fill("#email", f"director-{locale}@example.com")
    page.fill("#password", "a long enough password")
    page.locator("main form button").click()
    page.wait_for_url(live_server + "/")
    page.goto(live_server + "/events/new")
    page.fill("#name", "Pokal")
    page.fill("#rounds", "2")
    page.locator("#create-event").click()
    page.wait_for_url(re.compile(r"/events/\d+$"))
    director = page.url
    for name in ("Ann", "Bob", "Cy", "Dee", "Eve"):
        page.fill("#name", name)
        page.locator("#check-in-button").click()
        page.wait_for_url(director)
    page.locator("#draw-button").click()
    page.wait_for_url(director)
    assert words["director"] in page.inner_text("main")
    whole(page)
    shot("director", page)
    link = page.locator("input.keeper-link").first.input_value()
    board = page.locator("#board-link").get_attribute("href")
    page.goto(link)
    assert words["keeper"] in page.inner_text("h1")
    shot("keeper", page)
    whole(page)
    page.goto(director)
    page.locator("#force").check()
    page.locator("#close-button").click()
    page.wait_for_url(director)
    page.goto(link)
    assert words["over"] in page.inner_text("#round-over")
    whole(page)
    shot("keeper-after-round", page)
    page.goto(board)
    assert words["board"] in page.inner_text(".board-round")
    assert page.locator("#standings tbody tr").count() == 5
    whole(page)
    shot("board", page)
    try:
        next(pages)
    except StopIteration:
        pass
