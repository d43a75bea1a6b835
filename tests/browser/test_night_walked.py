"""A whole night walked end to end against ``tonk serve``, on a 390x844 phone: five
players with a high-card side bet, 21 hands tapped into the record form as a scorekeeper
does, Fay joining, Dee leaving while the high-card pot holds her stake (two deals nobody won
just before), a correction and a void of hands dealt after she left, the share view on a
second phone following by itself, settle-up with a PayPal.me and a Venmo handle, every
transfer but one paid, and a close that carries the last one over.

Every number the pages show is checked against the core's own arithmetic on the hands as
the form sent them (``app.core.settle`` for each hand, ``app.core.sidebets.replay_deals``
for the pot, ``app.core.transfers.fewest_transfers`` for the settle-up), never against
numbers typed here; and Dee's total is checked never to move after she left (the house's
reading: a leaver takes her stake out of the open pots as she goes).
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, urlsplit

from app.core import parse_hand, settle
from app.core.sidebets import Play, SideBet, replay_deals, return_pot
from app.core.transfers import Transfer, fewest_transfers
from tests.browser.helpers import PHONE_CONTEXT, amounts, leave, seat_totals, sign_up, submit

STAKE = "0.25"
HIGH_CARD = SideBet("high_card", Decimal("0.10"))  # suit called each deal, unclaimed: carry
FIRST = ["Ann", "Bob", "Cy", "Dee", "Eve"]
SUITS = "SHDC"
ZERO = Decimal(0)


@dataclass
class Hand:
    """One hand as the record form sent it: what the test tapped, and what the form itself
    said (the players in seat order and the dealer it chose)."""

    players: list[str]
    dealer: str
    end: dict[str, Any]
    counts: dict[str, int]
    multiplier: int
    plays: tuple[Play, ...]


class Night:
    """The night as the core alone reckons it, from the hands as recorded."""

    def __init__(self) -> None:
        self.hands: dict[int, Hand] = {}
        self.voided: set[int] = set()
        self.seated = list(FIRST)
        self.everyone = list(FIRST)

    def reckon(self) -> tuple[dict[str, Decimal], Decimal, dict[str, Decimal]]:
        """Each player's total (hands + side bets, the leaver's take-back included), the
        money in the high-card pot, and what it gives back at settle-up."""
        totals = dict.fromkeys(self.everyone, ZERO)
        deals: list[tuple[Play, ...]] = []
        tables: list[list[str] | None] = []
        for number in sorted(self.hands):
            hand = self.hands[number]
            if number in self.voided:
                deals.append(())
                tables.append(None)
                continue
            data: dict[str, Any] = {"rules": "pagat", "stake": STAKE, "players": hand.players,
                                    "dealer": hand.dealer, "end": hand.end,
                                    "multiplier": hand.multiplier}
            if hand.counts:
                data["counts"] = hand.counts
            net = settle(parse_hand(data)).net
            assert net is not None
            for name, amount in net.items():
                totals[name] += Decimal(amount)
            deals.append(hand.plays)
            tables.append(hand.players)
        settled, pots = replay_deals(deals, {"high_card": HIGH_CARD}, tables=tables,
                                     seated=set(self.seated))
        for side, _outcomes in settled:
            for name, amount in side.items():
                totals[name] += amount
        pot = pots.get("high_card")
        back = return_pot(pot) if pot is not None else {}
        return totals, (pot.total if pot is not None else ZERO), back


def counts_for(names: list[str], number: int, low: str | None = None) -> dict[str, int]:
    """Counts at the end of a hand, varied by seat and hand; ``low``'s is small (a drop)."""
    return {n: (4 + number % 5 if n == low else 11 + (7 * i + 5 * number) % 29)
            for i, n in enumerate(names)}


# The 21 hands: (kind, who went out or dropped, high-card winner; "nobody" and None differ:
# None is a dead deal, where nobody is in the side bet), with "big" for the Big One.
PLAN: dict[int, tuple[str, str | None, str | None]] = {
    1: ("tonk_out", "Ann", "Bob"), 2: ("drop", "Cy", "nobody"), 3: ("run_out", "Eve", "Dee"),
    4: ("stock_out", None, "Ann"), 5: ("dead", None, None), 6: ("drop", "Bob", "Cy"),
    # Fay joins
    7: ("tonk_out", "Fay", "Fay"), 8: ("run_out", "Dee", "nobody"),
    9: ("drop", "Ann", "nobody"),
    # Dee leaves: the pot holds her stake of deals 8 and 9
    10: ("tonk_out", "Bob", "Eve"), 11: ("stock_out", None, "nobody"),
    12: ("run_out", "Cy", "Ann"), 13: ("drop", "Eve", "Fay"), 14: ("dead", None, None),
    15: ("tonk_out", "Ann", "nobody"), 16: ("drop", "Fay", "nobody"),
    # hand 10 corrected
    17: ("run_out", "Bob", "Bob"),
    # hand 12 voided
    18: ("stock_out", None, "Cy"), 19: ("tonk_out", "Eve", "nobody"),
    20: ("drop", "Cy", "Eve"), 21: ("tonk_out", "Eve", "nobody"),
}
BIG_ONE = {7}
COUNTED_KINDS = ("drop", "stock_out")


def money(text: str) -> Decimal:
    return Decimal(re.sub(r"[^\d.\-−]", "", text).replace("−", "-"))


def settle_transfers(page) -> list[Transfer]:
    """The open transfers of the settle page: the payer and payee in its first line's two
    <strong>, the amount in its .amt."""
    out = []
    for li in page.locator("ul.transfers > li").all():
        line = li.locator("p").first
        payer, payee = (s.strip() for s in line.locator("strong").all_inner_texts()[:2])
        out.append(Transfer(payer, payee, money(line.locator(".amt").inner_text())))
    return out


def test_a_whole_night_walked_end_to_end(live_server, browser, page, shot):
    started = time.monotonic()
    night = Night()
    sign_up(page, live_server, "keeper-walked@example.com")
    page.goto(live_server + "/sessions/new")
    page.fill("#name", "Saturday at Cy's")
    for i, name in enumerate(FIRST):
        if not page.locator(f"#player-{i}").is_visible():  # past the first seats: a tap more
            page.locator("#new-session details.more > summary").click()
        page.fill(f"#player-{i}", name)
    page.fill("#stake", STAKE)
    page.fill("#currency", "USD")
    page.locator("details.side-bets summary").click()
    page.locator("label[for='sb-high_card']").click()
    page.fill("#sb-high_card-stake", str(HIGH_CARD.stake))
    submit(page, page.get_by_role("button", name="Start the session"))
    session_url = page.url
    assert re.search(r"/sessions/\d+$", session_url), session_url
    share_url = page.input_value("#share-url")

    def check(where: str, on=None) -> dict[str, Decimal]:
        """The page's totals and pot are the core's, to the cent."""
        totals, pot, _back = night.reckon()
        expected = {n: totals[n] for n in night.everyone}
        shown = seat_totals(on or page)
        assert shown == expected, (where, shown, expected)
        assert list(amounts(on or page, "ul.pots li").values()) == [pot], where
        assert sum(expected.values()) + pot == 0, where  # totals and pot sum to zero
        return shown

    def record(number: int) -> None:
        """Tap hand ``number`` into the record form, as PLAN says."""
        kind, who, high = PLAN[number]
        submit(page, page.locator(f"a[href='{urlsplit(session_url).path}/hands/new']").first)
        names = page.locator(".count-row").evaluate_all("rows => rows.map(r => r.dataset.name)")
        assert sorted(names) == sorted(night.seated), (number, names)
        dealer = page.input_value("#dealer")
        page.locator(f"label[for='kind-{kind}']").click()
        end: dict[str, Any] = {"kind": kind}
        if who is not None:
            page.locator(f"label[for='player-{names.index(who)}']").click()
            end["player"] = who
        counts = counts_for(names, number, who) if kind in COUNTED_KINDS else {}
        for name, count in counts.items():
            page.fill(f"#count-{names.index(name)}", str(count))
        if number in BIG_ONE:
            page.locator("label[for='big_one']").click()
        plays: tuple[Play, ...] = ()
        if high is not None:  # everyone is in by default; the dealer calls a suit
            suit = SUITS[number % 4]
            page.select_option("#sb-high_card-suit", suit)
            boxes = page.locator("#sb-high_card input[name=sb-high_card-in]")
            assert all(box.is_checked() for box in boxes.all()), number
            winner = None if high == "nobody" else high
            if winner is not None:
                page.locator(f"label[for='sb-high_card-won-{names.index(winner)}']").click()
            plays = (Play("high_card", tuple(names), winner, suit),)
        else:  # a dead deal: the form leaves everyone out of the side bet
            assert page.locator("#sb-high_card input[name=sb-high_card-in]:checked").count() == 0
        submit(page, page.locator("#hand-form button").last)
        assert re.split(r"[?#]", page.url)[0] == session_url, (number, page.url)
        assert page.locator(f"#recorded-{number}").count() == 1, number
        night.hands[number] = Hand(names, dealer, end, counts, 2 if number in BIG_ONE else 1,
                                   plays)
        check(f"after hand {number}")

    def paid_in_full(t: Transfer) -> None:
        """Tap "Paid in full" on the settle page's open transfer ``t``."""
        li = page.locator("ul.transfers > li").filter(
            has=page.locator(f"input[name=payer][value='{t.payer}']")).filter(
            has=page.locator(f"input[name=payee][value='{t.payee}']"))
        assert money(li.locator("p").first.locator(".amt").inner_text()) == t.amount
        submit(page, li.locator("form:not(.part) button"))

    def share_follows(where: str) -> float:
        """Seconds until the second phone shows the scorekeeper's totals by itself."""
        saved = time.monotonic()
        while True:
            try:
                check(where, on=phone)
                return time.monotonic() - saved
            except AssertionError:  # (or the part is being replaced as it is read)
                if time.monotonic() - saved > 6:
                    raise
                phone.wait_for_timeout(200)

    record(1)
    # The share view on a second phone: no account, no cookie; it follows by itself.
    other = browser.new_context(**PHONE_CONTEXT)
    phone = other.new_page()
    phone_errors: list[str] = []
    phone.on("pageerror", lambda exc: phone_errors.append(str(exc)))
    phone.goto(share_url)
    check("share view, opened", on=phone)
    follows = []
    record(2)
    follows.append(share_follows("share view after hand 2"))
    shot("01-share-view-follows", phone)
    for number in range(3, 7):
        record(number)

    # Fay joins at the dealer's right: nothing moves, she starts at 0.
    page.locator("details.seats-box > summary").click()
    page.fill("#join", "Fay")
    submit(page, page.locator("form.seat-form:has(#join) button"))
    night.seated.append("Fay")
    night.everyone.append("Fay")
    assert check("after Fay joined")["Fay"] == 0
    for number in (7, 8, 9):
        record(number)
    _, pot, _ = night.reckon()
    assert pot == 12 * HIGH_CARD.stake  # deals 8 and 9 nobody won: six stakes each

    # Dee leaves with 0.20 of hers in the pot: she takes it back as she goes.
    before = seat_totals(page)["Dee"]
    page.locator("details.seats-box > summary").click()
    leave(page, "Dee")
    night.seated.remove("Dee")
    dee = check("after Dee left")["Dee"]
    assert dee == before + 2 * HIGH_CARD.stake
    shot("02-dee-left-with-her-stake")
    # She settles up on the way out and pays: nothing dealt later may ask her for more.
    page.goto(session_url + "/settle?player=Dee")
    totals, _, back = night.reckon()
    balances = {n: t + back.get(n, ZERO) for n, t in totals.items()}
    own = [t for t in fewest_transfers(balances) if "Dee" in (t.payer, t.payee)]
    shown_own = []
    for li in page.locator("section.leaving ul.owing > li").all():
        payer, payee = (w.strip() for w in li.locator(".who").all_inner_texts())
        shown_own.append(Transfer(payer, payee, money(li.locator(".amt").inner_text())))
    assert sorted(shown_own, key=repr) == sorted(own, key=repr) != []
    assert sum(t.amount if t.payee == "Dee" else -t.amount for t in own) == dee
    shot("03-dee-settles-up-on-the-way-out")
    for t in own:
        paid_in_full(t)
    paid = list(own)
    page.goto(session_url + "/settle?player=Dee")
    assert page.locator("section.leaving ul.owing").count() == 0  # nothing left to pay
    page.goto(session_url)

    def dee_still(where: str) -> None:
        assert seat_totals(page)["Dee"] == dee, where
        assert night.reckon()[0]["Dee"] == dee, where  # the core agrees: no later deal moves it

    for number in range(10, 17):
        record(number)
        dee_still(f"hand {number}")

    # A correction of a hand dealt after Dee left: Bob ran out, and Cy had the high card.
    page.goto(f"{session_url}/hands/10")
    submit(page, page.locator("section.actions a[href$='/hands/10/correct']"))
    names = page.locator(".count-row").evaluate_all("rows => rows.map(r => r.dataset.name)")
    assert names == night.hands[10].players
    assert page.input_value("#dealer") == night.hands[10].dealer
    page.locator("label[for='kind-run_out']").click()
    page.locator(f"label[for='sb-high_card-won-{names.index('Cy')}']").click()
    page.fill("#reason", "Bob went out with a hit, and Cy held the king of spades")
    submit(page, page.locator("#hand-form button").last)
    old = night.hands[10]
    night.hands[10] = Hand(old.players, old.dealer, {"kind": "run_out", "player": "Bob"},
                           {}, 1, (Play("high_card", tuple(names), "Cy", old.plays[0].suit),))
    page.goto(session_url)
    check("after the correction")
    dee_still("after the correction")
    shot("04-after-the-correction")
    record(17)

    # A void of the hand whose deal Ann's high card won: the pot carries on to hand 13.
    page.goto(f"{session_url}/hands/12")
    page.locator("section.actions details > summary").click()
    page.fill("#void-reason", "dealt from a short deck")
    submit(page, page.locator("section.actions form button"))
    night.voided.add(12)
    page.goto(session_url)
    check("after the void")
    dee_still("after the void")
    follows.append(share_follows("share view after the void"))
    for number in range(18, 22):
        record(number)
        dee_still(f"hand {number}")
    follows.append(share_follows("share view after hand 21"))
    shot("05-share-view-at-the-end", phone)
    other.close()
    assert phone_errors == []
    assert all(seconds < 6 for seconds in follows), follows
    shot("06-session-after-21-hands")

    # Settle-up: the balances are the totals plus what the open pot gives back; what is
    # left of them once Dee's payments are counted is planned again, without her.
    totals, pot, back = night.reckon()
    assert pot > 0 and sum(back.values()) == pot  # hand 21's deal: nobody won it
    balances = {n: totals[n] + back.get(n, ZERO) for n in night.everyone}
    assert sum(balances.values()) == 0
    remaining = dict(balances)
    for t in paid:
        remaining[t.payer] += t.amount
        remaining[t.payee] -= t.amount
    assert remaining["Dee"] == 0  # she went home paid in full and owes nothing more
    plan = fewest_transfers(remaining)
    payees = list(dict.fromkeys(t.payee for t in plan))
    assert len(payees) >= 2, plan
    handles = {payees[0]: ("paypal", "walkedpays"), payees[1]: ("venmo", "walked-pays")}
    for name, (service, handle) in handles.items():
        page.goto(f"{session_url}/players/{name}/pay")
        page.fill(f"#{service}", handle)
        submit(page, page.get_by_role("button", name="Save"))
    page.goto(session_url + "/settle")
    shown = settle_transfers(page)  # the page's plan
    assert sorted(shown, key=repr) == sorted(plan, key=repr)
    assert len(shown) <= len(night.everyone) - 1
    assert all("Dee" not in (t.payer, t.payee) for t in shown)
    for name in night.everyone:  # what was paid and what is open square each one exactly
        moved = sum((t.amount for t in [*paid, *shown] if t.payee == name), ZERO) - \
            sum((t.amount for t in [*paid, *shown] if t.payer == name), ZERO)
        assert moved == balances[name], name
    for t, li in zip(shown, page.locator("ul.transfers > li").all(), strict=True):
        if t.payee not in handles:
            continue
        service, handle = handles[t.payee]
        href = li.locator(f"a.pay-{service}").get_attribute("href")
        if service == "paypal":
            assert href == f"https://paypal.me/{handle}/{t.amount:.2f}USD", href
        else:
            link = urlsplit(href)
            assert (link.netloc, link.path) == ("venmo.com", f"/{handle}"), href
            assert parse_qs(link.query)["amount"] == [f"{t.amount:.2f}"], href
    shot("07-settle-up-with-pay-links")

    # Every transfer paid but the last; the session closes carrying that one over.
    last = shown[-1]
    for t in shown[:-1]:
        paid_in_full(t)
    assert settle_transfers(page) == [last]
    closing = page.locator("form:has(input[name=carry_over])")
    closing.locator("details.confirm summary").click()
    submit(page, closing.locator("button"))
    page.goto(session_url + "/settle")
    debts = page.locator("ul.debts > li")
    assert debts.count() == 1
    line = debts.first.locator("p").first
    assert [s.strip() for s in line.locator("strong").all_inner_texts()[:2]] == \
        [last.payer, last.payee]
    assert money(line.locator(".amt").inner_text()) == last.amount
    assert page.locator("ul.transfers > li, form:has(input[name=carry_over])").count() == 0
    if last.payee in handles:  # the debt, shown once, keeps its pay link
        service, _handle = handles[last.payee]
        assert debts.first.locator(f"a.pay-{service}").count() == 1
    shot("08-closed-debt-carried-over")
    page.goto(session_url)
    assert "closed" in page.locator("p.meta .badge").inner_text()
    assert page.locator("a[href$='/hands/new'], details.seats-box").count() == 0
    assert page.locator("a[href*='settle?player=']").count() == 0  # the leaver is settled
    assert seat_totals(page) == {n: totals[n] for n in night.everyone}
    page.goto(f"{session_url}/hands/21")
    assert page.locator("section.actions").count() == 0  # no correction, no void
    shot("09-closed")
    print(f"the night walked in {time.monotonic() - started:.1f} s; the share view "
          f"followed in {', '.join(f'{s:.1f}' for s in follows)} s")
