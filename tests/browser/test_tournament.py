"""Tournament day on phones: a director checks ten players in, draws
round one (tables of 4, 3 and 3), three table phones without accounts record through their
scorekeeping links while the bar's TV board follows by itself, a player withdraws before
round three (nine players: 3, 3, 3), and the final standings and prize list come out with a
two-way tie for second sharing the second and third prizes, summing to the pool.
Screenshots in test-artifacts/screenshots (each page checked with axe-core first)."""
from __future__ import annotations

import re
from decimal import Decimal

from tests.browser.helpers import DESKTOP, PHONE_CONTEXT, sign_up
from tests.expect import matched

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"]


def _tables(page) -> list[tuple[list[str], str]]:
    """Each table of the round being played: its players and its scorekeeping link."""
    found = []
    for card in page.locator("li.table-card").all():
        players = card.locator("p").first.inner_text().split(" · ")[0].split(", ")
        found.append((players, card.locator("input.keeper-link").input_value()))
    return found


def _record(phone, link: str, kind: str, player: str | None = None) -> None:
    """One hand through the table's link, on a phone with no account."""
    phone.goto(link + "/hands/new")
    phone.locator(f"label[for='kind-{kind}']").click()
    if player:
        phone.locator("label[for^='player-']", has_text=re.compile(f"^{player}$")).click()
    phone.get_by_role("button", name="Save hand").click()
    phone.wait_for_url(link)


def _close_and_draw(page, director: str, number: int) -> None:
    page.goto(director)
    page.get_by_role("button", name=f"Close round {number}").click()
    page.wait_for_url(director)
    page.get_by_role("button", name="Draw the tables").click()
    page.wait_for_url(director)


def test_tournament_day(live_server, browser, page, shot):
    base = live_server
    sign_up(page, base, "director@example.com")
    page.get_by_role("link", name="Tournaments").click()
    page.get_by_role("link", name="+ New tournament").click()
    page.fill("#name", "Malone Open")
    page.fill("#rounds", "3")
    page.fill("#hands_per_round", "2")
    page.fill("#entry_fee", "20")
    page.fill("#prizes", "0.5, 0.3, 0.2")
    shot("01-new-event")
    page.get_by_role("button", name="Set up the tournament").click()
    page.wait_for_url(re.compile(r"/events/\d+$"))
    director = page.url

    late = PLAYERS[-1]
    for name in PLAYERS:  # check-in, each fee paid but the last's: the box starts unticked
        page.fill("#name", name)
        assert not page.is_checked("#paid")
        if name != late:
            page.check("#paid")
        page.get_by_role("button", name="Check in", exact=True).click()
        page.wait_for_url(director)
    assert page.locator("#players li").count() == 10
    assert page.locator("#players .badge.paid").count() == 9
    assert "10 players for the next draw" in page.inner_text("main")
    # The draw says who has not paid, and will not seat them unasked.
    assert page.inner_text("#unpaid-names") == late
    page.fill("#seed", "24")
    page.get_by_role("button", name="Draw the tables").click()
    assert f"not marked paid for {late}" in page.inner_text("#err-unpaid")
    shot("01b-unpaid-fee")
    page.locator("#players li", has_text=late).get_by_role("button", name="Mark paid").click()
    page.wait_for_url(director)
    assert page.locator("#unpaid").count() == 0
    page.fill("#seed", "24")
    page.get_by_role("button", name="Draw the tables").click()
    page.wait_for_url(director)
    tables = _tables(page)
    assert [len(players) for players, _link in tables] == [4, 3, 3]
    assert sorted(p for players, _link in tables for p in players) == sorted(PLAYERS)
    shot("02-round-1-drawn")
    # Each table's link: Copy says so, Open opens it; all the codes print on one sheet.
    first = page.locator("li.table-card").first
    first.get_by_role("button", name="Copy link").click()
    # the clipboard answers when it likes (a promise): wait for what it says, not read it
    # at once (a run under load read an empty status)
    first.locator("[role=status]", has_text="Copied").wait_for()
    assert "Copied" in first.locator("[role=status]").inner_text()
    assert first.get_by_role("link", name="Open").get_attribute("href") == tables[0][1]
    with page.expect_navigation():  # (counted once the sheet has loaded: a run under load
        page.get_by_role("link", name="All tables’ QR codes on one sheet").click()  # was early)
    assert page.locator("#link-sheet li").count() == 3
    assert page.locator("#link-sheet svg").first.bounding_box()["width"] >= 200
    shot("02b-links-sheet")
    page.goto(director)

    # The TV: no account, follows by itself.
    tv_context = browser.new_context(viewport=DESKTOP)
    tv = tv_context.new_page()
    tv_errors: list[str] = []
    tv.on("pageerror", lambda exc: tv_errors.append(str(exc)))
    tv.goto(page.get_by_role("link", name="Leaderboard for the TV").get_attribute("href"))
    assert "Round 1 of 3" in tv.inner_text(".board-round")
    assert tv.locator("#standings tbody tr").count() == 10  # the page itself, not its markup

    # Three table phones, no accounts.
    phones = []
    for _ in tables:
        context = browser.new_context(**PHONE_CONTEXT)
        phones.append(context.new_page())
    for phone, (_players, link) in zip(phones, tables, strict=True):
        phone.goto(link)
        assert "Table" in phone.inner_text("h1")
    _record(phones[0], tables[0][1], "dead")
    tv.wait_for_function(  # the board notices by itself (it asks every 1.5 s)
        "() => document.querySelector('#board-table-1') && "
        "document.querySelector('#board-table-1').textContent.includes('1 of 2 hands')",
        timeout=5000)
    for phone, (_players, link) in zip(phones, tables, strict=True):
        while "2 of 2 hands played" not in phone.inner_text("#hands-count"):
            _record(phone, link, "dead")
        # The round's hands are played: no "Record hand", the table waits.
        assert phone.locator("#record-hand").count() == 0
        assert "waits for the director" in phone.inner_text("#round-played")
    shot("03-table-phone", phones[0])

    _close_and_draw(page, director, 1)
    round_two = _tables(page)
    assert [len(players) for players, _link in round_two] == [4, 3, 3]
    # Round 1's link now shows how that table ended and where each of its players sits.
    phones[0].goto(tables[0][1])
    assert "Round 1 is over" in phones[0].inner_text("#round-over")
    assert phones[0].locator("#table-result li").count() == len(tables[0][0])
    sits = {name: number for number, (players, _link) in enumerate(round_two, 1)
            for name in players}
    for name in tables[0][0]:
        said = phones[0].inner_text(f"#next-tables li[data-player='{name}']")
        assert said.split() == [name, "Table", str(sits[name])]
    shot("03b-table-after-round", phones[0])
    for phone, (_players, link) in zip(phones, round_two, strict=True):
        _record(phone, link, "dead")
        _record(phone, link, "dead")
    page.goto(director)
    page.get_by_role("button", name="Close round 2").click()
    page.wait_for_url(director)

    # Jo withdraws before round 3: nine players at three tables of three.
    page.get_by_role("button", name="Withdraw Jo").click()
    page.wait_for_url(director)
    assert "9 players for the next draw" in page.inner_text("main")
    page.get_by_role("button", name="Draw the tables").click()
    page.wait_for_url(director)
    round_three = _tables(page)
    assert [len(players) for players, _link in round_three] == [3, 3, 3]
    assert "Jo" not in [p for players, _link in round_three for p in players]
    shot("04-round-3-drawn")

    # Table 1's first player wins both hands (+8); tables 2 and 3 each have one winner
    # (+4, tied for second) and a dead hand.
    first = round_three[0][0][0]
    second = sorted([round_three[1][0][0], round_three[2][0][0]])
    _record(phones[0], round_three[0][1], "tonk_out", first)
    _record(phones[0], round_three[0][1], "tonk_out", first)
    for phone, (players, link) in zip(phones[1:], round_three[1:], strict=True):
        _record(phone, link, "tonk_out", players[0])
        _record(phone, link, "dead")
    tv.wait_for_function(
        "() => [1, 2, 3].every(n => document.querySelector('#board-table-' + n) && "
        "document.querySelector('#board-table-' + n).textContent.includes('done'))",
        timeout=5000)
    page.goto(director)
    page.get_by_role("button", name="Close round 3").click()
    page.wait_for_url(director)
    assert "All rounds are played" in page.inner_text("main")

    # (on a phone each row is a card, not a line of tab-separated cells: read its cells)
    places = [(row.locator("td.place").inner_text().strip(),
               row.locator("th a").inner_text().strip())
              for row in page.locator("#standings tbody tr").all()]
    assert places[0] == ("1", first)
    assert sorted(name for place, name in places if place == "2") == second
    assert [place for place, _name in places].count("2") == 2
    lines = page.locator("#prizes .prize-lines li").all_inner_texts()
    assert lines[0] == f"Place 1 · {first}: $100.00"
    assert lines[1] == f"Place 2 · {second[0]} and {second[1]}: $50.00 each"
    pool = Decimal(matched(r"pool \$([\d.,]+)", page.inner_text("#prizes")).group(1))
    paid = Decimal(100) + 2 * Decimal(50)
    assert pool == Decimal(200) == paid
    shot("05-results")

    # The TV has followed to the end, and shows the prize list.
    tv.wait_for_function("() => document.querySelector('#prizes') !== null", timeout=5000)
    shot("06-tv", tv)
    # A player's own view.
    phones[1].goto(tv.url + "/players/" + second[0])
    assert "Place 2" in phones[1].inner_text("#my-place")
    shot("07-player-view", phones[1])
    for phone in phones:
        phone.context.close()
    tv_context.close()
    assert tv_errors == []

