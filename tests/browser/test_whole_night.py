"""A whole night in a real browser at a phone's 390x844, as a scorekeeper taps it:
a session with both side bets; Fay joins at the dealer's right, Gus after Bob, Cy leaves
(taking back his stake in the open pot);
a high-card deal nobody wins (each stake goes back), a naturals pot carried over three deals
and then won; settle-up with a partial payment that changes no other transfer, a payment
undone with a reason, and a close that carries the debts over to the home page. The totals,
pots and transfers the pages show are checked to the cent at every step (the same night as
tests/test_whole_night.py, through the API)."""
from __future__ import annotations

from decimal import Decimal

from tests.browser.helpers import amounts, leave, seat_totals, sign_up, submit, transfers


def totals(text: str) -> dict[str, Decimal]:
    names = ["Ann", "Bob", "Cy", "Dee", "Fay", "Gus"]
    return {n: Decimal(v) for n, v in zip(names, text.split(), strict=False)}


def test_the_whole_night_on_a_phone(live_server, page, shot):
    sign_up(page, live_server, "keeper-night@example.com")

    page.goto(live_server + "/sessions/new")
    page.fill("#name", "Friday")
    for i, name in enumerate(["Ann", "Bob", "Cy", "Dee"]):
        page.fill(f"#player-{i}", name)
    page.select_option("#first_dealer", "Dee")
    page.fill("#stake", "0.25")
    page.locator("details.side-bets summary").click()
    page.locator("label[for='sb-high_card']").click()
    page.fill("#sb-high_card-stake", "0.20")
    page.select_option("#sb-high_card-unclaimed", "return")
    page.locator("label[for='sb-naturals']").click()
    page.fill("#sb-naturals-stake", "0.10")
    submit(page, page.get_by_role("button", name="Start the session"))
    session_url = page.url

    def join(name: str, after: str = "") -> None:
        page.locator("details.seats-box > summary").click()
        page.fill("#join", name)
        if after:
            page.select_option("#after", after)
        submit(page, page.get_by_role("button", name="Join", exact=True))
        assert f"{name} joins the table." in page.content()

    def deal(kind: str, player: int | None = None, naturals: str = "nobody",
             high_card: bool = False) -> None:
        submit(page, page.get_by_role("link", name="+ Record hand"))
        page.locator(f"label[for='kind-{kind}']").click()
        if player is not None:
            page.locator(f"label[for='player-{player}']").click()
        if high_card:  # a dead hand starts with nobody in: tick them all
            for box in page.locator("#sb-high_card input[name=sb-high_card-in]").all():
                assert not box.is_checked()
            for label in page.locator("#sb-high_card label[for^=sb-high_card-in-]").all():
                label.click()
            page.select_option("#sb-high_card-suit", "H")
        page.locator(f"label[for='sb-naturals-{naturals}']").click()
        submit(page, page.get_by_role("button", name="Save hand"))
        page.goto(session_url)

    def standing(expected: str, naturals: str) -> None:
        assert seat_totals(page) == totals(expected)
        assert amounts(page, "ul.pots li") == {"High card": Decimal("0.00"),
                                               "Naturals": Decimal(naturals)}

    join("Fay")
    deal("dead", high_card=True)  # nobody holds a heart: each high-card stake goes back
    standing("-0.10 -0.10 -0.10 -0.10 -0.10", "0.50")
    join("Gus", after="Bob")
    deal("tonk_out", player=1)  # Bob (seated Ann, Bob, Gus, Cy, Fay, Dee)
    standing("-0.70 2.30 -0.70 -0.70 -0.70 -0.60", "1.10")
    page.locator("details.seats-box > summary").click()
    leave(page, "Cy")
    standing("-0.70 2.30 -0.50 -0.70 -0.70 -0.60", "0.90")  # Cy took his 0.20 back
    deal("dead")
    standing("-0.80 2.20 -0.50 -0.80 -0.80 -0.70", "1.40")  # carried over three deals
    shot("01-pot-carried-over-three-deals")
    deal("dead", naturals="won-2")  # Gus, third of Ann, Bob, Gus, Fay, Dee
    standing("-0.90 2.10 -0.50 -0.90 -0.90 1.10", "0.00")  # none of it Cy's
    shot("02-pot-won")

    page.goto(session_url + "/settle")
    plan = ["Ann → Bob $0.90", "Cy → Bob $0.30", "Cy → Gus $0.20", "Dee → Bob $0.90",
            "Fay → Gus $0.90"]
    assert transfers(page) == plan
    cy_bob = page.locator("ul.transfers > li").filter(has_text="Cy → Bob")
    cy_bob.locator("form.part input[name=amount]").fill("0.10")
    submit(page, cy_bob.get_by_role("button", name="Paid in part"))
    after_part = transfers(page)
    assert after_part[:1] == plan[:1] and after_part[2:] == plan[2:]  # no other moved
    assert after_part[1].startswith("Cy → Bob $0.20 (of $0.30; $0.10 paid)")
    shot("03-partial-payment")
    submit(page, page.locator("ul.transfers > li").filter(has_text="Ann → Bob").get_by_role(
        "button", name="Paid in full"))
    assert [t.split(" (")[0] for t in transfers(page)] == [
        "Cy → Bob $0.20", "Cy → Gus $0.20", "Dee → Bob $0.90", "Fay → Gus $0.90"]
    undo = page.locator("ul.paid > li").filter(has_text="Ann → Bob")
    undo.locator("summary").click()  # each undo box starts folded
    undo.locator("input[name=reason]").fill("Ann has not paid yet")
    submit(page, undo.get_by_role("button", name="Undo"))
    assert "Undone by Keeper" in page.locator("ul.paid").inner_text()
    assert transfers(page)[0] == "Ann → Bob $0.90"
    shot("04-undone-with-a-reason")
    page.locator("details.confirm summary", has_text="Close, keep the debts").click()
    shot("05-close-asks-first")
    submit(page, page.get_by_role("button", name="Yes, close and keep the debts"))
    page.goto(session_url + "/settle")
    assert page.locator("ul.debts > li").count() == 5
    shot("05-closed-debts-carried-over")
    page.goto(live_server + "/")
    assert page.locator("ul.debts > li").count() == 5
    shot("06-home-with-the-debts")
    for path in ("", "/settle", "/hands/4"):
        page.goto(session_url + path)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path


def test_a_dead_hand_leaves_nobody_in_the_high_card_bet_nor_its_winner(live_server, page):
    """Choosing a dead hand unticks everyone from the high-card bet and puts its winner back
    to nobody; a winner chosen anyway, who did not bet, is refused beside the bet's winner
    (docs/rules.md §9), and no hand is saved."""
    sign_up(page, live_server, "keeper-dead@example.com")
    page.goto(live_server + "/sessions/new")
    page.fill("#name", "Friday")
    for i, name in enumerate(["Ann", "Bob", "Cy", "Dee"]):
        page.fill(f"#player-{i}", name)
    page.fill("#stake", "0.25")
    page.locator("details.side-bets summary").click()
    page.locator("label[for='sb-high_card']").click()
    page.fill("#sb-high_card-stake", "0.25")
    page.locator("label[for='sb-naturals']").click()
    page.fill("#sb-naturals-stake", "0.10")
    submit(page, page.get_by_role("button", name="Start the session"))
    session_url = page.url

    submit(page, page.get_by_role("link", name="+ Record hand"))
    page.locator("label[for='kind-tonk_out']").click()
    page.locator("label[for='sb-high_card-won-2']").click()  # Cy, while everyone is in
    page.locator("label[for='kind-dead']").click()
    boxes = page.locator("#sb-high_card input[name=sb-high_card-in]").all()
    assert [box.is_checked() for box in boxes] == [False] * 4
    assert page.locator("#sb-high_card-nobody").is_checked()
    page.locator("label[for='sb-high_card-won-2']").click()  # Cy again, as the newcomer did
    submit(page, page.get_by_role("button", name="Save hand"))
    assert page.locator("#err-sb-high_card-winner").text_content() == \
        "the high-card side bet's winner, \"Cy\", did not bet"
    page.goto(session_url)
    assert not page.locator("ol.hands .hand").count()
