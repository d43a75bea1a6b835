"""The dispute checker in a real browser, signed out, at a phone's 390x844: open it from the
welcome page, enter the players and the house rules, tap in a caught drop (counts typed and
cards from the picker), read the ruling with its sources, open the permalink as another
player would, and see the same hand under every preset. Also: the preset changes the form
(Rushville asks for five face cards), and nothing scrolls sideways at 360 px but the table
of rulings, inside its own scroller.

The ruling the page shows is checked against the core settling the same hand on its own.
"""
from __future__ import annotations

from app.core import PRESETS, parse_hand, settle
from tests.browser.helpers import ARTIFACTS

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
HAND = {"rules": {"preset": "pagat", "catch": "alt3"}, "stake": "0.25", "players": PLAYERS,
        "dealer": "Dee", "end": {"kind": "drop", "player": "Bob"},
        "counts": {"Ann": 12, "Bob": 9, "Cy": 9, "Dee": 30}}


def part(locator, name: str) -> None:
    """A screenshot of one part of the page (the full page is too tall to look at)."""
    locator.screenshot(path=str(ARTIFACTS / f"test_check-part-{name}.png"))


def test_check_a_disputed_hand_on_a_phone(live_server, page, shot):
    page.goto(live_server + "/")
    page.get_by_role("link", name="Settle a dispute: check a hand, no account needed").click()
    assert page.locator("h1").inner_text() == "Check a hand"
    shot("01-empty")

    page.fill("#players", ", ".join(PLAYERS))
    page.fill("#stake", "0.25")
    page.get_by_text("Change single rules").click()
    page.select_option("#opt-catch", "alt3")
    page.get_by_role("button", name="Next: the hand").click()
    assert page.locator("#count-3").count() == 1
    page.locator("label[for='kind-drop']").click()
    page.locator("label[for='player-1']").click()
    page.fill("#count-0", "12")
    page.fill("#count-1", "9")
    row = page.locator(".count-row[data-name='Cy']")
    row.locator("button.pick").click()
    for card in ("4S", "5H"):
        row.locator(f".picker button[data-card='{card}']").click()
    row.locator(".picker .done").click()
    assert page.input_value("#count-2") == "9"
    page.fill("#count-3", "30")
    page.select_option("#dealer", "Dee")
    shot("02-filled")
    part(page.locator("fieldset.counts"), "counts")
    page.get_by_role("button", name="Check the ruling").click()

    expected = settle(parse_hand({**HAND, "cards": {"Cy": ["4S", "5H"]}}))
    heading = page.locator("#ruling h2").inner_text()
    assert heading == "The ruling: Bob dropped, caught by Cy"
    shown = page.locator("#ruling .explain li").all_inner_texts()
    assert shown == list(expected.explanation)
    assert page.locator("#ruling .source a").first.get_attribute("href") == \
        "https://www.pagat.com/rummy/tonk.html"
    assert "rule 3" in page.locator("#ruling .source").first.inner_text()
    assert page.locator(".qr svg").count() == 1
    shot("03-ruling")
    part(page.locator("#ruling"), "ruling")
    part(page.locator("section.permalink"), "permalink")
    page.locator("section.compare").scroll_into_view_if_needed()
    rows = page.locator("table.rulings tbody tr")
    assert rows.count() == 1 + len(PRESETS)  # the table's rules (alt3 catch), every preset
    assert "Your table's rules" in rows.first.inner_text()
    assert page.locator("table.rulings td.diff").count() > 0
    shot("04-other-rules")
    part(page.locator("section.compare"), "other-rules")

    # Another player opens the link: the same ruling, the form filled in again.
    link = page.input_value("#permalink")
    other = page.context.new_page()
    other.goto(link)
    assert other.locator("#ruling .explain li").all_inner_texts() == list(expected.explanation)
    assert other.input_value("#players") == "Ann, Bob, Cy, Dee"
    assert other.input_value("#opt-catch") == "alt3"
    other.close()

    # Another preset redraws the form for its rules.
    page.get_by_text("Change the hand or the rules").click()
    page.select_option("#preset", "rushville")
    page.wait_for_selector("input[name='five_face']", state="attached")
    page.locator("label[for='kind-deal']").click()
    assert page.locator("label[for='five-0']").is_visible()
    shot("05-rushville-form")

    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(link)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, width
    shot("06-at-360px")
