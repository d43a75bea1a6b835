"""A night whose table changes, in a real browser at a phone's 390x844: start a session
with both side bets, a player joins from the session page, three hands with side bets
(the high card won, a naturals pot won, then one carried), a player leaves, taking back
their stake in the open pot, and is pointed to their own transfers; the totals and pots the
pages show are checked to the cent, and nothing scrolls sideways."""
from __future__ import annotations

from decimal import Decimal

from tests.browser.helpers import amounts, leave, seat_totals, sign_up, submit

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]




def test_players_join_and_leave_and_side_bets_fill_and_empty_their_pots(
        live_server, page, shot):
    sign_up(page, live_server, "keeper@example.com")

    page.goto(live_server + "/sessions/new")
    page.fill("#name", "Friday")
    for i, name in enumerate(PLAYERS):
        page.fill(f"#player-{i}", name)
    page.fill("#stake", "0.25")
    page.locator("details.side-bets summary").click()
    page.locator("label[for='sb-high_card']").click()
    page.select_option("#sb-high_card-unclaimed", "return")
    page.locator("label[for='sb-naturals']").click()
    page.fill("#sb-naturals-stake", "0.10")
    shot("01-new-session-side-bets")
    page.get_by_role("button", name="Start the session").click()
    session_url = page.url

    page.locator("details.seats-box > summary").click()
    page.fill("#join", "Fay")
    shot("02-join")
    submit(page, page.get_by_role("button", name="Join", exact=True))
    assert "Fay joins the table." in page.content()

    # Seated now: Ann, Bob, Cy, Dee, Fay (Fay at the dealer's right: Ann deals next).
    page.get_by_role("link", name="+ Record hand").click()
    page.locator("label[for='kind-tonk_out']").click()
    page.locator("label[for='player-4']").click()
    page.select_option("#sb-high_card-suit", "H")
    page.locator("label[for='sb-high_card-won-1']").click()  # Bob
    shot("03-record-hand-with-side-bets")
    submit(page, page.get_by_role("button", name="Save hand"))
    assert "Bob wins the pot: $1.25." in page.content()
    shot("04-recorded-with-side-bets")

    for winner in ("sb-naturals-won-0", "sb-naturals-nobody"):  # Ann, then nobody
        page.get_by_role("link", name="+ Record hand").click()
        page.locator("label[for='kind-dead']").click()
        page.locator(f"label[for='{winner}']").click()
        submit(page, page.get_by_role("button", name="Save hand"))

    page.locator("details.seats-box > summary").click()
    assert page.input_value("#leave") == ""  # nobody chosen until the scorekeeper picks
    leave(page, "Bob")
    assert "Bob left the table" in page.content()
    assert seat_totals(page) == {  # Bob took back the 0.10 he had in the naturals pot
        "Ann": Decimal("-0.05"), "Bob": Decimal("0.30"), "Cy": Decimal("-1.05"),
        "Dee": Decimal("-1.05"), "Fay": Decimal("1.45")}
    assert amounts(page, "ul.pots li") == {"High card": Decimal("0.00"),
                                           "Naturals": Decimal("0.40")}
    shot("05-session-after-a-leave")

    submit(page, page.get_by_role("link", name="settle up with Bob"))
    assert "Bob settles up on the way out" in page.content()
    assert "Bob took back their stake still in the side-bet pots, $0.10, on leaving" in \
        page.content()
    shot("06-settle-up-on-the-way-out")
    page.goto(session_url + "/hands/new")
    assert page.locator("#player-4").count() == 0  # four seated: Ann, Cy, Dee, Fay
    for path in ("", "/hands/new", "/settle?player=Bob", "/hands/1"):
        page.goto(session_url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (path, width)
    page.goto(session_url + "/hands/1")
    shot("07-hand-with-side-bets")
