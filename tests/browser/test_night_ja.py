"""A night in Japanese on the narrowest phone (360x740, the browser asking for Japanese):
sign up, start a session played for yen, record a hand of each common end, settle up and
close, with a high-card side bet and a player joining after the first hand, every page read
in Japanese, with money written as Japanese writes yen (no
decimals), no Japanese text clipped or running past its box, and no heading, label or
button broken inside a word. Screenshots go to
``/work/notes/shots-ja/`` (else ``test-artifacts/shots-ja``; ``TONK_SHOTS_JA`` names another
folder) for people to look at.
"""
from __future__ import annotations

import os
import pathlib

import pytest

from tests.browser.helpers import (
    ARTIFACTS,
    BROKEN_WORDS,
    assert_accessible,
    phone_page,
    submit,
)

PLAYERS = ["愛", "Bob", "翔太", "Dee"]
NOTES = pathlib.Path("/work/notes")
SHOTS = pathlib.Path(os.environ.get("TONK_SHOTS_JA") or (
    (NOTES if NOTES.is_dir() and os.access(NOTES, os.W_OK) else ARTIFACTS.parent) / "shots-ja"))
PHONE = {"width": 360, "height": 740}

#: Every element whose text runs past its own box, or past the screen's right edge, but
#: inside a box that scrolls sideways on purpose (the wide tables).
OVERFLOWING = """() => {
  const scrolls = el => { for (let e = el; e; e = e.parentElement) {
      const x = getComputedStyle(e).overflowX; if (x === "auto" || x === "scroll") return true; }
    return false; };
  // a table's column heads hidden for the eye but read aloud (a phone's cards show each
  // number with its title instead): clipped on purpose
  const unseen = el => { for (let e = el; e; e = e.parentElement) {
      if (getComputedStyle(e).clipPath === "inset(50%)") return true; }
    return false; };
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    const style = getComputedStyle(el);
    if (style.display === "none" || style.visibility === "hidden" || scrolls(el) ||
        unseen(el)) continue;
    if (["SCRIPT", "svg", "path", "OPTION"].includes(el.tagName)) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0) continue;
    const clipped = el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 &&
                    style.overflowX === "hidden";
    if (box.right > window.innerWidth + 1 || clipped)
      out.push(`${el.tagName}.${el.className}: ${(el.textContent || "").trim().slice(0, 40)}`);
  }
  return out.slice(0, 10);
}"""


@pytest.fixture
def phone(browser):
    yield from phone_page(browser, PHONE, locale="ja-JP")


def look(page, name: str) -> pathlib.Path:
    """Check the page (Japanese, nothing clipped or sideways, axe-core) and keep a
    screenshot of it."""
    page.wait_for_load_state()  # the page a tap led to, loaded
    assert page.locator("html").get_attribute("lang") == "ja", page.url
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], page.url
    assert page.evaluate(OVERFLOWING) == [], (page.url, page.evaluate(OVERFLOWING))
    assert page.evaluate(BROKEN_WORDS) == [], (page.url, page.evaluate(BROKEN_WORDS))
    assert_accessible(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True, scale="css")
    return path


def test_a_night_in_japanese_on_a_phone(live_server, phone):
    page = phone
    page.goto(live_server + "/")
    look(page, "01-welcome")
    page.get_by_role("link", name="登録").first.click()
    page.fill("#name", "記録係")
    page.fill("#email", "keeper-ja@example.com")
    page.fill("#password", "a long enough password")
    page.get_by_role("button", name="登録").click()
    look(page, "02-home")

    page.goto(live_server + "/sessions/new")
    page.fill("#name", "金曜の夜")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player-{i}", name)
    page.fill("#stake", "0.5")
    page.fill("#currency", "JPY")
    page.get_by_role("button", name="セッションを始める").click()
    assert "JPYの賭け金は整数です" in page.locator("#err-stake").inner_text()
    look(page, "03-new-session-half-a-yen")
    page.fill("#stake", "500")
    if not page.locator("#sb-high_card").is_visible():
        page.locator("details.side-bets summary").click()
    page.locator("label[for='sb-high_card']").click()
    page.fill("#sb-high_card-stake", "100")
    look(page, "03b-new-session-side-bet")
    page.get_by_role("button", name="セッションを始める").click()
    assert page.locator("h1").inner_text() == "金曜の夜"
    assert "￥500" in page.locator("p.meta").first.inner_text()
    session_url = page.url

    hands = [
        ("tonk_out", "愛", {}),
        ("drop", "翔太", {"愛": 20, "Bob": 15, "翔太": 9, "Dee": 9, "花子": 25}),
        ("stock_out", None, {"愛": 14, "Bob": 6, "翔太": 9, "Dee": 20, "花子": 30}),
        ("run_out", "Bob", {}),
    ]
    seated = list(PLAYERS)
    for number, (kind, player, counts) in enumerate(hands, start=1):
        if number == 2:  # 花子 joins after the first hand, sitting after Dee
            page.locator("details.seats-box > summary").click()
            page.fill("#join", "花子")
            page.select_option("#after", "Dee")
            look(page, "05a-join")
            submit(page, page.get_by_role("button", name="参加する", exact=True))
            assert "花子がテーブルに加わりました。" in page.evaluate("document.body.textContent")
            seated.append("花子")
        page.get_by_role("link", name="+ ハンドを記録").click()
        page.locator(f"label[for='kind-{kind}']").click()
        if player:
            page.locator(f"label[for='player-{seated.index(player)}']").click()
        for name, count in counts.items():
            box = page.locator(f"#count-{seated.index(name)}")
            if box.is_visible():
                box.fill(str(count))
        page.select_option("#sb-high_card-suit", "S")
        if number == 1:  # 愛 holds the highest spade; after it nobody does: the pot grows
            page.locator("label[for='sb-high_card-won-0']").click()
            look(page, "04a-record-with-a-side-bet")
        if number == 2:
            look(page, "04-record-a-drop")
        page.get_by_role("button", name="ハンドを保存").click()
        assert page.url.startswith(session_url), page.url
        assert page.locator("section.recorded h2").inner_text().startswith(f"ハンド{number}")
        if number == 1:
            assert "愛がポットを獲得：￥400。" in page.evaluate("document.body.textContent")
        if number == 2:
            look(page, "05-session-after-a-caught-drop")
    pots = page.locator("ul.pots li").first.inner_text()
    assert "ハイカード" in pots and "￥1,500" in pots, pots  # three deals of five stakes
    look(page, "06-session-after-four-hands")

    page.goto(f"{session_url}/hands/2")
    body = page.locator("main").inner_text()
    assert "捕まった" in body and "ドロップ" in body
    look(page, "07-hand-caught")
    page.locator("header.top").screenshot(path=str(SHOTS / "07a-header.png"))
    page.locator("section").first.screenshot(path=str(SHOTS / "07b-what-happened.png"))
    page.locator("div.scroll").first.screenshot(path=str(SHOTS / "07c-under-other-rules.png"))

    page.goto(session_url + "/settle")
    look(page, "08-settle-up")
    while page.get_by_role("button", name="全額支払い").count():
        submit(page, page.get_by_role("button", name="全額支払い").first)
    assert "すべて支払い済みです。" in page.evaluate("document.body.textContent")
    look(page, "09-all-paid")
    page.locator("details.confirm summary", has_text="セッションを終了").click()
    look(page, "09b-close-asks-first")  # one tap opens, a second closes
    page.get_by_role("button", name="はい、終了する").click()
    page.goto(session_url)
    assert "終了" in page.locator("p.meta").first.inner_text()
    look(page, "10-closed")
