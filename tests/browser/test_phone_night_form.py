"""A newcomer's finding, in Chromium at 390x844 on ``tonk serve``: with no signal the phone's
new-session form (read by the core in Pyodide) stopped at its first problem where the
server's page says them all, and a player's name past 40 characters was cut as it was typed
(there and in the night's join field). Now the phone says every problem of the form at once,
in the core's words, each beside its field and counted at the top as the server's page
counts them; a name too long is refused beside its field and shown again as typed."""
from __future__ import annotations

import re

from tests.browser.helpers import COLD_START, kept_night, opened_once, sign_up

#: The phone starts its core as a new phone does (conftest's ``page``).
CORE = True
#: A name past the 40 characters a player's name may have.
LONG = "Bartholomew Fitzgerald-Montgomery the Third"


def test_the_phone_s_new_session_form_says_every_problem_at_once(live_server, page, shot):
    base = live_server
    sign_up(page, base, "newcomer@example.com")
    opened_once(page, base)
    page.context.set_offline(True)
    page.goto(base + "/sessions/new")
    for i, name in enumerate(["Ann", LONG, "Cy"]):
        page.fill(f"#player-{i}", name)
    page.select_option("#first_dealer", "5")  # seat 6: nobody sits there
    page.fill("#stake", "lots")
    page.get_by_role("button", name="Start the session").click()
    summary = page.locator("#error-summary")
    summary.wait_for(timeout=COLD_START)
    assert summary.locator("h2").inner_text() == "4 things to fix"
    assert summary.locator("a[data-field]").evaluate_all(  # in the form's order
        "links => links.map((a) => a.dataset.field)") == [
            "name", "player-1", "first_dealer", "stake"]
    for field in ("name", "player-1", "first_dealer", "stake"):
        assert page.locator(f"#err-{field}").is_visible(), field
    assert "at most 40 characters" in page.text_content("#err-player-1")
    assert "seat 6 has no player" in page.text_content("#err-first_dealer")
    assert page.input_value("#player-1") == LONG  # as typed, not cut at 40
    assert page.url == base + "/sessions/new"
    shot("every-problem-at-once")

    # Put right, the night starts on the phone; a newcomer's name too long is refused beside
    # the join field, which keeps it as typed, and nothing is kept.
    page.fill("#name", "Late")
    page.fill("#player-1", "Bob")
    page.select_option("#first_dealer", "1")
    page.fill("#stake", "0.25")
    page.get_by_role("button", name="Start the session").click()
    page.wait_for_url(re.compile(r".*/phone/nights/[0-9a-f]{32}$"), timeout=COLD_START)
    page.wait_for_selector("html[data-night='phone']", timeout=COLD_START)
    page.wait_for_selector("#night-totals [data-player='Bob']", timeout=COLD_START)
    page.fill("#join-name", LONG)
    page.get_by_role("button", name="Seat them").click()
    page.wait_for_selector("#night-join #err-join")
    assert "at most 40 characters" in page.text_content("#err-join")
    assert page.input_value("#join-name") == LONG
    assert [e["kind"] for e in kept_night(page)["events"]] == ["started"]
