"""Agree the rules before, pay in one tap after, on a 390x844 phone: a rule card
read signed out in German (and printed on one A4 and one Letter page), a session started
from a card, a settle-up whose transfer shows a PayPal.me link with the amount and a
GiroCode that decodes to the exact EPC payload, the share text of the night, and the print
PDF of a 30-hand night (two of its pages turned into PNGs to look at)."""
from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import pytest
from sqlalchemy import select

from app.db.models import GameSession, User
from app.db.unit import unit_of_work
from app.extensions import db
from app.services.sessions import ledger
from tests.browser.helpers import (
    ARTIFACTS,
    PLAYERS,
    fill_hand,
    league_night,
    phone_page,
    settled,
    sign_up,
    submit,
)
from tests.expect import fetched

zxingcpp = pytest.importorskip("zxingcpp", reason="decoding QR codes needs zxing-cpp")

IBAN = "DE89 3704 0044 0532 0130 00"


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf))


def decode_qr(page, selector: str) -> str:
    """The text of the QR code (an inline SVG) at ``selector``, drawn on a canvas in the
    page and read by zxing-cpp from its grey pixels."""
    grey = settled(page, """async (selector) => {
        const svg = document.querySelector(selector);
        const xml = new XMLSerializer().serializeToString(svg);
        const img = new Image();
        img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(xml);
        await img.decode();
        const size = 600, c = document.createElement("canvas");
        c.width = c.height = size;
        const g = c.getContext("2d");
        g.fillStyle = "#fff"; g.fillRect(0, 0, size, size);
        g.imageSmoothingEnabled = false;
        g.drawImage(img, 20, 20, size - 40, size - 40);
        const rgba = g.getImageData(0, 0, size, size).data, out = [];
        for (let i = 0; i < rgba.length; i += 4) out.push(rgba[i] < 128 ? "0" : "1");
        return out.join("");
    }""", selector)
    # one character a pixel (an array of 360,000 numbers took Playwright a while to carry)
    pixels = grey.encode().translate(bytes.maketrans(b"01", b"\x00\xff"))
    image = memoryview(pixels).cast("B", (600, 600))
    found = zxingcpp.read_barcodes(image)
    assert found, f"no QR code read at {selector}"
    return found[0].text


@pytest.fixture
def german(browser):
    yield from phone_page(browser, locale="de-DE", extra_http_headers={
        "Accept-Language": "de-DE,de;q=0.9"})


def test_a_rule_card_read_signed_out_in_german(live_server, german, shot):
    page = german
    page.goto(live_server + "/rules/texas")
    assert page.locator("h1").inner_text() == "Hausregeln: Texas Tonk"
    assert page.locator("html").get_attribute("lang") == "de"
    marked = page.locator("ol.card-rules li.differs")
    assert marked.count() == 4 and "anders als pagat" in marked.first.inner_text()
    assert page.locator(".card-dropped li").count() == 3
    assert "Quelle:" in page.locator("ol.card-rules").inner_text()
    assert page.locator("#card-url").input_value() == live_server + "/rules/texas"
    assert decode_qr(page, ".share-qr svg") == live_server + "/rules/texas"
    assert page.get_by_role("link", name="Einen Spielabend mit diesen Regeln beginnen")
    shot("card-de", page)
    for paper in ("A4", "Letter"):
        pdf = page.pdf(format=paper, print_background=True)
        assert pdf_pages(pdf) == 1, paper


def test_a_session_started_from_a_card(live_server, page, shot):
    sign_up(page, live_server, "keeper-card@example.com")
    page.goto(live_server + "/rules/chicago")
    page.get_by_role("link", name="Start a session with these rules").click()
    assert page.locator("#preset").input_value() == "chicago"
    page.fill("#name", "Chicago night")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player-{i}", name)
    page.get_by_role("button", name="Start the session").click()
    assert "Chicago" in page.locator("p.meta").first.inner_text()
    card = page.locator("#card-link")
    assert card.get_attribute("href") == live_server + "/rules/chicago"
    shot("session-from-card")
    card.click()
    assert "Chicago" in page.locator("h1").inner_text()


def night(page, base: str, name: str, hands: list[dict[str, Any]], currency: str = "EUR") -> str:
    """Start a session of Ann, Bob, Cy and Dee and record ``hands`` through the pages."""
    page.goto(base + "/sessions/new")
    page.fill("#name", name)
    page.fill("#currency", currency)
    for i, player in enumerate(PLAYERS):
        page.fill(f"#player-{i}", player)
    page.get_by_role("button", name="Start the session").click()
    url = page.url
    for spec in hands:
        page.get_by_role("link", name="+ Record hand").click()
        fill_hand(page, spec)
        page.get_by_role("button", name="Save hand").click()
        assert page.url.startswith(url), page.url
    return url


def test_a_settle_up_with_a_paypal_link_and_a_girocode(live_server, page, shot):
    sign_up(page, live_server, "keeper-pay@example.com")
    url = night(page, live_server, "Friday at Dee's", [{"kind": "tonk_out", "player": "Ann"}])
    page.goto(url + "/settle")
    page.locator("ul.transfers > li").first.get_by_role(
        "link", name="Where Ann takes payment").click()
    page.fill("#paypal", "annpays")
    page.fill("#iban", "DE89 3704 0044 0532 0130 01")  # one digit wrong
    page.get_by_role("button", name="Save").click()
    assert "ISO 13616" in page.locator("#err-iban").inner_text()
    assert page.locator("#paypal").input_value() == "annpays"  # nothing typed is lost
    shot("handles-bad-iban")
    page.fill("#iban", IBAN)
    page.get_by_role("button", name="Save").click()
    bob = page.locator("ul.transfers > li").filter(has_text="Bob → Ann")
    paypal = bob.locator("a.pay-paypal")
    assert paypal.get_attribute("href") == "https://paypal.me/annpays/2.00EUR"
    assert "2.00" in paypal.inner_text()
    epc = bob.locator(".pay-qr").get_attribute("data-epc")
    assert epc == ("BCD\n002\n1\nSCT\n\nAnn\nDE89370400440532013000\nEUR2\n\n\n"
                   "Tonk, Friday at Dee's")
    assert decode_qr(page, "ul.transfers > li:first-child .pay-qr svg") == epc
    shot("settle-up-pay-links")


def test_the_share_text_of_a_night(live_server, browser, page, shot):
    sign_up(page, live_server, "keeper-share@example.com")
    url = night(page, live_server, "Friday at Dee's",
                [{"kind": "tonk_out", "player": "Ann"}, {"kind": "run_out", "player": "Dee"}],
                currency="USD")
    page.goto(url + "/players/Ann/pay")
    page.fill("#venmo", "ann-pays")
    page.get_by_role("button", name="Save").click()
    page.goto(url)
    share_url = page.locator("#share-url").input_value()
    text = page.locator("#result-text").input_value()
    assert text.splitlines()[0] == "Friday at Dee's: Tonk, 2 hands"
    assert "Totals:\nAnn +$5.00\nDee +$1.00\nBob −$3.00\nCy −$3.00" in text
    assert ("Who pays whom:\nBob → Ann $3.00\n  https://venmo.com/ann-pays?txn=pay&amount="
            "3.00&note=Tonk%2C%20Friday%20at%20Dee%27s\nCy → Ann $2.00\n  https://venmo.com/"
            "ann-pays?txn=pay&amount=2.00&note=Tonk%2C%20Friday%20at%20Dee%27s\n"
            "Cy → Dee $1.00\n") in text
    assert text.endswith(f"The score: {share_url}")
    shot("share-the-result")
    # the picture of the totals: a PNG drawn in the page
    with page.expect_download() as got:
        page.get_by_role("button", name="Picture of the totals").click()
    png = ARTIFACTS / "share-the-result-totals.png"
    got.value.save_as(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # a friend's phone in German reads the same night in German
    for friend in phone_page(browser, locale="de-DE",
                             extra_http_headers={"Accept-Language": "de"}):
        friend.goto(share_url)
        said = friend.locator("#result-text").input_value()
        assert said.splitlines()[0] == "Friday at Dee's: Tonk, 2 Hände"
        assert "Wer wem zahlt:" in said and "https://venmo.com/ann-pays" in said


def test_the_print_pdf_of_a_30_hand_night(live_app, live_server, page, shot):
    sign_up(page, live_server, "keeper-paper@example.com")
    url = night(page, live_server, "A long Friday at Dee's", [])
    # the 30 hands through the ledger: recording through the page is tested elsewhere, and
    # 30 round trips of the form would be most of this test's time
    with live_app.app_context():
        with unit_of_work():
            keeper = db.session.scalars(
                select(User).where(User.email == "keeper-paper@example.com")).one()
            gs = fetched(GameSession, int(url.rsplit("/", 1)[1]))
            for n in range(30):
                end = {"kind": "run_out" if n % 3 else "drop", "player": PLAYERS[n % 4]}
                ledger.record_hand(gs, keeper, {"end": end} if n % 3 else {
                    "end": end, "counts": {p: 3 + 5 * ((n + i) % 5)
                                           for i, p in enumerate(PLAYERS)}})
        db.session.remove()
    page.goto(url + "/players/Ann/pay")
    page.fill("#paypal", "annpays")
    submit(page, page.get_by_role("button", name="Save"))
    page.goto(url)
    page.locator("details.share > summary").click()  # folded once hands are recorded
    submit(page, page.locator("#paper-link"))
    assert page.locator("table.paper-hands tbody tr").count() == 30
    shot("paper-screen")
    if not shutil.which("pdftoppm"):
        pytest.skip("turning the PDF into pictures needs pdftoppm (apt-get install poppler-utils)")
    for paper in ("A4", "Letter"):
        pdf = ARTIFACTS / f"paper-30-hands-{paper}.pdf"
        pdf.write_bytes(page.pdf(format=paper))
        assert 1 <= pdf_pages(pdf.read_bytes()) <= 3, paper
        subprocess.run(["pdftoppm", "-png", "-r", "70", "-f", "1", "-l", "2", str(pdf),
                        str(ARTIFACTS / f"paper-30-hands-{paper}")], check=True, timeout=60)
    # nothing cut: printed (A4's 186 mm between the margins, the narrower of the two, is
    # 703 CSS pixels), no line of the page is wider than the paper
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 703, "height": 1000})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 703
    assert page.locator("header.top").is_hidden() and page.locator("footer.langs").is_hidden()


def test_a_leagues_standings_on_paper(live_server, page, shot):
    league_url, _night = league_night(page, live_server, "keeper-league-paper@example.com")
    for spec in ({"kind": "tonk_out", "player": "Ann"}, {"kind": "run_out", "player": "Dee"}):
        page.get_by_role("link", name="+ Record hand").click()
        fill_hand(page, spec)
        page.get_by_role("button", name="Save hand").click()
    page.goto(league_url)
    assert page.locator("table.standings tbody tr").count() == 4
    pdf = ARTIFACTS / "league-standings-A4.pdf"
    pdf.write_bytes(page.pdf(format="A4"))
    assert pdf_pages(pdf.read_bytes()) >= 1
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "70", "-f", "1", "-l", "1", str(pdf),
                        str(ARTIFACTS / "league-standings-A4")], check=True, timeout=60)
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 703, "height": 1000})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 703
    assert page.locator("form.pick").is_hidden()
    assert page.locator("table.standings").is_visible()


@pytest.fixture
def japanese(browser):
    yield from phone_page(browser, locale="ja-JP", extra_http_headers={
        "Accept-Language": "ja-JP,ja;q=0.9"})


def test_a_card_says_how_it_reads_the_rules_the_texts_leave_open(live_server, japanese, shot):
    """A card with alternative 2, a single stake for a tonk out with a hit and
    three jokers, read in Japanese on a 390 px phone: the readings under their rules, the
    jokers in the setup, nothing wider than the phone."""
    from app.web.shared.links import encode_data

    page = japanese
    changes = {"deck": "jokers", "jokers": 3, "catch": "alt2", "tonk_out_by_hits_pays": 1}
    page.goto(live_server + "/rules/pagat?rules=" + encode_data(changes))
    readings = page.locator("ol.card-rules small.reading")
    assert readings.count() == 2
    assert "Tonk Tallyの読み方：" in readings.first.inner_text()
    assert "2人では賭け金1つ" in page.locator("ol.card-rules").inner_text()
    setup = page.locator("dl.card-setup").inner_text()
    assert "デッキのジョーカー" in setup and "3" in setup
    widest = page.evaluate("() => Math.max(...[...document.querySelectorAll('body *')]"
                           ".map(e => e.getBoundingClientRect().right))")
    assert widest <= 390, widest
    shot("card-readings-ja", page)
