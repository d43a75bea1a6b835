"""The dispute checker with no signal, in Chromium at 390x844 on ``tonk serve``: /check opened
once online (the service worker keeps it, the page starts the core), then the signal cut and
the page reloaded; players and house rules never seen online are set up (the hand fields
drawn on the phone, and drawn again when the preset changes), a hand is entered and the
phone rules it. Its nets are the server's ruling of the same hand, read from the server's
own page back online; and a form sent while the browser still thinks it has a signal (the
POST fails) is checked on the phone from the page the service worker keeps."""
from __future__ import annotations

from decimal import Decimal

from tests.browser.helpers import ARTIFACTS

#: The phone starts its core as a new phone does (conftest's ``page``).
CORE = True
#: How long a page may take to start the core (Pyodide) on a busy machine, in ms.
COLD_START = 120_000
PLAYERS = ["Zoë", "Bartholomew", "Kim", "Lou", "Mo"]


def nets(page) -> dict[str, Decimal]:
    return {el.get_attribute("data-player"): Decimal(el.get_attribute("data-net"))
            for el in page.locator("#ruling [data-player][data-net]").all()}


def part(locator, name: str) -> None:
    """A screenshot of one part of the page (the full page is too tall to look at)."""
    locator.screenshot(path=str(ARTIFACTS / f"test_check_offline-part-{name}.png"))


def test_check_a_hand_with_no_signal(live_server, page, shot):
    base = live_server
    page.goto(base + "/check")
    page.wait_for_function("() => !!navigator.serviceWorker.controller")
    page.goto(base + "/check")  # (now in the worker's charge: kept, the core fetched through it)
    page.wait_for_selector("html[data-counting='phone']", timeout=COLD_START)

    page.context.set_offline(True)
    page.reload()
    assert page.locator("body[data-offline-as-of]").count() == 1  # the page kept
    assert page.locator("#count-0").count() == 0
    page.fill("#players", ", ".join(PLAYERS))
    page.fill("#stake", "0,50")
    page.get_by_role("button", name="Next: the hand").click()
    page.wait_for_selector("#count-4", state="attached", timeout=COLD_START)  # the core again
    assert page.locator("#count-5").count() == 0
    assert page.locator("label[for='player-0']").inner_text() == "Zoë"
    assert page.locator("input[name='five_face']").count() == 0  # Pagat has none
    shot("01-offline-hand-fields")

    # Another preset and a rule of the table's own: the fields drawn again for them.
    page.select_option("#preset", "rushville")
    page.wait_for_selector("input[name='five_face']", state="attached")
    assert page.locator("input[name='five_face']").count() == len(PLAYERS)
    page.get_by_text("Change single rules").click()
    page.select_option("#opt-catch", "alt3")
    page.evaluate("() => { document.getElementById('hand-step').dataset.before = '1'; }")
    page.get_by_role("button", name="Update the form for these players and rules").click()
    page.wait_for_selector("#hand-step:not([data-before])", state="attached")

    page.locator("label[for='kind-drop']").click()
    page.locator("label[for='player-2']").click()  # Kim dropped
    for seat, count in enumerate([14, 20, 9, 9, 33]):
        if seat != 3:
            page.fill(f"#count-{seat}", str(count))
    row = page.locator(".count-row[data-name='Lou']")  # Lou's cards from the picker: 4S 5H
    row.locator("button.pick").click()
    for card in ("4S", "5H"):
        row.locator(f".picker button[data-card='{card}']").click()
    row.locator(".picker .done").click()
    assert page.input_value("#count-3") == "9"
    page.select_option("#dealer", "Mo")
    page.locator("label[for='big_one']").click()
    shot("02-offline-hand-entered")
    part(page.locator("#hand-step"), "hand-entered")
    page.get_by_role("button", name="Check the ruling").click()
    page.wait_for_selector("#ruling [data-player][data-net]")
    phone = nets(page)
    assert list(phone) == PLAYERS and sum(phone.values()) == 0 and any(phone.values())
    assert page.locator("#ruling .payments li .rule").count() >= 1
    assert page.locator("section.compare table.rulings tbody tr").count() >= 6
    assert page.locator("#ruling h2").inner_text().startswith("The ruling: ")
    shot("03-offline-ruling")
    part(page.locator("#ruling"), "ruling")
    part(page.locator("section.compare"), "other-rules")

    # The POST fails for want of network while the browser thinks it has a signal: the
    # service worker answers with the checker as kept, which checks what was sent.
    page.evaluate("() => Object.defineProperty(navigator, 'onLine', {get: () => true})")
    with page.expect_navigation():
        page.get_by_role("button", name="Check the ruling").click()
    page.wait_for_selector("#ruling [data-player][data-net]", timeout=COLD_START)
    assert nets(page) == phone
    assert page.input_value("#players") == ", ".join(PLAYERS)

    # Back online: the server rules the same form; its page carries the same nets.
    page.context.set_offline(False)
    page.get_by_role("button", name="Check the ruling").click()
    page.wait_for_url("**/check?hand=*")
    assert page.locator("body[data-offline-as-of]").count() == 0
    assert nets(page) == phone
    assert page.locator("#ruling [data-player][data-net]").count() == len(PLAYERS)
    shot("04-the-servers-ruling")
    part(page.locator("#ruling"), "servers-ruling")
    part(page.locator("section.compare"), "servers-other-rules")
