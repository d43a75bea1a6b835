"""A night in each language (English, German, Japanese) on a 390x844 phone: a
session with both side bets, a hand of every kind of end, a join and a leave, settle-up and
close. Each hand line names who did what (the dropper and the catcher), each player's line
of totals adds up (hands + side bets + what the pots give back = total), the share view
shows the totals on its first screen, and Leave and Close each ask before they act.
Screenshots: test-artifacts/screenshots/test_night_words-<lang>-*.png.
"""
from __future__ import annotations

import pytest

from tests.browser.helpers import ARTIFACTS, amounts, seat_totals, sign_up

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]

#: What each hand line says, in each language (the night below, hand by hand).
LINES = {
    "en": ["Dee dropped, caught by Ann", "Cy dropped and won", "Cy won on the deal with 49",
           "Stock ran out: Bob low with 6", "Ann tonked out", "Dead hand: nobody pays"],
    "de": ["Dee hat hingelegt, gefangen von Ann", "Cy hat hingelegt und gewonnen",
           "Cy gewinnt beim Geben mit 49", "Stapel aufgebraucht: Bob am niedrigsten mit 6",
           "Ann hat Tonk gemacht", "Tote Hand: niemand zahlt"],
    "ja": ["Deeがドロップ、Annが捕まえた", "Cyがドロップして勝ち", "Cyがディールで即時勝利（49）",
           "ストック切れ：Bobが最低の6", "Annがトンクアウト", "デッドハンド：支払いなし"],
}
#: The hands: kind, who (seat), each count typed (seat → count).
HANDS = [
    ("drop", 3, {0: 5, 1: 12, 2: 20, 3: 9}),
    ("drop", 2, {0: 14, 1: 12, 2: 3, 3: 20}),
    ("deal", None, {2: 49}),
    ("stock_out", None, {0: 14, 1: 6, 2: 9, 3: 20}),
    ("tonk_out", 0, {}),
    ("dead", None, {}),
]


def submit_of(page, inside: str):
    """The main button of the form holding ``inside`` (whatever the page's language)."""
    return page.locator(f"form:has({inside}) button.primary").last


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_the_night_reads_right_in_every_language(live_server, page, lang, shot):
    sign_up(page, live_server, f"keeper-words-{lang}@example.com")
    with page.expect_navigation():  # the switcher at the foot of every page
        page.click(f'footer.langs button[value="{lang}"]')
    page.goto(live_server + "/sessions/new")
    assert page.locator("html").get_attribute("lang") == lang
    page.fill("#name", "Friday")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player-{i}", name)
    page.fill("#stake", "0.25")
    page.locator("details.side-bets summary").click()
    page.locator("label[for='sb-high_card']").click()
    page.fill("#sb-high_card-stake", "0.20")
    page.select_option("#sb-high_card-unclaimed", "return")
    page.locator("label[for='sb-naturals']").click()
    page.fill("#sb-naturals-stake", "0.10")
    submit_of(page, "#first_dealer").click()
    session_url = page.url

    for kind, who, counts in HANDS:
        page.goto(session_url + "/hands/new")
        page.locator(f"label[for='kind-{kind}']").click()
        if who is not None:
            page.locator(f"label[for='player-{who}']").click()
        for seat, count in counts.items():
            page.fill(f"#count-{seat}", str(count))
        boxes = page.locator("input[name=sb-high_card-in]")
        if kind == "dead":  # thrown in: nobody is in the high-card bet unless ticked
            assert [b.is_checked() for b in boxes.all()] == [False] * 4
        else:
            assert [b.is_checked() for b in boxes.all()] == [True] * 4
        if kind == "tonk_out":
            page.select_option("#sb-high_card-suit", "H")
            page.locator("label[for='sb-high_card-won-1']").click()  # Bob
        page.locator("#hand-form button.primary").click()
        page.wait_for_url(session_url)
        if kind == "tonk_out":
            shot(f"{lang}-01-recorded-with-side-bets")

    page.goto(session_url)
    page.locator("details.seats-box > summary").click()
    page.fill("#join", "Fay")
    page.locator("form:has(#join) button").click()
    page.locator("details.seats-box > summary").click()
    assert page.input_value("#leave") == ""  # nobody chosen until the scorekeeper picks
    page.select_option("#leave", "Cy")
    page.locator("form:has(#leave) details.confirm summary").click()
    shot(f"{lang}-02-leave-asks-first")
    page.locator("form:has(#leave) details.confirm button").click()

    page.goto(session_url)
    lines = page.locator("ol.hands .hand .what").all_inner_texts()
    assert lines == list(reversed(LINES[lang])), lines  # newest first
    totals = seat_totals(page)  # every line adds up
    pots = amounts(page, "ul.pots li")  # money waiting in the pots is nobody's yet
    assert sum(totals.values()) + sum(pots.values()) == 0 and set(totals) == {*PLAYERS, "Fay"}
    shot(f"{lang}-03-session")

    share = page.input_value("#share-url")
    page.goto(share)
    table = page.locator("table.totals-sum").bounding_box()
    assert table is not None and table["y"] + table["height"] < 844  # the first screen
    assert page.locator("#open-title").bounding_box()["y"] < 844 + 400  # near the top
    assert seat_totals(page) == totals
    page.screenshot(path=str(ARTIFACTS / f"test_night_words-{lang}-04-share-first-screen.png"))
    shot(f"{lang}-04-share-view")

    page.goto(session_url + "/settle")
    assert seat_totals(page) == totals
    shot(f"{lang}-05-settle")
    page.locator("form[action$='/close'] details.confirm summary").click()
    shot(f"{lang}-06-close-asks-first")
    page.locator("form[action$='/close'] details.confirm button").click()
    page.goto(share)
    assert page.locator("ul.pots").count() == 0  # the pot was given back at close
    assert seat_totals(page) == totals
    shot(f"{lang}-07-share-view-closed")


def test_the_record_form_says_one_thing_a_field_and_picks_cards_suit_by_suit(
        live_server, page, shot):
    """A count the server refused shows its one message (not the script's as well), and a
    negative one is said to be so as it is typed; the card picker gives each suit rows of
    its own."""
    sign_up(page, live_server, "keeper-form@example.com")
    page.goto(live_server + "/sessions/new")
    page.fill("#name", "Friday")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player-{i}", name)
    submit_of(page, "#first_dealer").click()
    session_url = page.url
    page.goto(session_url + "/hands/new")
    page.locator("label[for='kind-drop']").click()
    page.locator("label[for='player-3']").click()
    page.fill("#count-1", "-3")  # said as the core says it, not "Enter a whole number."
    assert page.locator(".count-row").nth(1).locator(".live").inner_text() == \
        "Bob's count cannot be negative (-3)"
    for seat, count in {0: 55, 1: 12, 2: 20, 3: 9}.items():
        page.fill(f"#count-{seat}", str(count))
    page.locator("#hand-form button.primary").click()
    row = page.locator(".count-row").first
    assert row.locator("#err-count-0").is_visible()
    assert row.locator(".live").inner_text() == ""  # one message for one field
    row.locator("button.pick").click()
    rows: dict[int, set[str]] = {}
    for button in page.locator(".picker button[data-card]").all():
        box = button.bounding_box()
        card = button.get_attribute("data-card")
        rows.setdefault(round(box["y"]), set()).add("J" if card == "JOKER" else card[-1])
    assert len(rows) >= 8 and all(len(suits) == 1 for suits in rows.values()), rows
    shot("picker-suit-by-suit")
