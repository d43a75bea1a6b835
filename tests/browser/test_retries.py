"""Two things a real night does to a phone, in a real browser at 390x844: a double tap on
"Save hand" (one hand is saved, the button rests while it is sent), and a correction made
on one phone while another voids the same hand (the page says who changed it, shows the
hand as it is now beside the correction as typed, and a second "Save" applies it)."""
from __future__ import annotations

import re

from tests.browser.helpers import sign_up


def _night(page, base: str, email: str) -> str:
    """Sign up and start a pagat session of Ann, Bob and Cy; returns the session's URL."""
    sign_up(page, base, email)
    page.goto(base + "/sessions/new")
    page.fill("#name", "Friday")
    for i, name in enumerate(["Ann", "Bob", "Cy"]):
        page.fill(f"#player-{i}", name)
    page.fill("#stake", "0.25")
    page.get_by_role("button", name="Start the session").click()
    page.wait_for_url(re.compile(r"/sessions/\d+$"))
    return page.url


def test_a_double_tap_on_save_saves_one_hand(live_server, page, shot):
    session = _night(page, live_server, "tap@example.com")
    page.goto(session + "/hands/new")
    page.locator("label[for='kind-tonk_out']").click()
    page.locator("label[for='player-1']").click()
    save = page.get_by_role("button", name="Save hand")
    save.dblclick()
    page.wait_for_url(session)
    shot("01-after-double-tap")
    assert page.locator("ol.hands li.hand").count() == 1
    page.go_back()  # back to the form as it was sent, and "Save hand" once more
    if page.url.endswith("/hands/new"):
        button = page.get_by_role("button", name="Save hand")
        assert button.is_enabled()  # it rests only while the form is being sent
        button.click()
        page.wait_for_url(session)
    page.goto(session)
    assert page.locator("ol.hands li.hand").count() == 1


def test_a_correction_meets_a_void_made_meanwhile(live_server, page, shot):
    session = _night(page, live_server, "both@example.com")
    page.goto(session + "/hands/new")
    page.locator("label[for='kind-tonk_out']").click()
    page.locator("label[for='player-0']").click()
    page.get_by_role("button", name="Save hand").click()
    page.wait_for_url(session)

    page.goto(session + "/hands/1/correct")  # this phone starts a correction …
    other = page.context.new_page()  # … while another phone voids the hand
    other.goto(session + "/hands/1")
    other.get_by_text("Void this hand").click()
    other.fill("#void-reason", "misdeal")
    other.get_by_role("button", name="Void the hand").click()
    other.wait_for_url(session + "/hands/1")
    other.close()

    page.locator("label[for='player-2']").click()
    page.fill("#reason", "it was Cy")
    page.get_by_role("button", name="Save the correction").click()
    shot("02-conflict")
    assert "was voided by Keeper at" in page.locator("#err-form").inner_text()
    assert page.locator(".conflict").is_visible()
    assert page.locator("#player-2").is_checked()  # the correction as typed is kept
    page.get_by_role("button", name="Save the correction").click()
    page.wait_for_url(session + "/hands/1")
    shot("03-corrected")
    assert "Cy" in page.locator("h1").inner_text()
