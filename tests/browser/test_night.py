"""A whole night at the table in a real browser, at a phone's 390x844: sign up, start a
four-player session, record ten hands covering every kind of end (counts typed, cards
typed, and the card picker), correct one, void one, settle up, mark every transfer paid
(one in part first) and close. Under the pagat rules and under push-ups.

The totals the page shows are checked against the core settling the same hands on its
own, so the browser run checks the arithmetic too, not only that pages load.
"""
from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from app.core import parse_hand, settle
from tests.browser.helpers import PLAYERS, fill_hand, submit

# Every kind of end. "counts" are typed where the page asks for them; "cards" are typed in
# the cards box instead of a count; "picker" taps cards in the card picker.
HANDS: list[dict[str, Any]] = [
    {"kind": "tonk_out", "player": "Ann", "counts": {"Bob": 12, "Cy": 3, "Dee": 20}},
    {"kind": "run_out", "player": "Bob", "counts": {"Ann": 7, "Cy": 10, "Dee": 4}},
    {"kind": "drop", "player": "Cy", "counts": {"Ann": 20, "Bob": 15, "Cy": 3, "Dee": 30}},
    {"kind": "drop", "player": "Dee", "counts": {"Ann": 5, "Bob": 12, "Cy": 9, "Dee": 9}},
    {"kind": "stock_out", "counts": {"Ann": 14, "Bob": 6, "Cy": 9, "Dee": 20}},
    {"kind": "stock_out", "counts": {"Ann": 6, "Bob": 6, "Cy": 9, "Dee": 20}},
    {"kind": "deal", "counts": {"Ann": 30, "Bob": 25, "Cy": 49, "Dee": 20}},
    {"kind": "dead"},
    {"kind": "tonk_out", "player": "Dee", "big_one": True,
     "counts": {"Ann": 2, "Bob": 8, "Cy": 11}},
    {"kind": "drop", "player": "Ann", "counts": {"Bob": 17, "Cy": 25},
     "cards": {"Dee": "KS QH 3C"}, "picker": {"Ann": ["AS", "2H"]}},
]
CORRECTION: tuple[int, dict[str, Any]] = (4, {"kind": "drop", "player": "Dee",
                  "counts": {"Ann": 15, "Bob": 12, "Cy": 9, "Dee": 4}})
VOIDED = 2


def as_data(spec: dict[str, Any], dealer: str) -> dict[str, Any]:
    """The hand as the core takes it (only what the page would send)."""
    end = {"kind": spec["kind"]}
    if "player" in spec:
        end["player"] = spec["player"]
    data = {"end": end, "dealer": dealer, "multiplier": 2 if spec.get("big_one") else 1}
    counts = dict(spec.get("counts", {}))
    cards = {name: text.split() for name, text in spec.get("cards", {}).items()}
    cards.update(spec.get("picker", {}))
    return data | {"counts": counts, "cards": cards}


def expected_totals(preset: str, stake: str) -> dict[str, Decimal]:
    """What the night should come to, from the core alone."""
    versions = {}
    for number, spec in enumerate(HANDS, start=1):
        versions[number] = as_data(spec, PLAYERS[(number - 1) % 4])
    number, spec = CORRECTION
    versions[number] = as_data(spec, versions[number]["dealer"])
    del versions[VOIDED]
    totals = dict.fromkeys(PLAYERS, Decimal(0))
    for data in versions.values():
        hand = {**data, "rules": preset, "stake": stake, "players": PLAYERS}
        kind = data["end"]["kind"]
        needs = kind in ("drop", "stock_out", "deal") or preset == "push_ups"
        if not needs:
            hand.pop("counts")
        hand = {k: v for k, v in hand.items() if v != {}}
        result = settle(parse_hand(hand))
        values = result.pushed if result.pushed is not None else result.net
        assert values is not None  # one of the two is there
        for name in PLAYERS:
            totals[name] += Decimal(values[name])
    return totals


def shown_totals(page) -> dict[str, Decimal]:
    out = {}
    for item in page.locator("ul.totals li").all():
        name = item.locator(".who").inner_text().strip()
        text = item.inner_text().replace(name, "", 1).strip()
        number = re.sub(r"[^\d.,\-−+]", "", text).replace("−", "-").replace(",", "")
        out[name] = Decimal(number.replace("+", ""))
    return out


# Money under pagat, and points under push-ups (no stake, nothing to transfer). Other presets
# only change the arithmetic, which the page tests of tests/test_web.py check per preset.
@pytest.mark.parametrize("preset, stake", [("pagat", "0.25"), ("push_ups", "1")])
def test_a_whole_night(live_server, page, shot, preset, stake):

    page.goto(live_server + "/")
    shot("01-welcome")
    page.get_by_role("link", name="Sign up").first.click()
    page.fill("#name", "Keeper")
    page.fill("#email", f"keeper-{preset}@example.com")
    page.fill("#password", "a long enough password")
    page.get_by_role("button", name="Sign up").click()
    shot("02-home")

    page.goto(live_server + "/sessions/new")
    page.fill("#name", f"Friday ({preset})")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player-{i}", name)
    page.select_option("#first_dealer", "0")
    page.fill("#stake", stake)
    page.select_option("#preset", preset)
    shot("03-new-session")
    page.get_by_role("button", name="Start the session").click()
    assert page.locator("h1").inner_text() == f"Friday ({preset})"
    session_url = page.url

    for number, spec in enumerate(HANDS, start=1):
        page.get_by_role("link", name="+ Record hand").click()
        fill_hand(page, spec)
        if number in (1, 3, 10):
            shot(f"04-record-hand-{number}")
        page.get_by_role("button", name="Save hand").click()
        assert page.url.startswith(session_url), page.url
        recorded = page.locator("section.recorded h2").inner_text()
        assert recorded.startswith(f"Hand {number}"), (recorded, page.content()[:2000])
    shot("05-session-after-ten-hands")

    number, spec = CORRECTION
    page.goto(f"{session_url}/hands/{number}")
    page.get_by_role("link", name="Correct this hand").click()
    fill_hand(page, spec)
    page.fill("#reason", "Dee counted her cards wrong")
    submit(page, page.get_by_role("button", name="Save the correction"))
    page.goto(f"{session_url}/hands/{number}")
    assert "Dee counted her cards wrong" in page.content()
    shot("06-corrected-hand")

    page.goto(f"{session_url}/hands/{VOIDED}")
    page.get_by_text("Void this hand").click()
    page.fill("#void-reason", "dealt with a short deck")
    submit(page, page.get_by_role("button", name="Void the hand"))
    page.goto(f"{session_url}/hands/{VOIDED}")
    assert "dealt with a short deck" in page.content()
    shot("07-voided-hand")

    page.goto(session_url)
    assert shown_totals(page) == expected_totals(preset, stake)
    shot("08-totals")

    page.goto(session_url + "/settle")
    shot("09-settle-up")
    parts = page.locator("form.part")
    if parts.count():
        parts.first.locator("input[name=amount]").fill("0.50" if preset == "pagat" else "1")
        submit(page, parts.first.get_by_role("button", name="Paid in part"))
        while page.get_by_role("button", name="Paid in full").count():
            submit(page, page.get_by_role("button", name="Paid in full").first)
    assert "Everything is paid." in page.content() or preset == "push_ups"
    shot("10-all-paid")
    page.locator("details.confirm summary", has_text="Close the session").click()
    shot("11-close-asks-first")
    page.get_by_role("button", name="Yes, close it").click()
    page.goto(session_url)
    assert "closed" in page.locator("p.meta").inner_text()
    assert page.get_by_role("link", name="+ Record hand").count() == 0
    shot("11-closed")
    page.goto(live_server + "/")
    assert "closed" in page.locator("ul.cards").inner_text()
    shot("11-home-with-a-closed-session")

    # The narrowest phones: nothing may scroll sideways.
    page.set_viewport_size({"width": 360, "height": 740})
    for path in ("", "/hands/1", f"/hands/{CORRECTION[0]}", "/settle", "/hands/new"):
        page.goto(session_url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, (path, width)
    page.goto(session_url)
    shot("12-at-360px")
